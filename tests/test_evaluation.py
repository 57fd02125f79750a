from collections import Counter

import spacy
from frames_toy import toy_docs, toy_inventory
from spacy.tokens import Span
from spacy.training import Example

from spacy_frames.corpora.readers import copy_targets
from spacy_frames.scoring.frames_eval import score_lookup_baseline, subset


def toy_examples():
    nlp = spacy.blank("en")
    examples = []
    for reference in toy_docs(nlp.vocab):
        predicted = nlp.make_doc(reference.text)
        copy_targets(reference, predicted)
        examples.append(Example(predicted, reference))
    return examples


def test_subset_keeps_only_selected_targets():
    out = subset(toy_examples(), lambda span: span.label_ == "Giving")
    assert [[(s.text, s.label_) for s in eg.reference.spans["targets"]] for eg in out] == [
        [("gave", "Giving"), ("gift", "Giving")],
        [("handed", "Giving")],
    ]
    assert [[(s.text, s._.lexical_unit) for s in eg.predicted.spans["targets"]] for eg in out] == [
        [("gave", "give.v"), ("gift", "gift.n")],
        [("handed", "hand.v")],
    ]


def test_subset_of_predicted_frames_matches_the_label_too():
    """frame_elements' FN1.7 new-frame evaluation: the predicted frame spans kept are those
    on a kept gold target with its frame."""
    examples = toy_examples()
    for eg in examples:
        eg.predicted.spans["frames"] = [
            Span(eg.predicted, s.start, s.end, label=label)
            for s in eg.reference.spans["targets"]
            for label in (s.label_, "Other")
        ]
    out = subset(examples, lambda span: span.label_ == "Giving", "frames", match_label=True)
    assert [[(s.text, s.label_) for s in eg.predicted.spans["frames"]] for eg in out] == [
        [("gave", "Giving"), ("gift", "Giving")],
        [("handed", "Giving")],
    ]
    # without label matching every frame on those targets stays
    loose = subset(examples, lambda span: span.label_ == "Giving", "frames")
    assert [len(eg.predicted.spans["frames"]) for eg in loose] == [4, 2]


def test_lookup_baseline_most_frequent_frame():
    counts = {"give.v": Counter({"Transfer": 3, "Giving": 1})}  # wrong on purpose for give.v
    scores = score_lookup_baseline(toy_examples(), counts, toy_inventory())
    # 8 targets: give.v -> Transfer (wrong); the rest fall back to their only lexicon frame
    assert scores == {"frame_acc": 87.5, "frame_acc_ambiguous": None, "targets": 8}

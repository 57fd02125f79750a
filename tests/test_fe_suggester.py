"""frame_elements' candidate suggester: its shape, its bounds and its recall on a toy sentence."""
import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.util import registry

from spacy_frames.suggesters import doc_rows


def parsed_doc():
    # "The bank gave a loan to the small farmer ." with a hand-made parse; target "gave"
    nlp = spacy.blank("en")
    words = "The bank gave a loan to the small farmer .".split()
    heads = [1, 2, 2, 4, 2, 2, 8, 8, 5, 2]
    deps = ["det", "nsubj", "ROOT", "det", "dobj", "prep", "det", "amod", "pobj", "punct"]
    pos = ["DET", "NOUN", "VERB", "DET", "NOUN", "ADP", "DET", "ADJ", "NOUN", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, heads=heads, deps=deps, pos=pos)
    doc.spans["frames"] = [Span(doc, 2, 3, label="Giving")]
    return doc


def suggest(doc, **settings):
    suggester = registry.misc.get("spacy-frames.fe_candidate_suggester.v1")(**settings)
    (rows,) = doc_rows(suggester([doc]))
    return {(r[2], r[3]) for r in rows}, rows


def test_recall_of_gold_fes_on_a_toy_sentence():
    doc = parsed_doc()
    gold = {(0, 2), (3, 5), (5, 9), (6, 9)}  # Donor, Theme, Recipient (with and without "to")
    candidates, rows = suggest(doc, max_ngram=2)
    assert all(r[:2] == [2, 3] for r in rows)
    # "to the small farmer" (4 tokens) only comes from the parse: the subtree of "to"
    assert gold <= candidates
    without_parse, _ = suggest(doc, max_ngram=2, subtrees=False)
    assert len(gold & without_parse) / len(gold) == pytest.approx(0.5)


def test_candidates_stay_in_the_window_and_off_the_target():
    doc = parsed_doc()
    candidates, _ = suggest(doc, max_ngram=3, window=2)
    assert candidates and all(start >= 0 and end <= 5 for start, end in candidates)
    assert not any(start < 3 and end > 2 for start, end in candidates)


def test_no_frames_no_rows_and_bad_settings():
    doc = parsed_doc()
    del doc.spans["frames"]
    candidates, _ = suggest(doc)
    assert candidates == set()
    with pytest.raises(ValueError, match="max_ngram"):
        registry.misc.get("spacy-frames.fe_candidate_suggester.v1")(max_ngram=0)

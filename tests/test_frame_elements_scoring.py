"""open-sesame's labeled argument-identification measure (score_frame_elements_open_sesame), by hand."""

import pytest
import spacy
from spacy.tokens import Span
from spacy.training import Example

from spacy_frames.extensions import FE_KEY, FRAMES_KEY, TARGETS_KEY, install_extensions, make_fe_span
from spacy_frames.inventory.frames import FrameInventory
from spacy_frames.scoring.frame_elements import score_frame_elements, score_frame_elements_open_sesame

CORE_TYPES = {
    "Donor": "Core",
    "Theme": "Core",
    "Recipient": "Core",
    "Time": "Peripheral",
    "Means": "Core-Unexpressed",
    "Purpose": "Extra-Thematic",
}


def giving_inventory() -> FrameInventory:
    fes = [{"name": name, "core_type": core} for name, core in CORE_TYPES.items()]
    frames = {"Giving": {"id": 1, "definition": "", "lexical_units": ["give.v"], "frame_elements": fes}}
    return FrameInventory(frames=frames, relations={}, source="test")


def with_fes(doc, target: Span, fes):
    doc.spans[FE_KEY] = [make_fe_span(target, start, end, name) for start, end, name in fes]
    return doc


@pytest.fixture(scope="module")
def nlp():
    install_extensions()
    return spacy.blank("en")


def giving_docs(nlp, gold_fes, pred_fes):
    text = "Kim gave Lee the book and a pen yesterday with cash ."
    gold, pred = nlp.make_doc(text), nlp.make_doc(text)
    gold.spans[TARGETS_KEY] = [Span(gold, 1, 2, label="Giving")]
    pred.spans[FRAMES_KEY] = [Span(pred, 1, 2, label="Giving")]
    with_fes(gold, gold.spans[TARGETS_KEY][0], gold_fes)
    with_fes(pred, pred.spans[FRAMES_KEY][0], pred_fes)
    return Example(pred, gold)


def test_open_sesame_measure_by_hand(nlp):
    # gold: Donor "Kim", Recipient "Lee", Theme in two pieces ("the book", "a pen"), Time
    # "yesterday", Means "with cash" (Core-Unexpressed: weighs 0.5, as every non-"Core" FE)
    gold_fes = [
        (0, 1, "Donor"),
        (2, 3, "Recipient"),
        (3, 5, "Theme"),
        (6, 8, "Theme"),
        (8, 9, "Time"),
        (9, 11, "Means"),
    ]
    pred_fes = [
        (0, 1, "Donor"),  # right: 1
        (2, 3, "Recipient"),  # an extra piece: Recipient is wrong (1 missed, 1 spurious)
        (5, 6, "Recipient"),
        (3, 5, "Theme"),  # one piece of two: Theme is wrong (1 missed, 1 spurious)
        (8, 9, "Time"),  # right: 0.5
        (9, 11, "Purpose"),  # Extra-Thematic, not gold: 0.5 spurious (Means missed: 0.5)
    ]
    eg = giving_docs(nlp, gold_fes, pred_fes)
    scores = score_frame_elements_open_sesame([eg], inventory=giving_inventory())
    tp, pred, gold = 1 + 0.5, 1 + 1 + 1 + 0.5 + 0.5, 1 + 1 + 1 + 0.5 + 0.5
    assert scores["fe_os_p"] == pytest.approx(tp / pred) and scores["fe_os_r"] == pytest.approx(tp / gold)
    # the strict measure counts spans: 4 of 6 predicted spans are gold spans
    strict = score_frame_elements([eg])
    assert (strict["fe_p"], strict["fe_r"]) == (pytest.approx(4 / 6), pytest.approx(4 / 6))
    # every piece, and nothing more: the name is right
    fixed = giving_docs(nlp, gold_fes, [fe for fe in gold_fes if fe != (9, 11, "Means")] + [(9, 11, "Purpose")])
    scores = score_frame_elements_open_sesame([fixed], inventory=giving_inventory())
    assert scores["fe_os_r"] == pytest.approx(3.5 / 4) and scores["fe_os_p"] == pytest.approx(3.5 / 4)
    # a frame the inventory lacks (or no inventory): every FE weighs 1, as open-sesame does
    scores = score_frame_elements_open_sesame([eg])
    assert (scores["fe_os_p"], scores["fe_os_r"]) == (pytest.approx(2 / 5), pytest.approx(2 / 5))


def test_open_sesame_measure_counts_fes_on_the_target_and_gold_targets_only(nlp):
    text = "The president resigned ."
    gold, pred = nlp.make_doc(text), nlp.make_doc(text)
    gold.spans[TARGETS_KEY] = [Span(gold, 1, 2, label="Leadership")]
    frames = [Span(pred, 1, 2, label="Leadership"), Span(pred, 2, 3, label="Quitting")]
    pred.spans[FRAMES_KEY] = frames
    gold.spans[FE_KEY] = [make_fe_span(gold.spans[TARGETS_KEY][0], 1, 2, "Leader")]
    # the FE on the target itself, and an FE of a target that is no gold target (not counted)
    pred.spans[FE_KEY] = [make_fe_span(frames[0], 1, 2, "Leader"), make_fe_span(frames[1], 0, 2, "Employee")]
    scores = score_frame_elements_open_sesame([Example(pred, gold)])
    assert (scores["fe_os_p"], scores["fe_os_r"], scores["fe_os_f"]) == (1.0, 1.0, 1.0)
    assert score_frame_elements_open_sesame([Example(nlp.make_doc("x"), nlp.make_doc("x"))])["fe_os_f"] is None


def test_new_frames_fes_split_by_names_seen_in_training_or_new(nlp):
    """fe_names_seen_or_new: the scorer's per-FE-name counts split by whether each FE name
    is one the model was trained on."""
    from spacy_frames.scoring.frame_elements_eval import fe_names_seen_or_new

    gold = [(0, 1, "Donor"), (2, 3, "Recipient"), (3, 5, "Theme"), (8, 9, "Time")]
    pred = [(0, 1, "Donor"), (3, 5, "Theme"), (8, 9, "Purpose")]
    per_type = score_frame_elements([giving_docs(nlp, gold, pred)])["fe_per_type"]
    counts = fe_names_seen_or_new(per_type, trained={"Donor", "Recipient", "Purpose"})
    assert counts == {
        "gold_seen": 2,
        "predicted_seen": 2,
        "gold_new": 2,
        "predicted_new": 1,
        "recall_seen": 50.0,  # Donor found, Recipient missed
        "recall_new": 50.0,  # Theme found, Time missed
    }

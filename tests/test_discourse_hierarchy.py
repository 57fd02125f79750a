"""The PDTB-3 sense hierarchy, the hierarchical contrastive loss and the discourse metrics."""

import math

import numpy
import pytest
from test_losses import numeric_grad

from spacy_frames.inventory.senses import SenseHierarchy
from spacy_frames.losses import HierarchicalContrastiveLoss
from spacy_frames.scoring.discourse import level_scores, score_relations


def test_inventory_levels():
    h = SenseHierarchy()
    assert h.level1 == ["Temporal", "Contingency", "Comparison", "Expansion"]
    assert len(h.level2) == 22 and len(h.leaves) == 36
    # symmetric senses are leaves at level 2, asymmetric ones at level 3
    assert "Expansion.Conjunction" in h.leaves and "Comparison.Contrast" in h.leaves
    assert "Expansion.Level-of-detail" not in h.leaves and "Expansion.Level-of-detail.Arg2-as-detail" in h.leaves
    assert h.l1("Contingency.Cause.Reason") == "Contingency" and h.l2("Contingency.Cause.Reason") == "Contingency.Cause"


@pytest.mark.parametrize(
    "label,expected",
    [
        ("Cmparison.Concession", "Comparison.Concession"),  # GDTB typo
        ("Contingency.Cause.Result ", "Contingency.Cause.Result"),  # trailing blank
        ("expansion.level-of-detail.arg2-as-detail", "Expansion.Level-of-detail.Arg2-as-detail"),  # .rels
        ("arg2-as-detail", "Expansion.Level-of-detail.Arg2-as-detail"),  # DiscoGeM leaf
        ("synchronous", "Temporal.Synchronous"),
        ("NoRel", None),
        ("differentcon", None),
    ],
)
def test_normalize(label, expected):
    assert SenseHierarchy().normalize(label) == expected


def test_normalize_unknown_raises():
    with pytest.raises(ValueError, match="unknown discourse sense"):
        SenseHierarchy().normalize("Elaboration.Foo")


def test_sisters_stay_under_level1():
    h = SenseHierarchy()
    sisters = h.sisters("Temporal.Asynchronous.Precedence")
    assert sisters == ["Temporal.Synchronous", "Temporal.Asynchronous.Succession"]


def test_decoding_is_consistent_with_the_hierarchy():
    """discourse_sense decodes paths: level 1 prefers Temporal, level 2 (slightly)
    Conjunction; the best joint path is Temporal's, never Temporal + Conjunction."""
    import spacy

    component = spacy.blank("en").add_pipe("discourse_sense", config={"head_weights": [1.0, 1.0, 0.0]})
    for label in ("Temporal.Asynchronous.Precedence", "Expansion.Conjunction"):
        component.add_label(label)
    assert component.tables["level1"] == ["Temporal", "Expansion"]
    logits = [
        numpy.log(numpy.array([[0.9, 0.1]], dtype="float32")),
        numpy.log(numpy.array([[0.4, 0.6]], dtype="float32")),
        numpy.zeros((1, 2), dtype="float32"),
    ]
    senses, scores = component.decode(logits)
    assert senses == ["Temporal.Asynchronous.Precedence"]
    # the path probability among the two paths: 0.36 / (0.36 + 0.06)
    assert scores[0] == pytest.approx(0.36 / 0.42, rel=1e-5)
    relation = component.relation(*[spacy.blank("en")("a b")[i : i + 1] for i in (0, 1)], senses[0], scores[0])
    assert (relation["sense"], relation["level1"], relation["level2"]) == (
        "Temporal.Asynchronous",
        "Temporal",
        "Temporal.Asynchronous",
    )


def _unit(*xy):
    v = numpy.array(xy, dtype="float64")
    return v / numpy.linalg.norm(v)


# u1 . u2 = 0.6, u1 . u3 = 0, u2 . u3 = 0.8, u1 . u4 = -1, u2 . u4 = -0.6
VECTORS = numpy.stack([_unit(1, 0), _unit(0.6, 0.8), _unit(0, 1), _unit(-1, 0)]).astype("float32")
SENSES = numpy.array([0, 0, 1, 2])  # 0, 1: sisters under level-1 sense 0; 2 under another
LEVEL1 = numpy.array([0, 0, 0, 1])


def test_hierarchical_contrastive_hand_computed():
    loss = HierarchicalContrastiveLoss(temperature=1.0, positive_weight=1.6, negative_weight=1.0, negatives="sisters")
    _, value = loss(VECTORS, (SENSES, LEVEL1))
    # anchors 1 and 2 have a positive (each other); their only sister negative is 3
    pos = 1.6 * math.exp(0.6)
    l1 = -math.log(pos / (pos + math.exp(0.0)))
    l2 = -math.log(pos / (pos + math.exp(0.8)))
    assert value == pytest.approx((l1 + l2) / 2, rel=1e-5)


def test_hierarchical_contrastive_all_negatives_hand_computed():
    loss = HierarchicalContrastiveLoss(temperature=1.0, positive_weight=1.6, negative_weight=1.0, negatives="all")
    _, value = loss(VECTORS, (SENSES, LEVEL1))
    pos = 1.6 * math.exp(0.6)
    l1 = -math.log(pos / (pos + math.exp(0.0) + math.exp(-1.0)))
    l2 = -math.log(pos / (pos + math.exp(0.8) + math.exp(-0.6)))
    assert value == pytest.approx((l1 + l2) / 2, rel=1e-5)


@pytest.mark.parametrize("negatives", ["sisters", "all", "other-level1"])
def test_hierarchical_contrastive_gradient(negatives):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((6, 4)).astype("float64")
    senses, level1 = numpy.array([0, 0, 1, 1, 2, 2]), numpy.array([0, 0, 0, 0, 1, 1])
    loss = HierarchicalContrastiveLoss(temperature=0.5, negatives=negatives)
    grad, _ = loss(x, (senses, level1))
    numeric = numeric_grad(lambda v: loss(v, (senses, level1))[1], x)
    numpy.testing.assert_allclose(grad, numeric, atol=1e-5)


def test_hierarchical_contrastive_without_positives_is_zero():
    loss = HierarchicalContrastiveLoss()
    grad, value = loss(VECTORS[:3], (numpy.array([0, 1, 2]), numpy.array([0, 0, 0])))
    assert value == 0.0 and not grad.any()


def test_hierarchical_contrastive_bad_settings():
    with pytest.raises(ValueError, match="negatives"):
        HierarchicalContrastiveLoss(negatives="cousins")
    with pytest.raises(ValueError, match="temperature"):
        HierarchicalContrastiveLoss(temperature=0)


def test_level_scores_hand_computed():
    predicted = ["Expansion.Conjunction", "Contingency.Cause.Reason", "Expansion.Conjunction", None]
    gold = [
        ["Expansion.Conjunction"],
        ["Contingency.Cause.Result", "Expansion.Conjunction"],
        ["Contingency.Cause.Result"],
        ["Expansion.Conjunction"],
    ]
    scores = score_relations(predicted, gold)
    # level 2: right, right (Cause matches its first gold), wrong, none
    assert scores["l2"]["acc"] == 50.0
    # Conjunction: tp 1, fp 1, fn 1 -> F1 .5; Cause: tp 1, fn 1 -> P 1, R .5, F1 2/3
    assert scores["l2"]["per_sense"]["Expansion.Conjunction"]["f1"] == 50.0
    assert scores["l2"]["per_sense"]["Contingency.Cause"]["f1"] == pytest.approx(66.67, abs=0.01)
    assert scores["l2"]["macro_f1"] == pytest.approx((50.0 + 66.67) / 2, abs=0.01)
    assert scores["l1"]["acc"] == 50.0


def test_second_gold_sense_counts_as_correct():
    scores = level_scores(["Expansion.Conjunction"], [["Contingency.Cause.Result", "Expansion.Conjunction"]], 2)
    assert scores["acc"] == 100.0 and scores["per_sense"]["Expansion.Conjunction"]["f1"] == 100.0


def test_weighted_cross_entropy_rows():
    from spacy_frames.losses.base import _cross_entropy

    logits = numpy.array([[2.0, 0.0], [0.0, 1.0]])
    grad, values = _cross_entropy(numpy, logits, numpy.array([0, 0]), reduce=False)
    assert values[0] == pytest.approx(math.log(1 + math.exp(-2.0)))
    assert values[1] == pytest.approx(math.log(1 + math.exp(1.0)))
    mean_grad, mean_value = _cross_entropy(numpy, logits, numpy.array([0, 0]))
    numpy.testing.assert_allclose(mean_grad, grad / 2)
    assert mean_value == pytest.approx(values.mean())


def test_paired_bootstrap_of_two_systems():
    from spacy_frames.scoring.discourse_eval import paired_bootstrap

    gold = [
        ["Expansion.Conjunction"],
        ["Contingency.Cause.Reason"],
        ["Comparison.Contrast"],
        ["Expansion.Conjunction"],
    ] * 5
    right = [g[0] for g in gold]
    wrong = ["Temporal.Synchronous"] * len(gold)
    result = paired_bootstrap([right, right], [wrong], gold, n_resamples=50)
    assert result["l2_acc"]["diff"] == 100.0 and result["l2_acc"]["ci95"] == [100.0, 100.0]
    assert result["l1_acc"]["p_a_not_better"] == 0.0
    same = paired_bootstrap([right], [right], gold, n_resamples=50)
    assert (
        same["l2_acc"]["diff"] == 0.0
        and same["l2_acc"]["ci95"] == [0.0, 0.0]
        and same["l2_acc"]["p_a_not_better"] == 1.0
    )
    # half right vs all right: A is 50 points worse; the interval holds that and excludes 0
    half = [g[0] if i % 2 else "Temporal.Synchronous" for i, g in enumerate(gold)]
    worse = paired_bootstrap([half], [right], gold, n_resamples=200)
    assert worse["l2_acc"]["diff"] == -50.0 and worse["l2_acc"]["ci95"][1] < 0
    with pytest.raises(ValueError, match="one prediction per gold"):
        paired_bootstrap([right[:-1]], [right], gold)

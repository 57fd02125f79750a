"""Deep-metric-learning losses: values worked out by hand, finite-difference gradients, edge cases."""

import math

import numpy
import pytest
from spacy.util import registry
from test_losses import numeric_grad

from spacy_frames.losses import AdaCosLoss, ArcFaceLoss, ContrastiveLoss, SoftmaxLoss, TripletLoss

# four 2-d points, two classes, with easy distances:
# d01 = 0.5, d02 = 0.6, d03 = 1, d12 = 0.5, d13 = sqrt(0.45), d23 = sqrt(1.36)
POINTS = numpy.array([[0.0, 0.0], [0.3, 0.4], [0.6, 0.0], [0.0, 1.0]])
POINT_LABELS = numpy.array([0, 0, 1, 1], dtype="i")
D01, D02, D03, D12, D13, D23 = 0.5, 0.6, 1.0, 0.5, math.sqrt(0.45), math.sqrt(1.36)


def unit(degrees, length=1.0):
    """A 2-d vector at an angle, so that cosines between vectors are cosines of angle differences."""
    return length * numpy.array([math.cos(math.radians(degrees)), math.sin(math.radians(degrees))])


def cos_deg(degrees):
    return math.cos(math.radians(degrees))


def cross_entropy(logits, gold):
    """-log softmax(logits)[gold] for one row, written out."""
    return -(logits[gold] - math.log(sum(math.exp(z) for z in logits)))


def random_batch(seed, n=6, d=3):
    rng = numpy.random.default_rng(seed)
    return rng.normal(size=(n, d)), numpy.array([0, 0, 1, 1, 2, 2][:n], dtype="i")


# --- TripletLoss ----------------------------------------------------------------


def test_triplet_value_by_hand():
    m = 0.2
    # all (anchor, positive, negative): a != p same class, n the other class
    per_triplet = [
        D01 - D02 + m,  # (0, 1, 2): 0.1
        D01 - D03 + m,  # (0, 1, 3): -0.3 -> 0
        D01 - D12 + m,  # (1, 0, 2): 0.2
        D01 - D13 + m,  # (1, 0, 3)
        D23 - D02 + m,  # (2, 3, 0)
        D23 - D12 + m,  # (2, 3, 1)
        D23 - D03 + m,  # (3, 2, 0)
        D23 - D13 + m,  # (3, 2, 1)
    ]
    non_zero = [v for v in per_triplet if v > 0]
    assert len(non_zero) == 7
    expected = sum(non_zero) / len(non_zero)  # AvgNonZeroReducer
    grad, value = TripletLoss(margin=m)(POINTS.astype("f"), POINT_LABELS)
    assert value == pytest.approx(expected, rel=1e-5)
    assert grad.dtype == numpy.float32 and grad.shape == POINTS.shape


@pytest.mark.parametrize("margin", [0.2, 1.0])
def test_triplet_gradient(margin):
    x, labels = random_batch(0)
    loss = TripletLoss(margin=margin)
    grad, value = loss(x, labels)
    assert value > 0
    expected = numeric_grad(lambda v: loss.get_loss(v, labels), x, eps=1e-6)
    numpy.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-7)


def test_triplet_edge_cases():
    loss = TripletLoss()
    grad, value = loss(numpy.zeros((0, 4), dtype="f"), numpy.zeros((0,), dtype="i"))
    assert value == 0.0 and grad.shape == (0, 4)
    x = numpy.array([[0.0, 1.0], [1.0, 0.0], [0.6, 0.8]], dtype="f")
    for labels in ([0, 0, 0], [0, 1, 2]):  # one class: no negative; all distinct: no positive
        grad, value = loss(x, numpy.array(labels))
        assert value == 0.0 and not grad.any()
    # every triplet already satisfies the margin: nothing to average, zero gradient
    far = numpy.array([[0.0, 0.0], [0.01, 0.0], [5.0, 0.0], [5.0, 0.01]])
    grad, value = loss(far, POINT_LABELS)
    assert value == 0.0 and not grad.any()
    # all points equal: each triplet's loss is the margin, and the gradient stays finite
    grad, value = loss(numpy.ones((4, 3), dtype="f"), POINT_LABELS)
    assert value == pytest.approx(loss.margin) and numpy.isfinite(grad).all()
    assert loss.margin == 0.1  # the default, chosen on dev (README)
    with pytest.raises(ValueError, match="labels"):
        loss(x, numpy.array([0, 1]))


# --- ContrastiveLoss ------------------------------------------------------------


def test_contrastive_value_by_hand():
    pos_margin, neg_margin = 0.6, 0.8
    # ordered pairs count each unordered pair twice: the non-zero means are those of unordered pairs
    pos = [max(D01 - pos_margin, 0), max(D23 - pos_margin, 0)]  # 0, 0.566
    neg = [max(neg_margin - d, 0) for d in (D02, D03, D12, D13)]  # 0.2, 0, 0.3, 0.129
    pos_part = sum(pos) / 1  # one non-zero positive pair
    neg_part = sum(neg) / 3  # three non-zero negative pairs
    grad, value = ContrastiveLoss(pos_margin, neg_margin)(POINTS.astype("f"), POINT_LABELS)
    assert value == pytest.approx(pos_part + neg_part, rel=1e-5)
    assert grad.dtype == numpy.float32


def test_contrastive_single_class_keeps_positive_part():
    # as in pytorch-metric-learning: no negatives, the positive part alone (pos_margin 0: mean distance)
    x = POINTS[:3]
    grad, value = ContrastiveLoss()(x, numpy.array([7, 7, 7]))
    assert value == pytest.approx((D01 + D02 + D12) / 3, rel=1e-5)  # distances carry a ~1e-6 eps offset
    assert numpy.isfinite(grad).all()


@pytest.mark.parametrize("margins", [(0.0, 0.5), (0.3, 1.5)])
def test_contrastive_gradient(margins):
    x, labels = random_batch(1)
    loss = ContrastiveLoss(*margins)
    grad, value = loss(x, labels)
    assert value > 0
    expected = numeric_grad(lambda v: loss.get_loss(v, labels), x, eps=1e-6)
    numpy.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-7)


def test_contrastive_edge_cases():
    loss = ContrastiveLoss()
    grad, value = loss(numpy.zeros((0, 4), dtype="f"), numpy.zeros((0,), dtype="i"))
    assert value == 0.0 and grad.shape == (0, 4)
    # identical positives are at distance exactly 0 (no loss), negatives beyond the margin
    x = numpy.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype="f")
    grad, value = loss(x, numpy.array([0, 0, 1]))
    assert value == 0.0 and not grad.any()
    # a lone point: no pair at all
    grad, value = loss(x[:1], numpy.array([0]))
    assert value == 0.0 and not grad.any()


# --- SoftmaxLoss ----------------------------------------------------------------


def test_softmax_value_by_hand():
    emb = numpy.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]], dtype="f")
    weights = numpy.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], dtype="f")
    gold = numpy.array([0, 2, 1])
    # logits = emb @ weights.T, row by row
    expected = (cross_entropy([1, 0, -1], 0) + cross_entropy([0, 2, 0], 2) + cross_entropy([1, 1, -1], 1)) / 3
    (d_emb, d_weights), value = SoftmaxLoss()((emb, weights), gold)
    assert value == pytest.approx(expected, rel=1e-6)
    assert d_emb.shape == emb.shape and d_weights.shape == weights.shape and d_emb.dtype == numpy.float32


def check_class_gradients(loss, seed, n_classes=4):
    emb, labels = random_batch(seed)
    weights = numpy.random.default_rng(seed + 100).normal(size=(n_classes, emb.shape[1]))
    (d_emb, d_weights), _ = loss((emb, weights), labels)
    expected_emb = numeric_grad(lambda v: loss.get_loss((v, weights), labels), emb, eps=1e-6)
    expected_weights = numeric_grad(lambda v: loss.get_loss((emb, v), labels), weights, eps=1e-6)
    numpy.testing.assert_allclose(d_emb, expected_emb, rtol=1e-5, atol=1e-7)
    numpy.testing.assert_allclose(d_weights, expected_weights, rtol=1e-5, atol=1e-7)


def test_softmax_gradient():
    check_class_gradients(SoftmaxLoss(), seed=2)


def check_class_edge_cases(loss):
    weights = numpy.ones((3, 4), dtype="f")
    (d_emb, d_weights), value = loss((numpy.zeros((0, 4), dtype="f"), weights), numpy.zeros((0,), dtype="i"))
    assert value == 0.0 and d_emb.shape == (0, 4) and d_weights.shape == (3, 4) and not d_weights.any()
    # a single class: nothing to tell apart
    emb = numpy.random.default_rng(3).normal(size=(2, 4)).astype("f")
    (d_emb, d_weights), value = loss((emb, weights[:1]), numpy.array([0, 0]))
    assert value == pytest.approx(0.0, abs=1e-12) and numpy.allclose(d_emb, 0) and numpy.allclose(d_weights, 0)
    with pytest.raises(ValueError, match="out of range"):
        loss((emb, weights), numpy.array([0, 3]))
    with pytest.raises(ValueError, match="do not match"):
        loss((emb, weights[:, :3]), numpy.array([0, 1]))
    with pytest.raises(ValueError, match="labels"):
        loss((emb, weights), numpy.array([0]))


def test_softmax_edge_cases():
    check_class_edge_cases(SoftmaxLoss())


# --- ArcFaceLoss ----------------------------------------------------------------

# embeddings at 10 and 200 degrees, class weights at 40, 100 and 250 degrees; lengths
# differ on purpose: only the angles count
ANGLE_EMB = numpy.array([unit(10, 2.0), unit(200, 0.5)])
ANGLE_WEIGHTS = numpy.array([unit(40, 3.0), unit(100, 1.0), unit(250, 2.0)])
ANGLE_GOLD = numpy.array([0, 2])


@pytest.mark.parametrize("scale", [2.0, 64.0])
def test_arcface_value_by_hand(scale):
    m = 28.6  # degrees
    # row 0: angles 30 (gold, + margin), 90, 240; row 1: 160, 100, 50 (gold, + margin)
    row0 = [scale * cos_deg(30 + m), scale * cos_deg(90), scale * cos_deg(240)]
    row1 = [scale * cos_deg(160), scale * cos_deg(100), scale * cos_deg(50 + m)]
    expected = (cross_entropy(row0, 0) + cross_entropy(row1, 2)) / 2
    (d_emb, d_weights), value = ArcFaceLoss(margin=m, scale=scale)(
        (ANGLE_EMB.astype("f"), ANGLE_WEIGHTS.astype("f")), ANGLE_GOLD
    )
    assert value == pytest.approx(expected, rel=1e-5)
    assert d_emb.dtype == numpy.float32 and numpy.isfinite(d_emb).all() and numpy.isfinite(d_weights).all()


@pytest.mark.parametrize("margin,scale", [(28.6, 2.0), (10.0, 8.0)])
def test_arcface_gradient(margin, scale):
    check_class_gradients(ArcFaceLoss(margin=margin, scale=scale), seed=4)


def test_arcface_edge_cases():
    check_class_edge_cases(ArcFaceLoss())
    # an embedding on its class weight: cos = 1 is clipped before arccos, no NaN
    weights = numpy.eye(3, dtype="f")
    (d_emb, d_weights), value = ArcFaceLoss()((weights.copy(), weights), numpy.array([0, 1, 2]))
    assert numpy.isfinite(value) and numpy.isfinite(d_emb).all() and numpy.isfinite(d_weights).all()


# --- AdaCosLoss -----------------------------------------------------------------


def test_adacos_fixed_scale_value_by_hand():
    s = 3.0
    row0 = [s * cos_deg(30), s * cos_deg(90), s * cos_deg(240)]
    row1 = [s * cos_deg(160), s * cos_deg(100), s * cos_deg(50)]
    expected = (cross_entropy(row0, 0) + cross_entropy(row1, 2)) / 2
    loss = AdaCosLoss(init_scale=s, update_scale=False)
    _, value = loss((ANGLE_EMB, ANGLE_WEIGHTS), ANGLE_GOLD)
    assert value == pytest.approx(expected, rel=1e-6)
    assert loss.scale == s


def test_adacos_update_by_hand():
    # 4 classes at 40, 100, 250, 0 degrees; embeddings at 10 (gold 0), 200 (gold 2), 95 (gold 1)
    weights = numpy.array([unit(40), unit(100, 2.0), unit(250), unit(0, 0.5)])
    emb = numpy.array([unit(10), unit(200, 3.0), unit(95)])
    gold = numpy.array([0, 2, 1])
    angles = [[30, 90, 240, 10], [160, 100, 50, 200], [55, 5, 155, 95]]  # |emb - class| per row
    s0 = math.sqrt(2) * math.log(4 - 1)
    b_avg = (
        sum(math.exp(s0 * cos_deg(a)) for a in (90, 240, 10))  # row 0 without its gold 30
        + sum(math.exp(s0 * cos_deg(a)) for a in (160, 100, 200))  # row 1 without 50
        + sum(math.exp(s0 * cos_deg(a)) for a in (55, 155, 95))  # row 2 without 5
    ) / 3
    theta_med = math.radians(30)  # median of 30, 50, 5 degrees (< pi / 4)
    s1 = math.log(b_avg) / math.cos(theta_med)
    expected = sum(cross_entropy([s1 * cos_deg(a) for a in row], g) for row, g in zip(angles, gold)) / 3
    loss = AdaCosLoss()
    assert loss.scale is None and loss.update_scale
    _, value = loss((emb, weights), gold)
    assert loss.scale == pytest.approx(s1, rel=1e-9)
    assert value == pytest.approx(expected, rel=1e-6)
    # evaluation does not update the scale
    loss.get_loss((emb, weights), gold)
    assert loss.scale == pytest.approx(s1, rel=1e-9)
    # gold angles 30, 100, 95: the median (95) is capped at pi / 4
    gold = numpy.array([0, 1, 3])
    loss.scale = 2.0
    b_avg = (
        sum(math.exp(2.0 * cos_deg(a)) for a in (90, 240, 10))
        + sum(math.exp(2.0 * cos_deg(a)) for a in (160, 50, 200))
        + sum(math.exp(2.0 * cos_deg(a)) for a in (55, 5, 155))
    ) / 3
    loss((emb, weights), gold)
    assert loss.scale == pytest.approx(math.log(b_avg) / math.cos(math.pi / 4), rel=1e-9)


def test_adacos_gradient_uses_scale_as_constant():
    check_class_gradients(AdaCosLoss(init_scale=4.0, update_scale=False), seed=5)
    # with updates, the gradient is that of the loss at the updated (then fixed) scale
    emb, labels = random_batch(6)
    weights = numpy.random.default_rng(7).normal(size=(4, 3))
    loss = AdaCosLoss()
    (d_emb, _), _ = loss((emb, weights), labels)
    expected = numeric_grad(lambda v: loss.get_loss((v, weights), labels), emb, eps=1e-6)
    numpy.testing.assert_allclose(d_emb, expected, rtol=1e-5, atol=1e-7)


def test_adacos_edge_cases():
    check_class_edge_cases(AdaCosLoss(init_scale=2.0))
    loss = AdaCosLoss()
    _, value = loss((numpy.zeros((0, 2)), numpy.eye(5, 2)), numpy.zeros((0,), dtype="i"))
    assert value == 0.0 and loss.scale == pytest.approx(math.sqrt(2) * math.log(4))  # set, not updated
    with pytest.raises(ValueError, match="init_scale"):
        AdaCosLoss()((numpy.eye(2), numpy.eye(2)), numpy.array([0, 1]))
    with pytest.raises(ValueError, match="init_scale"):
        AdaCosLoss(init_scale=0.0)


# --- registry -------------------------------------------------------------------


def test_metric_losses_are_registered():
    triplet = registry.losses.get("spacy-frames.TripletLoss.v1")(margin=0.3)
    assert isinstance(triplet, TripletLoss) and triplet.margin == 0.3
    contrastive = registry.losses.get("spacy-frames.ContrastiveLoss.v1")()
    assert isinstance(contrastive, ContrastiveLoss) and (contrastive.pos_margin, contrastive.neg_margin) == (0.0, 1.0)
    assert isinstance(registry.losses.get("spacy-frames.SoftmaxLoss.v1")(), SoftmaxLoss)
    arcface = registry.losses.get("spacy-frames.ArcFaceLoss.v1")()
    assert isinstance(arcface, ArcFaceLoss) and (arcface.margin, arcface.scale) == (2.865, 64.0)
    adacos = registry.losses.get("spacy-frames.AdaCosLoss.v1")()
    assert isinstance(adacos, AdaCosLoss) and adacos.scale is None and adacos.update_scale
    for loss in (triplet, contrastive):
        assert not loss.needs_class_weights
    for loss in (SoftmaxLoss(), arcface, adacos):
        assert loss.needs_class_weights

"""Mid-tuning losses (issue 26): values worked out by hand, finite-difference gradients."""

import math

import numpy
import pytest
from spacy.util import registry
from test_losses import numeric_grad

from spacy_frames.losses import MidtunePairLoss, MidtuneTripletLoss, pair_features

# row 0: d(a, p) = 5, d(a, n) = 1 -> 5 - 1 + 1 = 5; row 1: 0 - 5 + 1 < 0 -> 0
ANCHOR = numpy.array([[0.0, 0.0], [1.0, 1.0]])
POSITIVE = numpy.array([[3.0, 4.0], [1.0, 1.0]])
NEGATIVE = numpy.array([[0.0, 1.0], [4.0, 5.0]])


def test_triplet_value_and_gradient_by_hand():
    (d_a, d_p, d_n), value = MidtuneTripletLoss(margin=1.0)((ANCHOR, POSITIVE, NEGATIVE), None)
    assert value == pytest.approx(5.0 / 2)
    # row 0: (1/2) * ((a - p) / 5 - (a - n) / 1); row 1 inactive
    numpy.testing.assert_allclose(d_a, [[-0.3, 0.1], [0.0, 0.0]], atol=1e-9)
    numpy.testing.assert_allclose(d_p, [[0.3, 0.4], [0.0, 0.0]], atol=1e-9)
    numpy.testing.assert_allclose(d_n, [[0.0, -0.5], [0.0, 0.0]], atol=1e-9)
    # a larger margin switches row 1 on: 0 - 5 + 6 = 1
    assert MidtuneTripletLoss(margin=6.0).get_loss((ANCHOR, POSITIVE, NEGATIVE), None) == pytest.approx(
        (10.0 + 1.0) / 2
    )


def test_triplet_gradient_finite_differences():
    rng = numpy.random.default_rng(0)
    a, p, n = (rng.normal(size=(5, 3)) for _ in range(3))
    loss = MidtuneTripletLoss(margin=1.0)
    grads, value = loss((a, p, n), None)
    assert 0 < value
    batch = [a, p, n]
    for k in range(3):

        def f(x, k=k):
            args = list(batch)
            args[k] = x
            return loss.get_loss(tuple(args), None)

        numpy.testing.assert_allclose(grads[k], numeric_grad(f, batch[k], eps=1e-6), atol=1e-6)


def test_triplet_zero_distance_is_finite():
    a = numpy.array([[1.0, 1.0]], dtype="f")
    (d_a, d_p, d_n), value = MidtuneTripletLoss(margin=1.0)((a, a.copy(), numpy.array([[1.0, 1.5]], dtype="f")), None)
    assert value == pytest.approx(0.5, rel=1e-5)  # 0 - 0.5 + 1
    assert d_a.dtype == numpy.float32 and all(numpy.isfinite(g).all() for g in (d_a, d_p, d_n))
    numpy.testing.assert_allclose(d_p, [[0.0, 0.0]], atol=1e-6)
    numpy.testing.assert_allclose(d_a, [[0.0, 1.0]], atol=1e-5)  # -(a - n) / ||a - n||
    # all three equal: loss = margin, gradient 0 everywhere
    grads, value = MidtuneTripletLoss(margin=0.5)((a, a.copy(), a.copy()), None)
    assert value == pytest.approx(0.5) and all(numpy.abs(g).max() == 0 for g in grads)


def test_triplet_edge_cases_and_registry():
    grads, value = MidtuneTripletLoss()((numpy.zeros((0, 3)),) * 3, None)
    assert value == 0.0 and all(g.shape == (0, 3) for g in grads)
    with pytest.raises(ValueError):
        MidtuneTripletLoss()((ANCHOR, POSITIVE, NEGATIVE[:1]), None)
    with pytest.raises(ValueError):
        MidtuneTripletLoss(margin=-1.0)
    loss = registry.losses.get("spacy-frames.MidtuneTripletLoss.v1")(margin=0.5)
    assert isinstance(loss, MidtuneTripletLoss) and loss.margin == 0.5
    assert registry.losses.get("spacy-frames.MidtuneTripletLoss.v1")().margin == 1.0


# --- pair classification --------------------------------------------------------------


def test_pair_loss_value_by_hand():
    logits = numpy.array([[0.0, 0.0], [math.log(3.0), 0.0]])
    labels = numpy.array([0, 1])
    d_logits, value = MidtunePairLoss()(logits, labels)
    # row 0: -log(1/2); row 1: softmax = (3/4, 1/4), gold 1: -log(1/4)
    assert value == pytest.approx((math.log(2) + math.log(4)) / 2)
    numpy.testing.assert_allclose(d_logits, [[-0.25, 0.25], [0.375, -0.375]], atol=1e-12)


def test_pair_loss_gradient_finite_differences():
    rng = numpy.random.default_rng(1)
    logits = rng.normal(size=(4, 2))
    labels = numpy.array([1, 0, 0, 1])
    loss = MidtunePairLoss()
    d_logits = loss.get_grad(logits, labels)
    numpy.testing.assert_allclose(
        d_logits, numeric_grad(lambda x: loss.get_loss(x, labels), logits, eps=1e-6), atol=1e-7
    )


def test_pair_loss_edge_cases_and_registry():
    d, value = MidtunePairLoss()(numpy.zeros((0, 2), dtype="f"), numpy.zeros((0,), dtype="i"))
    assert value == 0.0 and d.shape == (0, 2)
    with pytest.raises(ValueError):
        MidtunePairLoss()(numpy.zeros((2, 2)), numpy.array([0, 2]))
    with pytest.raises(ValueError):
        MidtunePairLoss()(numpy.zeros((2, 2)), numpy.array([0]))
    assert isinstance(registry.losses.get("spacy-frames.MidtunePairLoss.v1")(), MidtunePairLoss)
    d, _ = MidtunePairLoss()(numpy.zeros((1, 2), dtype="f"), numpy.array([1]))
    assert d.dtype == numpy.float32


def test_pair_features_by_hand():
    u, v = numpy.array([[1.0, -2.0]]), numpy.array([[3.0, 1.0]])
    features, backprop = pair_features(u, v)
    numpy.testing.assert_allclose(features, [[1.0, -2.0, 3.0, 1.0, 2.0, 3.0, 3.0, -2.0]])
    d_u, d_v = backprop(numpy.ones((1, 8)))
    # d_u = 1 + sign(u - v) + v, d_v = 1 - sign(u - v) + u
    numpy.testing.assert_allclose(d_u, [[1 - 1 + 3, 1 - 1 + 1]])
    numpy.testing.assert_allclose(d_v, [[1 + 1 + 1, 1 + 1 - 2]])
    with pytest.raises(ValueError):
        pair_features(u, numpy.ones((2, 2)))


def test_pair_features_and_loss_chain_finite_differences():
    """Logits = pair_features(u, v) @ W; the loss's gradient back to u and v."""
    rng = numpy.random.default_rng(2)
    u, v = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    weights = rng.normal(size=(16, 2))
    labels = numpy.array([1, 0, 1])
    loss = MidtunePairLoss()

    def value(u_, v_):
        return loss.get_loss(pair_features(u_, v_)[0] @ weights, labels)

    features, backprop = pair_features(u, v)
    d_logits, _ = loss(features @ weights, labels)
    d_u, d_v = backprop(d_logits @ weights.T)
    numpy.testing.assert_allclose(d_u, numeric_grad(lambda x: value(x, v), u, eps=1e-6), atol=1e-6)
    numpy.testing.assert_allclose(d_v, numeric_grad(lambda x: value(u, x), v, eps=1e-6), atol=1e-6)

"""Loss values and finite-difference gradient checks on tiny arrays."""

import numpy
import pytest
from spacy.util import registry

from spacy_frames.losses import BinaryCrossEntropy, InfoNCE


def numeric_grad(loss_fn, x, eps=1e-4):
    grad = numpy.zeros_like(x)
    for idx in numpy.ndindex(*x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += eps
        minus[idx] -= eps
        grad[idx] = (loss_fn(plus) - loss_fn(minus)) / (2 * eps)
    return grad


@pytest.mark.parametrize("temperature", [0.07, 1.0])
def test_info_nce_gradient(temperature):
    rng = numpy.random.default_rng(0)
    scores = rng.uniform(-1, 1, (4, 5)).astype("float64")
    gold = numpy.array([0, 3, -1, 4], dtype="i")
    mask = numpy.ones_like(scores)
    mask[3, 1] = 0  # padded candidate
    loss = InfoNCE(temperature)
    grad, value = loss(scores, (gold, mask))
    assert value > 0
    assert numpy.allclose(grad[2], 0)  # ignored row
    assert grad[3, 1] == 0  # padded column gets no gradient
    expected = numeric_grad(lambda x: loss.get_loss(x, (gold, mask)), scores)
    numpy.testing.assert_allclose(grad, expected, rtol=1e-4, atol=1e-6)


def test_info_nce_value_and_errors():
    scores = numpy.array([[1.0, 0.0], [0.0, 1.0]], dtype="f")
    # gold on the diagonal with tau=1: -log(e / (e + 1))
    assert InfoNCE(1.0).get_loss(scores, numpy.array([0, 1])) == pytest.approx(numpy.log(1 + numpy.e**-1), rel=1e-5)
    assert InfoNCE(0.07).get_loss(scores, numpy.array([0, 1])) < 1e-4
    with pytest.raises(ValueError, match="temperature"):
        InfoNCE(0)
    with pytest.raises(ValueError, match="out of range"):
        InfoNCE().get_loss(scores, numpy.array([0, 2]))
    with pytest.raises(ValueError, match="gold columns"):
        InfoNCE().get_loss(scores, numpy.array([0]))


def test_binary_cross_entropy_gradient():
    logits = numpy.array([2.0, -1.0, 0.5, -40.0, 40.0])
    truths = numpy.array([1.0, 0.0, 1.0, 0.0, 1.0])
    loss = BinaryCrossEntropy(pos_weight=2.0)
    grad, value = loss(logits, truths)
    assert numpy.isfinite(value) and value > 0
    numpy.testing.assert_allclose(grad, numeric_grad(lambda x: loss.get_loss(x, truths), logits), rtol=1e-4, atol=1e-7)


def test_losses_are_registered():
    assert isinstance(registry.losses.get("spacy-frames.InfoNCE.v1")(temperature=0.5), InfoNCE)
    assert isinstance(registry.losses.get("spacy-frames.BinaryCrossEntropy.v1")(), BinaryCrossEntropy)

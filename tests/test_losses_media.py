"""The label-aware (HeroCon-style) contrastive loss of media_framer."""

import math

import numpy
import pytest
from spacy.util import registry
from test_losses import numeric_grad

from spacy_frames.losses import LabelAwareContrastiveLoss


def test_label_aware_contrastive_hand_computed():
    # labels: doc0 {a}, doc1 {a, b}, doc2 {b}; Hamming / C: H01 = .5, H02 = 1, H12 = .5
    x = numpy.array([[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0]])  # cosines 0, -1, 0 (norms do not matter)
    labels = numpy.array([[1, 0], [1, 1], [0, 1]])
    grad, value = LabelAwareContrastiveLoss(temperature=1.0)(x, labels)
    # class a: anchor 0 (positive 1 at weight .5, s 0; negative 2 at weight 1, s -1),
    #          anchor 1 (positive 0 at .5, s 0; negative 2 at .5, s 0); class b mirrors it
    near = -math.log(0.5 / (0.5 + math.exp(-1.0)))
    even = math.log(2.0)
    assert value == pytest.approx((2 * near + 2 * even) / 4, rel=1e-6)
    assert grad.shape == x.shape


def test_label_aware_contrastive_gradient():
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((6, 5))
    labels = rng.integers(0, 2, size=(6, 4))
    labels[0] = labels[1] = [1, 1, 0, 0]
    loss = LabelAwareContrastiveLoss(temperature=0.3)
    grad, _ = loss(x, labels)
    numpy.testing.assert_allclose(grad, numeric_grad(lambda v: loss(v, labels)[1], x), atol=1e-5)


def test_label_aware_contrastive_prefers_documents_sharing_frames():
    labels = numpy.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1]])
    together = numpy.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]])
    apart = together[[0, 2, 1, 3]]
    loss = LabelAwareContrastiveLoss(temperature=0.1)
    assert loss(together, labels)[1] < loss(apart, labels)[1]


def test_label_aware_contrastive_without_pairs_is_zero():
    grad, value = LabelAwareContrastiveLoss()(numpy.eye(3), numpy.eye(3))
    assert value == 0.0 and not grad.any()


def test_label_aware_contrastive_registered_and_checked():
    loss = registry.losses.get("spacy-frames.LabelAwareContrastiveLoss.v1")(temperature=0.2)
    assert loss.temperature == 0.2
    with pytest.raises(ValueError, match="temperature"):
        LabelAwareContrastiveLoss(temperature=0.0)
    with pytest.raises(ValueError, match="features"):
        LabelAwareContrastiveLoss()(numpy.zeros((3, 2)), numpy.zeros((2, 4)))

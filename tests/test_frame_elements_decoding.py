"""frame_elements' loss against hand-computed values, and the span decoders' constraints."""

import itertools
import math
import random

import numpy
import pytest
from spacy.util import registry

from spacy_frames.losses.frame_elements import FrameElementLoss
from spacy_frames.pipeline.span_decoding import exact, greedy


def test_frame_element_loss_value_by_hand():
    # two rows: an FE row (gold column 1 of 3, the third column padding) and a no-FE row
    scores = numpy.array([[0.1, 0.5, 0.9], [0.2, -0.1, 0.3]], dtype="f")
    mask = numpy.array([[1, 1, 0], [1, 1, 1]], dtype="f")
    loss = FrameElementLoss(temperature=0.5, none_weight=0.25)
    grad, value = loss(scores, (numpy.array([1, 0]), mask))
    # row 0: softmax over (0.2, 1.0); row 1: over (0.4, -0.2, 0.6); weights 1 and 0.25
    ce0 = -(1.0 - math.log(math.exp(0.2) + math.exp(1.0)))
    ce1 = -(0.4 - math.log(math.exp(0.4) + math.exp(-0.2) + math.exp(0.6)))
    assert value == pytest.approx((ce0 + 0.25 * ce1) / 1.25, rel=1e-5)
    assert grad[0, 2] == 0.0  # padding gets no gradient
    # finite differences
    eps = 1e-3
    for r, c in [(0, 0), (0, 1), (1, 2)]:
        bumped = scores.copy()
        bumped[r, c] += eps
        _, up = loss(bumped, (numpy.array([1, 0]), mask))
        assert grad[r, c] == pytest.approx((up - value) / eps, abs=2e-3)


def test_frame_element_loss_errors_and_registry():
    loss = registry.losses.get("spacy-frames.FrameElementLoss.v1")(temperature=0.1, none_weight=0.5)
    with pytest.raises(ValueError, match="masked"):
        loss(numpy.zeros((1, 3), dtype="f"), (numpy.array([2]), numpy.array([[1, 1, 0]], dtype="f")))
    with pytest.raises(ValueError, match="out of range"):
        loss(numpy.zeros((1, 2), dtype="f"), (numpy.array([2]), None))
    with pytest.raises(ValueError, match="temperature"):
        FrameElementLoss(temperature=0.0)
    grad, value = loss(numpy.zeros((0, 3), dtype="f"), (numpy.zeros((0,), dtype="i"), None))
    assert value == 0.0 and grad.shape == (0, 3)


def test_decoders_keep_the_constraints():
    cands = [
        (0, 2, "Donor", 2.0),
        (1, 3, "Theme", 1.5),  # overlaps Donor
        (4, 5, "Donor", 1.0),  # Donor again
        (4, 5, "Recipient", 0.9),
        (6, 7, "Time", -0.5),  # no gain: never taken
    ]
    for decoder in (greedy, exact):
        assert [c[2] for c in decoder(cands)] == ["Donor", "Recipient"]
    assert exact(cands, excludes={"Donor": {"Recipient"}}) == [(1, 3, "Theme", 1.5), (4, 5, "Donor", 1.0)]


def test_exact_beats_greedy_where_greedy_is_myopic():
    cands = [(0, 4, "A", 2.0), (0, 2, "B", 1.5), (2, 4, "C", 1.5)]
    assert [c[2] for c in greedy(cands)] == ["A"]
    assert [c[2] for c in exact(cands)] == ["B", "C"]


def brute_force(cands, excludes):
    best_total = 0.0
    for r in range(len(cands) + 1):
        for subset in itertools.combinations(cands, r):
            labels = [c[2] for c in subset]
            if len(set(labels)) < len(labels):
                continue
            if any(a[0] < b[1] and b[0] < a[1] for a, b in itertools.combinations(subset, 2)):
                continue
            if any(
                b[2] in excludes.get(a[2], ()) or a[2] in excludes.get(b[2], ())
                for a, b in itertools.combinations(subset, 2)
            ):
                continue
            total = sum(c[3] for c in subset)
            if total > best_total + 1e-9:
                best_total = total
    return best_total


@pytest.mark.parametrize("seed", range(30))
def test_exact_is_optimal_on_random_targets(seed):
    rng = random.Random(seed)
    labels = ["A", "B", "C", "D"]
    cands = []
    for _ in range(rng.randint(0, 9)):
        start = rng.randint(0, 8)
        cands.append((start, start + rng.randint(1, 3), rng.choice(labels), round(rng.uniform(-1, 2), 3)))
    excludes = {"A": {"B"}} if seed % 2 else {}
    got = exact(cands, excludes)
    assert sum(c[3] for c in got) == pytest.approx(brute_force([c for c in cands if c[3] > 0], excludes))
    assert sum(c[3] for c in greedy(cands, excludes)) <= sum(c[3] for c in got) + 1e-9


@pytest.mark.parametrize("decoder", [exact, greedy])
def test_a_second_piece_of_one_fe_only_with_max_pieces_and_never_touching(decoder):
    """ "[people] ... in town [who] ...": two pieces of Entity when max_pieces is 2; a piece
    adjacent to the first would just be a longer span, so it is never a second piece."""
    cands = [(0, 1, "Entity", 2.0), (4, 5, "Entity", 1.5), (1, 2, "Entity", 1.0), (2, 4, "Place", 0.5)]
    assert [c[:3] for c in decoder(cands)] == [(0, 1, "Entity"), (2, 4, "Place")]
    two = decoder(cands, None, 2)
    assert [c[:3] for c in two] == [(0, 1, "Entity"), (2, 4, "Place"), (4, 5, "Entity")]
    assert len([c for c in decoder(cands + [(6, 7, "Entity", 3.0)], None, 2) if c[2] == "Entity"]) == 2

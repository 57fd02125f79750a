"""losses/frames.py: COFFTEA's in-candidate negatives and the contrastive loss over them."""

import random

import numpy
import pytest
from frames_toy import toy_inventory
from thinc.api import NumpyOps

from spacy_frames.losses import InfoNCE
from spacy_frames.losses.frames import candidate_columns, contrastive_scores_loss

LEXICON = {"Donating"}  # give.v's other frame
SIBLINGS = {"Commerce_buy", "Lending"}  # Giving's Inheritance siblings (parent Transfer)


def inventory():
    """The toy inventory + a second frame of give.v and a second sibling of Giving (8 frames)."""
    inv = toy_inventory()
    inv.add_frame("Donating", "A Donor gives a Theme to a cause.", lexical_units=["give.v"])
    inv.add_frame("Lending", "A Lender gives a Borrower a Theme for a while.", parents=["Transfer"])
    assert set(inv.frames_for_lu("give.v")) == LEXICON | {"Giving"} and set(inv.siblings("Giving")) == SIBLINGS
    return inv


def rows(columns, candidates):
    return [[columns[j] for j in row] for row in candidates]


def test_gold_first_then_lexicon_siblings_random_padded():
    inv = inventory()
    frames, lus = ["Giving", "Commerce_buy", "Giving"], ["give.v", "buy.v", None]
    columns, candidates = candidate_columns(inv, frames, lus, "in_candidate", 7, random.Random(0))
    assert columns == sorted(columns) and candidates.shape == (3, 8) and candidates.dtype == numpy.int32
    for gold, row in zip(frames, rows(columns, candidates)):
        assert row[0] == gold and len(set(row)) == len(row) == len(inv)  # padded with every other frame
    give, buy, no_lu = rows(columns, candidates)
    assert set(give[1:2]) == LEXICON and set(give[2:4]) == SIBLINGS
    assert set(no_lu[1:3]) == SIBLINGS  # no LU: siblings come first
    assert set(buy[1:3]) == {"Giving", "Lending"}  # buy.v has no other frame


def test_truncated_to_n_negatives_in_pool_order():
    inv = inventory()
    columns, candidates = candidate_columns(inv, ["Giving"], ["give.v"], "in_candidate", 1, random.Random(0))
    assert rows(columns, candidates) == [["Giving", "Donating"]]
    columns, candidates = candidate_columns(inv, ["Giving"], ["give.v"], "in_candidate", 2, random.Random(0))
    (row,) = rows(columns, candidates)
    assert row[:2] == ["Giving", "Donating"] and row[2] in SIBLINGS and sorted(set(row)) == columns


def test_random_frames_pad_without_duplicates():
    inv = inventory()
    frames = ["Body_parts", "Self_motion"]  # no siblings, LUs without other frames
    columns, candidates = candidate_columns(inv, frames, ["hand.n", "walk.v"], "in_candidate", 4, random.Random(3))
    assert candidates.shape == (2, 5)
    for gold, row in zip(frames, rows(columns, candidates)):
        assert row[0] == gold and len(set(row)) == 5 and set(row) <= set(inv.names)
    assert columns == sorted({f for row in rows(columns, candidates) for f in row})


def test_small_inventory_gives_fewer_columns():
    inv = inventory()
    columns, candidates = candidate_columns(
        inv, ["Giving", "Body_parts"], ["give.v", None], "in_candidate", 63, random.Random(0)
    )
    assert candidates.shape == (2, len(inv))
    assert all(len(set(row)) == len(inv) for row in rows(columns, candidates))


def test_in_batch_and_every_frame():
    inv = inventory()
    frames = ["Giving", "Body_parts", "Giving"]
    rng = random.Random(0)
    state = rng.getstate()
    assert candidate_columns(inv, frames, [None] * 3, "in_batch", 3, rng) == (["Body_parts", "Giving"], None)
    assert candidate_columns(inv, frames, [None] * 3, "in_candidate", -1, rng) == (inv.names, None)
    assert rng.getstate() == state  # no random frames drawn
    columns, candidates = candidate_columns(inv, [], [], "in_candidate", 3, rng)
    assert columns == [] and candidates.shape == (0, 4)


def test_deterministic_for_a_seeded_rng():
    inv, frames, lus = inventory(), ["Giving", "Self_motion", "Giving"], ["give.v", "run.v", "hand.v"]
    first = candidate_columns(inv, frames, lus, "in_candidate", 5, random.Random(7))
    second = candidate_columns(inv, frames, lus, "in_candidate", 5, random.Random(7))
    assert first[0] == second[0]
    numpy.testing.assert_array_equal(first[1], second[1])


@pytest.mark.parametrize("objective", ["in_batch", "in_candidate"])
def test_contrastive_scores_loss_gradients(objective):
    ops, loss = NumpyOps(), InfoNCE(0.5)
    frames, lus = ["Giving", "Commerce_buy", "Giving"], ["give.v", "buy.v", "hand.v"]
    columns, candidates = candidate_columns(inventory(), frames, lus, objective, 3, random.Random(0))
    rs = numpy.random.RandomState(0)
    targets = rs.randn(3, 4).astype("float32")
    frame_vecs = rs.randn(len(columns), 4).astype("float32")
    value, d_targets, d_frames = contrastive_scores_loss(ops, loss, targets, frame_vecs, frames, columns, candidates)
    # the same loss by hand: each row's gold frame among its columns (all, or its candidates)
    scores = targets @ frame_vecs.T
    cand = candidates if candidates is not None else numpy.tile(numpy.arange(len(columns)), (3, 1))
    picked = numpy.take_along_axis(scores, cand, axis=1) / 0.5
    gold = numpy.array([list(cand[i]).index(columns.index(f)) for i, f in enumerate(frames)])
    log_z = numpy.log(numpy.exp(picked).sum(axis=1))
    assert value == pytest.approx(float(numpy.mean(log_z - picked[numpy.arange(3), gold])), rel=1e-4)
    assert d_targets.shape == targets.shape and d_frames.shape == frame_vecs.shape

    # finite differences on one target coordinate and one frame coordinate
    def loss_at(t, f):
        return contrastive_scores_loss(ops, loss, t, f, frames, columns, candidates)[0]

    eps = 1e-2
    for which, grad, index in ((0, d_targets, (1, 2)), (1, d_frames, (0, 1))):
        plus, minus = [targets.copy(), frame_vecs.copy()], [targets.copy(), frame_vecs.copy()]
        plus[which][index] += eps
        minus[which][index] -= eps
        assert grad[index] == pytest.approx((loss_at(*plus) - loss_at(*minus)) / (2 * eps), abs=1e-3)


def test_contrastive_scores_loss_without_targets():
    ops = NumpyOps()
    value, d_targets, d_frames = contrastive_scores_loss(
        ops, InfoNCE(), numpy.zeros((0, 4), "f"), numpy.ones((2, 4), "f"), [], ["A", "B"], None
    )
    assert value == 0.0 and d_targets.shape == (0, 4) and d_frames.shape == (2, 4) and not d_frames.any()

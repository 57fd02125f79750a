"""Frame identification: InfoNCE over similarities, binary cross-entropy for target
detection, and frame_identifier's negatives and contrastive loss over cosine scores.

In-candidate learning follows COFFTEA (An et al. 2023): each target is scored
against its gold frame and hard negatives drawn in order from the target's
lexicon candidates, the gold frame's Inheritance siblings and random frames,
padded to `n_negatives`. In-batch learning scores every target against the
batch's gold frames.
"""

from random import Random
from typing import Callable, List, Optional, Sequence, Tuple, Union

import numpy
from spacy.util import registry
from thinc.api import Ops, get_array_module
from thinc.types import Floats1d, Floats2d, Ints1d

from ..inventory.frames import FrameInventory
from .base import ComputedLoss

# truths for a similarity matrix: the gold column of each row (-1: row ignored),
# optionally with a 0/1 mask of the columns that exist (candidate lists are padded)
ContrastiveTruths = Union[Ints1d, Tuple[Ints1d, Optional[Floats2d]]]


class InfoNCE(ComputedLoss):
    """Softmax cross-entropy over similarities divided by a temperature.

    guesses: (n_rows, n_columns) similarities, e.g. cosines of L2-normalised
    target and frame vectors. Each row's gold column is the positive, every other
    unmasked column a negative: in-batch learning passes the batch's frames as
    columns, in-candidate learning each target's own padded candidate list.
    The loss is averaged over the rows that have a gold column.
    """

    def __init__(self, temperature: float = 0.07):
        if temperature <= 0:
            raise ValueError(f"InfoNCE temperature must be > 0, got {temperature}")
        self.temperature = temperature

    def _compute(self, guesses: Floats2d, truths: ContrastiveTruths) -> Tuple[Floats2d, float]:
        xp = get_array_module(guesses)
        gold, mask = truths if isinstance(truths, tuple) else (truths, None)
        gold = xp.asarray(gold, dtype="i")
        if guesses.ndim != 2 or gold.shape[0] != guesses.shape[0]:
            raise ValueError(f"InfoNCE: {guesses.shape} scores for {gold.shape[0]} gold columns")
        if xp.any(gold >= guesses.shape[1]):
            raise ValueError("InfoNCE: gold column out of range")
        logits = guesses / self.temperature
        if mask is not None:
            logits = xp.where(mask > 0, logits, -1e9)
        logits = logits - logits.max(axis=1, keepdims=True)
        exp = xp.exp(logits)
        probs = exp / exp.sum(axis=1, keepdims=True)
        rows = xp.nonzero(gold >= 0)[0]
        n = max(len(rows), 1)
        onehot = xp.zeros_like(probs)
        onehot[rows, gold[rows]] = 1.0
        d_logits = (probs - onehot) / n
        d_logits[gold < 0] = 0.0
        loss = -float(xp.log(probs[rows, gold[rows]] + 1e-12).sum()) / n
        return (d_logits / self.temperature).astype(guesses.dtype), loss


class BinaryCrossEntropy(ComputedLoss):
    """Sigmoid cross-entropy on logits, averaged; `pos_weight` scales positives."""

    def __init__(self, pos_weight: float = 1.0):
        self.pos_weight = pos_weight

    def _compute(self, guesses: Floats1d, truths: Floats1d) -> Tuple[Floats1d, float]:
        xp = get_array_module(guesses)
        truths = xp.asarray(truths, dtype=guesses.dtype)
        weight = 1.0 + (self.pos_weight - 1.0) * truths
        n = max(guesses.size, 1)
        grad = (weight * (_sigmoid(xp, guesses) - truths) / n).astype(guesses.dtype)
        # log(1 + e^-|x|) formulation: stable for large |x|
        log_p = -xp.logaddexp(0, -guesses)
        log_not_p = -xp.logaddexp(0, guesses)
        loss = float(-(weight * (truths * log_p + (1 - truths) * log_not_p)).sum()) / n
        return grad, loss


def _sigmoid(xp, x):
    return 0.5 * (1.0 + xp.tanh(0.5 * x))  # = 1 / (1 + e^-x), without overflow


@registry.losses("spacy-frames.InfoNCE.v1")
def configure_info_nce(temperature: float = 0.07) -> InfoNCE:
    return InfoNCE(temperature=temperature)


@registry.losses("spacy-frames.BinaryCrossEntropy.v1")
def configure_binary_cross_entropy(pos_weight: float = 1.0) -> BinaryCrossEntropy:
    return BinaryCrossEntropy(pos_weight=pos_weight)


# -- frame_identifier's negatives and its loss over them -------------------------------------
def candidate_columns(
    inventory: FrameInventory,
    frames: Sequence[str],
    lus: Sequence[Optional[str]],
    objective: str,
    n_negatives: int,
    rng: Random,
) -> Tuple[List[str], Optional[numpy.ndarray]]:
    """The frames to score (columns) and, for "in_candidate", each target's candidate
    columns: an (n_targets, 1 + n_negatives) array of indices into the columns, gold
    first, then lexicon candidates, Inheritance siblings, random frames from `rng`
    (fewer columns when the inventory has fewer frames). "in_batch": the sorted
    gold frames, no candidates; n_negatives < 0: every frame, no candidates."""
    if objective == "in_batch":
        return sorted(set(frames)), None
    if n_negatives < 0:
        return list(inventory.names), None
    names = inventory.names
    n_cols = min(1 + n_negatives, len(names))
    rows = []
    for gold, lu in zip(frames, lus):
        negatives: List[str] = []
        seen = {gold}
        pools = [inventory.frames_for_lu(lu) if lu else [], inventory.siblings(gold)]
        for pool in pools:
            pool = [f for f in pool if f not in seen]
            rng.shuffle(pool)
            for f in pool[: n_cols - 1 - len(negatives)]:
                negatives.append(f)
                seen.add(f)
        while len(negatives) < n_cols - 1 and len(seen) < len(names):
            f = names[rng.randrange(len(names))]
            if f not in seen:
                negatives.append(f)
                seen.add(f)
        rows.append([gold] + negatives)
    columns = sorted({f for row in rows for f in row})
    col_of = {f: j for j, f in enumerate(columns)}
    candidates = numpy.array([[col_of[f] for f in row] for row in rows], dtype="i").reshape((-1, n_cols))
    return columns, candidates


def contrastive_scores_loss(
    ops: Ops,
    loss: Callable,
    targets,
    frame_vecs,
    frames: Sequence[str],
    columns: Sequence[str],
    candidates: Optional[numpy.ndarray],
) -> Tuple[float, object, object]:
    """Cosine scores of the (L2-normalised) target vectors against the columns' frame
    vectors, the contrastive `loss` over them (each target's gold frame among all
    columns, or among its own candidates when `candidates` is given) and its
    gradients: (loss, d_targets, d_frame_vecs)."""
    if not frames:
        return 0.0, ops.alloc2f(0, targets.shape[1]), ops.alloc2f(*frame_vecs.shape) if frame_vecs is not None else None
    col_of = {f: j for j, f in enumerate(columns)}
    scores = targets @ frame_vecs.T  # cosines: both sides are L2-normalised
    if candidates is None:
        gold = ops.asarray1i([col_of[f] for f in frames])
        d_scores, value = loss(scores, gold)
    else:
        cand = ops.asarray(candidates)
        rows = ops.xp.arange(len(frames))[:, None]
        d_cand, value = loss(scores[rows, cand], ops.asarray1i([0] * len(frames)))
        d_scores = ops.alloc2f(*scores.shape)
        ops.xp.add.at(d_scores, (ops.xp.broadcast_to(rows, cand.shape), cand), d_cand)
    d_targets = d_scores @ frame_vecs
    d_frames = d_scores.T @ targets
    return float(value), d_targets, d_frames

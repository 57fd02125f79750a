"""Negatives for frame_identifier's contrastive training, and its loss over them.

In-candidate learning follows COFFTEA (An et al. 2023): each target is scored
against its gold frame and hard negatives drawn in order from the target's
lexicon candidates, the gold frame's Inheritance siblings and random frames,
padded to `n_negatives`. In-batch learning scores every target against the
batch's gold frames.
"""
from random import Random
from typing import Callable, List, Optional, Sequence, Tuple

import numpy
from thinc.api import Ops

from .corpora.framenet import FrameInventory


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

"""A cheap learned scorer that prunes frame_elements' candidate spans before the costly one.

The coreference-resolution and SpanBERT recipe: enumerate every span up to some length,
score each with a model linear in what is already computed, keep the best `k` per target,
and run the expensive scorer on those only. Here a row's prune score is

    s = w_span . h_span + w_first . h_first + w_last . h_last + w_prod . (h_span * h_target)
        + v . f + b,

with h the pooled token vectors of the span, its first and last token and its target
(`endpoints` off: the span and the product only) and f the row's position (and syntax)
features. The h terms are computed once per distinct pooled span and gathered per row;
only the product costs a width per row, so pruning a thousand rows costs about as much as
scoring a few of them with the span MLP.

The parameters (`prune_W`, `prune_v`, `prune_b`) live on the FE scorer model (serialized and
stepped with it), as target_tokens' do. The component trains the pruner with
`losses.frame_elements.span_pruner_loss` (gold FE spans against the rest).
"""

from typing import Callable, List, Optional, Tuple

import numpy
from thinc.api import Model, Ops
from thinc.types import Floats1d, Floats2d


def init_params(model: Model, width: int, n_groups: int, n_feats: int) -> None:
    """n_groups pooled vectors per row (span, target, first, last) plus the product."""
    if not model.has_param("prune_W"):
        rng = numpy.random.default_rng(2)
        # a vector per group but the target, and one for the span-target product
        model.set_param(
            "prune_W", model.ops.asarray2f(rng.normal(0, 1 / numpy.sqrt(width), (n_groups, width)).astype("f"))
        )
        model.set_param("prune_v", model.ops.alloc1f(n_feats))
        model.set_param("prune_b", model.ops.alloc1f(1))


def forward(model: Model, pooled: Floats2d, idx: List, feats: Floats2d) -> Tuple[Floats1d, Callable]:
    """Per row its prune score, and the backprop, which adds the pooled matrix's gradient
    into `d_pooled` and returns nothing. idx: the rows' indices into `pooled`, in the
    order span, target, then (endpoints) first and last token."""
    ops: Ops = model.ops
    W, v, b = model.get_param("prune_W"), model.get_param("prune_v"), model.get_param("prune_b")
    own = [idx[0]] + list(idx[2:])  # every group but the target: a vector of its own
    projected = pooled @ W[: len(own)].T  # (n_distinct, groups): once per distinct span
    span_vecs, target_vecs = pooled[idx[0]], pooled[idx[1]]
    w_prod = W[len(own)]
    scores = (span_vecs * target_vecs) @ w_prod + feats @ v + b[0]
    for g, i in enumerate(own):
        scores = scores + projected[i, g]

    def backprop(d_scores: Floats1d, d_pooled: Floats2d) -> None:
        d_W = ops.alloc2f(*W.shape)
        for g, i in enumerate(own):
            per_span = ops.alloc1f(pooled.shape[0])
            ops.xp.add.at(per_span, i, d_scores)
            d_W[g] = per_span @ pooled
            d_pooled += per_span[:, None] * W[g][None, :]
        weighted = d_scores[:, None] * w_prod[None, :]
        d_W[len(own)] = d_scores @ (span_vecs * target_vecs)
        ops.xp.add.at(d_pooled, idx[0], weighted * target_vecs)
        ops.xp.add.at(d_pooled, idx[1], weighted * span_vecs)
        model.inc_grad("prune_W", d_W)
        model.inc_grad("prune_v", feats.T @ d_scores)
        model.inc_grad("prune_b", ops.asarray1f([float(d_scores.sum())]))

    return scores, backprop


def top_k_per_group(
    groups: numpy.ndarray, scores: numpy.ndarray, k: int, forced: Optional[numpy.ndarray] = None
) -> numpy.ndarray:
    """Which rows to keep: the `k` best-scored of each group (a target's rows; ties: the
    earlier row), and every `forced` row."""
    keep = numpy.zeros(len(scores), dtype=bool)
    if len(scores):
        order = numpy.lexsort((numpy.arange(len(scores)), -numpy.asarray(scores, dtype="float64"), groups))
        ordered = groups[order]
        starts = numpy.flatnonzero(numpy.r_[True, ordered[1:] != ordered[:-1]])
        sizes = numpy.diff(numpy.r_[starts, len(order)])
        rank = numpy.arange(len(order)) - numpy.repeat(starts, sizes)
        keep[order[rank < k]] = True
    if forced is not None:
        keep |= numpy.asarray(forced, dtype=bool)
    return keep

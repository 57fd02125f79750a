"""A cheap learned scorer that prunes frame_elements' candidate spans before the costly one.

The coreference-resolution and SpanBERT recipe: enumerate every span up to some length,
score each with a model linear in what is already computed, keep the best `k` per target,
and run the expensive scorer on those only. Here a row's prune score is

    s = w_span . h_span + w_first . h_first + w_last . h_last + w_prod . (h_span * h_target)
        + v . f + b,

with h the pooled token vectors of the span, its first and last token and its target
(`endpoints` off: the span and the product only) and f the row's position (and syntax)
features. Two ways to the same numbers: `forward` reads pooled span vectors (the h terms
once per distinct span, gathered per row; only the product costs a width per row), and
`forward_from_tokens` reads the token vectors themselves, for mean-pooled spans: every
term is a mean of per-token quantities, so no row and no candidate span is ever pooled,
and pruning every span of a sentence costs a few numbers per row. frame_elements' model
takes the second way whenever it can (mean pooling on projected tokens), in training and
in prediction, and pools only the rows it keeps.

The parameters (`prune_W`, `prune_v`, `prune_b`) live on the FE scorer model (serialized and
stepped with it), as target_tokens' do. The component trains the pruner with
`losses.span_pruner_loss` (gold FE spans against the rest).
"""

from typing import Callable, List, Optional, Tuple, Union

import numpy
from thinc.api import Model, Ops
from thinc.types import Floats1d, Floats2d

from spacy_frames.ml.layers import prefix_sums

from .features import OneHotRows


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
        # one stable sort by (group, score descending): the float32 scores as uint32s in
        # the same order (+ 0.0 makes -0.0 tie with 0.0, as floats compare), under the group
        bits = (numpy.asarray(scores, dtype="float32") + numpy.float32(0.0)).view(numpy.uint32)
        ascending = numpy.where(bits >> 31, ~bits, bits | numpy.uint32(0x80000000))
        groups = numpy.asarray(groups, dtype="int64")
        key = (groups.astype(numpy.uint64) << numpy.uint64(32)) | (~ascending).astype(numpy.uint64)
        order = numpy.argsort(key, kind="stable")
        ordered = groups[order]
        starts = numpy.flatnonzero(numpy.r_[True, ordered[1:] != ordered[:-1]])
        sizes = numpy.diff(numpy.r_[starts, len(order)])
        rank = numpy.arange(len(order)) - numpy.repeat(starts, sizes)
        keep[order[rank < k]] = True
    if forced is not None:
        keep |= numpy.asarray(forced, dtype=bool)
    return keep


# targets per step of the span-target product in `forward_from_tokens`: each step
# multiplies the tokens its targets' rows cover by that many target vectors
TARGET_BLOCK = 64


def forward_from_tokens(
    model: Model,
    tokens: Floats2d,
    rows: numpy.ndarray,
    groups: numpy.ndarray,
    feats: Union[Floats2d, OneHotRows],
    is_train: bool,
    token_prefix: Optional[Floats2d] = None,
) -> Tuple[Floats1d, Optional[Callable]]:
    """`forward`'s scores for mean-pooled spans, without pooling them, and (is_train) the
    backprop, which adds the tokens' gradient into `d_tokens` and returns nothing.
    tokens: the batch's stacked (projected) token vectors; rows: (n, 4) [target start, end,
    span start, end) into them; groups: per row its target's number (a target's rows the
    same); feats: per row its position (and syntax) features, a matrix or OneHotRows
    (read only through `feats @ v` and `feats.T @ d`). The linear terms are means
    of per-token scalars (prefix sums), and the span-target product is the mean over the
    span of each token against its target's vector times w_prod, in blocks of targets: a
    cost per token and target, never a vector per row. Equal to `forward` on the pooled
    spans up to float rounding. token_prefix: the tokens' `prefix_sums`, when the caller
    has them."""
    ops: Ops = model.ops
    xp = ops.xp
    W, v, b = model.get_param("prune_W"), model.get_param("prune_v"), model.get_param("prune_b")
    n_own = 3 if model.attrs["endpoints"] else 1
    ts, te, ss, se = (xp.asarray(col) for col in numpy.asarray(rows, dtype="int64").reshape(-1, 4).T)
    lengths = xp.maximum(se - ss, 1)
    last = xp.maximum(se - 1, ss)
    per_token = tokens @ W[:n_own].T  # (n_tokens, n_own)
    prefix = xp.zeros(len(tokens) + 1, dtype="float64")
    xp.cumsum(per_token[:, 0], dtype="float64", out=prefix[1:])
    scores = (prefix[se] - prefix[ss]) / lengths
    if n_own == 3:
        scores += per_token[ss, 1] + per_token[last, 2]
    scores += feats @ v + b[0]
    product = _SpanTargetProduct(xp, tokens, (ts, te, ss, se), lengths, numpy.asarray(groups, dtype="int64"), W[n_own])
    scores = (scores + product.forward(is_train, token_prefix)).astype("float32")
    if not is_train:
        return scores, None

    def backprop(d_scores: Floats1d, d_tokens: Floats2d) -> None:
        d_scores = xp.asarray(d_scores, dtype="float64")
        n = len(tokens)
        share = d_scores / lengths
        d_per_token = xp.zeros((n, n_own), dtype="float64")
        d_per_token[:, 0] = xp.cumsum(
            xp.bincount(ss, weights=share, minlength=n + 1) - xp.bincount(se, weights=share, minlength=n + 1)
        )[:n]
        if n_own == 3:
            d_per_token[:, 1] = xp.bincount(ss, weights=d_scores, minlength=n)[:n]
            d_per_token[:, 2] = xp.bincount(last, weights=d_scores, minlength=n)[:n]
        d_per_token = d_per_token.astype("float32")
        d_W = ops.alloc2f(*W.shape)
        d_W[:n_own] = d_per_token.T @ tokens
        d_tokens += d_per_token @ W[:n_own]
        d_W[n_own] = product.backprop(d_scores, d_tokens)
        model.inc_grad("prune_W", d_W)
        model.inc_grad("prune_v", feats.T @ d_scores.astype("float32"))
        model.inc_grad("prune_b", ops.asarray1f([float(d_scores.sum())]))

    return scores, backprop


class _SpanTargetProduct:
    """Per row: mean(tokens[ss:se]) . (mean(tokens[ts:te]) * w_prod), computed in blocks of
    TARGET_BLOCK targets (a block: the tokens its rows cover against its targets' vectors,
    prefix-summed), and its backprop to the tokens and to w_prod."""

    def __init__(self, xp, tokens, bounds, lengths, groups, w_prod):
        self.xp, self.tokens, self.bounds, self.lengths, self.w_prod = xp, tokens, bounds, lengths, w_prod
        order = numpy.argsort(groups, kind="stable")
        sorted_groups = groups[order]
        firsts = numpy.flatnonzero(numpy.r_[True, sorted_groups[1:] != sorted_groups[:-1]]) if len(order) else []
        edges = numpy.r_[firsts, len(order)]
        self.blocks = []  # per block: its rows, each row's column (target), its targets' first rows
        for block in range(0, len(firsts), TARGET_BLOCK):
            heads = firsts[block : block + TARGET_BLOCK]
            members = order[edges[block] : edges[block + len(heads)]]
            column = numpy.repeat(numpy.arange(len(heads)), numpy.diff(edges[block : block + len(heads) + 1]))
            self.blocks.append((xp.asarray(members), xp.asarray(column), xp.asarray(order[heads])))
        self.saved = []

    def forward(self, is_train: bool, token_prefix=None):
        xp, tokens = self.xp, self.tokens
        ts, te, ss, se = self.bounds
        if token_prefix is None:
            token_prefix = prefix_sums(xp, tokens)
        out = xp.zeros(len(ss), dtype="float64")
        for members, column, first_rows in self.blocks:
            t_start, t_end = ts[first_rows], te[first_rows]
            targets = ((token_prefix[t_end] - token_prefix[t_start]) / xp.maximum(t_end - t_start, 1)[:, None]).astype(
                "float32"
            )
            queries = targets * self.w_prod[None, :]
            lo, hi = int(ss[members].min()), int(se[members].max())
            per_token = xp.zeros((hi - lo + 1, len(first_rows)), dtype="float64")
            xp.cumsum(tokens[lo:hi] @ queries.T, axis=0, dtype="float64", out=per_token[1:])
            out[members] = (per_token[se[members] - lo, column] - per_token[ss[members] - lo, column]) / self.lengths[
                members
            ]
            if is_train:
                self.saved.append((lo, hi, targets, queries, t_start, t_end))
        return out

    def backprop(self, d_scores, d_tokens):
        """Adds the tokens' gradient into d_tokens; returns w_prod's."""
        xp, tokens = self.xp, self.tokens
        ts, te, ss, se = self.bounds
        d_w_prod = xp.zeros(tokens.shape[1], dtype="float32")
        d_targets = xp.zeros((len(tokens) + 1, tokens.shape[1]), dtype="float32")  # a difference array
        for (members, column, _), (lo, hi, targets, queries, t_start, t_end) in zip(self.blocks, self.saved):
            n_cols, size = len(targets), hi - lo + 1
            share = d_scores[members] / self.lengths[members]
            diff = xp.bincount((ss[members] - lo) * n_cols + column, weights=share, minlength=size * n_cols)
            diff -= xp.bincount((se[members] - lo) * n_cols + column, weights=share, minlength=size * n_cols)
            d_per_token = xp.cumsum(diff.reshape(size, n_cols), axis=0)[:-1].astype("float32")
            d_tokens[lo:hi] += d_per_token @ queries
            d_queries = d_per_token.T @ tokens[lo:hi]
            d_w_prod += (d_queries * targets).sum(axis=0)
            d_target = d_queries * self.w_prod[None, :] / xp.maximum(t_end - t_start, 1)[:, None]
            xp.add.at(d_targets, t_start, d_target)
            xp.add.at(d_targets, t_end, -d_target)
        d_tokens += xp.cumsum(d_targets, axis=0)[:-1]
        return d_w_prod

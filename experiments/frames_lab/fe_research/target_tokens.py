"""Target-conditioned token features for frame_elements' candidate spans.

The shared transformer reads a document once for all its targets, so a token's vector
does not know which target it is an argument of. This layer gives each (target, token)
pair of the target's candidate window its own small vector,

    u(t, i) = ReLU(W [h_i ; h_i * h_t] + b + E[rel(i, t)]),

where rel buckets the signed distance of token i from the target, and a candidate span of
that target is described by the mean of u over its tokens and u at its first and last
token: the span's content as seen from this target, cheap to compute because it is per
token of the window (tens per target), not per candidate row.

With `context` (the model's `target_context`), one self-attention layer runs over each
target's window on top, u <- u + softmax(u Wq (u Wk)^T / sqrt(k)) u Wv, so a token's
vector as seen from the target also reads the other tokens of the window (open-sesame's
per-target BiLSTM, as one attention layer; the distance to the target is already in u).

The parameters (`tt_W`, `tt_b`, `tt_rel`; with context `tt_Wq`, `tt_Wk`, `tt_Wv`) live on
the FE scorer model (serialized and stepped with it); `pairs` is the per-batch plan,
`forward` the features and backprop.
"""

from typing import Callable, List, NamedTuple, Tuple

import numpy
from thinc.api import Model, Ops
from thinc.types import Floats2d

from spacy_frames.ml.layers import mean_contiguous

REL_EDGES = (1, 2, 3, 4, 6, 8, 12, 16, 24)  # |distance| buckets; the last is open
N_REL = 2 * len(REL_EDGES) + 1  # before, inside the target, after


class Pairs(NamedTuple):
    """The (target, token) pairs of a batch: their tokens' and targets' rows in the pooled
    matrix, their distance buckets, and per candidate row the pair index of its span start
    and end (a row's span [s, e) of its target is pairs [start, end)); per pair its
    target's number in the batch and its position in that target's window."""

    token: numpy.ndarray
    target: numpy.ndarray
    rel: numpy.ndarray
    row_start: numpy.ndarray
    row_end: numpy.ndarray
    group: numpy.ndarray
    position: numpy.ndarray


def init_params(model: Model, n_in: int, width: int, context: bool = False) -> None:
    rng = numpy.random.default_rng(1)
    if not model.has_param("tt_W"):
        model.set_param(
            "tt_W", model.ops.asarray2f(rng.normal(0, 1 / numpy.sqrt(2 * n_in), (width, 2 * n_in)).astype("f"))
        )
        model.set_param("tt_b", model.ops.alloc1f(width))
        model.set_param("tt_rel", model.ops.asarray2f(rng.normal(0, 0.1, (N_REL, width)).astype("f")))
    if context and not model.has_param("tt_Wq"):
        for name in ("tt_Wq", "tt_Wk", "tt_Wv"):
            model.set_param(name, model.ops.asarray2f(rng.normal(0, 1 / numpy.sqrt(width), (width, width)).astype("f")))


def rel_buckets(tokens: numpy.ndarray, t_start: numpy.ndarray, t_end: numpy.ndarray) -> numpy.ndarray:
    """Signed distance buckets: 0..len-1 before the target (nearest first), len inside
    it, len+1.. after it."""
    before = t_start - tokens  # >= 1 before the target
    after = tokens - t_end + 1  # >= 1 after it
    n = len(REL_EDGES)
    out = numpy.full(len(tokens), n, dtype="int64")
    b = before >= 1
    out[b] = n - 1 - (numpy.searchsorted(REL_EDGES, before[b], side="right") - 1)
    a = after >= 1
    out[a] = n + 1 + numpy.searchsorted(REL_EDGES, after[a], side="right") - 1
    return out


def doc_pairs(rows: numpy.ndarray) -> Tuple[numpy.ndarray, ...]:
    """For one doc's rows (ts, te, ss, se): per pair its token, target start and end; per
    row its pair start and end (offsets within this doc's pairs); per pair its target's
    number in the doc and its position in the target's window."""
    ts, te, ss, se = rows.T
    codes, which = numpy.unique(ts * (int(rows.max()) + 2) + te, return_inverse=True)
    which = which.reshape(-1)
    lo = numpy.full(len(codes), numpy.iinfo("int64").max)
    hi = numpy.zeros(len(codes), dtype="int64")
    numpy.minimum.at(lo, which, ss)
    numpy.maximum.at(hi, which, se)
    lengths = hi - lo
    first = numpy.concatenate([[0], numpy.cumsum(lengths)[:-1]])
    token = numpy.repeat(lo - first, lengths) + numpy.arange(int(lengths.sum()))
    target_start, target_end = numpy.zeros(len(codes), dtype="int64"), numpy.zeros(len(codes), dtype="int64")
    target_start[which], target_end[which] = ts, te
    pair_ts, pair_te = numpy.repeat(target_start, lengths), numpy.repeat(target_end, lengths)
    base = first[which] - lo[which]
    group = numpy.repeat(numpy.arange(len(codes)), lengths)
    position = numpy.arange(len(token)) - numpy.repeat(first, lengths)
    return token, pair_ts, pair_te, base + ss, base + se, group, position


def forward(model: Model, pooled: Floats2d, pairs: Pairs, is_train: bool) -> Tuple[Floats2d, Callable]:
    """(n_rows, 3 * width) features [mean of u over the span ; u at its first ; u at its
    last token] and the backprop, which adds the pooled matrix's gradient into
    `d_pooled` and returns nothing."""
    ops: Ops = model.ops
    W, b, E = model.get_param("tt_W"), model.get_param("tt_b"), model.get_param("tt_rel")
    w = pooled.shape[1]
    h_tok, h_tgt = pooled[pairs.token], pooled[pairs.target]
    X = ops.xp.concatenate([h_tok, h_tok * h_tgt], axis=1)
    Z = X @ W.T + b + E[pairs.rel]
    U = ops.relu(Z)
    bp_context = None
    if model.has_param("tt_Wq"):
        U, bp_context = window_attention(model, U, pairs.group, pairs.position)
    k = U.shape[1]
    mean, bp_mean = mean_contiguous(ops, [U], numpy.column_stack([pairs.row_start, pairs.row_end]), k)
    feats = ops.xp.concatenate([mean, U[pairs.row_start], U[pairs.row_end - 1]], axis=1)

    def backprop(d_feats: Floats2d, d_pooled: Floats2d) -> None:
        d_U = bp_mean(ops.as_contig(d_feats[:, :k]))
        ops.xp.add.at(d_U, pairs.row_start, d_feats[:, k : 2 * k])
        ops.xp.add.at(d_U, pairs.row_end - 1, d_feats[:, 2 * k :])
        if bp_context is not None:
            d_U = bp_context(d_U)
        d_Z = d_U * (Z > 0)
        model.inc_grad("tt_W", d_Z.T @ X)
        model.inc_grad("tt_b", d_Z.sum(axis=0))
        d_E = ops.alloc2f(*E.shape)
        ops.xp.add.at(d_E, pairs.rel, d_Z)
        model.inc_grad("tt_rel", d_E)
        d_X = d_Z @ W
        ops.xp.add.at(d_pooled, pairs.token, d_X[:, :w] + d_X[:, w:] * h_tgt)
        ops.xp.add.at(d_pooled, pairs.target, d_X[:, w:] * h_tok)

    return feats, backprop


def batch_pairs(
    per_doc: List[Tuple[numpy.ndarray, ...]], token_index: List[numpy.ndarray], target_index: List[numpy.ndarray]
) -> Pairs:
    """The batch's Pairs from each doc's `doc_pairs` and the pooled rows of its pairs'
    tokens and targets."""
    offsets = numpy.cumsum([0] + [len(p[0]) for p in per_doc])
    group_offsets = numpy.cumsum([0] + [int(p[5].max()) + 1 if len(p[5]) else 0 for p in per_doc])
    return Pairs(
        token=numpy.concatenate(token_index).astype("int64") if token_index else numpy.zeros(0, dtype="int64"),
        target=numpy.concatenate(target_index).astype("int64") if target_index else numpy.zeros(0, dtype="int64"),
        rel=numpy.concatenate([rel_buckets(p[0], p[1], p[2]) for p in per_doc])
        if per_doc
        else numpy.zeros(0, dtype="int64"),
        row_start=numpy.concatenate([p[3] + o for p, o in zip(per_doc, offsets)])
        if per_doc
        else numpy.zeros(0, dtype="int64"),
        row_end=numpy.concatenate([p[4] + o for p, o in zip(per_doc, offsets)])
        if per_doc
        else numpy.zeros(0, dtype="int64"),
        group=numpy.concatenate([p[5] + o for p, o in zip(per_doc, group_offsets)])
        if per_doc
        else numpy.zeros(0, dtype="int64"),
        position=numpy.concatenate([p[6] for p in per_doc]) if per_doc else numpy.zeros(0, dtype="int64"),
    )


def window_attention(
    model: Model, U: Floats2d, group: numpy.ndarray, position: numpy.ndarray
) -> Tuple[Floats2d, Callable[[Floats2d], Floats2d]]:
    """One residual self-attention layer over each target's window of pair vectors:
    U + softmax(Q K^T / sqrt(k)) V per target, Q = U Wq^T, K = U Wk^T, V = U Wv^T (the
    windows padded to the longest, padding masked out), and its backprop to U."""
    ops: Ops = model.ops
    xp = ops.xp
    Wq, Wk, Wv = (model.get_param(name) for name in ("tt_Wq", "tt_Wk", "tt_Wv"))
    n, k = U.shape
    if not n:
        return U, lambda d_U: d_U
    n_groups, length = int(group.max()) + 1, int(position.max()) + 1
    at = (ops.asarray1i(group.astype("int32")), ops.asarray1i(position.astype("int32")))
    valid = xp.zeros((n_groups, length), dtype=bool)
    valid[at] = True

    def padded(M):
        out = xp.zeros((n_groups, length, M.shape[1]), dtype="f")
        out[at] = M
        return out

    Q, K, V = U @ Wq.T, U @ Wk.T, U @ Wv.T
    Qp, Kp, Vp = padded(Q), padded(K), padded(V)
    scale = float(1.0 / numpy.sqrt(k))
    S = xp.matmul(Qp, Kp.transpose(0, 2, 1)) * scale
    S = xp.where(valid[:, None, :], S, -1e9)
    S = S - S.max(axis=-1, keepdims=True)
    A = xp.exp(S)
    A /= A.sum(axis=-1, keepdims=True)
    out = U + xp.matmul(A, Vp)[at]

    def backprop(d_out: Floats2d) -> Floats2d:
        d_C = padded(d_out)
        d_A = xp.matmul(d_C, Vp.transpose(0, 2, 1))
        d_V = xp.matmul(A.transpose(0, 2, 1), d_C)[at]
        d_S = A * (d_A - (d_A * A).sum(axis=-1, keepdims=True)) * scale
        d_Q = xp.matmul(d_S, Kp)[at]
        d_K = xp.matmul(d_S.transpose(0, 2, 1), Qp)[at]
        model.inc_grad("tt_Wq", d_Q.T @ U)
        model.inc_grad("tt_Wk", d_K.T @ U)
        model.inc_grad("tt_Wv", d_V.T @ U)
        return d_out + d_Q @ Wq + d_K @ Wk + d_V @ Wv

    return out, backprop

"""The layer library of the components' models (thinc and numpy only; no torch).

- span pooling: `build_span_pooler`, the max or the mean of the token vectors over each
  span's tokens (the pieces of a discontinuous target only), registered as
  `spacy-frames.span_pool.v1`; `spacy-frames.target_max_pool.v1` and
  `spacy-frames.target_mean_pool.v1` are its two reductions under their released names;
- `reduce_max_or_zero`: the listeners' pooling of a token's wordpieces;
- document pooling: `mean_rows`, the mean of each document's token vectors;
- `build_argument_cross_attention`: what a pair encoder's attention across two text
  spans gives, for two spans read in one pass (discourse_sense's arguments);
- `l2_normalize`: rows scaled to unit length, with its backprop; `mix_normalized`: the
  L2-normalised mix of two vectors per row (frame_inducer's (1 - alpha) v_word + alpha v_mask);
- cached vectors: `cached_doc_vectors` (a vector per doc computed once, kept in
  `doc.user_data`) and `offset_rows` (rows of a cached matrix plus a learned offset that is
  a parameter of the model: frame_identifier's frame memory).

Layers here are shared by several models; a model module imports from here and from the
other shared modules (transformer.py, torch_modules.py), never from another component's
model module.
"""

from typing import Callable, List, Optional, Sequence, Tuple, Union

import numpy
from spacy.tokens import Doc, Span
from spacy.util import registry
from thinc.api import Model, Ops
from thinc.types import Floats2d, Ints1d, Ragged

# per doc, its spans: Span objects, or the token indices each one covers; or an (n, 2)
# integer array of contiguous [start, end) spans (the mean of many spans, without a
# Python loop per span)
SpanInput = Tuple[List[Doc], List[Union[List[Union[Span, Sequence[int], Ints1d]], numpy.ndarray]]]
REDUCTIONS = ("max", "mean")


# -- span pooling ----------------------------------------------------------------------------
@registry.layers("spacy-frames.span_pool.v1")
def build_span_pooler(tok2vec: Model[List[Doc], List[Floats2d]], reduction: str = "max") -> Model[SpanInput, Floats2d]:
    """Pool token vectors over each span's tokens: (docs, spans) -> (n_spans, width), rows
    in doc order. reduction: "max" (a span without tokens gives a row of -1e9: none of the
    components passes one) or "mean"."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"span pooler: reduction must be one of {REDUCTIONS}, got {reduction!r}")
    model = Model(
        f"target_{reduction}_pool",
        span_pool_forward,
        init=span_pool_init,
        layers=[tok2vec],
        dims={"nO": None},
        attrs={"reduction": reduction},
    )
    model.set_ref("tok2vec", tok2vec)
    return model


@registry.layers("spacy-frames.target_max_pool.v1")
def build_target_pooler(tok2vec: Model[List[Doc], List[Floats2d]]) -> Model[SpanInput, Floats2d]:
    """Max-pool token vectors over each target's tokens (frame_identifier's target vector)."""
    return build_span_pooler(tok2vec, "max")


@registry.layers("spacy-frames.target_mean_pool.v1")
def build_target_mean_pooler(tok2vec: Model[List[Doc], List[Floats2d]]) -> Model[SpanInput, Floats2d]:
    """Average token vectors over each target's tokens (frame_inducer's v_word, discourse_sense's arguments)."""
    return build_span_pooler(tok2vec, "mean")


def span_token_indices(span: Span) -> List[int]:
    """The span's tokens (the pieces of a discontinuous target only)."""
    parts = span._.target_parts
    if parts:
        return [i for start, end in parts for i in range(start, end)]
    return list(range(span.start, span.end))


def token_indices(item: Union[Span, Sequence[int], Ints1d]) -> List[int]:
    return span_token_indices(item) if isinstance(item, Span) else [int(i) for i in item]


def span_pool_init(model: Model, X: Optional[SpanInput] = None, Y=None) -> None:
    tok2vec = model.get_ref("tok2vec")
    tok2vec.initialize(X=X[0] if X is not None else None)
    if tok2vec.has_dim("nO") and tok2vec.get_dim("nO"):
        model.set_dim("nO", tok2vec.get_dim("nO"))


def span_pool_forward(model: Model, X: SpanInput, is_train: bool):
    docs, spans = X
    ops = model.ops
    token_vecs, bp_tok2vec = model.get_ref("tok2vec")(docs, is_train)
    # an empty doc may come back as a (0, 0) array: take the width from the others
    width = max((vecs.shape[1] for vecs in token_vecs if vecs.ndim == 2 and len(vecs)), default=0)
    if not width and model.has_dim("nO"):
        width = model.get_dim("nO") or 0
    offsets = [0]
    for vecs in token_vecs:
        offsets.append(offsets[-1] + len(vecs))
    if (
        spans
        and all(isinstance(doc_spans, numpy.ndarray) for doc_spans in spans)
        and model.attrs["reduction"] == "mean"
        and width
    ):
        pooled, bp_flat = mean_contiguous(ops, token_vecs, stacked_bounds(spans, offsets), width)
    else:
        spans = [
            [range(a, b) for a, b in doc_spans.reshape(-1, 2).tolist()]
            if isinstance(doc_spans, numpy.ndarray)
            else doc_spans
            for doc_spans in spans
        ]
        rows = [
            [offsets[d] + i for i in token_indices(item)] for d, doc_spans in enumerate(spans) for item in doc_spans
        ]
        if not rows or not width:

            def backprop_empty(dY):
                bp_tok2vec([ops.alloc2f(*vecs.shape) for vecs in token_vecs])
                return X

            return ops.alloc2f(len(rows), width), backprop_empty
        reduce = max_rows if model.attrs["reduction"] == "max" else mean_span_rows
        pooled, bp_flat = reduce(ops, token_vecs, rows, width)

    def backprop(d_pooled: Floats2d):
        d_flat = bp_flat(d_pooled)
        bp_tok2vec([d_flat[offsets[d] : offsets[d + 1]] for d in range(len(token_vecs))])
        return X

    return pooled, backprop


def stacked_bounds(spans: List[numpy.ndarray], offsets: Sequence[int]) -> numpy.ndarray:
    """Each doc's [start, end) spans as rows of the docs' stacked token vectors (n, 2)."""
    parts = [doc_spans.reshape(-1, 2).astype("int64") + offsets[d] for d, doc_spans in enumerate(spans)]
    return numpy.concatenate(parts) if parts else numpy.zeros((0, 2), dtype="int64")


def mean_pool_projected(pooler: Model, projection: Model, docs: List[Doc], spans: List[numpy.ndarray]) -> Floats2d:
    """Prediction only: projection(pooler((docs, spans))) for a mean pooler and non-empty
    [start, end) spans, computed the other way round: the (affine) projection of each
    token, then the mean over each span. Equal up to float rounding, and cheaper when the
    spans outnumber the tokens and the projection narrows the vectors."""
    ops = pooler.ops
    token_vecs = pooler.get_ref("tok2vec").predict(docs)
    bounds = stacked_bounds(spans, numpy.cumsum([0] + [len(v) for v in token_vecs]))
    non_empty = [v for v in token_vecs if len(v)]
    width = projection.get_dim("nO")
    if not non_empty:
        return ops.alloc2f(len(bounds), width)
    projected = projection.predict(ops.xp.concatenate(non_empty))
    return mean_contiguous(ops, [projected], bounds, width)[0]


def max_rows(ops: Ops, token_vecs: List[Floats2d], rows: List[List[int]], width: int):
    """The max over each row list of the stacked token vectors, and its backprop (to the
    stacked vectors); an empty row list takes a padding row of -1e9."""
    pieces = [vecs if len(vecs) else ops.alloc2f(0, width) for vecs in token_vecs]
    flat = ops.xp.concatenate(pieces + [ops.xp.full((1, width), -1e9, dtype="f")])  # last row: padding
    pad_row = flat.shape[0] - 1
    rows = [row or [pad_row] for row in rows]
    index = ops.xp.full((len(rows), max(len(r) for r in rows)), pad_row, dtype="i")
    for r, row in enumerate(rows):
        index[r, : len(row)] = ops.asarray(row, dtype="i")
    gathered = flat[index]  # (n_spans, max_len, width)
    pooled = gathered.max(axis=1)

    def backprop(d_pooled: Floats2d) -> Floats2d:
        # the row of `flat` that won, per span and dim (found here: prediction never needs it)
        source = ops.xp.take_along_axis(index, gathered.argmax(axis=1), axis=1)
        d_flat = ops.alloc2f(flat.shape[0], width)
        cols = ops.xp.broadcast_to(ops.xp.arange(width), source.shape)
        ops.xp.add.at(d_flat, (source, cols), d_pooled)
        return d_flat

    return pooled, backprop


def prefix_sums(xp, flat: Floats2d):
    """Row i: the sum of flat's first i rows, in float64 (long documents lose no precision)."""
    prefix = xp.zeros((flat.shape[0] + 1, flat.shape[1]), dtype="float64")
    xp.cumsum(flat, axis=0, dtype="float64", out=prefix[1:])
    return prefix


def mean_contiguous(ops: Ops, token_vecs: List[Floats2d], bounds: numpy.ndarray, width: int, prefix=None):
    """The mean of the stacked token vectors over each [start, end) of `bounds` (n, 2),
    from prefix sums (`prefix_sums`; passed in when the caller has them), and its backprop."""
    flat = ops.xp.concatenate([v for v in token_vecs if len(v)] or [ops.alloc2f(0, width)])
    if prefix is None:
        prefix = prefix_sums(ops.xp, flat)
    starts, ends = ops.asarray(bounds[:, 0]), ops.asarray(bounds[:, 1])
    lengths = ops.xp.maximum(ends - starts, 1)[:, None]
    pooled = ((prefix[ends] - prefix[starts]) / lengths).astype("float32")

    def backprop(d_pooled: Floats2d) -> Floats2d:
        # d/len on each span's tokens: +d/len at its start, -d/len at its end, summed up
        diff = ops.xp.zeros((flat.shape[0] + 1, width), dtype="float64")
        share = d_pooled.astype("float64") / lengths
        ops.xp.add.at(diff, starts, share)
        ops.xp.add.at(diff, ends, -share)
        return ops.xp.cumsum(diff[:-1], axis=0).astype("float32")

    return pooled, backprop


def mean_span_rows(ops: Ops, token_vecs: List[Floats2d], rows: List[List[int]], width: int):
    """The mean over each row list of the stacked token vectors, and its backprop."""
    flat = ops.xp.concatenate([v for v in token_vecs if len(v)])
    index = ops.asarray1i([i for row in rows for i in row])
    lengths = ops.asarray1i([len(row) for row in rows])
    pooled = ops.reduce_mean(ops.as_contig(flat[index]), lengths)

    def backprop(d_pooled: Floats2d) -> Floats2d:
        d_rows = ops.backprop_reduce_mean(ops.as_contig(d_pooled), lengths)
        d_flat = ops.alloc2f(*flat.shape)
        ops.xp.add.at(d_flat, index, d_rows)
        return d_flat

    return pooled, backprop


# -- wordpiece pooling -----------------------------------------------------------------------
@registry.layers("spacy-frames.reduce_max_or_zero.v1")
def reduce_max_or_zero() -> Model[Ragged, Floats2d]:
    """reduce_max over each sequence; an empty sequence gives a zero vector.

    A token can have no wordpieces (e.g. a lone control character the transformer
    tokenizer drops), and thinc's reduce_max refuses empty sequences.
    """
    return Model("reduce_max_or_zero", reduce_max_or_zero_forward)


def reduce_max_or_zero_forward(model: Model, Xr: Ragged, is_train: bool):
    ops = model.ops
    lengths = ops.asarray1i(Xr.lengths)
    width = Xr.data.shape[1]
    nonzero = lengths > 0
    Y = ops.alloc2f(len(lengths), width)
    if not ops.xp.any(nonzero):
        return Y, lambda dY: Ragged(ops.alloc2f(*Xr.data.shape), lengths)
    sub_lengths = lengths[nonzero]
    Y_sub, which = ops.reduce_max(ops.as_contig(Xr.data), sub_lengths)
    Y[nonzero] = Y_sub

    def backprop(dY: Floats2d) -> Ragged:
        dX = ops.backprop_reduce_max(ops.as_contig(dY[nonzero]), which, sub_lengths)
        return Ragged(dX, lengths)

    return Y, backprop


# -- attention across two spans --------------------------------------------------------------
# per pair, the [start, end) rows of its two spans in the stacked token vectors
CrossInput = Tuple[Floats2d, numpy.ndarray, numpy.ndarray]


@registry.layers("spacy-frames.argument_cross_attention.v1")
def build_argument_cross_attention(width: Optional[int] = None) -> Model[CrossInput, Floats2d]:
    """Attention between the tokens of two spans A (m tokens) and B (n tokens), ESIM-style:
    with S = (A W) B^T / sqrt(d), each token of A is aligned with the softmax-weighted tokens
    of B (C_A = softmax_rows(S) B) and each token of B with A's (C_B = softmax_cols(S)^T A),
    and a pair is [mean_i A_i * C_A,i ; mean_j B_j * C_B,j]: 2 d features that say how
    each span's tokens match the other's, which pooled vectors cannot. W starts as the
    identity (plain dot-product attention). Input: the stacked token vectors (N, d) and
    per pair the [start, end) rows of A and of B ((P, 2) each); output (P, 2 d)."""
    return Model(
        "argument_cross_attention",
        cross_attention_forward,
        init=cross_attention_init,
        params={"W": None},
        dims={"nI": width, "nO": None},
    )


def cross_attention_init(model: Model, X: Optional[CrossInput] = None, Y=None) -> None:
    if X is not None and len(X[0].shape) == 2 and X[0].shape[1]:
        model.set_dim("nI", X[0].shape[1])
    width = model.get_dim("nI")
    model.set_dim("nO", 2 * width)
    model.set_param("W", model.ops.asarray2f(numpy.eye(width, dtype="float32")))


def cross_attention_forward(model: Model, X: CrossInput, is_train: bool):
    flat, bounds_a, bounds_b = X
    ops, xp = model.ops, model.ops.xp
    W = model.get_param("W")
    width = W.shape[0]
    scale = 1.0 / float(numpy.sqrt(width))
    out = ops.alloc2f(len(bounds_a), 2 * width)
    saved = []
    for p, ((a0, a1), (b0, b1)) in enumerate(zip(bounds_a.tolist(), bounds_b.tolist())):
        if a1 <= a0 or b1 <= b0:  # an empty span: no alignment, zero features
            saved.append(None)
            continue
        A, B = flat[a0:a1], flat[b0:b1]
        Q = A @ W
        S = scale * (Q @ B.T)
        P_rows = _softmax(xp, S, axis=1)
        P_cols = _softmax(xp, S, axis=0)
        C_a, C_b = P_rows @ B, P_cols.T @ A
        out[p, :width] = (A * C_a).mean(axis=0)
        out[p, width:] = (B * C_b).mean(axis=0)
        saved.append((A, B, Q, P_rows, P_cols, C_a, C_b))

    def backprop(d_out: Floats2d) -> Floats2d:
        d_flat = ops.alloc2f(*flat.shape)
        d_W = ops.alloc2f(*W.shape)
        for p, ((a0, a1), (b0, b1)) in enumerate(zip(bounds_a.tolist(), bounds_b.tolist())):
            if saved[p] is None:
                continue
            A, B, Q, P_rows, P_cols, C_a, C_b = saved[p]
            g_a, g_b = d_out[p, :width] / len(A), d_out[p, width:] / len(B)
            d_A, d_B = C_a * g_a, C_b * g_b
            d_C_a, d_C_b = A * g_a, B * g_b
            d_B += P_rows.T @ d_C_a
            d_A += P_cols @ d_C_b
            d_P_rows, d_P_cols = d_C_a @ B.T, A @ d_C_b.T
            d_S = P_rows * (d_P_rows - (d_P_rows * P_rows).sum(axis=1, keepdims=True))
            d_S += P_cols * (d_P_cols - (d_P_cols * P_cols).sum(axis=0, keepdims=True))
            d_Q = scale * (d_S @ B)
            d_B += scale * (d_S.T @ Q)
            d_W += A.T @ d_Q
            d_A += d_Q @ W.T
            d_flat[a0:a1] += d_A
            d_flat[b0:b1] += d_B
        model.inc_grad("W", d_W)
        return d_flat

    return out, backprop


def _softmax(xp, S, axis: int):
    e = xp.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# -- document pooling ------------------------------------------------------------------------
def mean_rows(ops: Ops, arrays: List[Floats2d], width: int) -> Tuple[Floats2d, Callable[[Floats2d], List[Floats2d]]]:
    """Mean over each doc's token vectors (zeros for an empty doc) and its backprop."""
    lengths = [a.shape[0] for a in arrays]
    out = ops.alloc2f(len(arrays), width)
    for i, a in enumerate(arrays):
        if a.shape[0]:
            out[i] = a.mean(axis=0)

    def backprop(d_out: Floats2d) -> List[Floats2d]:
        return [ops.xp.repeat(d_out[i : i + 1] / max(n, 1), n, axis=0) for i, n in enumerate(lengths)]

    return out, backprop


# -- normalisation ---------------------------------------------------------------------------
def l2_normalize(ops: Ops, X: Floats2d) -> Tuple[Floats2d, Callable[[Floats2d], Floats2d]]:
    """Rows of X scaled to unit length (+1e-8 in the norm) and the backprop."""
    norms = ops.xp.sqrt((X * X).sum(axis=1, keepdims=True)) + 1e-8
    Y = X / norms

    def backprop(dY: Floats2d) -> Floats2d:
        return (dY - Y * (Y * dY).sum(axis=1, keepdims=True)) / norms

    return Y, backprop


def mix_normalized(
    ops: Ops, first: Floats2d, second: Optional[Floats2d], alpha: float
) -> Tuple[Floats2d, Callable[[Floats2d], Tuple[Floats2d, Optional[Floats2d]]]]:
    """norm((1 - alpha) * first + alpha * second), rows L2-normalised (`l2_normalize`), and
    the backprop to (d_first, d_second); with alpha 0 the mix is `first` alone (`second`
    may be None) and d_second is None."""
    mixed = first if alpha == 0 else (1.0 - alpha) * first + alpha * second
    vectors, bp_norm = l2_normalize(ops, mixed)

    def backprop(d_vectors: Floats2d) -> Tuple[Floats2d, Optional[Floats2d]]:
        d_mixed = bp_norm(d_vectors)
        return (d_mixed, None) if alpha == 0 else ((1.0 - alpha) * d_mixed, alpha * d_mixed)

    return vectors, backprop


# -- cached vectors --------------------------------------------------------------------------
def cached_doc_vectors(ops: Ops, docs: List[Doc], key: str) -> Optional[Floats2d]:
    """The vectors precomputed for `docs` (`doc.user_data[key]`), or None unless all have one."""
    if not docs or not all(key in doc.user_data for doc in docs):
        return None
    return ops.asarray2f(numpy.asarray([doc.user_data[key] for doc in docs], dtype="float32"))


def offset_rows(
    model: Model, name: str, base: numpy.ndarray, rows: Sequence[int]
) -> Tuple[Floats2d, Callable[[Floats2d], None]]:
    """Rows of a cached matrix plus a learned offset, L2-normalised: base[rows] + W[rows],
    with W = the parameter `name` of `model` (the offset is zero while W is unset), and a
    backprop that adds the offset's gradient to the parameter's gradient (W starts at zero
    with the first one). That gradient is a fresh one (`add_fresh_grad`): the component
    steps W only after a batch that gave it a gradient (pipeline/base.py,
    `finish_update_params`), as an update of the offsets would."""
    ops = model.ops
    offsets = model.get_param(name) if model.has_param(name) else None
    pre = base[rows] if offsets is None else base[rows] + offsets[rows]
    vectors, bp_norm = l2_normalize(ops, ops.asarray(pre))

    def backprop(d_vectors: Floats2d) -> None:
        if not model.has_param(name):
            model.set_param(name, numpy.zeros_like(base))
        grad = numpy.zeros_like(model.get_param(name))
        numpy.add.at(grad, rows, ops.to_numpy(bp_norm(d_vectors)))
        add_fresh_grad(model, name, grad)

    return vectors, backprop


def add_fresh_grad(model: Model, name: str, grad) -> None:
    """Add to the gradient of a parameter that is stepped only when it has one since its
    last step (`consume_grad` marks it used)."""
    if model.has_grad(name) and model.get_grad(name).size:
        model.inc_grad(name, grad)
    else:
        model.set_grad(name, grad)


def consume_grad(model: Model, name: str) -> None:
    """Mark a stepped parameter's gradient as used: no step until the next `add_fresh_grad`
    (an empty gradient is one the optimizer skips)."""
    model.set_grad(name, model.ops.alloc1f(0))

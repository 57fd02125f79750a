"""The research frame_elements' model (`frames-lab.FrameElementScorer.v1`): candidate
spans of a target against the definitions of its frame's FEs (COFFTEA's
target-vs-definition matching carried one level down).

Input: the docs, per doc its rows (target_start, target_end, span_start, span_end) from
`frames-lab.fe_candidate_suggester.v1`, per row its options: indices into the model's
FE table, 0 being "no FE", and optionally per row whether pruning must keep it (the gold
rows in training). Output: (n_rows, max_options) scores, cosine similarities of the row's
span vector with each option's vector; the 0/1 mask of the options that exist (all zero
on a row pruning dropped); and each row's prune score.

- Pruning (`prune_k`): a cheap linear score per row (`span_pruner.py`) keeps the best
  `prune_k` rows of each target; the span MLP below runs on those only, so the suggester
  can offer every span up to a length that reaches the gold FEs.
- `on_target`: a feature that the row's span is its own target (FrameNet's incorporated
  FEs, "[president]" as the Leader).
- `target_tokens` / `target_context`: the span as seen from its target, token by token,
  with one attention layer over the target's window (`target_tokens.py`).

- Span vector: the shared transformer's token vectors (a listener) pooled in one pass over
  the span, its target and (`endpoints`) the span's first and last tokens, which fix its
  boundaries; the span-target product; the target's distance and side and the span's
  length as bucketed one-hots; and (`syntax`, when the doc is parsed) the dependency
  label of the span's root and how that root hangs from the target (a dependent, a
  grandchild through a preposition, the target's governor, a sibling): through a hidden
  ReLU layer and a linear map into the definition space, then L2-normalised.
- Option vectors (`options.py`): row 0 is a learned "no FE" vector; rows 1.. are the FE definitions as
  the frame-definition encoder read them ("Frame: FE (core): definition"), kept frozen in
  the parameter `fe_vectors` (serialized with the model; new frames' FEs are appended
  by the component without retraining) and mapped by a learned square matrix that starts
  as the identity, so the pretrained geometry of the definitions is where training begins.
"""

from typing import Dict, List, NamedTuple, Optional, Tuple, Union

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Linear, Model, Relu, chain
from thinc.types import Floats1d, Floats2d

from spacy_frames.ml.fe_features import N_SYNTAX, Row, n_position_features
from spacy_frames.ml.layers import build_span_pooler, l2_normalize, mean_contiguous, mean_pool_projected, prefix_sums

from . import span_pruner, target_tokens
from .features import N_POS, OneHotRows, distinct_spans, pos_one_hots, position_one_hots, syntax_one_hots
from .options import option_scores

# docs, per doc its rows, per row its options; optionally per row whether pruning must keep
# it, and (frame_queries) per row the index of its frame in a matrix of frame vectors
RowFrames = Tuple[numpy.ndarray, numpy.ndarray]
FEInput = Union[
    Tuple[List[Doc], List[List[Row]], List[List[int]]],
    Tuple[List[Doc], List[List[Row]], List[List[int]], Optional[numpy.ndarray]],
    Tuple[List[Doc], List[List[Row]], List[List[int]], Optional[numpy.ndarray], Optional[RowFrames]],
]


@registry.architectures("frames-lab.FrameElementScorer.v1")
def build_frame_element_scorer(
    tok2vec: Model,
    hidden_width: int = 256,
    reduction: str = "mean",
    dropout: float = 0.1,
    learn_fe_vectors: bool = False,
    endpoints: bool = True,
    syntax: bool = True,
    token_width: int = 0,
    target_tokens: int = 0,
    on_target: bool = False,
    prune_k: int = 0,
    target_context: bool = False,
    frame_queries: bool = False,
    pos: bool = False,
) -> Model[FEInput, Tuple[Floats2d, Floats2d, Floats1d]]:
    """learn_fe_vectors: train the FE table's vectors too (the label-embedding baseline,
    fe_queries = "labels"); by default they are the frozen definition vectors.
    endpoints / syntax: the span's boundary tokens / its dependency features (see above).
    token_width: project the pooled vectors to this width first (0: keep the transformer's):
    the pooled means are linear in the tokens, so this is a low-rank first layer, and it
    makes the per-candidate layer several times cheaper.
    target_tokens: width of the target-conditioned token features (`target_tokens.py`;
    0: none): each span also described by its tokens as seen from its target.
    on_target: a feature that the span is its target (FEs FrameNet puts on the target
    itself, "[president]" as the Leader of Leadership; the suggester's `include_target`).
    target_context: one self-attention layer over each target's window on top of the
    target-conditioned token features (needs target_tokens > 0).
    frame_queries: the FE queries and "no FE" also read the target's frame: each is shifted
    by a learned map of the frame's definition vector (a zero map at the start), so one FE
    name means what it means in that frame and "no FE" is as likely as the frame makes it;
    the input then carries each row's frame (see FEInput).
    prune_k: keep the `prune_k` best rows of each target by a cheap learned score
    (`span_pruner.py`) and run the span MLP on those only (0: score every row).
    pos: the coarse POS of the span's first and last token and of its neighbours (`pos_one_hots`),
    a parse-free stand-in for the syntax features."""
    check_settings(prune_k, target_tokens, target_context)
    pooler = build_span_pooler(tok2vec, reduction)
    span_mlp = chain(Relu(nO=hidden_width, dropout=dropout), Linear())
    layers = [pooler, span_mlp] + ([Linear(nO=token_width)] if token_width else [])
    model = Model(
        "frame_element_scorer",
        frame_element_forward,
        init=frame_element_init,
        layers=layers,
        params={"fe_vectors": None, "fe_map": None, "no_fe": None, "frame_query": None, "frame_no_fe": None},
        dims={"nD": None},
        attrs=scorer_attrs(
            learn_fe_vectors, endpoints, syntax, target_tokens, on_target, prune_k, target_context, frame_queries, pos
        ),
    )
    model.set_ref("tok2vec", tok2vec)
    return model


def check_settings(prune_k: int, target_tokens: int, target_context: bool) -> None:
    if prune_k < 0:
        raise ValueError(f"FrameElementScorer: prune_k must be >= 0, got {prune_k}")
    if target_context and not target_tokens:
        raise ValueError("FrameElementScorer: target_context needs target_tokens > 0")


def scorer_attrs(
    learn_fe_vectors: bool,
    endpoints: bool,
    syntax: bool,
    target_tokens: int,
    on_target: bool,
    prune_k: int,
    target_context: bool,
    frame_queries: bool,
    pos: bool = False,
) -> Dict:
    return {
        "learn_fe_vectors": learn_fe_vectors,
        "endpoints": endpoints,
        "syntax": syntax,
        "target_tokens": target_tokens,
        "on_target": on_target,
        "prune_k": prune_k,
        "target_context": target_context,
        "frame_queries": frame_queries,
        "pos": pos,
    }


def n_span_inputs(model: Model, width: int) -> int:
    """Width of the features a row's span vector is computed from."""
    n_vectors = 5 if model.attrs["endpoints"] else 3  # span, target, span * target, first, last
    n_target_tokens = 3 * model.attrs.get("target_tokens", 0)
    return n_vectors * width + n_static_features(model) + n_target_tokens


def n_static_features(model: Model) -> int:
    """Width of a row's position (and syntax) features."""
    n_syntax = N_SYNTAX if model.attrs["syntax"] else 0
    return (
        n_position_features(model.attrs.get("on_target", False)) + n_syntax + (N_POS if model.attrs.get("pos") else 0)
    )


def fe_table_node(model: Model) -> Model:
    """The layer that holds the FE table (fe_vectors, fe_map, no_fe): the model itself."""
    return model


def set_fe_vectors(model: Model, vectors: numpy.ndarray) -> None:
    """The frozen definition vectors of the FE table (rows 1..; row 0 is "no FE")."""
    vectors = numpy.asarray(vectors, dtype="f")
    if vectors.ndim != 2 or not len(vectors):
        raise ValueError(f"frame_elements: FE definition vectors must be a non-empty matrix, got shape {vectors.shape}")
    if model.has_dim("nD") and model.get_dim("nD") not in (None, vectors.shape[1]):
        raise ValueError(
            f"frame_elements: FE definition vectors of width {vectors.shape[1]}, the model's are {model.get_dim('nD')}"
        )
    node = fe_table_node(model)
    node.set_param("fe_vectors", node.ops.asarray2f(vectors))


def frame_element_init(model: Model, X: Optional[FEInput] = None, Y=None) -> None:
    projection = model.layers[2] if len(model.layers) > 2 else None
    init_parts(model, model.layers[0], projection, model.layers[1], model, X)


def init_parts(
    rows: Model, pooler: Model, projection: Optional[Model], span_mlp: Model, options: Model, X=None
) -> None:
    """Initialize the model's parts: `rows` holds the pruner's and target-token layer's
    parameters, `options` the FE table (both the model itself)."""
    if not options.has_param("fe_vectors"):
        raise ValueError(
            "frame_elements: the FE table is empty; the component sets it from the inventory before initializing the model"
        )
    width = options.get_param("fe_vectors").shape[1]
    pooler.initialize(X=(X[0], [[] for _ in X[0]]) if X is not None else None)
    n_vec = pooler.get_dim("nO")
    if projection is not None:
        projection.initialize(X=rows.ops.alloc2f(2, n_vec))
        n_vec = projection.get_dim("nO")
    if rows.attrs.get("target_tokens", 0):
        target_tokens.init_params(
            rows, n_vec, rows.attrs["target_tokens"], context=rows.attrs.get("target_context", False)
        )
    if rows.attrs.get("prune_k", 0):
        span_pruner.init_params(rows, n_vec, 4 if rows.attrs["endpoints"] else 2, n_static_features(rows))
    n_in = n_span_inputs(rows, n_vec)
    span_mlp.initialize(X=rows.ops.alloc2f(2, n_in), Y=rows.ops.alloc2f(2, width))
    if not options.has_param("fe_map"):
        options.set_param("fe_map", options.ops.asarray2f(numpy.eye(width, dtype="f")))
    if not options.has_param("no_fe"):
        rng = numpy.random.default_rng(0)
        options.set_param("no_fe", options.ops.asarray1f(rng.normal(0, 1 / numpy.sqrt(width), width).astype("f")))
    if options.attrs.get("frame_queries", False) and not options.has_param("frame_query"):
        options.set_param("frame_query", options.ops.alloc2f(width, width))
        options.set_param("frame_no_fe", options.ops.alloc2f(width, width))
    options.set_dim("nD", width)


def frame_element_forward(model: Model, X: FEInput, is_train: bool):
    """(scores, mask, prune_scores): per row its options' scores and which of them exist,
    (n_rows, most options); with prune_k, the rows pruning dropped have an all-zero mask
    row (the component skips them) and prune_scores holds every row's prune score (zeros
    without a pruner). The backprop takes (d_scores, _, d_prune_scores or None).
    Three steps, each with its own backprop: the rows' features (`row_features`), the span
    vectors (`span_vectors`) and the options' scores (`option_scores`)."""
    docs, rows, options = X[:3]
    row_frames = X[4] if len(X) > 4 else None
    if model.attrs.get("frame_queries", False) and row_frames is None:
        raise ValueError("frame_elements: a model with frame_queries needs each row's frame (the fifth input)")
    pooler, span_mlp = model.layers[:2]
    projection = model.layers[2] if len(model.layers) > 2 else None
    n_opts = max(map(len, options), default=1)
    features, bp_features = row_features(model, pooler, projection, X, is_train)
    if features is None:
        ops = model.ops
        return (ops.alloc2f(0, n_opts), ops.alloc2f(0, n_opts), ops.alloc1f(0)), lambda dY: X
    spans_unit, bp_spans = span_vectors(span_mlp, features, is_train)
    (scores, mask), bp_options = option_scores(model, spans_unit, options, features.kept, row_frames, n_opts)

    def backprop(d_out):
        d_scores = d_out[0] if isinstance(d_out, tuple) else d_out
        d_prune = d_out[2] if isinstance(d_out, tuple) and len(d_out) > 2 else None
        bp_features(bp_spans(bp_options(d_scores)), d_prune)
        return X

    return (scores, mask, features.prune_scores), backprop


class RowFeatures(NamedTuple):
    """What the span vectors are computed from, for the rows pruning kept: the pooled
    vectors of the batch's distinct spans (`pooled`), per group (span, target and with
    `endpoints` first and last token) the kept rows' indices into them (`idx`), the kept
    rows' other features (`extra`: position, syntax, target-conditioned tokens); the kept
    rows' indices among all rows (`kept`) and every row's prune score."""

    pooled: Floats2d
    idx: List
    extra: Floats2d
    kept: numpy.ndarray
    prune_scores: Floats1d


def row_features(model: Model, pooler: Model, projection: Optional[Model], X: FEInput, is_train: bool):
    """The rows' features (RowFeatures; None when there are no rows) and the backprop,
    which takes the gradient of the feature matrix (`feature_matrix`) and of the prune
    scores (or None) and sends them to the token vectors. `model` holds the pruner's and
    the target-token layer's parameters and the settings (attrs)."""
    docs, rows, options = X[:3]
    forced = X[3] if len(X) > 3 else None
    flat_rows = _flat_rows(rows, options, forced)
    if not len(flat_rows):
        return None, None
    with_tt, prune_k = model.attrs.get("target_tokens", 0), model.attrs.get("prune_k", 0)
    # every row's position (and syntax) features, as where their 1s are
    static = position_one_hots(flat_rows, model.attrs.get("on_target", False))
    if model.attrs["syntax"]:
        static = static.beside(syntax_one_hots(docs, rows))
    if model.attrs.get("pos"):
        static = static.beside(pos_one_hots(docs, rows))
    if prune_k and not with_tt and projection is not None and pooler.attrs["reduction"] == "mean":
        # prune from the projected token vectors, then pool the kept rows' spans only
        return pruned_row_features(model, pooler, projection, docs, rows, flat_rows, forced, static, is_train)
    ops = model.ops
    all_static = ops.asarray2f(static.dense())
    plan = span_plan(docs, rows, model.attrs["endpoints"], with_tt)
    pooled, bp_pooled, bp_project = _pool_spans(pooler, projection, docs, plan.spans, is_train)
    all_idx = [ops.asarray1i(i.astype("int32")) for i in plan.index]
    bp_prune = None
    if prune_k:
        prune_scores, bp_prune = span_pruner.forward(model, pooled, all_idx, all_static)
        keep = span_pruner.top_k_per_group(plan.row_groups, ops.to_numpy(prune_scores), prune_k, forced)
        kept = numpy.flatnonzero(keep)
    else:
        prune_scores, kept = ops.alloc1f(len(flat_rows)), numpy.arange(len(flat_rows))
    kept_xp = ops.asarray1i(kept.astype("int32"))
    idx = [i[kept_xp] for i in all_idx]
    extra_feats = all_static[kept_xp]
    n_static = extra_feats.shape[1]
    bp_tt = None
    if with_tt:
        tt_feats, bp_tt = target_tokens.forward(model, pooled, plan.pairs, is_train)
        extra_feats = ops.xp.concatenate([extra_feats, tt_feats[kept_xp]], axis=1)
        tt_shape = tt_feats.shape
    features = RowFeatures(pooled, idx, extra_feats, kept, prune_scores)

    def backprop(d_feats: Floats2d, d_prune) -> None:
        d_pooled = pooled_gradient(ops, features, d_feats)
        if bp_tt is not None:
            d_tt = ops.alloc2f(*tt_shape)
            d_tt[kept_xp] = d_feats[:, (len(idx) + 1) * pooled.shape[1] + n_static :]
            bp_tt(d_tt, d_pooled)
        if bp_prune is not None and d_prune is not None:
            bp_prune(ops.asarray1f(d_prune), d_pooled)
        bp_pooled(bp_project(d_pooled) if bp_project is not None else d_pooled)

    return features, backprop


def _flat_rows(rows: List, options: List[List[int]], forced: Optional[numpy.ndarray]) -> numpy.ndarray:
    """The batch's rows (per doc an (n, 4) array or a list of 4-tuples) as one (n, 4)
    array, checked against the options and the rows to keep."""
    flat_rows = (
        numpy.concatenate([numpy.asarray(r, dtype="int64").reshape(-1, 4) for r in rows])
        if rows
        else numpy.zeros((0, 4), dtype="int64")
    )
    if len(options) != len(flat_rows):
        raise ValueError(f"frame_elements: {len(options)} option lists for {len(flat_rows)} candidate rows")
    if forced is not None and len(forced) != len(flat_rows):
        raise ValueError(f"frame_elements: {len(forced)} rows to keep flagged for {len(flat_rows)} candidate rows")
    return flat_rows


class SpanPlan(NamedTuple):
    """One pooling pass over the distinct spans each doc needs: per doc its distinct
    [start, end) spans (`spans`); per group (span, target and with `endpoints` first and
    last token) each row's index into the pooled spans (`index`, (n_groups, n_rows)); per
    row its target's number in the batch (`row_groups`, for pruning); with target_tokens
    the (target, token) pairs, whose window tokens are pooled too, one token each."""

    spans: List[numpy.ndarray]
    index: numpy.ndarray
    row_groups: numpy.ndarray
    pairs: Optional[target_tokens.Pairs]


def span_plan(docs: List[Doc], rows: List, endpoints: bool, with_tt: bool) -> SpanPlan:
    """The SpanPlan of the docs' rows: the candidate spans, their targets (and the spans'
    first and last tokens) and with `with_tt` every target's window tokens."""
    n_groups = 4 if endpoints else 2
    spans: List[numpy.ndarray] = []
    doc_index: List[numpy.ndarray] = []
    row_groups: List[numpy.ndarray] = []
    tt_docs, tt_tokens, tt_targets = [], [], []
    offset = n_targets = 0
    for doc, doc_rows in zip(docs, rows):
        if not len(doc_rows):
            spans.append(numpy.zeros((0, 2), dtype="int64"))
            continue
        arr = numpy.asarray(doc_rows, dtype="int64").reshape(-1, 4)
        ts, te, ss, se = arr.T
        starts = numpy.concatenate([ss, ts] + ([ss, se - 1] if endpoints else []))
        ends = numpy.concatenate([se, te] + ([ss + 1, se] if endpoints else []))
        if with_tt:
            pairs = target_tokens.doc_pairs(arr)
            starts, ends = numpy.concatenate([starts, pairs[0]]), numpy.concatenate([ends, pairs[0] + 1])
        n1 = len(doc) + 1
        distinct, inverse = numpy.unique(starts * n1 + ends, return_inverse=True)
        spans.append(numpy.column_stack([distinct // n1, distinct % n1]))
        doc_index.append(offset + inverse.reshape(-1)[: n_groups * len(arr)].reshape(n_groups, len(arr)))
        targets_of, which = numpy.unique(ts * n1 + te, return_inverse=True)
        row_groups.append(n_targets + which.reshape(-1))
        n_targets += len(targets_of)
        if with_tt:
            tt_docs.append(pairs)
            tt_tokens.append(offset + numpy.searchsorted(distinct, pairs[0] * n1 + pairs[0] + 1))
            tt_targets.append(offset + numpy.searchsorted(distinct, pairs[1] * n1 + pairs[2]))
        offset += len(distinct)
    index = numpy.concatenate(doc_index, axis=1) if doc_index else numpy.zeros((n_groups, 0), dtype="int64")
    groups = numpy.concatenate(row_groups) if row_groups else numpy.zeros(0, dtype="int64")
    pairs_plan = target_tokens.batch_pairs(tt_docs, tt_tokens, tt_targets) if with_tt else None
    return SpanPlan(spans, index, groups, pairs_plan)


def _pool_spans(pooler: Model, projection: Optional[Model], docs: List[Doc], spans: List[numpy.ndarray], is_train):
    """The distinct spans' pooled (and, with token_width, projected) vectors, the pooling's
    backprop and the projection's (None where there is none)."""
    if projection is not None and not is_train and pooler.attrs["reduction"] == "mean":
        # prediction: project the tokens, then pool (fewer and narrower rows to average)
        return mean_pool_projected(pooler, projection, docs, spans), None, None
    pooled, bp_pooled = pooler((docs, spans), is_train)
    bp_project = None
    if projection is not None:  # token_width: project each distinct pooled vector once
        pooled, bp_project = projection(pooled, is_train)
    return pooled, bp_pooled, bp_project


def pruned_row_features(
    model: Model,
    pooler: Model,
    projection: Model,
    docs: List[Doc],
    rows: List,
    flat_rows: numpy.ndarray,
    forced: Optional[numpy.ndarray],
    static: OneHotRows,
    is_train: bool,
):
    """With a pruner on a mean pooler and token_width: `row_features`' numbers (up to float
    rounding) at a cost per token and per kept row. The tokens are projected once (the
    projection is affine, so the mean of projected tokens is the projected mean), every
    row's prune score comes from them (`span_pruner.forward_from_tokens`), and only the
    kept rows' spans are pooled. Returns (RowFeatures, backprop) as `row_features`."""
    ops = model.ops
    tok2vec = pooler.get_ref("tok2vec")
    token_vecs, bp_tok2vec = tok2vec(docs, is_train)
    offsets = numpy.cumsum([0] + [len(v) for v in token_vecs])
    width = projection.get_dim("nO")
    non_empty = [v for v in token_vecs if len(v)]
    if non_empty and not is_train:  # through the array library's matmul (threaded BLAS), as Linear computes it
        tokens, bp_project = (
            ops.xp.concatenate(non_empty) @ projection.get_param("W").T + projection.get_param("b"),
            None,
        )
    elif non_empty:
        tokens, bp_project = projection(ops.xp.concatenate(non_empty), is_train)
    else:
        tokens, bp_project = ops.alloc2f(0, width), None
    # the rows in the stacked tokens' positions; a target's number: its place among the
    # batch's distinct targets, in doc and token order (as `row_features` numbers them)
    doc_of_row = numpy.repeat(numpy.arange(len(rows)), [len(numpy.asarray(r).reshape(-1, 4)) for r in rows])
    stacked = flat_rows + offsets[doc_of_row][:, None]
    groups = distinct_spans(stacked[:, 0], stacked[:, 1])[2]
    prefix = prefix_sums(ops.xp, tokens)  # the pruner's and the pooling's
    prune_scores, bp_prune = span_pruner.forward_from_tokens(model, tokens, stacked, groups, static, is_train, prefix)
    kept = numpy.flatnonzero(
        span_pruner.top_k_per_group(groups, ops.to_numpy(prune_scores), model.attrs["prune_k"], forced)
    )
    ts, te, ss, se = stacked[kept].T
    starts = numpy.concatenate([ss, ts] + ([ss, se - 1] if model.attrs["endpoints"] else []))
    ends = numpy.concatenate([se, te] + ([ss + 1, se] if model.attrs["endpoints"] else []))
    span_starts, span_ends, inverse = distinct_spans(starts, ends)
    pooled, bp_pooled = mean_contiguous(ops, [tokens], numpy.column_stack([span_starts, span_ends]), width, prefix)
    idx = [ops.asarray1i(i.astype("int32")) for i in inverse.reshape(-1, len(kept))]
    features = RowFeatures(pooled, idx, ops.asarray2f(static.dense(kept)), kept, prune_scores)

    def backprop(d_feats: Floats2d, d_prune) -> None:
        d_tokens = bp_pooled(pooled_gradient(ops, features, d_feats))
        if d_prune is not None:
            bp_prune(ops.asarray1f(d_prune), d_tokens)
        d_flat = bp_project(d_tokens) if bp_project is not None else ops.alloc2f(0, 0)
        pieces, start = [], 0
        for vecs in token_vecs:
            pieces.append(d_flat[start : start + len(vecs)] if len(vecs) else ops.alloc2f(*vecs.shape))
            start += len(vecs)
        bp_tok2vec(pieces)

    return features, backprop


def pooled_gradient(ops, features: RowFeatures, d_feats: Floats2d) -> Floats2d:
    """The gradient of the pooled vectors from that of the feature matrix's vector blocks
    (span, target, their product, first and last token)."""
    pooled, idx = features.pooled, features.idx
    w = pooled.shape[1]
    span_vecs, target_vecs = pooled[idx[0]], pooled[idx[1]]
    d_pooled = ops.alloc2f(*pooled.shape)
    d_product = d_feats[:, 2 * w : 3 * w]
    ops.xp.add.at(d_pooled, idx[0], d_feats[:, :w] + d_product * target_vecs)
    ops.xp.add.at(d_pooled, idx[1], d_feats[:, w : 2 * w] + d_product * span_vecs)
    for g, i in enumerate(idx[2:]):
        ops.xp.add.at(d_pooled, i, d_feats[:, (3 + g) * w : (4 + g) * w])
    return d_pooled


def feature_matrix(ops, features: RowFeatures) -> Floats2d:
    """Per kept row: its span, target, their product, (first, last token), other features."""
    pooled, idx = features.pooled, features.idx
    span_vecs, target_vecs = pooled[idx[0]], pooled[idx[1]]
    parts = [span_vecs, target_vecs, span_vecs * target_vecs] + [pooled[i] for i in idx[2:]]
    return ops.xp.concatenate(parts + [features.extra], axis=1)


def span_vectors(span_mlp: Model, features: RowFeatures, is_train: bool):
    """The kept rows' span vectors (span_mlp over the feature matrix, L2-normalised) and
    the backprop to the feature matrix. At prediction the matrix is never built
    (`_predict_hidden`)."""
    ops = span_mlp.ops
    if not is_train and _first_layer(span_mlp) is not None:
        hidden, bp_mlp = _predict_hidden(ops, span_mlp, features.pooled, features.idx, features.extra), None
    else:
        hidden, bp_mlp = span_mlp(feature_matrix(ops, features), is_train)
    spans_unit, bp_norm = l2_normalize(ops, hidden)

    def backprop(d_spans_unit: Floats2d) -> Floats2d:
        return bp_mlp(bp_norm(d_spans_unit))

    return spans_unit, backprop


def _first_layer(span_mlp: Model) -> Optional[Model]:
    """span_mlp's ReLU layer when span_mlp is exactly ReLU (+ dropout) >> Linear."""
    relus = [node for node in span_mlp.walk() if node.name == "relu"]
    names = {node.name for node in span_mlp.walk()} - {
        "relu",
        "dropout",
        "linear",
        "relu>>dropout",
        "relu>>dropout>>linear",
        "relu>>linear",
    }
    return relus[0] if len(relus) == 1 and not names and relus[0].has_param("W") else None


# rows per step of `_predict_hidden`: each step's hidden layer (rows x hidden width) stays
# in cache instead of a fresh (rows x hidden) array per operation
PREDICT_CHUNK = 2048


def _predict_hidden(ops, span_mlp: Model, pooled, idx, extra):
    """span_mlp(features) at prediction time without building the (rows, 5 * width)
    feature matrix. The first layer is linear in each feature block, so what depends on the
    span alone (its pooled vector, its first and last token) is projected once per distinct
    span and summed into one table, the target's block (with the bias) once per distinct
    target, and the position and syntax features, 0/1 one-hots, once per distinct row of
    them; only the span-target product is projected per row. Each row then gathers three
    table rows, and the rows go through the two layers PREDICT_CHUNK at a time. The
    numbers of the training path up to float rounding, several times cheaper on long
    documents."""
    xp = ops.xp
    relu = _first_layer(span_mlp)
    W, b = relu.get_param("W"), relu.get_param("b")
    w = pooled.shape[1]

    def block(i: int):
        return W[:, i * w : (i + 1) * w].T

    # the span's own blocks: its pooled vector and (endpoints) its first and last token,
    # which every row of that span shares
    spans, first_row, span_of_row = xp.unique(idx[0], return_index=True, return_inverse=True)
    span_table = pooled[spans] @ block(0)
    for i, column in zip(idx[2:], (3, 4)):
        tokens, token_of_span = xp.unique(i[first_row], return_inverse=True)
        span_table += (pooled[tokens] @ block(column))[token_of_span.reshape(-1)]
    targets, target_of_row = xp.unique(idx[1], return_inverse=True)
    target_table = pooled[targets] @ block(1) + b
    tables = [(span_table, span_of_row.reshape(-1)), (target_table, target_of_row.reshape(-1))]
    W_extra = W[:, len(idx) * w + w :].T
    extra_rows = _distinct_binary_rows(xp, extra)
    if extra_rows is not None:
        firsts, extra_of_row = extra_rows
        tables.append((extra[firsts] @ W_extra, extra_of_row))
        W_rows = xp.ascontiguousarray(block(2))
    else:  # features that are not one-hots (target_tokens): projected per row with the product
        W_rows = xp.ascontiguousarray(xp.concatenate([block(2), W_extra]))
    last = span_mlp.layers[-1]
    direct = last.name == "linear" and last.has_param("W")
    if direct:  # the output layer through the array library's matmul (threaded BLAS), as Linear computes it
        W_out, b_out = xp.ascontiguousarray(last.get_param("W").T), last.get_param("b")
    out = xp.empty((len(idx[0]), last.get_dim("nO")), dtype="float32")
    for start in range(0, len(out), PREDICT_CHUNK):
        rows = slice(start, start + PREDICT_CHUNK)
        per_row = pooled[idx[0][rows]] * pooled[idx[1][rows]]
        if extra_rows is None:
            per_row = xp.concatenate([per_row, extra[rows]], axis=1)
        pre = per_row @ W_rows
        for table, of_row in tables:
            pre += table[of_row[rows]]
        hidden = xp.maximum(pre, 0, out=pre)  # in place; several times faster than ops.relu on CPU
        if direct:
            xp.matmul(hidden, W_out, out=out[rows])
            out[rows] += b_out
        else:
            out[rows] = last.predict(hidden)
    return out


def _distinct_binary_rows(xp, features):
    """(each distinct row's first position, each row's distinct row) when every value of
    `features` is 0 or 1 (None otherwise, or off the CPU): rows compared as packed bits."""
    if xp is not numpy or 0 in features.shape or not ((features == 0) | (features == 1)).all():
        return None
    packed = numpy.ascontiguousarray(numpy.packbits(features.astype(bool), axis=1))
    keys = packed.view(numpy.dtype((numpy.void, packed.shape[1]))).reshape(-1)
    _, firsts, inverse = numpy.unique(keys, return_index=True, return_inverse=True)
    return firsts, inverse.reshape(-1)

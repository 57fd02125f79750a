"""frame_elements' model (`spacy-frames.FrameElementScorer.v3`): three thinc layers chained in
spancat's shape, each owning its parameters and backprop, from `FECandidates` to scores (n_rows,
most options of a target; 0 where a row's target has fewer: `option_mask`).
1. `fe_row_features`: the token vectors mean-pooled once per distinct span the rows read,
   projected to `token_width`, and each row's 0/1 position and syntax features (`fe_features`);
2. `fe_span_vectors`: a ReLU layer and a linear map, L2-normalised (factorised at prediction:
   `predict_hidden`, held equal by a test);
3. `fe_option_scores` (`fe_options.py`): cosines with "no FE" and the FEs of the target's frame.
"""

from typing import List, NamedTuple, Optional, Tuple

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Linear, Model, Relu, chain
from thinc.types import Floats2d

from .fe_features import position_one_hots, syntax_one_hots
from .fe_options import build_fe_option_scores
from .layers import build_span_pooler, l2_normalize, mean_pool_projected

# per row, the pooled vectors it reads: its span, its target, its first and last token
N_GROUPS = 4


class FECandidates(NamedTuple):
    """A batch of candidate rows: per doc an (n, 4) array of token offsets (target start, target
    end, span start, span end), target after target; each target's row count and its options
    (FE table rows, 0 = "no FE" first)."""

    docs: List[Doc]
    rows: List[numpy.ndarray]
    target_sizes: numpy.ndarray
    options: List[numpy.ndarray]


class RowFeatures(NamedTuple):
    """Layer 1's output: the distinct spans' pooled vectors, each row's index into them per
    group (span, target, first, last token), its 0/1 features, and the candidates."""

    pooled: Floats2d
    index: numpy.ndarray
    static: numpy.ndarray
    candidates: FECandidates


class SpanVectors(NamedTuple):
    """What layer 2 gives layer 3: each row's unit span vector and the candidates."""

    vectors: Floats2d
    candidates: FECandidates


@registry.architectures("spacy-frames.FrameElementScorer.v3")
def build_frame_element_scorer(
    tok2vec: Model,
    hidden_width: int = 512,
    token_width: int = 128,
    query_width: int = 384,
    dropout: float = 0.1,
) -> Model[FECandidates, Floats2d]:
    """token_width: the pooled vectors' projection (a low-rank first layer that makes the
    per-row layer cheaper); hidden_width: the span layer's; query_width: the span vectors'."""
    for name, value in (("hidden_width", hidden_width), ("token_width", token_width), ("query_width", query_width)):
        if value < 1:
            raise ValueError(f"FrameElementScorer: {name} must be >= 1, got {value}")
    row_features = build_fe_row_features(tok2vec, token_width)
    span_vectors = build_fe_span_vectors(hidden_width, query_width, dropout)
    option_scores = build_fe_option_scores(query_width)
    model = chain(row_features, span_vectors, option_scores)
    model.name = "frame_element_scorer"
    for ref, node in (("tok2vec", tok2vec), ("span_vectors", span_vectors), ("options", option_scores)):
        model.set_ref(ref, node)
    return model


def option_mask(ops, candidates: FECandidates, n_options: int) -> Floats2d:
    """(n_rows, n_options): 1 on each row's own options, 0 on the padding."""
    sizes = numpy.asarray(candidates.target_sizes, dtype="int64")
    counts = numpy.repeat([len(opts) for opts in candidates.options], sizes).astype("int64")
    return ops.asarray2f((numpy.arange(n_options)[None, :] < counts[:, None]).astype("f"))


def stacked_rows(candidates: FECandidates) -> numpy.ndarray:
    """The batch's rows (n_rows, 4), docs one after another."""
    rows = [numpy.asarray(r, dtype="int64").reshape(-1, 4) for r in candidates.rows]
    return numpy.concatenate([numpy.zeros((0, 4), dtype="int64"), *rows])


def check_candidates(X: FECandidates, n_rows: int) -> None:
    """Clear errors for a batch whose parts do not fit together."""
    sizes = numpy.asarray(X.target_sizes, dtype="int64")
    if len(X.rows) != len(X.docs) or len(sizes) != len(X.options) or int(sizes.sum()) != n_rows:
        raise ValueError(
            f"frame_elements: {len(X.rows)} row arrays for {len(X.docs)} docs; {len(sizes)} targets of "
            f"{int(sizes.sum())} rows and {len(X.options)} option lists for {n_rows} candidate rows"
        )
    if any(not len(opts) or opts[0] != 0 for opts in X.options):
        raise ValueError("frame_elements: every target's options start with 0, the no-FE option")


# -- layer 1: the rows' features ------------------------------------------------------------------
def build_fe_row_features(tok2vec: Model, token_width: int) -> Model[FECandidates, RowFeatures]:
    pooler = build_span_pooler(tok2vec, "mean")
    return Model(
        "fe_row_features", row_features_forward, init=row_features_init, layers=[pooler, Linear(nO=token_width)]
    )


def row_features_init(model: Model, X: Optional[FECandidates] = None, Y=None) -> None:
    pooler, projection = model.layers
    pooler.initialize(X=(X.docs, [[] for _ in X.docs]) if X is not None else None)
    projection.initialize(X=model.ops.alloc2f(2, pooler.get_dim("nO")))


def row_features_forward(model: Model, X: FECandidates, is_train: bool):
    """RowFeatures; the backprop takes the gradient of `pooled`."""
    pooler, projection = model.layers
    flat = stacked_rows(X)
    check_candidates(X, len(flat))
    static = numpy.concatenate([position_one_hots(flat, on_target=True), syntax_one_hots(X.docs, X.rows)], axis=1)
    spans, index = distinct_span_groups(X)
    if is_train:
        pooled, bp_pooled = pooler((X.docs, spans), is_train)
        pooled, bp_projected = projection(pooled, is_train)
    else:  # the tokens projected, then pooled: fewer and narrower rows to average
        pooled = mean_pool_projected(pooler, projection, X.docs, spans)

    def backprop(d_pooled: Floats2d) -> FECandidates:
        bp_pooled(bp_projected(d_pooled))
        return X

    return RowFeatures(pooled, index, static, X), backprop


def distinct_span_groups(X: FECandidates) -> Tuple[List[numpy.ndarray], numpy.ndarray]:
    """Per doc its distinct [start, end) spans, and per group each row's index into them stacked."""
    spans, index, offset = [], [], 0
    for doc, doc_rows in zip(X.docs, X.rows):
        arr = numpy.asarray(doc_rows, dtype="int64").reshape(-1, 4)
        if not len(arr):
            spans.append(numpy.zeros((0, 2), dtype="int64"))
            continue
        ts, te, ss, se = arr.T
        starts = numpy.concatenate([ss, ts, ss, se - 1])
        ends = numpy.concatenate([se, te, ss + 1, se])
        n1 = len(doc) + 1
        distinct, inverse = numpy.unique(starts * n1 + ends, return_inverse=True)
        spans.append(numpy.column_stack([distinct // n1, distinct % n1]))
        index.append(offset + inverse.reshape(N_GROUPS, len(arr)))
        offset += len(distinct)
    return spans, (numpy.concatenate(index, axis=1) if index else numpy.zeros((N_GROUPS, 0), dtype="int64"))


# -- layer 2: the span vectors --------------------------------------------------------------------
def build_fe_span_vectors(hidden_width: int, query_width: int, dropout: float) -> Model[RowFeatures, SpanVectors]:
    hidden = Relu(nO=hidden_width, dropout=dropout)
    output = Linear(nO=query_width)
    model = Model("fe_span_vectors", span_vectors_forward, init=span_vectors_init, layers=[chain(hidden, output)])
    # the ReLU layer itself (Relu with dropout is relu >> dropout), for predict_hidden
    model.set_ref("hidden", next(node for node in hidden.walk() if node.name == "relu"))
    model.set_ref("output", output)
    return model


def span_vectors_init(model: Model, X: Optional[RowFeatures] = None, Y=None) -> None:
    if X is None:
        raise ValueError("frame_elements: the span layer is initialized from a batch (its input width)")
    n_in = N_GROUPS * X.pooled.shape[1] + X.pooled.shape[1] + X.static.shape[1]
    n_out = model.get_ref("output").get_dim("nO")
    model.layers[0].initialize(X=model.ops.alloc2f(2, n_in), Y=model.ops.alloc2f(2, n_out))


def span_vectors_forward(model: Model, X: RowFeatures, is_train: bool):
    """SpanVectors; the backprop gives the gradient of the pooled vectors."""
    ops = model.ops
    index = [ops.asarray1i(i.astype("int32")) for i in X.index]
    if is_train:
        hidden, bp_mlp = model.layers[0](feature_matrix(ops, X.pooled, index, X.static), is_train)
    else:
        hidden = predict_hidden(model, X.pooled, index, X.static)
    vectors, bp_norm = l2_normalize(ops, hidden)

    def backprop(d_vectors: Floats2d) -> Floats2d:
        return pooled_gradient(ops, X.pooled, index, bp_mlp(bp_norm(d_vectors)))

    return SpanVectors(vectors, X.candidates), backprop


def feature_matrix(ops, pooled: Floats2d, index: List, static: numpy.ndarray) -> Floats2d:
    """Per row: its span, target, their product, first and last token, 0/1 features."""
    span_vecs, target_vecs = pooled[index[0]], pooled[index[1]]
    parts = [span_vecs, target_vecs, span_vecs * target_vecs, pooled[index[2]], pooled[index[3]]]
    return ops.xp.concatenate(parts + [ops.asarray2f(static)], axis=1)


def pooled_gradient(ops, pooled: Floats2d, index: List, d_matrix: Floats2d) -> Floats2d:
    """The gradient of the pooled vectors from that of `feature_matrix`'s vector blocks."""
    w = pooled.shape[1]
    d_pooled = ops.alloc2f(*pooled.shape)
    d_product = d_matrix[:, 2 * w : 3 * w]
    ops.xp.add.at(d_pooled, index[0], d_matrix[:, :w] + d_product * pooled[index[1]])
    ops.xp.add.at(d_pooled, index[1], d_matrix[:, w : 2 * w] + d_product * pooled[index[0]])
    for column, i in ((3, index[2]), (4, index[3])):
        ops.xp.add.at(d_pooled, i, d_matrix[:, column * w : (column + 1) * w])
    return d_pooled


# rows per step of `predict_hidden`: each step's (rows x hidden) block stays in cache
PREDICT_CHUNK = 2048


def predict_hidden(model: Model, pooled: Floats2d, index: List, static: numpy.ndarray) -> Floats2d:
    """The span layer's output without the feature matrix: the ReLU layer's input is linear in
    each block, so the span's blocks are projected once per distinct span, the target's once per
    target, the 0/1 features once per distinct row; only the span-target product per row."""
    xp = model.ops.xp
    relu, output = model.get_ref("hidden"), model.get_ref("output")
    W, b, w = relu.get_param("W"), relu.get_param("b"), pooled.shape[1]

    def block(i: int):
        return W[:, i * w : (i + 1) * w].T

    spans, first_row, span_of_row = xp.unique(index[0], return_index=True, return_inverse=True)
    span_table = pooled[spans] @ block(0)
    for i, column in ((index[2], 3), (index[3], 4)):
        tokens, token_of_span = xp.unique(i[first_row], return_inverse=True)
        span_table += (pooled[tokens] @ block(column))[token_of_span.reshape(-1)]
    targets, target_of_row = xp.unique(index[1], return_inverse=True)
    static_firsts, static_of_row = distinct_rows(static)
    tables = [
        (span_table, span_of_row.reshape(-1)),
        (pooled[targets] @ block(1) + b, target_of_row.reshape(-1)),
        (model.ops.asarray2f(static[static_firsts]) @ W[:, 5 * w :].T, model.ops.asarray(static_of_row)),
    ]
    W_product = xp.ascontiguousarray(block(2))
    W_out, b_out = xp.ascontiguousarray(output.get_param("W").T), output.get_param("b")
    out = xp.empty((len(index[0]), W_out.shape[1]), dtype="float32")
    for start in range(0, len(out), PREDICT_CHUNK):
        rows = slice(start, start + PREDICT_CHUNK)
        pre = (pooled[index[0][rows]] * pooled[index[1][rows]]) @ W_product
        for table, of_row in tables:
            pre += table[of_row[rows]]
        hidden = xp.maximum(pre, 0, out=pre)  # in place; several times faster than ops.relu on CPU
        xp.matmul(hidden, W_out, out=out[rows])
        out[rows] += b_out
    return out


def distinct_rows(features: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Of a 0/1 matrix: each distinct row's first position, and each row's distinct row."""
    packed = numpy.ascontiguousarray(numpy.packbits(features.astype(bool), axis=1))
    keys = packed.view(numpy.dtype((numpy.void, packed.shape[1]))).reshape(-1)
    _, firsts, inverse = numpy.unique(keys, return_index=True, return_inverse=True)
    return firsts, inverse.reshape(-1)

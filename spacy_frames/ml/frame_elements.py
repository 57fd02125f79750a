"""frame_elements' model: candidate spans of a target against the definitions of its
frame's FEs (COFFTEA's target-vs-definition matching carried one level down).

Input: the docs, per doc its rows (target_start, target_end, span_start, span_end) from
`spacy-frames.fe_candidate_suggester.v1`, and per row its options: indices into the model's
FE table, 0 being "no FE". Output: (n_rows, max_options) scores, cosine similarities of
the row's span vector with each option's vector, and the 0/1 mask of the options that exist.

- Span vector: the shared transformer's token vectors (a listener) pooled over the span
  and over its target in one pass, with the target's distance and side and the span's
  length as bucketed one-hots, through a hidden ReLU layer and a linear map into the
  definition space, then L2-normalised.
- Option vectors: row 0 is a learned "no FE" vector; rows 1.. are the FE definitions as
  the frame-definition encoder read them ("Frame: FE (core): definition"), kept frozen in
  the parameter `fe_vectors` (serialized with the model; new frames' FEs are appended
  by the component without retraining) and mapped by a learned square matrix that starts
  as the identity, so the pretrained geometry of the definitions is where training begins.
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Linear, Model, Relu, chain
from thinc.types import Floats2d

from .layers import build_span_pooler, l2_normalize

Row = Tuple[int, int, int, int]
FEInput = Tuple[List[Doc], List[List[Row]], List[List[int]]]
DISTANCE_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24)  # token gaps; the last bucket is open
LENGTH_BUCKETS = (1, 2, 3, 4, 6, 8, 12, 16)


@registry.architectures("spacy-frames.FrameElementScorer.v1")
def build_frame_element_scorer(
    tok2vec: Model, hidden_width: int = 256, reduction: str = "mean", dropout: float = 0.1, learn_fe_vectors: bool = False
) -> Model[FEInput, Tuple[Floats2d, Floats2d]]:
    """learn_fe_vectors: train the FE table's vectors too (the label-embedding baseline,
    fe_queries = "labels"); by default they are the frozen definition vectors."""
    pooler = build_span_pooler(tok2vec, reduction)
    span_mlp = chain(Relu(nO=hidden_width, dropout=dropout), Linear())
    model = Model(
        "frame_element_scorer", frame_element_forward, init=frame_element_init, layers=[pooler, span_mlp],
        params={"fe_vectors": None, "fe_map": None, "no_fe": None}, dims={"nD": None},
        attrs={"learn_fe_vectors": learn_fe_vectors},
    )
    model.set_ref("tok2vec", tok2vec)
    return model


def n_position_features() -> int:
    return 2 * len(DISTANCE_BUCKETS) + len(LENGTH_BUCKETS)


def bucket(value: int, edges: Sequence[int]) -> int:
    return int(numpy.searchsorted(edges, value, side="right")) - 1


def position_features(rows: List[Row]) -> numpy.ndarray:
    """One-hots of the span's side and gap to its target, and of its length."""
    out = numpy.zeros((len(rows), n_position_features()), dtype="f")
    n_dist = len(DISTANCE_BUCKETS)
    for r, (ts, te, ss, se) in enumerate(rows):
        before = se <= ts
        gap = ts - se if before else max(ss - te, 0)
        out[r, (0 if before else n_dist) + bucket(gap, DISTANCE_BUCKETS)] = 1.0
        out[r, 2 * n_dist + bucket(max(se - ss, 1), LENGTH_BUCKETS)] = 1.0
    return out


def set_fe_vectors(model: Model, vectors: numpy.ndarray) -> None:
    """The frozen definition vectors of the FE table (rows 1..; row 0 is "no FE")."""
    vectors = numpy.asarray(vectors, dtype="f")
    if vectors.ndim != 2 or not len(vectors):
        raise ValueError(f"frame_elements: FE definition vectors must be a non-empty matrix, got shape {vectors.shape}")
    if model.has_dim("nD") and model.get_dim("nD") not in (None, vectors.shape[1]):
        raise ValueError(f"frame_elements: FE definition vectors of width {vectors.shape[1]}, the model's are {model.get_dim('nD')}")
    model.set_param("fe_vectors", model.ops.asarray2f(vectors))


def frame_element_init(model: Model, X: Optional[FEInput] = None, Y=None) -> None:
    if not model.has_param("fe_vectors"):
        raise ValueError("frame_elements: the FE table is empty; the component sets it from the inventory before initializing the model")
    width = model.get_param("fe_vectors").shape[1]
    model.set_dim("nD", width)
    pooler, span_mlp = model.layers
    pooler.initialize(X=(X[0], [[] for _ in X[0]]) if X is not None else None)
    n_in = 2 * pooler.get_dim("nO") + n_position_features()
    span_mlp.initialize(X=model.ops.alloc2f(2, n_in), Y=model.ops.alloc2f(2, width))
    if not model.has_param("fe_map"):
        model.set_param("fe_map", model.ops.asarray2f(numpy.eye(width, dtype="f")))
    if not model.has_param("no_fe"):
        rng = numpy.random.default_rng(0)
        model.set_param("no_fe", model.ops.asarray1f(rng.normal(0, 1 / numpy.sqrt(width), width).astype("f")))


def frame_element_forward(model: Model, X: FEInput, is_train: bool):
    docs, rows, options = X
    ops = model.ops
    pooler, span_mlp = model.layers
    flat_rows = [row for doc_rows in rows for row in doc_rows]
    if len(options) != len(flat_rows):
        raise ValueError(f"frame_elements: {len(options)} option lists for {len(flat_rows)} candidate rows")
    # one pooling pass: per doc its candidate spans, then their targets
    spans = [[range(r[2], r[3]) for r in doc_rows] + [range(r[0], r[1]) for r in doc_rows] for doc_rows in rows]
    pooled, bp_pooled = pooler((docs, spans), is_train)
    n_opts = max((len(o) for o in options), default=1)
    if not flat_rows:
        return (ops.alloc2f(0, n_opts), ops.alloc2f(0, n_opts)), lambda dY: X
    # pooled rows: doc 0's spans, doc 0's targets, doc 1's spans, ...
    span_idx, target_idx, offset = [], [], 0
    for doc_rows in rows:
        n = len(doc_rows)
        span_idx.extend(range(offset, offset + n))
        target_idx.extend(range(offset + n, offset + 2 * n))
        offset += 2 * n
    span_idx, target_idx = ops.asarray1i(span_idx), ops.asarray1i(target_idx)
    feats = ops.xp.concatenate([pooled[span_idx], pooled[target_idx], ops.asarray2f(position_features(flat_rows))], axis=1)
    hidden, bp_mlp = span_mlp(feats, is_train)
    spans_unit, bp_spans_norm = l2_normalize(ops, hidden)
    table = ops.xp.concatenate([model.get_param("no_fe")[None, :], model.get_param("fe_vectors") @ model.get_param("fe_map")])
    table_unit, bp_table_norm = l2_normalize(ops, table)
    # rows with the same options (a target's rows, or every target of one frame) are
    # scored with one matrix product: no (rows x options x width) gather, so a long doc's
    # hundreds of thousands of rows stay cheap
    groups: Dict[Tuple[int, ...], List[int]] = {}
    for r, opts in enumerate(options):
        if not len(opts) or opts[0] != 0:
            raise ValueError("frame_elements: every row's options start with 0, the no-FE option")
        groups.setdefault(tuple(int(o) for o in opts), []).append(r)
    top = max(max(opts) for opts in groups)
    if top >= len(table):
        raise ValueError(f"frame_elements: option {top} is not in the FE table ({len(table) - 1} FEs)")
    scores = ops.alloc2f(len(flat_rows), n_opts)
    mask = ops.alloc2f(len(flat_rows), n_opts)
    plan = [(ops.asarray1i(list(opts)), ops.asarray1i(rows_)) for opts, rows_ in groups.items()]
    for opts, rows_ in plan:
        scores[rows_, : len(opts)] = spans_unit[rows_] @ table_unit[opts].T
        mask[rows_, : len(opts)] = 1.0

    def backprop(d_out):
        d_scores = d_out[0] if isinstance(d_out, tuple) else d_out
        d_spans_unit = ops.alloc2f(*spans_unit.shape)
        d_table_unit = ops.alloc2f(*table_unit.shape)
        for opts, rows_ in plan:
            d_group = d_scores[rows_, : len(opts)]
            d_spans_unit[rows_] += d_group @ table_unit[opts]
            ops.xp.add.at(d_table_unit, opts, d_group.T @ spans_unit[rows_])
        d_table = bp_table_norm(d_table_unit)
        model.inc_grad("no_fe", d_table[0])
        model.inc_grad("fe_map", model.get_param("fe_vectors").T @ d_table[1:])
        if model.attrs["learn_fe_vectors"]:
            model.inc_grad("fe_vectors", d_table[1:] @ model.get_param("fe_map").T)
        d_feats = bp_mlp(bp_spans_norm(d_spans_unit))
        width = pooled.shape[1]
        d_pooled = ops.alloc2f(*pooled.shape)
        ops.xp.add.at(d_pooled, span_idx, d_feats[:, :width])
        ops.xp.add.at(d_pooled, target_idx, d_feats[:, width : 2 * width])
        bp_pooled(d_pooled)
        return X

    return (scores, mask), backprop

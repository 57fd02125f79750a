"""frame_elements' model as three thinc layers (`spacy-frames.FrameElementScorer.v2`), as
spancat chains its model: each layer owns its parameters and its backprop.

- `fe_row_features`: the candidate rows' features, from one pooling pass over the batch's
  distinct spans (the shared transformer's token vectors through a listener), projected
  (`token_width`), pruned (`prune_k`) and with the target-conditioned token features
  (`target_tokens`); it holds the pruner's and the target-token layer's parameters;
- `fe_span_vectors`: the span MLP over those features, L2-normalised;
- `fe_option_scores`: each span vector against its options' vectors (the FE table:
  fe_vectors, fe_map, no_fe, and the frame maps with `frame_queries`).

The math is `ml/frame_elements.py`'s (`row_features`, `span_vectors`) and `ml/fe_options.py`'s (`option_scores`),
the same numbers as v1 (`FrameElementScorer.v1`, one layer) for the same parameters; the
settings mean what they mean there.
"""

from typing import Tuple

from spacy.util import registry
from thinc.api import Linear, Model, Relu, chain
from thinc.types import Floats1d, Floats2d

from .fe_options import option_scores
from .frame_elements import (
    FEInput,
    check_settings,
    init_parts,
    row_features,
    scorer_attrs,
    span_vectors,
)
from .layers import build_span_pooler


@registry.architectures("spacy-frames.FrameElementScorer.v2")
def build_frame_element_scorer_v2(
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
) -> Model[FEInput, Tuple[Floats2d, Floats2d, Floats1d]]:
    """The settings of FrameElementScorer.v1 (see there), as three layers."""
    check_settings(prune_k, target_tokens, target_context)
    attrs = scorer_attrs(
        learn_fe_vectors, endpoints, syntax, target_tokens, on_target, prune_k, target_context, frame_queries
    )
    pooler = build_span_pooler(tok2vec, reduction)
    rows = Model(
        "fe_row_features",
        rows_forward,
        layers=[pooler] + ([Linear(nO=token_width)] if token_width else []),
        attrs=dict(attrs),
    )
    spans = Model("fe_span_vectors", spans_forward, layers=[chain(Relu(nO=hidden_width, dropout=dropout), Linear())])
    options = Model(
        "fe_option_scores",
        options_forward,
        params={"fe_vectors": None, "fe_map": None, "no_fe": None, "frame_query": None, "frame_no_fe": None},
        dims={"nD": None},
        attrs=dict(attrs),
    )
    model = Model(
        "frame_element_scorer",
        forward,
        init=init,
        layers=[rows, spans, options],
        dims={"nD": None},
        attrs=dict(attrs),
    )
    for name, node in (("tok2vec", tok2vec), ("rows", rows), ("spans", spans), ("options", options)):
        model.set_ref(name, node)
    return model


def init(model: Model, X=None, Y=None) -> None:
    rows, spans, options = model.layers
    init_parts(rows, rows.layers[0], rows.layers[1] if len(rows.layers) > 1 else None, spans.layers[0], options, X)
    model.set_dim("nD", options.get_dim("nD"))


def forward(model: Model, X: FEInput, is_train: bool):
    """(scores, mask, prune_scores), as v1; the backprop takes (d_scores, _, d_prune or None)."""
    rows, spans, options = model.layers
    if model.attrs["frame_queries"] and (len(X) < 5 or X[4] is None):
        raise ValueError("frame_elements: a model with frame_queries needs each row's frame (the fifth input)")
    n_opts = max(map(len, X[2]), default=1)
    features, bp_rows = rows(X, is_train)
    if features is None:
        ops = model.ops
        return (ops.alloc2f(0, n_opts), ops.alloc2f(0, n_opts), ops.alloc1f(0)), lambda dY: X
    spans_unit, bp_spans = spans(features, is_train)
    (scores, mask), bp_options = options(
        (spans_unit, X[2], features.kept, X[4] if len(X) > 4 else None, n_opts), is_train
    )

    def backprop(d_out):
        d_scores = d_out[0] if isinstance(d_out, tuple) else d_out
        d_prune = d_out[2] if isinstance(d_out, tuple) and len(d_out) > 2 else None
        bp_rows((bp_spans(bp_options(d_scores)), d_prune))
        return X

    return (scores, mask, features.prune_scores), backprop


def rows_forward(model: Model, X: FEInput, is_train: bool):
    """RowFeatures (None without rows); the backprop takes (d_feature_matrix, d_prune)."""
    features, backprop = row_features(
        model, model.layers[0], model.layers[1] if len(model.layers) > 1 else None, X, is_train
    )
    return features, (lambda dY: backprop(*dY)) if backprop is not None else (lambda dY: None)


def spans_forward(model: Model, features, is_train: bool):
    return span_vectors(model.layers[0], features, is_train)


def options_forward(model: Model, X, is_train: bool):
    spans_unit, options, kept, row_frames, n_opts = X
    return option_scores(model, spans_unit, options, kept, row_frames, n_opts)

"""Argument-pair encoder and sense heads of discourse_sense (Long & Webber 2022).

The transformer runs over one Doc holding both arguments; a pair is represented by
mean-pooled wordpieces (token vectors from a listener) over
- "pair": both arguments (the tokens from Arg1's start to Arg2's end);
- "args": Arg1 and Arg2 separately, concatenated;
- "pair+args": all three, concatenated;
then a dense tanh layer gives the feature the contrastive loss works on, and linear
heads give the logits of level-1 senses, level-2 senses and the finest senses.

The model maps (docs, pairs) -> (features, [logits_level1, logits_level2, logits_leaf]),
where pairs[i] lists the (Arg1, Arg2) span pairs of docs[i]; a row per pair, in order.

v2 reads the pair as a pair encoder would when both arguments come from one pass over the
document (a listener of the shared transformer, which never sees the two arguments side
by side with a separator): besides the pooled spans, the first and last token of each
argument (`edges`: the words at the boundary, where a connective would stand) and
attention across the arguments' tokens (`cross_attention`,
`layers.build_argument_cross_attention`).
"""

from typing import List, Optional, Tuple

import numpy
from spacy.tokens import Doc, Span
from spacy.util import registry
from thinc.api import Dropout, Linear, Model
from thinc.types import Floats2d

from .layers import build_argument_cross_attention, build_target_mean_pooler, mean_contiguous

REPRESENTATIONS = ("pair", "args", "pair+args")
HEADS = ("level1", "level2", "leaf")
PairInput = Tuple[List[Doc], List[List[Tuple[Span, Span]]]]
PairOutput = Tuple[Floats2d, List[Floats2d]]


@registry.architectures("spacy-frames.DiscourseSense.v1")
def build_discourse_sense(
    tok2vec: Model[List[Doc], List[Floats2d]],
    representation: str = "pair+args",
    hidden_width: int = 0,
    dropout: float = 0.1,
) -> Model[PairInput, PairOutput]:
    """tok2vec: token vectors (a TransformerListener in the configs).
    representation: which spans are pooled ("pair", "args" or "pair+args").
    hidden_width: width of the dense tanh feature layer (0: the token-vector width).
    dropout: on the feature, before the heads.
    """
    if representation not in REPRESENTATIONS:
        raise ValueError(f"DiscourseSense: representation must be one of {REPRESENTATIONS}, got {representation!r}")
    pooler = build_target_mean_pooler(tok2vec)
    dense = Linear(nO=hidden_width or None)
    heads = [Linear() for _ in HEADS]
    drop = Dropout(dropout)
    model = Model(
        "discourse_sense",
        discourse_sense_forward,
        init=discourse_sense_init,
        layers=[pooler, dense, drop, *heads],
        dims={"nO": None},
        attrs={"representation": representation},
    )
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("pooler", pooler)
    model.set_ref("dense", dense)
    model.set_ref("dropout", drop)
    for name, head in zip(HEADS, heads):
        model.set_ref(name, head)
    return model


def n_pooled(representation: str) -> int:
    return {"pair": 1, "args": 2, "pair+args": 3}[representation]


def pooled_spans(representation: str, pair: Tuple[Span, Span]) -> List[Span]:
    arg1, arg2 = pair
    doc = arg1.doc
    spans = []
    if "pair" in representation.split("+"):
        spans.append(doc[min(arg1.start, arg2.start) : max(arg1.end, arg2.end)])
    if "args" in representation.split("+"):
        spans.extend([arg1, arg2])
    return spans


def discourse_sense_init(model: Model, X: Optional[PairInput] = None, Y=None) -> None:
    """Head widths come from the component (set_head_sizes) before this runs."""
    pooler = model.get_ref("pooler")
    if X is not None:
        docs, pairs = X
        pooler.initialize(
            X=(
                docs,
                [[s for p in doc_pairs for s in pooled_spans(model.attrs["representation"], p)] for doc_pairs in pairs],
            )
        )
    else:
        pooler.initialize()
    width = pooler.get_dim("nO")
    init_heads(model, width * n_pooled(model.attrs["representation"]), width)


def discourse_sense_forward(model: Model, X: PairInput, is_train: bool):
    docs, pairs = X
    representation = model.attrs["representation"]
    k = n_pooled(representation)
    spans = [[s for p in doc_pairs for s in pooled_spans(representation, p)] for doc_pairs in pairs]
    pooled, bp_pooled = model.get_ref("pooler")((docs, spans), is_train)
    n = pooled.shape[0] // k
    width = pooled.shape[1]
    # rows [pair0_span0, pair0_span1, ...] -> one row per pair
    flat = model.ops.reshape2f(pooled, n, k * width)
    (hidden, logits), bp_heads = heads_forward(model, flat, is_train)

    def backprop(dY: PairOutput):
        bp_pooled(model.ops.reshape2f(bp_heads(dY), n * k, width))
        return X

    return (hidden, logits), backprop


def heads_forward(model: Model, flat: Floats2d, is_train: bool):
    """The dense tanh feature of each pair's row and the heads' logits, and the backprop
    from (d_features, d_logits) to the rows. The contrastive loss sees the feature before
    dropout (as the heads' input at test time)."""
    dense_out, bp_dense = model.get_ref("dense")(flat, is_train)
    hidden = model.ops.xp.tanh(dense_out)
    dropped, bp_drop = model.get_ref("dropout")(hidden, is_train)
    outputs = [model.get_ref(name)(dropped, is_train) for name in HEADS]
    logits = [out for out, _ in outputs]

    def backprop(dY: PairOutput) -> Floats2d:
        d_features, d_logits = dY
        d_dropped = model.ops.alloc2f(*dropped.shape)
        for (_, bp_head), d in zip(outputs, d_logits):
            if d is not None:
                d_dropped += bp_head(d)
        d_hidden = bp_drop(d_dropped)
        if d_features is not None:
            d_hidden = d_hidden + d_features
        return bp_dense(d_hidden * (1.0 - hidden * hidden))

    return (hidden, logits), backprop


def init_heads(model: Model, width: int, token_width: int) -> None:
    """The dense layer (width in, the token width out unless set) and the heads."""
    dense = model.get_ref("dense")
    if not dense.has_dim("nO") or not dense.get_dim("nO"):
        dense.set_dim("nO", token_width)
    dense.initialize(X=model.ops.alloc2f(1, width))
    hidden = dense.get_dim("nO")
    for name in HEADS:
        head = model.get_ref(name)
        if not head.has_dim("nO") or not head.get_dim("nO"):
            raise ValueError(f"DiscourseSense: the {name} head has no classes: initialize the component with labels.")
        head.initialize(X=model.ops.alloc2f(1, hidden))
    model.set_dim("nO", hidden)


# -- v2: edges and attention across the arguments ------------------------------------------
@registry.architectures("spacy-frames.DiscourseSense.v2")
def build_discourse_sense_v2(
    tok2vec: Model[List[Doc], List[Floats2d]],
    representation: str = "pair+args",
    edges: bool = True,
    cross_attention: bool = True,
    hidden_width: int = 0,
    dropout: float = 0.1,
) -> Model[PairInput, PairOutput]:
    """v1's pooled spans (`representation`), and with `edges` the first and last token of
    each argument, with `cross_attention` the arguments' attention features (module
    docstring); hidden_width and dropout as v1."""
    if representation not in REPRESENTATIONS:
        raise ValueError(f"DiscourseSense: representation must be one of {REPRESENTATIONS}, got {representation!r}")
    dense = Linear(nO=hidden_width or None)
    heads = [Linear() for _ in HEADS]
    drop = Dropout(dropout)
    cross = build_argument_cross_attention()
    model = Model(
        "discourse_sense_v2",
        discourse_sense_v2_forward,
        init=discourse_sense_v2_init,
        layers=[tok2vec, dense, drop, *heads, cross],
        dims={"nO": None},
        attrs={"representation": representation, "edges": edges, "cross_attention": cross_attention},
    )
    for name, layer in zip(("tok2vec", "dense", "dropout", *HEADS, "cross"), model.layers):
        model.set_ref(name, layer)
    return model


def v2_spans(model: Model, pair: Tuple[Span, Span]) -> List[Tuple[int, int]]:
    """The [start, end) token offsets of the spans a pair's row pools."""
    spans = [(s.start, s.end) for s in pooled_spans(model.attrs["representation"], pair)]
    if model.attrs["edges"]:
        for arg in pair:
            spans += [(arg.start, arg.start + 1), (arg.end - 1, arg.end)] if len(arg) else [(arg.start, arg.end)] * 2
    return spans


def discourse_sense_v2_init(model: Model, X: Optional[PairInput] = None, Y=None) -> None:
    """Head widths come from the component (set_head_sizes) before this runs."""
    tok2vec = model.get_ref("tok2vec")
    tok2vec.initialize(X=X[0] if X is not None else None)
    width = tok2vec.get_dim("nO")
    n_spans = n_pooled(model.attrs["representation"]) + (4 if model.attrs["edges"] else 0)
    features = n_spans * width
    if model.attrs["cross_attention"]:
        cross = model.get_ref("cross")
        cross.set_dim("nI", width)
        cross.initialize()
        features += cross.get_dim("nO")
    init_heads(model, features, width)


def discourse_sense_v2_forward(model: Model, X: PairInput, is_train: bool):
    docs, pairs = X
    ops = model.ops
    token_vecs, bp_tok2vec = model.get_ref("tok2vec")(docs, is_train)
    width = model.get_ref("tok2vec").get_dim("nO")
    offsets = numpy.cumsum([0] + [len(vecs) for vecs in token_vecs])
    rows = [
        (a + offsets[d], b + offsets[d])
        for d, doc_pairs in enumerate(pairs)
        for p in doc_pairs
        for a, b in v2_spans(model, p)
    ]
    n = sum(len(doc_pairs) for doc_pairs in pairs)
    k = len(rows) // n if n else 1
    bounds = numpy.asarray(rows, dtype="int64").reshape(-1, 2)
    pooled, bp_pooled = mean_contiguous(ops, token_vecs, bounds, width)
    features = [ops.reshape2f(pooled, n, k * width)]
    bp_cross = None
    if model.attrs["cross_attention"]:
        flat = ops.xp.concatenate([v for v in token_vecs if len(v)] or [ops.alloc2f(0, width)])
        args = numpy.asarray(
            [
                [p[0].start + offsets[d], p[0].end + offsets[d], p[1].start + offsets[d], p[1].end + offsets[d]]
                for d, doc_pairs in enumerate(pairs)
                for p in doc_pairs
            ],
            dtype="int64",
        ).reshape(-1, 4)
        crossed, bp_cross = model.get_ref("cross")((flat, args[:, :2], args[:, 2:]), is_train)
        features.append(crossed)
    (hidden, logits), bp_heads = heads_forward(model, ops.xp.concatenate(features, axis=1), is_train)

    def backprop(dY: PairOutput):
        d_features = bp_heads(dY)
        d_flat = bp_pooled(ops.reshape2f(ops.as_contig(d_features[:, : k * width]), n * k, width))
        if bp_cross is not None:
            d_flat = d_flat + bp_cross(ops.as_contig(d_features[:, k * width :]))
        bp_tok2vec([d_flat[offsets[d] : offsets[d + 1]] for d in range(len(token_vecs))])
        return X

    return (hidden, logits), backprop


def set_head_sizes(model: Model, sizes: Tuple[int, int, int]) -> None:
    for name, size in zip(HEADS, sizes):
        head = model.get_ref(name)
        if head.has_dim("nO") and head.get_dim("nO") and head.get_dim("nO") != size:
            raise ValueError(
                f"DiscourseSense: the {name} head has {head.get_dim('nO')} classes, the labels need {size}"
            )
        head.set_dim("nO", size)

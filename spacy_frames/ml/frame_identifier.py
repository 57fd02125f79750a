"""Dual encoder for frame identification (COFFTEA, An et al. 2023).

- target encoder: token vectors from the shared transformer (a listener whose
  pooling takes the max over each token's wordpieces), max-pooled over the
  target's tokens, so the target vector is the max over its wordpieces;
- frame encoder: its own transformer over "Frame_name | definition", mean-pooled
  (spacy-frames.DefinitionEncoder.v1). It is a separate copy of the base encoder,
  not tied to the listener's weights (tying them, `share_frame_encoder`, was worse
  on FN1.5 dev: metrics/frame_identifier_encoder_sharing.json), and a separate copy
  lets new frames be encoded at run time (`add_frame`) without touching the
  document encoder;
- target detector: a linear score on the (unnormalised) target vector.

The model maps (docs, targets, frame texts) to (L2-normalised target vectors,
detector logits, L2-normalised frame vectors); the component forms the cosine
matrix and the contrastive loss.
"""
from typing import Callable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Linear, Model
from thinc.types import Floats1d, Floats2d, Ints1d

# per doc, per target: the token indices it covers (pieces of a discontinuous target included)
TargetIndices = List[List[Ints1d]]
FrameIdInput = Tuple[List[Doc], TargetIndices, List[str]]
FrameIdOutput = Tuple[Floats2d, Floats1d, Optional[Floats2d]]


@registry.architectures("spacy-frames.FrameIdentifier.v1")
def build_frame_identifier(
    tok2vec: Model[List[Doc], List[Floats2d]],
    frame_encoder: Model[List[str], Floats2d],
) -> Model[FrameIdInput, FrameIdOutput]:
    """tok2vec: token vectors (a TransformerListener in the configs);
    frame_encoder: definition texts -> vectors of the same width."""
    target_encoder = build_target_pooler(tok2vec)
    detector = Linear(nO=1)
    model = Model(
        "frame_identifier",
        frame_identifier_forward,
        init=frame_identifier_init,
        layers=[target_encoder, frame_encoder, detector],
        dims={"nO": None},
    )
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("target_encoder", target_encoder)
    model.set_ref("frame_encoder", frame_encoder)
    model.set_ref("detector", detector)
    return model


def frame_identifier_init(model: Model, X: Optional[FrameIdInput] = None, Y=None) -> None:
    target_encoder = model.get_ref("target_encoder")
    frame_encoder = model.get_ref("frame_encoder")
    if X is not None:
        docs, targets, texts = X
        target_encoder.initialize(X=(docs, targets))
        frame_encoder.initialize(X=texts or ["Frame | definition"])
    else:
        target_encoder.initialize()
        frame_encoder.initialize()
    width = frame_encoder.get_dim("nO")
    model.set_dim("nO", width)
    model.get_ref("detector").initialize(X=model.ops.alloc2f(1, width))


def frame_identifier_forward(model: Model, X: FrameIdInput, is_train: bool):
    docs, targets, texts = X
    vectors, bp_vectors = model.get_ref("target_encoder")((docs, targets), is_train)
    target_vecs, bp_norm_t = l2_normalize(model.ops, vectors)
    logits2d, bp_detector = model.get_ref("detector")(vectors, is_train)
    frame_vecs = bp_frames = bp_norm_f = None
    if texts:
        raw_frames, bp_frames = model.get_ref("frame_encoder")(texts, is_train)
        frame_vecs, bp_norm_f = l2_normalize(model.ops, raw_frames)

    def backprop(dY: FrameIdOutput) -> FrameIdInput:
        d_targets, d_logits, d_frames = dY
        d_vectors = bp_norm_t(d_targets)
        if d_logits is not None:
            d_vectors = d_vectors + bp_detector(d_logits.reshape((-1, 1)))
        bp_vectors(d_vectors)
        if d_frames is not None and bp_frames is not None:
            bp_frames(bp_norm_f(d_frames))
        return X

    return (target_vecs, logits2d.reshape((-1,)), frame_vecs), backprop


def l2_normalize(ops, X: Floats2d) -> Tuple[Floats2d, Callable]:
    norms = ops.xp.sqrt((X * X).sum(axis=1, keepdims=True)) + 1e-8
    Y = X / norms

    def backprop(dY: Floats2d) -> Floats2d:
        return (dY - Y * (Y * dY).sum(axis=1, keepdims=True)) / norms

    return Y, backprop


@registry.layers("spacy-frames.target_max_pool.v1")
def build_target_pooler(tok2vec: Model[List[Doc], List[Floats2d]]) -> Model[Tuple[List[Doc], TargetIndices], Floats2d]:
    """Max-pool token vectors over each target's tokens: (docs, targets) -> (n_targets, width)."""
    model = Model("target_max_pool", target_pool_forward, init=target_pool_init, layers=[tok2vec], dims={"nO": None})
    model.set_ref("tok2vec", tok2vec)
    return model


def target_pool_init(model: Model, X=None, Y=None) -> None:
    tok2vec = model.get_ref("tok2vec")
    tok2vec.initialize(X=X[0] if X is not None else None)
    if tok2vec.has_dim("nO") and tok2vec.get_dim("nO"):
        model.set_dim("nO", tok2vec.get_dim("nO"))


def target_pool_forward(model: Model, X: Tuple[List[Doc], TargetIndices], is_train: bool):
    docs, targets = X
    ops = model.ops
    token_vecs, bp_tok2vec = model.get_ref("tok2vec")(docs, is_train)
    # an empty doc may come back as a (0, 0) array: take the width from the others
    width = max((vecs.shape[1] for vecs in token_vecs if vecs.ndim == 2 and len(vecs)), default=0)
    n_targets = sum(len(t) for t in targets)
    if n_targets == 0 or width == 0:
        def backprop_empty(dY):
            bp_tok2vec([ops.alloc2f(*vecs.shape) for vecs in token_vecs])
            return X

        return ops.alloc2f(n_targets, width), backprop_empty
    lengths = [len(vecs) for vecs in token_vecs]
    pieces = [vecs if len(vecs) else ops.alloc2f(0, width) for vecs in token_vecs]
    flat = ops.xp.concatenate(pieces + [ops.xp.full((1, width), -1e9, dtype="f")])  # last row: padding
    pad_row = flat.shape[0] - 1
    offsets = [0]
    for length in lengths:
        offsets.append(offsets[-1] + length)
    rows: List[Sequence[int]] = []
    for doc_i, doc_targets in enumerate(targets):
        for indices in doc_targets:
            rows.append([offsets[doc_i] + int(i) for i in indices] or [pad_row])
    max_len = max(len(r) for r in rows)
    index = ops.xp.full((len(rows), max_len), pad_row, dtype="i")
    for r, row in enumerate(rows):
        index[r, : len(row)] = ops.asarray(row, dtype="i")
    gathered = flat[index]  # (n_targets, max_len, width)
    argmax = gathered.argmax(axis=1)  # (n_targets, width)
    pooled = gathered.max(axis=1)
    source = ops.xp.take_along_axis(index, argmax, axis=1)  # row of `flat` that won, per target and dim

    def backprop(d_pooled: Floats2d):
        d_flat = ops.alloc2f(flat.shape[0], width)
        cols = ops.xp.broadcast_to(ops.xp.arange(width), source.shape)
        ops.xp.add.at(d_flat, (source, cols), d_pooled)
        d_tokens = [d_flat[offsets[i] : offsets[i + 1]] for i in range(len(lengths))]
        bp_tok2vec(d_tokens)
        return X

    return pooled, backprop


@registry.architectures("spacy-frames.DefinitionEncoder.v1")
def build_definition_encoder(name: str, max_length: int = 48) -> Model[List[str], Floats2d]:
    """A Hugging Face encoder over definition texts, mean-pooled over wordpieces.

    name: local model directory or hub id (usually ${paths.encoder}); read only
    by `initialize`. A trained pipeline stores the encoder's config, tokenizer and
    weights itself. max_length: wordpieces per definition (truncated beyond).
    """
    from .threads import single_thread_in_forked_children
    from .torch_modules import build_definition_encoder_wrapper

    single_thread_in_forked_children()
    wrapper = build_definition_encoder_wrapper(max_length)
    model = Model(
        "definition_encoder",
        definition_encoder_forward,
        init=definition_encoder_init,
        layers=[wrapper],
        attrs={"name": name, "max_length": max_length},
        dims={"nO": None},
    )
    return model


def definition_encoder_init(model: Model, X=None, Y=None) -> None:
    from .torch_modules import load_pretrained_into
    from .transformer import check_encoder

    wrapper = model.layers[0]
    load_pretrained_into(wrapper, check_encoder(model.attrs["name"]))
    model.set_dim("nO", wrapper.shims[0]._model.width)


def definition_encoder_forward(model: Model, texts: List[str], is_train: bool):
    if not texts:
        return model.ops.alloc2f(0, model.get_dim("nO")), lambda dY: texts
    return model.layers[0](texts, is_train)

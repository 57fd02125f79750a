"""Target embeddings for frame induction (Yamada, Sasano & Takeda 2021, 2023).

- v_word: the target's token vectors from the shared transformer (a listener whose
  pooling averages each token's wordpieces), averaged over the target's tokens;
- v_mask: the same sentence with the target replaced by the mask token, through a
  copy of the encoder (`spacy-frames.MaskedTargetEncoder.v1`), the vector at the mask.
  The component ties that copy to the shared transformer's own torch module, so both
  vectors come from the same weights; it only runs when the component's alpha > 0;
- an optional linear projection (a trainable head when the transformer is frozen);
- the mix v = norm((1 - alpha) * v_word + alpha * v_mask) (`layers.mix_normalized`);
- the class weights of the classification losses (softmax, ArcFace, AdaCos): a layer
  (`class_weights`, param "W" of shape (nC, nO)) whose output is W and whose backprop
  takes the gradient of the rows in use; the component sizes and initialises it when its
  loss needs it, so the optimizer steps it in finish_update and it is serialized with
  the model.

The model maps (docs, targets, alpha) to (v, W or None); the component's loss gives the
gradient of both and the backprop carries it to the encoders and the class weights.
Prediction reads the unmixed parts (`target_vectors`), so that alpha can be tuned
without a second pass.
"""

from functools import partial
from typing import List, Optional, Tuple

import numpy
from spacy.tokens import Doc, Span
from spacy.util import registry
from thinc.api import Linear, Model
from thinc.types import Floats2d

from .layers import build_target_mean_pooler, mix_normalized
from .transformer import build_text_encoder

# (docs, per doc its targets, alpha: the weight of v_mask; 0 skips the masked pass)
InducerInput = Tuple[List[Doc], List[List[Span]], float]
# (the mixed, L2-normalised target vectors, the class weights W or None while unset)
InducerOutput = Tuple[Floats2d, Optional[Floats2d]]
# name of the class-weight layer (a reference of the model)
CLASS_WEIGHTS = "class_weights"


@registry.architectures("spacy-frames.FrameInducer.v1")
def build_frame_inducer(
    tok2vec: Model[List[Doc], List[Floats2d]],
    mask_encoder: Optional[Model[List[str], Floats2d]] = None,
    projection_width: int = 0,
    mask_window: int = 32,
) -> Model[InducerInput, InducerOutput]:
    """tok2vec: token vectors (a TransformerListener in the configs).
    mask_encoder: encoder of masked sentences (None: no v_mask, alpha must be 0).
    projection_width: > 0 adds a linear projection to this width on top of both vectors.
    mask_window: tokens of context kept on each side of the target for the masked pass
        (within its sentence when the doc has sentence boundaries).
    """
    pooler = build_target_mean_pooler(tok2vec)
    layers = [pooler]
    if mask_encoder is not None:
        layers.append(mask_encoder)
    projection = Linear(nO=projection_width) if projection_width > 0 else None
    if projection is not None:
        layers.append(projection)
    class_weights = build_class_weights()
    layers.append(class_weights)
    model = Model(
        "frame_inducer",
        frame_inducer_forward,
        init=frame_inducer_init,
        layers=layers,
        dims={"nO": None},
        attrs={"mask_window": mask_window},
    )
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("pooler", pooler)
    model.set_ref("mask_encoder", mask_encoder)
    model.set_ref("projection", projection)
    model.set_ref(CLASS_WEIGHTS, class_weights)
    return model


def build_class_weights() -> Model:
    """A (nC, nO) parameter "W", one row per class, left unset until the component
    initialises it; its output is W, its backprop takes the gradient of W's first rows
    (the classes in use; the others get none)."""
    return Model(CLASS_WEIGHTS, class_weights_forward, params={"W": None}, dims={"nC": None, "nO": None})


def initial_class_weights(n_classes: int, width: int) -> numpy.ndarray:
    """The class weights' fixed, seeded start: rows of N(0, 1 / width), so a trained
    table can be compared with where it began (`frame_induction_experiment.py class-weights`)."""
    return (numpy.random.default_rng(0).standard_normal((n_classes, width)) / numpy.sqrt(width)).astype("float32")


def class_weights_forward(model: Model, X, is_train: bool):
    # module-level (not a closure) so the pipeline pickles for n_process under spawn
    weights = model.get_param("W")
    return weights, partial(backprop_class_weights, model, X, weights.shape)


def backprop_class_weights(model: Model, X, shape: Tuple[int, int], d_weights: Floats2d):
    grad = model.ops.alloc2f(*shape)
    grad[: len(d_weights)] = d_weights
    model.inc_grad("W", grad)
    return X


def frame_inducer_init(model: Model, X: Optional[InducerInput] = None, Y=None) -> None:
    pooler = model.get_ref("pooler")
    pooler.initialize(X=(X[0], X[1]) if X is not None else None)
    mask_encoder = optional_ref(model, "mask_encoder")
    if mask_encoder is not None:
        mask_encoder.initialize()
    width = pooler.get_dim("nO") if pooler.has_dim("nO") else None
    if width is None and mask_encoder is not None:
        width = mask_encoder.get_dim("nO")
    projection = optional_ref(model, "projection")
    if projection is not None:
        projection.initialize(X=model.ops.alloc2f(1, width))
        width = projection.get_dim("nO")
    model.set_dim("nO", width)


def frame_inducer_forward(model: Model, X: InducerInput, is_train: bool):
    docs, targets, alpha = X
    (v_word, v_mask), bp_parts = encode_targets(model, (docs, targets, alpha > 0), is_train)
    vectors, bp_mix = mix_normalized(model.ops, v_word, v_mask, alpha)
    class_weights = model.get_ref(CLASS_WEIGHTS)
    weights, bp_weights = class_weights(X, is_train) if class_weights.has_param("W") else (None, None)

    def backprop(dY: Tuple[Floats2d, Optional[Floats2d]]) -> InducerInput:
        d_vectors, d_weights = dY
        if d_weights is not None:
            bp_weights(d_weights)
        bp_parts(bp_mix(d_vectors))
        return X

    return (vectors, weights), backprop


def target_vectors(
    model: Model, docs: List[Doc], targets: List[List[Span]], with_mask: bool
) -> Tuple[Floats2d, Optional[Floats2d]]:
    """(v_word, v_mask or None) of the targets, unmixed and unnormalised (prediction: the
    component mixes them with any alpha, `mix`)."""
    parts, _ = encode_targets(model, (docs, targets, with_mask), False)
    return parts


def encode_targets(model: Model, X: Tuple[List[Doc], List[List[Span]], bool], is_train: bool):
    """(v_word, v_mask or None) and their backprop, from (docs, targets, with_mask)."""
    docs, targets, with_mask = X
    v_word, bp_word = model.get_ref("pooler")((docs, targets), is_train)
    v_mask = bp_mask = None
    mask_encoder = optional_ref(model, "mask_encoder")
    if with_mask:
        if mask_encoder is None:
            raise ValueError("frame_inducer: alpha > 0 needs a mask_encoder in the model config.")
        texts = masked_texts(targets, mask_token(mask_encoder), model.attrs["mask_window"])
        v_mask, bp_mask = mask_encoder(texts, is_train) if texts else (model.ops.alloc2f(0, v_word.shape[1]), None)
    projection = optional_ref(model, "projection")
    bp_proj_word = bp_proj_mask = None
    if projection is not None:
        v_word, bp_proj_word = projection(v_word, is_train)
        if v_mask is not None:
            v_mask, bp_proj_mask = projection(v_mask, is_train)

    def backprop(dY: Tuple[Floats2d, Optional[Floats2d]]):
        d_word, d_mask = dY
        # the masked pass first: when its encoder is tied to the shared transformer, its
        # gradients must be in the shared weights before the listener's backprop makes
        # the transformer take its optimizer step
        if d_mask is not None and bp_mask is not None:
            bp_mask(bp_proj_mask(d_mask) if bp_proj_mask is not None else d_mask)
        if bp_proj_word is not None:
            d_word = bp_proj_word(d_word)
        bp_word(d_word)
        return X

    return (v_word, v_mask), backprop


def mix(v_word: numpy.ndarray, v_mask: Optional[numpy.ndarray], alpha: float) -> numpy.ndarray:
    """norm((1 - alpha) * v_word + alpha * v_mask), rows L2-normalised."""
    v = v_word if v_mask is None or alpha == 0 else (1.0 - alpha) * v_word + alpha * v_mask
    return (v / (numpy.linalg.norm(v, axis=1, keepdims=True) + 1e-8)).astype("float32")


def optional_ref(model: Model, name: str) -> Optional[Model]:
    """A reference that may be unset (an optional sublayer), or None."""
    return model.get_ref(name) if model.has_ref(name) else None


def mask_token(mask_encoder: Model) -> str:
    module = mask_encoder.layers[0].shims[0]._model
    if module.tokenizer is None:
        raise ValueError("frame_inducer: the mask encoder is not initialized: call nlp.initialize() first.")
    return module.tokenizer.mask_token


def masked_texts(targets: List[List[Span]], mask: str, window: int) -> List[str]:
    """Each target's context (at most `window` tokens each side, within its sentence
    when sentences are set) with the target replaced by the mask token."""
    texts = []
    for doc_targets in targets:
        for span in doc_targets:
            doc = span.doc
            lo, hi = 0, len(doc)
            if doc.has_annotation("SENT_START"):
                sent = span.sent
                lo, hi = sent.start, sent.end
            left = doc[max(lo, span.start - window) : span.start].text
            right = doc[span.end : min(hi, span.end + window)].text
            texts.append(" ".join(part for part in (left, mask, right) if part))
    return texts


@registry.architectures("spacy-frames.MaskedTargetEncoder.v1")
def build_masked_target_encoder(name: str, max_length: int = 128) -> Model[List[str], Floats2d]:
    """A Hugging Face encoder over texts holding the mask token; the vector at the mask.

    name: local model directory or hub id (usually ${paths.encoder}), read only by
    `initialize`; a trained pipeline stores its own copy. max_length: wordpieces.
    """
    return build_text_encoder("masked_target_encoder", name, max_length, masked=True)

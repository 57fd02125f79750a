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
- target detector: a linear score on the (unnormalised) target vector;
- the frame memory (`frame_memory`, stage 2): a learned offset per frame added to its
  cached definition vector (`layers.offset_rows`); a parameter of the model, stepped by
  the component's finish_update and serialized with the model.

The model maps (docs, targets, frames) to (L2-normalised target vectors, detector
logits, L2-normalised frame vectors); frames are texts for the frame encoder, or
`CachedFrames` (rows of the component's cached definition vectors plus the memory, whose
backprop gives the memory its gradient when `learn` is set). The component forms the
cosine matrix and the contrastive loss.
"""

from typing import List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Linear, Model
from thinc.types import Floats1d, Floats2d

from .layers import build_target_pooler, l2_normalize, offset_rows
from .transformer import build_text_encoder

# the learned per-frame offset of the cached frame vectors (stage 2): a parameter of the
# model's top node, (n_frames, width), rows in the component's frame index order
FRAME_MEMORY = "frame_memory"


class CachedFrames(NamedTuple):
    """Frame vectors from the component's cache: base[rows] + memory[rows], normalised.
    base: (n_frames, width) definition vectors; rows: the frames to score; learn: whether
    the backprop gives the memory (the model's FRAME_MEMORY parameter) its gradient."""

    base: numpy.ndarray
    rows: Sequence[int]
    learn: bool


# (docs, per doc its targets: spans or the token indices they cover, frame texts or
# cached frame vectors)
FrameIdInput = Tuple[List[Doc], List[list], Union[List[str], CachedFrames]]
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
        params={FRAME_MEMORY: None},
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
        frame_encoder.initialize(X=texts if texts and not isinstance(texts, CachedFrames) else ["Frame | definition"])
    else:
        target_encoder.initialize()
        frame_encoder.initialize()
    width = frame_encoder.get_dim("nO")
    model.set_dim("nO", width)
    model.get_ref("detector").initialize(X=model.ops.alloc2f(1, width))


def frame_identifier_forward(model: Model, X: FrameIdInput, is_train: bool):
    docs, targets, frames = X
    vectors, bp_vectors = model.get_ref("target_encoder")((docs, targets), is_train)
    target_vecs, bp_norm_t = l2_normalize(model.ops, vectors)
    logits2d, bp_detector = model.get_ref("detector")(vectors, is_train)
    frame_vecs = bp_frames = bp_norm_f = bp_memory = None
    if isinstance(frames, CachedFrames):
        frame_vecs, bp_memory = offset_rows(model, FRAME_MEMORY, frames.base, frames.rows)
    elif frames:
        raw_frames, bp_frames = model.get_ref("frame_encoder")(frames, is_train)
        frame_vecs, bp_norm_f = l2_normalize(model.ops, raw_frames)

    def backprop(dY: FrameIdOutput) -> FrameIdInput:
        d_targets, d_logits, d_frames = dY
        d_vectors = bp_norm_t(d_targets)
        if d_logits is not None:
            d_vectors = d_vectors + bp_detector(d_logits.reshape((-1, 1)))
        bp_vectors(d_vectors)
        if d_frames is not None and bp_frames is not None:
            bp_frames(bp_norm_f(d_frames))
        if d_frames is not None and bp_memory is not None and frames.learn:
            bp_memory(d_frames)  # the memory's gradient, stepped in the component's finish_update
        return X

    return (target_vecs, logits2d.reshape((-1,)), frame_vecs), backprop


@registry.architectures("spacy-frames.DefinitionEncoder.v1")
def build_definition_encoder(name: str, max_length: int = 48) -> Model[List[str], Floats2d]:
    """A Hugging Face encoder over definition texts, mean-pooled over wordpieces.

    name: local model directory or hub id (usually ${paths.encoder}); read only
    by `initialize`. A trained pipeline stores the encoder's config, tokenizer and
    weights itself. max_length: wordpieces per definition (truncated beyond).
    """
    return build_text_encoder("definition_encoder", name, max_length)

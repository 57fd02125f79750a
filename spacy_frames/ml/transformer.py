"""The shared transformer: spacy-transformers' TransformerModel, with the encoder
checked before anything tries to load it.

`paths.encoder` is either a local directory (the default: the all-MiniLM-L6-v2
asset) or a Hugging Face hub name for users who have a hub. Without the check a
wrong local path ends in a hub lookup and a confusing network error; with it the
user is told which directory is missing what and how to fetch it. The check runs
in the model's `init` (i.e. `nlp.initialize()` / `spacy train`), never when a
trained pipeline is loaded: a packaged pipeline carries its own weights and must
load on machines that have no encoder asset.

Also here: the components' own encoder copies over texts (`build_text_encoder`):
frame_identifier's frame-definition encoder and frame_inducer's masked-target encoder;
and `cap_wordpieces`, which keeps every window within the encoder's positions.
"""

import os
from pathlib import Path
from typing import Callable, List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

CONFIG_FILE = "config.json"
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "spiece.model", "sentencepiece.bpe.model", "vocab.json")
WEIGHT_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)
FETCH_HINT = (
    "Fetch the default encoder with `spacy project run assets` (or "
    "`python -m spacy_frames fetch-assets project.yml`), or point `paths.encoder` "
    "at a local Hugging Face model directory (config.json, tokenizer files, weights)."
)


class EncoderNotFoundError(FileNotFoundError):
    """The configured encoder is neither a complete local model directory nor a hub name."""


def _looks_local(name: str) -> bool:
    """Whether `name` is meant as a filesystem path rather than a hub id ("org/model")."""
    if name.startswith((".", "/", "~")) or os.sep in name and name.count("/") != 1:
        return True
    first = name.split("/", 1)[0]
    return "/" in name and Path(first).is_dir()


def check_encoder(name: str) -> str:
    """Validate the encoder setting and return it unchanged.

    A local directory must hold a config, a tokenizer and weights. A name that
    is not a directory is accepted as a hub id only when it looks like one and
    the hub is not switched off (HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE).
    """
    if not name:
        raise EncoderNotFoundError(f"No encoder configured (paths.encoder is empty). {FETCH_HINT}")
    path = Path(name).expanduser()
    if path.is_dir():
        files = {p.name for p in path.iterdir()}
        missing = []
        if CONFIG_FILE not in files:
            missing.append(CONFIG_FILE)
        if not files.intersection(TOKENIZER_FILES):
            missing.append("tokenizer files (one of " + ", ".join(TOKENIZER_FILES) + ")")
        if not files.intersection(WEIGHT_FILES):
            missing.append("weights (one of " + ", ".join(WEIGHT_FILES) + ")")
        if missing:
            raise EncoderNotFoundError(
                f"Encoder directory '{path}' is incomplete: missing {'; '.join(missing)}. {FETCH_HINT}"
            )
        return name
    if path.exists():
        raise EncoderNotFoundError(f"Encoder path '{path}' is a file, not a model directory. {FETCH_HINT}")
    offline = any(os.environ.get(v, "") not in ("", "0") for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))
    if _looks_local(name) or offline:
        raise EncoderNotFoundError(f"Encoder directory '{path}' does not exist. {FETCH_HINT}")
    return name


@registry.architectures("spacy-frames.TransformerModel.v1")
def build_transformer_model(
    name: str,
    get_spans: Callable,
    tokenizer_config: dict = {},  # noqa: B006 (config default, never mutated)
    transformer_config: dict = {},  # noqa: B006 (config default, never mutated)
    mixed_precision: bool = False,
    grad_scaler_config: dict = {},  # noqa: B006 (config default, never mutated)
) -> Model[List[Doc], "FullTransformerBatch"]:  # noqa: F821
    """spacy-transformers.TransformerModel.v3 whose init first checks the encoder.

    Same arguments as TransformerModel.v3; `name` is `paths.encoder`.
    """
    from spacy_transformers.architectures import create_TransformerModel_v3

    from .threads import single_thread_in_forked_children

    single_thread_in_forked_children()
    model = create_TransformerModel_v3(
        name, get_spans, tokenizer_config, transformer_config, mixed_precision, grad_scaler_config
    )
    model.replace_callbacks(capped_transformer_forward, init=checked_transformer_init)
    model.__class__ = shared_transformer_class()  # its weights' loader names the file
    return model


def shared_transformer_class() -> type:
    """spacy-transformers' TransformerModel whose `from_bytes` names the file it reads
    (`transformer/model`) when the weights cannot be read, instead of msgpack's bare
    "Unpack failed: incomplete input". Made on first use: spacy-transformers imports torch."""
    global _SHARED_TRANSFORMER_CLASS
    if _SHARED_TRANSFORMER_CLASS is None:
        from spacy_transformers.layers.transformer_model import TransformerModel

        class SharedTransformerModel(TransformerModel):
            __slots__ = ()

            def from_bytes(self, bytes_data: bytes) -> "SharedTransformerModel":
                try:
                    return super().from_bytes(bytes_data)
                except Exception as err:
                    import traceback

                    from ..errors import file_read_by_spacy, model_data_error

                    # the caller up the stack that reads the file: spaCy's util.from_disk
                    stack = reversed([frame for frame, _ in traceback.walk_stack(None)])
                    where = file_read_by_spacy(stack) or "the shared transformer's weights (transformer/model)"
                    raise model_data_error(where, err) from err

        SharedTransformerModel.__module__ = __name__
        SharedTransformerModel.__qualname__ = "SharedTransformerModel"
        _SHARED_TRANSFORMER_CLASS = SharedTransformerModel
    return _SHARED_TRANSFORMER_CLASS


_SHARED_TRANSFORMER_CLASS = None


def __getattr__(name: str):
    # pickle finds the class by name in a fresh process (spawned workers)
    if name == "SharedTransformerModel":
        return shared_transformer_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def checked_transformer_init(model: Model, X: Optional[List[Doc]] = None, Y=None):
    """spacy-transformers' init, after `check_encoder` (module-level: picklable for spawn)."""
    from spacy_transformers.layers.transformer_model import init as transformer_init

    check_encoder(model.attrs["name"])
    return transformer_init(model, X=X, Y=Y)


# -- windows within the encoder's positions ------------------------------------------------
# position ids start after the padding index in these models (RoBERTa's 514 = 512 + 2)
OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer", "data2vec-text", "xmod")


def usable_positions(config) -> Optional[int]:
    """Wordpieces the encoder can take in one window (None when its config has no limit)."""
    limit = getattr(config, "max_position_embeddings", None)
    if not limit or limit <= 0:
        return None
    if getattr(config, "model_type", "") in OFFSET_POSITIONS:
        limit -= (getattr(config, "pad_token_id", None) or 0) + 1
    return limit


def _is_transformer_model(node: Model) -> bool:
    # not attrs["has_transformer"]: a copy made by replace_listeners keeps it False
    return "set_transformer" in node.attrs and bool(node.layers) and bool(node.layers[0].shims)


def _cap_transformer(node: Model) -> None:
    hf_model = getattr(node.layers[0].shims[0], "_hfmodel", None)
    tokenizer = getattr(hf_model, "tokenizer", None)
    transformer = getattr(hf_model, "transformer", None)
    if tokenizer is None or transformer is None:
        return
    limit = usable_positions(transformer.config)
    if limit is not None and tokenizer.model_max_length > limit:
        tokenizer.model_max_length = limit


def cap_wordpieces(model: Model) -> None:
    """Cap the tokenizer's `model_max_length` of every spacy-transformers TransformerModel
    in `model` at the encoder's positions. spacy-transformers cuts each window to
    `model_max_length` wordpieces; a tokenizer saved without that setting says 1e30, so
    a window of URLs, punctuation or a 5,000-character token (hundreds of wordpieces)
    reached the encoder uncut and failed in its position embeddings. The tokenizer is
    rebuilt whenever the weights load, so this runs before every forward pass (cheap)."""
    for node in model.walk():
        if _is_transformer_model(node):
            _cap_transformer(node)


def wordpiece_counts(model: Model, texts: List[str]) -> Optional[List[int]]:
    """The wordpieces of each text by the tokenizer of the first spacy-transformers
    TransformerModel in `model` (None when there is none, or it is not loaded yet): what
    a batch costs, which characters or spaCy tokens do not tell (a CJK or emoji token is
    many wordpieces, an English word about one)."""
    if not texts:  # a Hugging Face tokenizer fails on an empty batch
        return []
    for node in model.walk():
        if _is_transformer_model(node):
            tokenizer = getattr(getattr(node.layers[0].shims[0], "_hfmodel", None), "tokenizer", None)
            if tokenizer is None:
                return None
            return [len(ids) for ids in tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]]
    return None


def capped_transformer_forward(model: Model, docs: List[Doc], is_train: bool):
    """spacy-transformers' forward with the windows capped (module-level: picklable)."""
    from spacy_transformers.layers.transformer_model import forward

    if _is_transformer_model(model):
        _cap_transformer(model)
    return forward(model, docs, is_train)


# -- own encoder copies over texts (frame definitions, masked sentences) --------------------
def build_text_encoder(model_name: str, name: str, max_length: int, masked: bool = False) -> Model[List[str], Floats2d]:
    """A Hugging Face encoder over texts (spacy-frames.DefinitionEncoder.v1: mean-pooled
    wordpieces; spacy-frames.MaskedTargetEncoder.v1, `masked`: the vector at the mask token).

    name: local model directory or hub id (usually ${paths.encoder}), read only by
    `initialize`; a trained pipeline stores the encoder's config, tokenizer and weights
    itself. max_length: wordpieces per text (truncated beyond).
    """
    from .threads import single_thread_in_forked_children
    from .torch_modules import DefinitionEncoder, MaskedTargetEncoder, build_definition_encoder_wrapper

    single_thread_in_forked_children()
    wrapper = build_definition_encoder_wrapper(max_length, MaskedTargetEncoder if masked else DefinitionEncoder)
    return Model(
        model_name,
        text_encoder_forward,
        init=text_encoder_init,
        layers=[wrapper],
        attrs={"name": name, "max_length": max_length},
        dims={"nO": None},
    )


def text_encoder_init(model: Model, X=None, Y=None) -> None:
    from .torch_modules import load_pretrained_into

    wrapper = model.layers[0]
    load_pretrained_into(wrapper, check_encoder(model.attrs["name"]))
    model.set_dim("nO", wrapper.shims[0]._model.width)


def text_encoder_forward(model: Model, texts: List[str], is_train: bool):
    if not texts:
        return model.ops.alloc2f(0, model.get_dim("nO")), lambda dY: texts
    return model.layers[0](texts, is_train)

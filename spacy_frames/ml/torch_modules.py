"""torch modules, imported only inside thinc builders and init functions."""

import io
import tempfile
from pathlib import Path
from typing import List

import srsly
import torch
from thinc.api import ArgsKwargs, Model, PyTorchWrapper_v3
from thinc.types import Floats2d


class DefinitionEncoder(torch.nn.Module):
    """A Hugging Face encoder + its tokenizer, mean-pooling the last layer.

    Empty until `set_encoder`: the weights come from `initialize` (pretrained)
    or from serialized bytes (trained pipeline), never from a path at load time.
    """

    def __init__(self, max_length: int):
        super().__init__()
        self.max_length = max_length
        self.encoder = None
        self.tokenizer = None  # a plain attribute: not part of the state dict
        # True when the owner saves these weights elsewhere (a tied copy of its own
        # transformer): serialization then writes the config and tokenizer only
        self.weights_stored_elsewhere = False

    @property
    def width(self) -> int:
        return self.encoder.config.hidden_size

    def set_encoder(self, encoder, tokenizer) -> None:
        self.encoder = encoder
        self.tokenizer = tokenizer

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)


class MaskedTargetEncoder(DefinitionEncoder):
    """The same encoder over texts whose target is replaced by the mask token:
    returns the last layer's vector at the (first) mask token (v_mask, Yamada et al. 2021)."""

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        is_mask = input_ids == self.tokenizer.mask_token_id
        # first mask per row; a row whose mask was truncated away falls back to [CLS]
        positions = torch.where(is_mask.any(1), is_mask.int().argmax(1), torch.zeros_like(input_ids[:, 0]))
        return hidden[torch.arange(hidden.shape[0], device=hidden.device), positions]


def tie_definition_encoder(definition_wrapper: Model, transformer_wrapper: Model) -> None:
    """Point the definition encoder at the transformer's Hugging Face module (both
    thinc wrappers hold a PyTorchShim-like shim whose `_model` is the torch module);
    the tokenizer stays the definition encoder's own."""
    module = definition_wrapper.shims[0]._model
    shared = transformer_wrapper.shims[0]._model
    if module.encoder is not None and module.encoder.config.hidden_size != shared.config.hidden_size:
        raise ValueError(
            f"Cannot share weights: the frame encoder has width {module.encoder.config.hidden_size}, "
            f"the transformer {shared.config.hidden_size}."
        )
    module.encoder = shared


def convert_definition_inputs(model: Model, texts: List[str], is_train: bool):
    module = model.shims[0]._model
    if module.encoder is None:
        raise ValueError(f"The {type(module).__name__} is not initialized: call nlp.initialize() first.")
    batch = module.tokenizer(
        list(texts), padding=True, truncation=True, max_length=module.max_length, return_tensors="pt"
    )
    device = next(module.parameters()).device
    kwargs = {"input_ids": batch["input_ids"].to(device), "attention_mask": batch["attention_mask"].to(device)}
    return ArgsKwargs(args=(), kwargs=kwargs), lambda d_inputs: texts


def serialize_definition_encoder(module: DefinitionEncoder) -> bytes:
    if module.encoder is None:
        return srsly.msgpack_dumps({"files": {}, "state": b"", "max_length": module.max_length})
    with tempfile.TemporaryDirectory() as tmp:
        module.encoder.config.save_pretrained(tmp)
        module.tokenizer.save_pretrained(tmp)
        files = {p.name: p.read_bytes() for p in Path(tmp).iterdir() if p.is_file()}
    if getattr(module, "weights_stored_elsewhere", False):
        return srsly.msgpack_dumps(
            {"files": files, "state": b"", "max_length": module.max_length, "weights": "elsewhere"}
        )
    buffer = io.BytesIO()
    torch.save(module.state_dict(), buffer)
    return srsly.msgpack_dumps({"files": files, "state": buffer.getvalue(), "max_length": module.max_length})


def deserialize_definition_encoder(module: DefinitionEncoder, data: bytes, device) -> DefinitionEncoder:
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    msg = srsly.msgpack_loads(data)
    module.max_length = msg["max_length"]
    if not msg["files"]:
        return module
    with tempfile.TemporaryDirectory() as tmp:
        for name, content in msg["files"].items():
            (Path(tmp) / name).write_bytes(content)
        config = AutoConfig.from_pretrained(tmp)
        tokenizer = AutoTokenizer.from_pretrained(tmp)
    if msg.get("weights") == "elsewhere":
        # no encoder of its own: the owner ties this module to the weights it saved once
        # (frame_inducer's mask encoder to its own transformer copy) right after loading
        module.set_encoder(None, tokenizer)
        module.weights_stored_elsewhere = True
        return module
    module.set_encoder(AutoModel.from_config(config), tokenizer)
    module.load_state_dict(torch.load(io.BytesIO(msg["state"]), map_location=device))
    return module.to(device)


def same_weights(module_a, module_b) -> bool:
    """Whether two Hugging Face modules hold the same tensors (the same object, or equal values)."""
    if module_a is module_b:
        return True
    state_a, state_b = module_a.state_dict(), module_b.state_dict()
    return state_a.keys() == state_b.keys() and all(
        state_a[key].shape == state_b[key].shape and torch.equal(state_a[key], state_b[key]) for key in state_a
    )


def build_definition_encoder_wrapper(max_length: int, module_class=DefinitionEncoder) -> Model[List[str], Floats2d]:
    return PyTorchWrapper_v3(
        module_class(max_length),
        convert_inputs=convert_definition_inputs,
        serialize_model=serialize_definition_encoder,
        deserialize_model=deserialize_definition_encoder,
    )


def load_pretrained_into(wrapper: Model, name: str) -> None:
    """Load a pretrained encoder + tokenizer (local dir or hub id) into the wrapper's module,
    on the device the current ops compute on (as thinc's shim places the module when it is
    built and when it is deserialized): the encoder loads on the CPU, and left there it
    would hand numpy arrays to layers computing on a GPU."""
    from thinc.util import get_torch_default_device
    from transformers import AutoModel, AutoTokenizer

    module = wrapper.shims[0]._model
    module.set_encoder(AutoModel.from_pretrained(name), AutoTokenizer.from_pretrained(name))
    module.to(get_torch_default_device())

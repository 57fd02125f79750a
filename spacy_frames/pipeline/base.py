"""What the trainable components share: serialization of cfg, vocab, model and their own
state, and the default (transformer-free) tok2vec of their default model configs."""
from typing import Any, Callable, Dict, List, Tuple

import srsly
from spacy import util
from spacy.pipeline import TrainablePipe

# (to bytes, from bytes, to disk, from disk) of one piece of a component's state
StateIO = Tuple[Callable[[], bytes], Callable[[bytes], Any], Callable[[Any], None], Callable[[Any], Any]]


def default_tok2vec_config(width: int) -> str:
    """[model.tok2vec] of a component's default config: a small CNN, so that
    `nlp.add_pipe(name)` works offline; the project configs use a transformer listener."""
    return f"""
[model.tok2vec]
@architectures = "spacy.Tok2Vec.v2"

[model.tok2vec.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = {width}
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
rows = [5000, 1000, 2500, 2500]
include_static_vectors = false

[model.tok2vec.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = {width}
depth = 2
window_size = 1
maxout_pieces = 3
"""


class SerializablePipe(TrainablePipe):
    """to_bytes / from_bytes / to_disk / from_disk of "cfg", "vocab", the pieces that
    `_extra_state` names (in order, between vocab and model) and "model"."""

    def _extra_state(self) -> Dict[str, StateIO]:
        return {}

    def _before_save(self) -> None:
        """Bring derived state up to date before it is written."""

    def _before_model_load(self) -> None:
        """Set what the model's shapes depend on (read from cfg) before its weights load."""

    def _set_cfg(self, data: Dict[str, Any]) -> None:
        self.cfg.update(data)

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        self._before_save()
        serialize = {"cfg": lambda: srsly.json_dumps(self.cfg), "vocab": lambda: self.vocab.to_bytes(exclude=exclude)}
        serialize.update({key: io[0] for key, io in self._extra_state().items()})
        serialize["model"] = lambda: self.model.to_bytes()
        return util.to_bytes(serialize, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        deserialize = {"cfg": lambda b: self._set_cfg(srsly.json_loads(b)), "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude)}
        deserialize.update({key: io[1] for key, io in self._extra_state().items()})
        deserialize["model"] = self._load_model_bytes
        util.from_bytes(bytes_data, deserialize, exclude)
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        self._before_save()
        serialize = {"cfg": lambda p: srsly.write_json(p, self.cfg), "vocab": lambda p: self.vocab.to_disk(p, exclude=exclude)}
        serialize.update({key: io[2] for key, io in self._extra_state().items()})
        serialize["model"] = lambda p: self.model.to_disk(p)
        util.to_disk(path, serialize, exclude)

    def from_disk(self, path, *, exclude=tuple()):
        deserialize = {"cfg": lambda p: self._set_cfg(srsly.read_json(p)), "vocab": lambda p: self.vocab.from_disk(p, exclude=exclude)}
        deserialize.update({key: io[3] for key, io in self._extra_state().items()})
        deserialize["model"] = self._load_model_file
        util.from_disk(path, deserialize, exclude)
        return self

    def _load_model_bytes(self, data: bytes) -> None:
        self._before_model_load()
        self.model.from_bytes(data)

    def _load_model_file(self, path) -> None:
        with open(path, "rb") as file_:
            self._load_model_bytes(file_.read())


class CfgLabels:
    """`labels` and `label_data` of a component that keeps its labels in cfg["labels"]."""

    cfg: Dict[str, Any]

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["labels"])

    @property
    def label_data(self) -> List[str]:
        return list(self.labels)

"""What the trainable components share: the Doc extensions installed on every call, the
opening and closing of `update`, `score`, `finish_update`, serialization of cfg, vocab,
model and their own state, and the default (transformer-free) tok2vec of their default
model configs.

A component subclasses `FramesPipe` and implements `predict`, `set_annotations`,
`initialize` and `_update(examples, drop)`: the body of its update (its loss and the
backprop), which returns the batch's loss or None when the batch holds nothing it learns
from (its listener must then still be called: `sharing.skip_batch`).

Run-time settings: a component names in `runtime_settings` the cfg keys (factory
arguments) that only steer prediction, such as cut-offs, decoding or the ranking length.
At load they keep the values the component was built with from the config, so
`spacy.load(path, config={"components": {name: {key: value}}})` changes them; whatever
else cfg holds (labels, fitted state, training settings) comes from the saved cfg. Code
that changes a run-time setting of a built pipeline goes through `set_runtime_settings`,
which writes it to the pipeline's config as well, so the saved config.cfg carries it.

A file that cannot be read (missing, truncated, corrupted) raises `ModelDataError`,
naming the file and saying to reinstall or retrain, instead of msgpack's or torch's
bare message.
"""

from pathlib import Path
from typing import Any, Callable, Collection, Dict, Iterable, List, Optional, Tuple

import srsly
from spacy import util
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab
from thinc.api import Model, Optimizer

from ..errors import ModelDataError, model_data_error  # noqa: F401 (re-exported for the components)
from ..extensions import install_extensions
from ..ml.layers import consume_grad
from ..ml.transformer import cap_wordpieces

# (to bytes, from bytes, to disk, from disk) of one piece of a component's state
StateIO = Tuple[Callable[[], bytes], Callable[[bytes], Any], Callable[[Any], None], Callable[[Any], Any]]
# a parameter of a model: (node id, parameter name), as the optimizer keys it
ParamKey = Tuple[int, str]


def _reading(reader: Callable[[Path], Any]) -> Callable[[Path], Any]:
    """`reader` with its failure turned into a ModelDataError naming its file."""

    def read(path: Path) -> Any:
        try:
            return reader(path)
        except ModelDataError:
            raise
        except Exception as err:
            raise model_data_error(path, err) from err

    return read


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


class FramesPipe(TrainablePipe):
    """The base of the package's components (see the module docstring).

    Serialization: to_bytes / from_bytes / to_disk / from_disk of "cfg", "vocab", the
    pieces that `_extra_state` names (in order, between vocab and model) and "model"."""

    # cfg keys that only steer prediction (see the module docstring and `_set_cfg`)
    runtime_settings: Tuple[str, ...] = ()

    def __init__(self, vocab: Vocab, model: Model, name: str, cfg: Dict[str, Any], scorer: Optional[Callable]) -> None:
        install_extensions()
        self.vocab = vocab
        self.model = model
        self.name = name
        self.cfg = cfg
        self.scorer = scorer

    # -- calls: the extensions exist in spawned n_process workers too; an own transformer
    # copy (replace_listeners) keeps its windows within the encoder's positions ----------
    def __call__(self, doc: Doc) -> Doc:
        install_extensions()
        cap_wordpieces(self.model)
        return super().__call__(doc)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128):
        install_extensions()
        cap_wordpieces(self.model)
        return super().pipe(stream, batch_size=batch_size)

    # -- training ----------------------------------------------------------------------
    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, f"{type(self).__name__}.update")
        cap_wordpieces(self.model)
        loss = self._update(examples, drop)
        if loss is None:
            return losses
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def _update(self, examples: List[Example], drop: float) -> Optional[float]:
        """Forward, loss and backprop of one batch; its loss, or None when skipped."""
        raise NotImplementedError

    def finish_update(self, sgd: Optimizer) -> None:
        """Step the model's parameters with `sgd` (see `finish_update_params`)."""
        finish_update_params(
            self.model, sgd, skipped=self._tied_wrapper(), lr_scales=self._lr_scales(), fresh=self._fresh_params()
        )

    def _tied_wrapper(self) -> Optional[Model]:
        """A wrapper of the model that runs the shared transformer's torch module."""
        return None

    def _lr_scales(self) -> Dict[ParamKey, float]:
        """Learning-rate multipliers of some parameters (default 1)."""
        return {}

    def _fresh_params(self) -> Collection[ParamKey]:
        """Parameters stepped only after an update that gave them a gradient."""
        return ()

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, Any]:
        """The scorer's scores; it gets the component's cfg, labels and the component
        itself (`component`) as keyword arguments, `kwargs` last."""
        examples = list(examples)
        validate_examples(examples, f"{type(self).__name__}.score")
        if self.scorer is None:
            return {}
        return self.scorer(examples, **{**self.cfg, "labels": self.labels, "component": self, **kwargs})

    # -- serialization ----------------------------------------------------------------
    def _extra_state(self) -> Dict[str, StateIO]:
        return {}

    def _before_save(self) -> None:
        """Bring derived state up to date before it is written."""

    def _before_model_load(self) -> None:
        """Set what the model's shapes depend on (read from cfg) before its weights load."""

    def _after_model_load(self) -> None:
        """Derive state from the loaded weights."""

    def _set_cfg(self, data: Dict[str, Any]) -> None:
        # The component was built from the config (config.cfg with the load-time overrides):
        # its run-time settings keep those values, or an override could never take effect;
        # the rest of the saved cfg is what training and fitting left.
        built = {key: self.cfg[key] for key in self.runtime_settings if key in self.cfg}
        self.cfg.update(data)
        self.cfg.update(built)

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        self._before_save()
        serialize = {"cfg": lambda: srsly.json_dumps(self.cfg), "vocab": lambda: self.vocab.to_bytes(exclude=exclude)}
        serialize.update({key: io[0] for key, io in self._extra_state().items()})
        serialize["model"] = lambda: self.model.to_bytes()
        return util.to_bytes(serialize, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        deserialize = {
            "cfg": lambda b: self._set_cfg(srsly.json_loads(b)),
            "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude),
        }
        deserialize.update({key: io[1] for key, io in self._extra_state().items()})
        deserialize["model"] = self._load_model_bytes
        try:
            util.from_bytes(bytes_data, deserialize, exclude)
        except ModelDataError:
            raise
        except Exception as err:
            raise model_data_error(f"the serialized {self.name} component", err) from err
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        self._before_save()
        serialize = {
            "cfg": lambda p: srsly.write_json(p, self.cfg),
            "vocab": lambda p: self.vocab.to_disk(p, exclude=exclude),
        }
        serialize.update({key: io[2] for key, io in self._extra_state().items()})
        serialize["model"] = lambda p: self.model.to_disk(p)
        util.to_disk(path, serialize, exclude)

    def from_disk(self, path, *, exclude=tuple()):
        deserialize = {
            "cfg": lambda p: self._set_cfg(srsly.read_json(p)),
            "vocab": lambda p: self.vocab.from_disk(p, exclude=exclude),
        }
        deserialize.update({key: io[3] for key, io in self._extra_state().items()})
        deserialize["model"] = self._load_model_file
        util.from_disk(path, {key: _reading(reader) for key, reader in deserialize.items()}, exclude)
        return self

    def _load_model_bytes(self, data: bytes) -> None:
        self._before_model_load()
        self.model.from_bytes(data)
        self._after_model_load()

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


def set_runtime_settings(nlp: Language, name: str, settings: Dict[str, Any]) -> None:
    """Set run-time settings of the component `name` of `nlp`: in its cfg (what it uses
    now) and in the pipeline's config (what config.cfg saves, so that the pipeline loads
    with them). Only keys of the component's `runtime_settings`."""
    pipe = nlp.get_pipe(name)
    allowed = getattr(pipe, "runtime_settings", ())
    unknown = [key for key in settings if key not in allowed]
    if unknown:
        raise ValueError(f"[{name}] {unknown}: not run-time settings of the component (those are {list(allowed)})")
    pipe.cfg.update(settings)
    # nlp.config rebuilds its "components" from these configs on every access
    nlp.get_pipe_config(name).update(settings)


def finish_update_params(
    model: Model,
    sgd: Optimizer,
    *,
    skipped: Optional[Model] = None,
    lr_scales: Optional[Dict[ParamKey, float]] = None,
    fresh: Collection[ParamKey] = (),
) -> None:
    """`model.finish_update(sgd)`, except that
    - the shims of `skipped` (a wrapper tied to the shared transformer's torch module) are
      left alone: the transformer component steps those weights, and a second step would
      apply its update (weight decay included) twice per batch;
    - a parameter (node id, name) in `lr_scales` is stepped with that multiplier of the
      learning rate (the optimizer's `lr_scale`: Adam's step is lr_scale * lr * m / sqrt(v),
      a real learning rate, not a gradient scale, which Adam would cancel);
    - a parameter in `fresh` is stepped only when an update gave it a gradient since its
      last step (`layers.add_fresh_grad`), not with the zeroed gradient a step leaves.
    """
    lr_scales = lr_scales or {}
    for node in model.walk():
        if node is not skipped:
            for shim in node.shims:
                shim.finish_update(sgd)
        for name in node.param_names:
            if not node.has_grad(name):
                continue
            key = (node.id, name)
            grad = node.get_grad(name)
            if key in fresh and not grad.size:
                continue
            param, _ = sgd(key, node.get_param(name), grad, lr_scale=lr_scales.get(key, 1.0))
            node.set_param(name, param)
            if key in fresh:
                consume_grad(node, name)

"""Tying a component's own encoder copy to the shared transformer's torch module.

frame_identifier (its frame encoder, `share_frame_encoder`) and frame_inducer (its
masked-target encoder) both keep a separate Hugging Face module that can run the
shared transformer's weights instead of its own. While tied, the transformer
component steps those weights; the component's `finish_update` skips that shim
(`base.finish_update_params`, through `_tied_wrapper`).
"""
from typing import Optional

from spacy.language import Language
from thinc.api import Model


def find_upstream_transformer(nlp: Language, component: str, listener: Optional[Model]):
    """The transformer component whose listener `component` uses."""
    # nlp.components, not nlp.pipeline: `spacy train` initializes with sourced components disabled
    upstream_name = getattr(listener, "upstream_name", None)
    upstream = [
        proc
        for name, proc in nlp.components
        if component in getattr(proc, "listener_map", {})
        or (hasattr(proc, "listener_map") and upstream_name in ("*", name))
    ]
    if not upstream:
        raise ValueError(
            f"[{component}] no transformer in the pipeline listens for {component} (pipeline: {nlp.pipe_names})."
        )
    return upstream[0]


def tie_to_transformer(wrapper: Model, nlp: Language, component: str, listener: Optional[Model]) -> None:
    """Point `wrapper`'s Hugging Face module at the upstream transformer's."""
    from ..ml.torch_modules import tie_definition_encoder

    transformer = find_upstream_transformer(nlp, component, listener)
    tie_definition_encoder(wrapper, transformer.model.layers[0])


def skip_batch(tok2vec: Model, docs) -> None:
    """What a component's update() does with a batch that has none of its annotations.

    It still runs its listener and backpropagates zeros: a shared transformer takes its
    optimizer step when its *last* listener calls back (the others only accumulate), so
    a last listener that skipped would drop every other component's gradients for the
    batch when corpora of different tasks are mixed. For a frozen (annotating)
    transformer, or a component with its own tok2vec, this is a harmless no-op."""
    outputs, backprop = tok2vec.begin_update(list(docs))
    backprop([tok2vec.ops.alloc2f(*output.shape) for output in outputs])

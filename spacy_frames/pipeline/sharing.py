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

from ..util import find_upstream_transformer


def tie_to_transformer(wrapper: Model, nlp: Language, component: str, listener: Optional[Model]) -> None:
    """Point `wrapper`'s Hugging Face module at the upstream transformer's."""
    from ..ml.torch_modules import tie_definition_encoder

    transformer = find_upstream_transformer(nlp, component, listener)
    tie_definition_encoder(wrapper, transformer.model.layers[0])


def own_transformer_wrapper(tok2vec: Optional[Model]) -> Optional[Model]:
    """The torch wrapper of the transformer inside a component's own tok2vec (a copy made by
    `replace_listeners`), or None while the component listens to a shared one."""
    from ..ml.transformer import _is_transformer_model

    for node in tok2vec.walk() if tok2vec is not None else ():
        if _is_transformer_model(node):
            return node.layers[0]
    return None


def store_tied_weights_once(wrapper: Model, tok2vec: Optional[Model]) -> bool:
    """Before saving: when `wrapper`'s encoder holds the same weights as the transformer of
    the component's own tok2vec (frame_inducer's mask encoder, tied during training, after
    `replace_listeners` copied the transformer in), save them once, with the transformer.
    Returns whether they are (the component records it in its cfg and re-ties on load)."""
    from ..ml.torch_modules import same_weights

    module = wrapper.shims[0]._model
    own = own_transformer_wrapper(tok2vec)
    shared = module.encoder is not None and own is not None and same_weights(module.encoder, own.shims[0]._model)
    module.weights_stored_elsewhere = shared
    return shared


def retie_after_load(wrapper: Model, tok2vec: Optional[Model], component: str) -> None:
    """After loading a component saved with `store_tied_weights_once`: point the wrapper's
    encoder at its own transformer's weights again."""
    from ..ml.torch_modules import tie_definition_encoder

    own = own_transformer_wrapper(tok2vec)
    if own is None:
        raise ValueError(
            f"[{component}] its mask encoder was saved to share its own transformer's weights, "
            "but the loaded model has no transformer of its own: the saved pipeline is damaged; reinstall or retrain it."
        )
    tie_definition_encoder(wrapper, own)


def skip_batch(tok2vec: Model, docs) -> None:
    """What a component's update() does with a batch that has none of its annotations.

    It still runs its listener and backpropagates zeros: a shared transformer takes its
    optimizer step when its *last* listener calls back (the others only accumulate), so
    a last listener that skipped would drop every other component's gradients for the
    batch when corpora of different tasks are mixed. For a frozen (annotating)
    transformer, or a component with its own tok2vec, this is a harmless no-op."""
    outputs, backprop = tok2vec.begin_update(list(docs))
    backprop([tok2vec.ops.alloc2f(*output.shape) for output in outputs])

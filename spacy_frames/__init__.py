"""spaCy v3 pipeline components for frame semantics on a shared transformer.

Everything is registered through entry points (see setup.py): importing this
package is cheap and has no side effects (no torch, transformers or faiss).
"""

from .about import __version__


def __getattr__(name):
    # add_frame / set_inventory of a loaded pipeline (pipeline/inventory_ops.py), imported
    # on first use so that `import spacy_frames` stays cheap
    if name in ("add_frame", "set_inventory"):
        from .pipeline import inventory_ops

        return getattr(inventory_ops, name)
    raise AttributeError(f"module 'spacy_frames' has no attribute {name!r}")


__all__ = ["__version__", "add_frame", "set_inventory"]

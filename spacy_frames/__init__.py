"""spaCy v3 pipeline components for frame semantics on a shared transformer.

Everything is registered through entry points (see setup.py): importing this
package is cheap and has no side effects (no torch, transformers or faiss).
"""
from .about import __version__

__all__ = ["__version__"]

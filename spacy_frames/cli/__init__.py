"""`spacy-frames` / `python -m spacy_frames`: thin typer wrappers over library functions,
one module per command group, all registered on the app of `_util.py`."""

from . import (  # noqa: F401 (each registers its commands on the app)
    annotate,
    assets,
    benchmark,
    convert,
    discourse,
    evaluate,
    frames,
    induce,
    media,
    midtune,
    package,
    render,
    robustness,
    serve,
    train,
    tune,
)
from ._util import app

__all__ = ["app"]

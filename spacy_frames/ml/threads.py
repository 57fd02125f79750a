"""Threads: torch's in forked workers, and the BLAS that thinc layers multiply with.

`nlp.pipe(n_process=2)` forks on Linux. A child that inherits torch's OpenMP
thread pool can hang in its first parallel op (spaCy's docs: use spawn or
`torch.set_num_threads(1)`). Every architecture that runs torch calls
`single_thread_in_forked_children()`, so forked workers run torch (and numpy's
BLAS) on one thread each, which is also what n_process wants: one core per worker.

thinc's CPU layers multiply matrices with BLIS on one thread, while the transformer
uses every torch thread. `spacy-frames.numpy_blas.v1` (an `[nlp.after_pipeline_creation]`
callback of en_frames_trf) routes them through numpy's BLAS, which is threaded: the
same numbers up to float rounding (en_core_web_sm's tags, parses and lemmas are
unchanged on the benchmark documents), its tok2vec about three times faster on 2 cores.
"""

import os
import sys
from typing import Callable, Iterator

from spacy.language import Language
from spacy.util import registry
from thinc.api import Model, NumpyOps

_registered = False


def _one_thread_each() -> None:
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    if "numpy" in sys.modules:  # numpy's BLAS too (numpy_blas), where threadpoolctl can set it
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - scikit-learn brings it
            return
        threadpool_limits(1, user_api="blas")


def single_thread_in_forked_children() -> None:
    global _registered
    if not _registered and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_one_thread_each)
        _registered = True


@registry.callbacks("spacy-frames.numpy_blas.v1")
def make_numpy_blas() -> Callable[[Language], Language]:
    """Every component's thinc layers on CPU multiply through numpy's BLAS (thinc's
    `NumpyOps(use_blis=False)`); layers on a GPU keep their ops."""

    def use_numpy_blas(nlp: Language) -> Language:
        ops = NumpyOps(use_blis=False)
        for _, component in nlp.pipeline:
            for model in thinc_models(component):
                for node in model.walk():
                    if type(node.ops) is NumpyOps:
                        node.ops = ops
        return nlp

    return use_numpy_blas


def thinc_models(component) -> Iterator[Model]:
    """A component's thinc model, and those of the components of a pipeline it runs
    (`inner_pipeline`: installed_syntax's en_core_web_sm)."""
    model = getattr(component, "model", None)
    if isinstance(model, Model):
        yield model
    inner = getattr(component, "inner_pipeline", None)
    if isinstance(inner, Language):
        for _, proc in inner.pipeline:
            yield from thinc_models(proc)

"""torch threads in forked workers.

`nlp.pipe(n_process=2)` forks on Linux. A child that inherits torch's OpenMP
thread pool can hang in its first parallel op (spaCy's docs: use spawn or
`torch.set_num_threads(1)`). Every architecture that runs torch calls
`single_thread_in_forked_children()`, so forked workers run torch on one thread
each, which is also what n_process wants: one core per worker.
"""

import os
import sys

_registered = False


def _one_torch_thread() -> None:
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def single_thread_in_forked_children() -> None:
    global _registered
    if not _registered and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_one_torch_thread)
        _registered = True

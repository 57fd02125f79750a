"""Helpers shared across the package that belong to no component, corpus or scorer."""

from contextlib import ExitStack, contextmanager
from typing import List, Optional, Sequence

from spacy.language import Language
from thinc.api import Model


def consecutive_chunks(
    sizes: Sequence[int], max_items: int, max_size: Optional[int] = None, padded: bool = False
) -> List[range]:
    """Runs of consecutive indices of `sizes`, each with at most `max_items` items and a
    size of at most `max_size` (default: `max_items`, sizes then counting items): the sum
    of its sizes, or with `padded` its item count times its largest size (a batch padded to
    its longest sequence). An item over the limit gets a run of its own. What a model
    call may hold."""
    limit = max_items if max_size is None else max_size
    chunks: List[range] = []
    start, total, largest = 0, 0, 0
    for i, size in enumerate(sizes):
        grown = (i - start + 1) * max(largest, size) if padded else total + size
        if i > start and (i - start >= max_items or grown > limit):
            chunks.append(range(start, i))
            start, total, largest = i, 0, 0
        total, largest = total + size, max(largest, size)
    if start < len(sizes):
        chunks.append(range(start, len(sizes)))
    return chunks


def use_gpu(gpu_id: int) -> None:
    """Score on the GPU (training gets `--gpu-id`); -1 keeps everything on the CPU."""
    if gpu_id >= 0:
        import spacy

        spacy.require_gpu(gpu_id)


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


@contextmanager
def parse_skipped(nlp, disable: Sequence[str] = ()):
    """`nlp` with the pipes `disable` off and without its dependency parse: a "parser" pipe
    disabled, the parser of a component that runs one (installed_syntax's `skipping`) skipped."""
    names = [n for n in nlp.pipe_names if n in disable or n == "parser"]
    with ExitStack() as stack:
        stack.enter_context(nlp.select_pipes(disable=names))
        for _, proc in nlp.pipeline:
            if hasattr(proc, "skipping"):
                stack.enter_context(proc.skipping(["parser"]))
        yield nlp

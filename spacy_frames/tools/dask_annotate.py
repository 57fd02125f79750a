"""`spacy-frames annotate --dask`: the corpus cut into partitions, annotated on Dask workers.

Dask (`distributed`) schedules the work: `local:N` starts a LocalCluster of N worker
processes on this machine, an address (`tcp://host:8786`) connects to a running
scheduler whose workers have the model installed (README, "Scale-out"). Each worker
loads the pipeline once (a per-process cache) and returns the partition's records as
JSON lines; they are written in input order, so the output is byte-identical to a
single-process run. At most two partitions per worker are in flight, so memory stays
bounded however long the corpus is.
"""

from collections import deque
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Sequence, Tuple

from .corpus_io import InputDocument

_PIPELINES: Dict[Tuple[str, Tuple[str, ...]], object] = {}


def _load_once(model: str, exclude: Tuple[str, ...]):
    """The worker process's pipeline, loaded on its first partition."""
    key = (model, exclude)
    if key not in _PIPELINES:
        import spacy

        from ..extensions import install_extensions

        install_extensions()
        _PIPELINES[key] = spacy.load(model, exclude=list(exclude))
    return _PIPELINES[key]


def annotate_partition(
    model: str, exclude: Tuple[str, ...], items: List[Tuple[str, str]], batch_size: int
) -> List[str]:
    """Runs on a worker: the record lines of one partition of (text, id) pairs."""
    from .records import record_line

    nlp = _load_once(model, exclude)
    return [record_line(doc, doc_id) for doc, doc_id in nlp.pipe(items, as_tuples=True, batch_size=batch_size)]


def connect(address: str):
    """A distributed.Client for `local:N` (a new LocalCluster of N single-threaded worker
    processes) or a scheduler address."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as err:  # an optional dependency: pip install "spacy-frames[dask]"
        raise ImportError("--dask needs Dask's distributed scheduler: pip install 'spacy-frames[dask]'") from err
    if address.startswith("local:"):
        try:
            n_workers = int(address.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"--dask local:N needs a number of workers, got {address!r}") from None
        if n_workers < 1:
            raise ValueError(f"--dask local:N needs at least one worker, got {address!r}")
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster)
    return Client(address)


def _model_for_workers(model: str) -> str:
    """A local directory is passed as an absolute path; a package name as it is."""
    path = Path(model)
    return str(path.resolve()) if path.exists() else model


def annotate_on_dask(
    address: str,
    model: str,
    exclude: Sequence[str],
    documents: Iterable[InputDocument],
    batch_size: int,
    partition_size: int = 0,
) -> Iterator[Tuple[InputDocument, str]]:
    """(document, record line) for every document, in input order."""
    if model is None:
        raise ValueError("--dask needs the model's name or path: the workers load it themselves")
    partition_size = partition_size or batch_size * 4
    client = connect(address)
    try:
        n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        target, excluded = _model_for_workers(model), tuple(exclude)
        in_flight: deque = deque()
        partition: List[InputDocument] = []

        def submit(part: List[InputDocument]) -> None:
            items = [(document.text, document.id) for document in part]
            in_flight.append((part, client.submit(annotate_partition, target, excluded, items, batch_size, pure=False)))

        def drain(limit: int) -> Iterator[Tuple[InputDocument, str]]:
            while len(in_flight) > limit:
                part, future = in_flight.popleft()
                yield from zip(part, future.result())

        for document in documents:
            partition.append(document)
            if len(partition) == partition_size:
                submit(partition)
                partition = []
                yield from drain(2 * n_workers)
        if partition:
            submit(partition)
        yield from drain(0)
    finally:
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None:
            cluster.close()

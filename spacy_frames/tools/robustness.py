"""Hostile documents (tools/hostile.py) through a pipeline: no crash, memory bounded,
`n_process=2` the same as one process.

`robustness(model)` runs the corpus through `nlp.pipe` batch by batch and counts
documents, words (spaCy tokens) and crashes per kind. A batch that raises is run again
document by document, so a bad document costs only itself and the run goes on; each
crash is logged with the document's index, kind, the exception's class and message.
Peak memory is this process's `ru_maxrss` (model, corpus and the largest batch); the
current RSS is sampled every `rss_every` documents, so growth over the run shows. The
`n_process` check annotates the first `n_check` documents that did not crash with one
process and with `n_process`, and compares their annotation records (tools/
annotate_corpus.py) line by line; the workers' peak is RUSAGE_CHILDREN's.
"""

import os
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Union

from spacy.language import Language

from .hostile import HUGE_WORDS, KINDS, HostileDocument, hostile_documents
from .records import record_line

CRASH_LOG_MAX = 100  # crashes listed one by one; all are counted
MESSAGE_MAX = 300


def _mib(kib: int) -> float:
    # ru_maxrss is in KiB on Linux, in bytes on macOS
    return round(kib / (2**20 if sys.platform == "darwin" else 1024), 1)


def peak_rss_mib(children: bool = False) -> float:
    """Peak resident memory of this process (or of its largest finished child)."""
    return _mib(resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF).ru_maxrss)


def current_rss_mib() -> Optional[float]:
    """Resident memory now (Linux /proc; None elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def _crash(index: int, document: HostileDocument, err: Exception) -> Dict:
    return {"index": index, "kind": document.kind, "error": type(err).__name__, "message": str(err)[:MESSAGE_MAX]}


def _batches(documents: List[HostileDocument], size: int) -> Iterable[range]:
    for start in range(0, len(documents), size):
        yield range(start, min(start + size, len(documents)))


def run_documents(
    nlp: Language,
    documents: List[HostileDocument],
    *,
    batch_size: int = 32,
    rss_every: int = 1000,
    progress: bool = True,
) -> Dict:
    """Every document through `nlp.pipe`, batch-wise, crashes caught (module docstring)."""
    from tqdm import tqdm

    kinds = {kind: Counter(documents=0, words=0, crashes=0) for kind in KINDS}
    crashes: List[Dict] = []
    words_done, next_sample = 0, rss_every
    samples = [[0, current_rss_mib()]]
    bar = tqdm(total=len(documents), unit="doc", desc="robustness", file=sys.stderr, disable=not progress)
    start = time.perf_counter()
    try:
        for batch in _batches(documents, batch_size):
            try:
                docs = list(nlp.pipe([documents[i].text for i in batch], batch_size=batch_size))
            except Exception:
                docs = []
                for i in batch:  # the batch again, one by one: only the bad document is lost
                    try:
                        docs.append(nlp(documents[i].text))
                    except Exception as err:
                        crashes.append(_crash(i, documents[i], err))
                        docs.append(None)
            for i, doc in zip(batch, docs):
                counts = kinds[documents[i].kind]
                counts["documents"] += 1
                if doc is None:
                    counts["crashes"] += 1
                    counts["words"] += len(nlp.make_doc(documents[i].text))
                else:
                    counts["words"] += len(doc)
                    words_done += len(doc)
            bar.update(len(batch))
            if batch.stop >= next_sample or batch.stop == len(documents):
                samples.append([batch.stop, current_rss_mib()])
                next_sample += rss_every
    finally:
        bar.close()
    seconds = time.perf_counter() - start
    return {
        "documents": len(documents),
        "words": sum(c["words"] for c in kinds.values()),
        "kinds": {kind: dict(counts) for kind, counts in kinds.items()},
        "crashes": len(crashes),
        "crashes_by_error": dict(Counter(crash["error"] for crash in crashes)),
        "crash_log": crashes[:CRASH_LOG_MAX],
        "seconds": round(seconds, 2),
        "words_per_second": round(words_done / seconds, 1) if seconds else None,
        "rss_mib_by_documents": samples,
    }


def compare_n_process(nlp: Language, texts: List[str], *, batch_size: int = 32, n_process: int = 2) -> Dict:
    """Annotation records of `texts` with one process and with `n_process`, compared.

    Both runs use one torch thread and one BLAS thread per process, as the workers do: the
    thread count changes the order of float sums, and so the 4th decimal of a score now and
    then (seen on a 20,000-word document, 0.687 against 0.6869), which is not what this
    compares."""
    import torch
    from threadpoolctl import threadpool_limits

    records = {}
    result: Dict = {"n_process": n_process, "documents": len(texts), "torch_threads_per_process": 1}
    threads = torch.get_num_threads()
    for n in (1, n_process):
        start = time.perf_counter()
        try:
            torch.set_num_threads(1)
            with threadpool_limits(1, user_api="blas"):
                docs = nlp.pipe(texts, batch_size=batch_size, n_process=n)
                records[n] = [record_line(doc, str(i)) for i, doc in enumerate(docs)]
        except Exception as err:
            result.update(identical=False, error=f"n_process={n}: {type(err).__name__}: {str(err)[:MESSAGE_MAX]}")
            return result
        finally:
            torch.set_num_threads(threads)
        result[f"seconds_n_process_{n}"] = round(time.perf_counter() - start, 2)
    one, many = records[1], records[n_process]
    different = [i for i, (a, b) in enumerate(zip(one, many)) if a != b]
    result.update(identical=len(one) == len(many) and not different, different=different[:CRASH_LOG_MAX], error=None)
    result["peak_rss_workers_mib"] = peak_rss_mib(children=True)
    return result


def robustness(
    model: Union[str, Path, Language],
    *,
    n_docs: int = 10000,
    seed: int = 0,
    batch_size: int = 32,
    n_check: int = 300,
    n_process: int = 2,
    huge_words: int = HUGE_WORDS,
    n_threads: Optional[int] = None,
    progress: bool = True,
) -> Dict:
    """The robustness run (module docstring): `n_docs` hostile documents from `seed`
    through `model` (a path, a package name or a loaded pipeline)."""
    import torch

    from .model_check import load_pipeline

    if n_threads:
        torch.set_num_threads(n_threads)
    nlp = model if isinstance(model, Language) else load_pipeline(model)
    rss_after_load = current_rss_mib()
    documents = list(hostile_documents(n_docs, seed, huge_words=huge_words))
    run = run_documents(nlp, documents, batch_size=batch_size, progress=progress)
    peak = peak_rss_mib()
    crashed = {crash["index"] for crash in run["crash_log"]} if run["crashes"] <= CRASH_LOG_MAX else None
    if crashed is None:  # more crashes than logged: which ones is unknown, skip the check
        check = {"n_process": n_process, "identical": False, "error": "skipped: too many crashes"}
    else:
        texts = [document.text for i, document in enumerate(documents) if i not in crashed][:n_check]
        check = compare_n_process(nlp, texts, batch_size=batch_size, n_process=n_process)
    return {
        "model": str(model) if not isinstance(model, Language) else nlp.meta.get("name", "pipeline"),
        "pipeline": list(nlp.pipe_names),
        "seed": seed,
        "batch_size": batch_size,
        "huge_words": huge_words,
        **{
            key: run[key]
            for key in ("documents", "words", "crashes", "crashes_by_error", "seconds", "words_per_second")
        },
        "peak_rss_mib": peak,
        "rss_mib": {"after_load": rss_after_load, "by_documents": run["rss_mib_by_documents"]},
        "n_process_identical": check["identical"],
        "n_process_check": check,
        "kinds": run["kinds"],
        "crash_log": run["crash_log"],
        "machine": {"cpus": os.cpu_count(), "torch": torch.__version__, "torch_threads": torch.get_num_threads()},
    }

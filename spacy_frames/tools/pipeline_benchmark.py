"""The packaged pipeline, measured in one run: words/s of the full pipeline and of the
bare transformer (1 and 2 processes), each component's share of the time, peak memory,
`spacy.load` time and the installed size; on sentences (one per doc) and, for each
`documents` corpus, on whole multi-sentence documents, as users annotate them (where
discourse_sense has sentence pairs to classify and media_framer whole articles).

Every measurement runs in a fresh spawned process (tools/benchmark.py), so peak memory
and load time are the pipeline's own. Each process warms up on texts that follow the timed
ones in the corpus, so no cache (USE vectors are cached by text) has seen a timed text, and
the components' shares come from a first pass of their own process.
"""

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from .benchmark import iter_texts, take_words


def directory_size_mib(path: Path) -> float:
    return round(sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file()) / 2**20, 1)


def model_directory(model: str) -> Path:
    """A pipeline directory, or the data directory of an installed package."""
    path = Path(model)
    if path.exists():
        return path
    import spacy.util

    package = spacy.util.get_package_path(model)
    data = [p for p in package.iterdir() if p.is_dir() and (p / "config.cfg").exists()]
    return data[0] if data else package


def measure(
    model: str,
    texts: List[str],
    n_threads: int,
    batch_size: int,
    n_process: int,
    warmup: Sequence[str] = (),
    components: bool = False,
) -> Dict:
    """Run in a fresh process: load time, then after a warm-up on `warmup` (texts not
    timed; the first text when empty) either words/s with `n_process` processes (each with
    n_threads // n_process torch threads, so both settings use the same cores) or, with
    `components`, the time of each component over the texts; peak RSS of this process and
    its workers."""
    import spacy
    import torch

    threads = max(1, n_threads // n_process)
    torch.set_num_threads(threads)
    start = time.perf_counter()
    nlp = spacy.load(model)
    load_seconds = time.perf_counter() - start
    list(nlp.pipe(list(warmup) or texts[:1], batch_size=batch_size))
    result = {"model": str(model), "pipeline": list(nlp.pipe_names), "load_seconds": round(load_seconds, 2)}
    if components:
        result["component_seconds"] = component_seconds(nlp, texts, batch_size)
        result["peak_rss_mib"] = peak_rss_mib()
        return result
    start = time.perf_counter()
    n_words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=batch_size, n_process=n_process))
    seconds = time.perf_counter() - start
    result.update(
        {
            "n_process": n_process,
            "torch_threads_per_process": threads,
            "docs": len(texts),
            "words": n_words,
            "seconds": round(seconds, 2),
            "words_per_second": round(n_words / seconds, 1),
            "peak_rss_mib": peak_rss_mib(),
        }
    )
    return result


def peak_rss_mib() -> float:
    """Peak RSS of this process and of its largest finished child (the n_process workers)."""
    import resource

    peak_kib = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    )
    return round(peak_kib / 1024, 1)


def component_seconds(nlp, texts: List[str], batch_size: int) -> Dict[str, float]:
    """Seconds per component over the texts: each component runs over all docs in turn."""
    start = time.perf_counter()
    docs = [nlp.make_doc(text) for text in texts]
    seconds = {"tokenizer": time.perf_counter() - start}
    for name, component in nlp.pipeline:
        start = time.perf_counter()
        docs = (
            list(component.pipe(docs, batch_size=batch_size))
            if hasattr(component, "pipe")
            else [component(d) for d in docs]
        )
        seconds[name] = time.perf_counter() - start
    return {name: round(value, 3) for name, value in seconds.items()}


def measure_in_fresh_process(*args, **kwargs) -> Dict:
    """`measure` with these arguments, in a fresh spawned process."""
    # A ProcessPoolExecutor worker is not daemonic, so nlp.pipe(n_process=2) may start
    # its own workers inside it (a multiprocessing.Pool worker may not).
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(measure, *args, **kwargs).result()


def timed_and_warmup(corpus: Path, n_words: int, documents: bool) -> Tuple[List[str], List[str]]:
    """The timed texts (about n_words words) and the warm-up texts that follow them in the
    corpus (about a twentieth as many words; none when the corpus ends first)."""
    texts = iter_texts(corpus, documents)
    timed, words = take_words(texts, n_words)
    if not timed:
        raise ValueError(f"Benchmark corpus '{corpus}' holds no documents.")
    warmup, _ = take_words(texts, n_words + max(1, n_words // 20) - words)
    return timed, warmup


def median_runs(
    model: str, bare: str, texts: List[str], warmup: List[str], n_threads: int, batch_size: int, repeats: int
):
    """The full pipeline's and the bare transformer's one-process runs, `repeats` fresh
    processes each, alternating so that a slow spell of the machine hits both: per pipeline
    the run with the median words/s, and every run's words/s."""
    if repeats < 1:
        raise ValueError(f"Benchmark repeats must be at least 1, got {repeats}.")
    full_runs, bare_runs = [], []
    for _ in range(repeats):
        full_runs.append(measure_in_fresh_process(str(model), texts, n_threads, batch_size, 1, warmup))
        bare_runs.append(measure_in_fresh_process(str(bare), texts, n_threads, batch_size, 1, warmup))

    def median(runs: List[Dict]) -> Dict:
        return sorted(runs, key=lambda run: run["words_per_second"])[len(runs) // 2]

    every = {
        "full": [run["words_per_second"] for run in full_runs],
        "bare_transformer": [run["words_per_second"] for run in bare_runs],
    }
    return median(full_runs), median(bare_runs), every


def component_shares(seconds: Dict[str, float]) -> Dict[str, float]:
    total = sum(seconds.values())
    return {name: round(value / total, 3) for name, value in seconds.items()}


def benchmark_documents(
    model: str, bare: str, corpus: Path, *, n_words: int, n_threads: int, batch_size: int, repeats: int = 3
) -> Dict:
    """The full pipeline and the bare transformer on whole documents of `corpus` (the
    median of `repeats` fresh processes each): words/s, their ratio, each component's
    share, peak memory."""
    texts, warmup = timed_and_warmup(corpus, n_words, documents=True)
    full, bare_run, every = median_runs(model, bare, texts, warmup, n_threads, batch_size, repeats)
    parts = measure_in_fresh_process(str(model), texts, n_threads, batch_size, 1, warmup, components=True)
    return {
        "corpus": str(corpus),
        "documents": len(texts),
        "warmup_documents": len(warmup),
        "words": full["words"],
        "words_per_doc": round(full["words"] / len(texts), 1),
        "words_per_second": {"full": full["words_per_second"], "bare_transformer": bare_run["words_per_second"]},
        "words_per_second_runs": every,
        "full_over_bare": round(full["words_per_second"] / bare_run["words_per_second"], 3),
        "component_share": component_shares(parts["component_seconds"]),
        "component_seconds": parts["component_seconds"],
        "peak_rss_mib": {"full": full["peak_rss_mib"], "bare_transformer": bare_run["peak_rss_mib"]},
    }


def benchmark_pipeline(
    model: str,
    bare: str,
    corpus: Path,
    *,
    n_words: int = 20000,
    n_threads: int = 2,
    batch_size: int = 64,
    documents: Sequence[Path] = (),
    repeats: int = 3,
) -> Dict:
    """Every one-process words/s is the median of `repeats` fresh processes (the
    `*_runs` entries hold them all); the two-process runs are measured once."""
    texts, warmup = timed_and_warmup(corpus, n_words, documents=False)
    runs = {}
    runs["full_n_process_1"], runs["bare_transformer_n_process_1"], every = median_runs(
        model, bare, texts, warmup, n_threads, batch_size, repeats
    )
    for name, path in (("full", model), ("bare_transformer", bare)):
        runs[f"{name}_n_process_2"] = measure_in_fresh_process(str(path), texts, n_threads, batch_size, 2, warmup)
    full = runs["full_n_process_1"]
    parts = measure_in_fresh_process(str(model), texts, n_threads, batch_size, 1, warmup, components=True)
    import torch

    return {
        "model": str(model),
        "bare_transformer": str(bare),
        "corpus": str(corpus),
        "n_threads": n_threads,
        "batch_size": batch_size,
        "machine": {"cpus": os.cpu_count(), "torch": torch.__version__},
        "words_per_second": {key: run["words_per_second"] for key, run in sorted(runs.items())},
        "words_per_second_runs": {f"{name}_n_process_1": values for name, values in every.items()},
        "repeats": repeats,
        "full_over_bare": round(full["words_per_second"] / runs["bare_transformer_n_process_1"]["words_per_second"], 3),
        "component_share": component_shares(parts["component_seconds"]),
        "component_seconds": parts["component_seconds"],
        "load_seconds": full["load_seconds"],
        "peak_rss_mib": full["peak_rss_mib"],
        "installed_size_mib": directory_size_mib(model_directory(model)),
        "documents": {
            Path(path).parent.name + "/" + Path(path).name: benchmark_documents(
                model, bare, path, n_words=n_words, n_threads=n_threads, batch_size=batch_size, repeats=repeats
            )
            for path in documents
        },
        "runs": runs,
    }

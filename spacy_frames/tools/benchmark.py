"""Speed and memory of a pipeline on a corpus: words/s with a fixed thread count, peak RSS.

Each pipeline is measured in a fresh spawned process, so peak memory is that
pipeline's alone and models measured in the same run do not share caches.
"""

import multiprocessing
import platform
import resource
import time
from pathlib import Path
from typing import Dict, Iterator, List, Sequence, Tuple, Union

from spacy.tokens import DocBin


def load_texts(corpus: Union[str, Path], n_words: int, documents: bool = False) -> List[str]:
    """The texts of the first docs of a .spacy corpus, up to about n_words words (the doc
    that reaches n_words included).

    documents: whole documents, as users annotate them: consecutive docs of one FrameNet
    document (the converter's `user_data["framenet"]["doc"]`) joined into one text; a doc
    without that key (a media article, already whole) is a document of its own. A folder
    of plain-text files (GDTB's raw documents) gives one document per file, in name order."""
    texts, _ = take_words(iter_texts(corpus, documents), n_words)
    if not texts:
        raise ValueError(f"Benchmark corpus '{corpus}' holds no documents.")
    return texts


def take_words(texts: Iterator[Tuple[str, int]], n_words: int) -> Tuple[List[str], int]:
    """The next texts of (text, words) pairs up to about n_words words (the text that
    reaches n_words included; none for n_words <= 0), and their words."""
    taken, words = [], 0
    if n_words <= 0:
        return taken, words
    for text, n in texts:
        taken.append(text)
        words += n
        if words >= n_words:
            break
    return taken, words


def iter_texts(corpus: Union[str, Path], documents: bool = False) -> Iterator[Tuple[str, int]]:
    """(text, words) of each doc of a .spacy corpus (or each document, `load_texts`), in
    corpus order; words are tokens, or whitespace-separated words for a folder's files."""
    import spacy

    path = Path(corpus)
    if documents and path.is_dir():
        for file in sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")):
            text = file.read_text(encoding="utf8")
            yield text, len(text.split())
        return
    if not path.is_file():
        raise FileNotFoundError(f"Benchmark corpus '{path}' not found: run `spacy project run convert` first.")
    vocab = spacy.blank("en").vocab
    current, current_words, last_key = [], 0, None
    for i, doc in enumerate(DocBin(store_user_data=True).from_disk(path).get_docs(vocab)):
        key = ((doc.user_data or {}).get("framenet") or {}).get("doc", f"#{i}") if documents else f"#{i}"
        if key != last_key and current:
            yield " ".join(current), current_words
            current, current_words = [], 0
        current.append(doc.text)
        current_words += len(doc)
        last_key = key
    if current:
        yield " ".join(current), current_words


def measure_pipeline(
    model: str, texts: List[str], n_threads: int, batch_size: int, disable: Sequence[str] = ()
) -> Dict:
    """Run in the current process: load `model` (without the components `disable`), warm
    up, time nlp.pipe over texts."""
    import spacy
    import torch

    torch.set_num_threads(n_threads)
    nlp = spacy.load(model, disable=list(disable))
    warmup = texts[: max(1, len(texts) // 20)]
    list(nlp.pipe(warmup, batch_size=batch_size))
    start = time.perf_counter()
    n_words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=batch_size))
    seconds = time.perf_counter() - start
    return {
        "model": str(model),
        "pipeline": list(nlp.pipe_names),
        "disabled": list(disable),
        "docs": len(texts),
        "words": n_words,
        "seconds": round(seconds, 3),
        "words_per_second": round(n_words / seconds, 1),
        # ru_maxrss is KiB on Linux
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def benchmark(
    models: List[str],
    corpus: Union[str, Path],
    *,
    n_threads: int = 2,
    n_words: int = 20000,
    batch_size: int = 64,
    without: Sequence[Sequence[str]] = (),
) -> Dict:
    """Each model as it is, then (same run) once per entry of `without` with those
    components disabled: what a component costs in words/s."""
    texts = load_texts(corpus, n_words)
    results = []
    ctx = multiprocessing.get_context("spawn")
    for model in models:
        for disable in [(), *without]:
            with ctx.Pool(1) as pool:
                results.append(pool.apply(measure_pipeline, (str(model), texts, n_threads, batch_size, tuple(disable))))
    import torch

    return {
        "corpus": str(corpus),
        "n_threads": n_threads,
        "batch_size": batch_size,
        "machine": {"cpus": multiprocessing.cpu_count(), "processor": platform.machine(), "torch": torch.__version__},
        "results": results,
    }

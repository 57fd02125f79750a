"""`spacy-frames benchmark` and `benchmark-pipeline`: speed and memory of pipelines."""

from pathlib import Path
from typing import List

import typer

from ._util import Arg, Opt, _fail, app


@app.command("benchmark")
def benchmark_cli(
    # fmt: off
    models: List[str] = Arg(..., help="Pipelines (paths or package names) measured one after another"),
    corpus: Path = Opt(..., "--corpus", help=".spacy corpus whose texts are annotated"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    n_threads: int = Opt(2, "--n-threads", help="torch threads"),
    n_words: int = Opt(20000, "--n-words", help="About this many words are annotated"),
    batch_size: int = Opt(64, "--batch-size"),
    without: List[str] = Opt(
        [], "--without", help="Also measure each pipeline without these components (comma-separated; repeatable)"
    ),
    # fmt: on
):
    """Measure words/s and peak memory of pipelines, each in a fresh process."""
    import srsly

    from ..tools.benchmark import benchmark

    try:
        result = benchmark(
            models,
            corpus,
            n_threads=n_threads,
            n_words=n_words,
            batch_size=batch_size,
            without=[[c for c in spec.split(",") if c] for spec in without],
        )
    except (FileNotFoundError, ValueError, OSError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    for row in result["results"]:
        label = f" without {', '.join(row['disabled'])}" if row["disabled"] else ""
        typer.echo(f"{row['model']}{label}: {row['words_per_second']} words/s, peak {row['peak_rss_mib']} MiB")


@app.command("benchmark-pipeline")
def benchmark_pipeline_cli(
    # fmt: off
    model: str = Arg(..., help="The full pipeline: installed package name or path"),
    bare: str = Opt(..., "--bare", help="The bare transformer pipeline it is compared with"),
    corpus: Path = Opt(..., "--corpus", help=".spacy corpus whose texts are annotated"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    n_threads: int = Opt(2, "--n-threads", help="Torch threads in all (split between processes)"),
    n_words: int = Opt(20000, "--n-words", help="About this many words are annotated"),
    repeats: int = Opt(
        3,
        "--repeats",
        help="Fresh processes per one-process measure (full and bare alternating); the median is reported",
    ),
    documents: List[Path] = Opt(
        [],
        "--documents",
        help="Also measure on whole documents of this .spacy corpus or folder of text files (repeatable): FrameNet sentences joined by document, articles and files as they are",
    ),
    # fmt: on
):
    """The pipeline in one run: words/s full vs bare (1 and 2 processes), component shares, peak memory, load time, size; on sentences and on whole documents."""
    import srsly

    from ..tools.pipeline_benchmark import benchmark_pipeline

    try:
        result = benchmark_pipeline(
            model, bare, corpus, n_words=n_words, n_threads=n_threads, documents=documents, repeats=repeats
        )
    except (FileNotFoundError, ValueError, OSError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    typer.echo(srsly.json_dumps({k: v for k, v in result.items() if k != "runs"}, indent=2))

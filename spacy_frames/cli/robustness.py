"""`spacy-frames robustness MODEL`: hostile documents through a pipeline (tools/robustness.py)."""

from pathlib import Path
from typing import Optional

import typer

from ..tools.hostile import HUGE_WORDS
from ._util import Arg, Opt, _fail, app


@app.command("robustness")
def robustness_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline: installed package name or path"),
    output: Path = Opt(Path("metrics/robustness.json"), "--output", "-o", help="JSON file to write"),
    n_docs: int = Opt(10000, "--n-docs", help="Hostile documents generated and annotated"),
    seed: int = Opt(0, "--seed", help="Seed of the document generator"),
    huge_words: int = Opt(HUGE_WORDS, "--huge-words", help="Words of the huge documents (one per 1,000 documents)"),
    batch_size: int = Opt(32, "--batch-size"),
    n_check: int = Opt(300, "--n-check", help="Documents annotated with 1 and with --n-process processes and compared"),
    n_process: int = Opt(2, "--n-process", help="Processes of the comparison run"),
    n_threads: Optional[int] = Opt(None, "--n-threads", help="torch threads (default: torch's)"),
    progress: bool = Opt(True, "--progress/--no-progress", help="Progress bar on stderr"),
    # fmt: on
):
    """Annotate N_DOCS hostile documents: crashes, words/s, peak memory, n_process identical to 1. Exit 1 on a crash or a difference."""
    import srsly

    from ..tools.robustness import robustness

    try:
        result = robustness(
            model,
            n_docs=n_docs,
            seed=seed,
            batch_size=batch_size,
            n_check=n_check,
            n_process=n_process,
            huge_words=huge_words,
            n_threads=n_threads,
            progress=progress,
        )
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    typer.echo(
        f"{result['documents']} documents, {result['words']} words: {result['crashes']} crashes, "
        f"{result['words_per_second']} words/s, peak RSS {result['peak_rss_mib']} MiB, "
        f"n_process={n_process} identical to 1: {result['n_process_identical']}"
    )
    if result["crashes"] or not result["n_process_identical"]:
        _fail(RuntimeError(f"not robust: see {output}"))
    typer.secho(f"✔ written to {output}", fg=typer.colors.GREEN, err=True)

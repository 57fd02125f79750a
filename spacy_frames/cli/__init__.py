"""`spacy-frames` / `python -m spacy_frames`: thin typer wrappers over library functions."""
from pathlib import Path
from typing import List, Optional

import typer

app = typer.Typer(name="spacy-frames", no_args_is_help=True, add_completion=False)
Arg = typer.Argument
Opt = typer.Option


def _fail(err: Exception) -> None:
    typer.secho(f"✘ {err}", fg=typer.colors.RED, err=True)
    raise typer.Exit(1)


@app.command("fetch-assets")
def fetch_assets_cli(
    # fmt: off
    project_yml: Path = Arg(Path("project.yml"), help="project.yml whose `assets` to fetch"),
    mirror: str = Opt("", "--mirror", "-m", help="Mirror directory ('' = download from upstream)"),
    only: List[str] = Opt([], "--only", help="Fetch only assets whose dest contains this (repeatable)"),
    extra: bool = Opt(False, "--extra", help="Also fetch optional assets (e.g. all-mpnet-base-v2)"),
    # fmt: on
):
    """Fetch project assets from the mirror (or upstream) and verify their checksums."""
    from ..assets import AssetError, fetch_assets

    try:
        rows = fetch_assets(project_yml, mirror or None, only=only, extra=extra)
    except AssetError as err:
        _fail(err)
    for row in rows:
        typer.echo(f"✔ {row['asset']}: {row['status']}")


@app.command("benchmark")
def benchmark_cli(
    # fmt: off
    models: List[str] = Arg(..., help="Pipelines (paths or package names) measured one after another"),
    corpus: Path = Opt(..., "--corpus", help=".spacy corpus whose texts are annotated"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    n_threads: int = Opt(2, "--n-threads", help="torch threads"),
    n_words: int = Opt(20000, "--n-words", help="About this many words are annotated"),
    batch_size: int = Opt(64, "--batch-size"),
    # fmt: on
):
    """Measure words/s and peak memory of pipelines, each in a fresh process."""
    import srsly

    from ..benchmark import benchmark

    try:
        result = benchmark(models, corpus, n_threads=n_threads, n_words=n_words, batch_size=batch_size)
    except (FileNotFoundError, ValueError, OSError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    for row in result["results"]:
        typer.echo(f"{row['model']}: {row['words_per_second']} words/s, peak {row['peak_rss_mib']} MiB")


@app.command("annotate")
def annotate_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline: installed package name or path"),
    text: Optional[str] = Arg(None, help="Text to annotate (default: read stdin)"),
    # fmt: on
):
    """Annotate a text and print the frames it evokes."""
    import sys

    from ..annotate import annotate, format_doc

    try:
        doc = annotate(model, text if text is not None else sys.stdin.read())
    except (OSError, ValueError) as err:
        _fail(err)
    typer.echo(format_doc(doc))

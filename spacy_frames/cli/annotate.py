"""`spacy-frames annotate`: a corpus (or one text) through a pipeline."""

from pathlib import Path
from typing import List, Optional

import typer

from ._util import Arg, Opt, _fail, app


@app.command("annotate")
def annotate_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline: installed package name or path"),
    input_path: Optional[str] = Arg(
        None,
        metavar="INPUT",
        help="With OUTPUT: the corpus (.txt, a directory of .txt, .jsonl, .csv, .tsv, - for stdin); without: one text to annotate and print (default: read stdin)",
    ),
    output: Optional[Path] = Arg(None, help="Out: .jsonl (a record per document), .spacy (DocBin) or .conll"),
    output_format: Optional[str] = Opt(None, "--format", help="jsonl, spacy or conll (default: OUTPUT's suffix)"),
    text_key: str = Opt("text", "--text-key", help=".jsonl: the text field"),
    id_key: str = Opt("id", "--id-key", help=".jsonl: the id field (else the line number)"),
    column: str = Opt("text", "--column", help=".csv/.tsv: the text column"),
    id_column: Optional[str] = Opt(None, "--id-column", help=".csv/.tsv: the id column (else the row number)"),
    exclude: List[str] = Opt([], "--exclude", help="Leave this component out, for speed (repeatable)"),
    batch_size: int = Opt(64, "--batch-size"),
    n_process: int = Opt(1, "--n-process", help="Worker processes of nlp.pipe"),
    resume: bool = Opt(False, "--resume", help="Continue after the last complete record of an existing OUTPUT"),
    skip_bad: bool = Opt(
        False, "--skip-bad", help="Skip unreadable documents (logged in OUTPUT.skipped.jsonl) instead of stopping"
    ),
    dask: Optional[str] = Opt(
        None, "--dask", help="Run on Dask: local:N (a LocalCluster of N workers) or a scheduler address tcp://HOST:PORT"
    ),
    progress: bool = Opt(True, "--progress/--no-progress", help="Progress bar on stderr"),
    # fmt: on
):
    """Annotate a corpus into OUTPUT (records in input order), or one text and print its parse."""
    import sys

    if output is None:
        from ..tools.annotate import annotate, format_doc

        if input_path is not None and Path(input_path).exists():
            _fail(
                ValueError(
                    f"{input_path} is a file or directory: give an OUTPUT (.jsonl or .spacy) to annotate it as a corpus"
                )
            )
        try:
            doc = annotate(model, input_path if input_path is not None else sys.stdin.read(), exclude=exclude)
            typer.echo(_one_parse(doc, output_format, format_doc))
        except (OSError, ValueError) as err:
            _fail(err)
        return
    import spacy

    from ..tools.annotate_corpus import annotate_corpus, skipped_path

    try:
        nlp = spacy.load(model, exclude=exclude) if dask is None else None
        summary = annotate_corpus(
            nlp,
            input_path or "-",
            output,
            batch_size=batch_size,
            n_process=n_process,
            resume=resume,
            skip_bad=skip_bad,
            progress=progress,
            dask=dask,
            model=model,
            exclude=exclude,
            reader_options={"text_key": text_key, "id_key": id_key, "column": column, "id_column": id_column},
            output_format=output_format,
        )
    except KeyboardInterrupt:
        typer.secho(f"Interrupted: every complete record is in {output}; continue with --resume", err=True)
        raise typer.Exit(130) from None
    except (OSError, ValueError, ImportError) as err:
        _fail(err)
    resumed = f" after the {summary.resumed_after} already there" if summary.resumed_after else ""
    typer.secho(f"✔ {summary.documents} records written to {output}{resumed}", fg=typer.colors.GREEN, err=True)
    if summary.skipped:
        typer.secho(f"⚠ {len(summary.skipped)} unreadable documents skipped: {skipped_path(output)}", err=True)


def _one_parse(doc, output_format, format_doc) -> str:
    """One text's parse as `--format` asks (the readable listing when it names none)."""
    if output_format in (None, "text"):
        return format_doc(doc)
    if output_format == "conll":
        from ..tools.conll import doc_to_conll

        return doc_to_conll(doc).rstrip("\n")
    if output_format == "jsonl":
        from ..tools.records import record_line

        return record_line(doc, "1").rstrip("\n")
    raise ValueError(f"--format {output_format} needs an OUTPUT file (one text prints as text, jsonl or conll)")

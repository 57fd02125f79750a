"""`spacy-frames convert`: FrameNet releases, open-sesame CoNLL and annotate records into
the `.spacy` DocBins `spacy train` reads (spacy_frames/corpora/readers.py)."""

from pathlib import Path
from typing import Any, Dict, List, Optional

import typer

from ._util import Arg, Opt, _fail, app

convert_app = typer.Typer(
    name="convert",
    help="Convert FrameNet XML, open-sesame CoNLL or annotate records (JSONL) into .spacy DocBins",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(convert_app, name="convert")

KEEP_TARGET_FES_HELP = (
    "Keep the FEs FrameNet puts on (or over) their own target in the gold (the default); --drop-target-fes skips them"
)


def print_summary(summary: Dict[str, Any]) -> None:
    """The per-split counts of a FrameNet conversion as a table, then its other numbers."""
    from ..corpora.framenet_convert import SPLIT_COUNT_KEYS

    columns = ("docs",) + SPLIT_COUNT_KEYS[:-1]  # the last count is a detail, not a column
    splits = [k for k, v in summary.items() if isinstance(v, dict) and "sentences" in v]
    header = ["split"] + [c.replace("_targets", "").replace("sentences_without", "no-target sents") for c in columns]
    rows = [
        [split] + ["-" if summary[split].get(c) is None else f"{summary[split][c]:,}" for c in columns]
        for split in splits
    ]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for row in [header] + rows:
        typer.echo("  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))
    for split in splits:
        extra = {k: v for k, v in summary[split].items() if k not in columns + ("frame_elements",) and v}
        if extra:
            typer.echo(f"{split}: {extra}")
    typer.echo(f"frames: {summary['frames']:,}  lexical units: {summary['lexical_units']:,}")
    typer.echo("relations: " + ", ".join(f"{k} {v:,}" for k, v in summary["relations"].items()))
    print_fe_summary(summary, splits)


def print_fe_summary(summary: Dict[str, Any], splits: List[str]) -> None:
    """The gold frame elements per split (written, skipped by reason, null instantiations)."""
    fe_splits = [split for split in splits if "frame_elements" in summary[split]]
    if fe_splits:
        typer.echo("frame elements:")
    for split in fe_splits:
        fe = summary[split]["frame_elements"]
        skipped = ", ".join(f"{k} {v:,}" for k, v in fe["skipped"].items() if v)
        null = ", ".join(f"{k} {v:,}" for k, v in fe["null_instantiations"].items() if v)
        typer.echo(
            f"  {split}: {fe['spans']:,} spans of {fe['annotated']:,} overt FEs ({fe['fe_types']:,} FE names); "
            f"skipped: {skipped or 'none'}; discontinuous {fe['discontinuous']:,}, overlapping {fe['overlapping']:,}, "
            f"expanded {fe['expanded']:,}; null instantiations: {null or 'none'}"
        )
    if "frame_elements" in summary:
        typer.echo(f"FE definitions: {summary['frame_elements']}")


def merge_summary(path: Optional[Path], key: str, summary: Dict[str, Any]) -> None:
    """Write ``summary`` under ``key`` of the JSON file at ``path``, keeping its other keys."""
    import srsly

    if path is None:
        return
    data = srsly.read_json(path) if path.exists() else {}
    data[key] = summary
    path.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(path, data)
    typer.echo(f"Summary written to {path} ['{key}']")


@convert_app.command("framenet")
def framenet_cli(
    # fmt: off
    source: Path = Arg(
        ..., help="A FrameNet release in the XML layout (frameIndex.xml, frame/, lu/, fulltext/): zip or directory"
    ),
    output_dir: Path = Arg(
        ...,
        help="Output directory: {train,dev,test}.spacy (with --splits) or fulltext.spacy, exemplars.spacy, frames.json",
    ),
    splits: Optional[Path] = Opt(
        None, "--splits", help="Split JSON (dev_files / test_files; train = the other full-text documents)"
    ),
    exemplar_limit: Optional[int] = Opt(None, "--exemplar-limit", help="Convert at most this many exemplar sentences"),
    summary: Optional[Path] = Opt(None, "--summary", help="JSON file to merge the summary into"),
    summary_key: str = Opt("framenet", "--summary-key", help="The summary's key in --summary"),
    keep_target_fes: bool = Opt(True, "--keep-target-fes/--drop-target-fes", help=KEEP_TARGET_FES_HELP),
    # fmt: on
):
    """A FrameNet release (any version, or a domain FrameNet): full text, exemplars, inventory."""
    from ..corpora.framenet_convert import convert_framenet15

    try:
        result = convert_framenet15(
            source, splits, output_dir, exemplar_limit=exemplar_limit, keep_target_fes=keep_target_fes
        )
    except (OSError, ValueError) as err:
        _fail(err)
    print_summary(result)
    merge_summary(summary, summary_key, result)


@convert_app.command("fn17")
def fn17_cli(
    # fmt: off
    frames_xml: Path = Arg(..., help="FrameNet 1.7 frames_xml directory"),
    lexicon: Path = Arg(..., help="FN17_enlu_id.json"),
    conll: Path = Arg(..., help="open-sesame FN1.7 dev CoNLL"),
    output_dir: Path = Arg(..., help="Output directory for dev.spacy and frames.json"),
    fn15_frames: Optional[Path] = Opt(
        None, "--fn15-frames", help="FN1.5 frames.json, to count targets with frames / LUs new in 1.7"
    ),
    summary: Optional[Path] = Opt(None, "--summary", help="JSON file to merge the summary into"),
    summary_key: str = Opt("framenet17", "--summary-key", help="The summary's key in --summary"),
    keep_target_fes: bool = Opt(True, "--keep-target-fes/--drop-target-fes", help=KEEP_TARGET_FES_HELP),
    # fmt: on
):
    """FrameNet 1.7 as open-sesame distributes it: the dev CoNLL with the 1.7 inventory."""
    from ..corpora.framenet_convert import convert_framenet17

    try:
        result = convert_framenet17(
            frames_xml, lexicon, conll, output_dir, fn15_inventory=fn15_frames, keep_target_fes=keep_target_fes
        )
    except (OSError, ValueError) as err:
        _fail(err)
    print_summary(result)
    merge_summary(summary, summary_key, result)


@convert_app.command("conll")
def conll_cli(
    # fmt: off
    input_path: Path = Arg(
        ..., metavar="INPUT", help="open-sesame CoNLL (5 or 15 columns; `annotate --format conll` writes it)"
    ),
    output: Path = Arg(..., help="The DocBin to write (.spacy)"),
    frames: Optional[Path] = Opt(None, "--frames", help="frames.json: skip targets of other frames"),
    keep_target_fes: bool = Opt(True, "--keep-target-fes/--drop-target-fes", help=KEEP_TARGET_FES_HELP),
    # fmt: on
):
    """open-sesame CoNLL: one doc per sentence, its targets, frames and FEs as gold."""
    from ..corpora.convert import convert_conll

    try:
        result = convert_conll(input_path, output, frames=frames, keep_target_fes=keep_target_fes)
    except (OSError, ValueError) as err:
        _fail(err)
    typer.secho(
        f"✔ {result['sentences']:,} sentences, {result['targets'] - result['skipped_targets']:,} targets, "
        f"{result['frame_elements']['spans']:,} frame elements written to {output}",
        fg=typer.colors.GREEN,
    )


@convert_app.command("jsonl")
def jsonl_cli(
    # fmt: off
    input_path: Path = Arg(..., metavar="INPUT", help="`spacy-frames annotate` records (.jsonl), corrected or not"),
    output: Path = Arg(..., help="The DocBin to write (.spacy)"),
    lang: str = Opt("en", "--lang", help="Language of the tokenizer (spacy.blank)"),
    # fmt: on
):
    """annotate records: each frame with a frame label is a gold target, its FEs gold FEs."""
    from ..corpora.convert import convert_records

    try:
        result = convert_records(input_path, output, lang=lang)
    except (OSError, ValueError) as err:
        _fail(err)
    typer.secho(
        f"✔ {result['docs']:,} docs, {result['targets']:,} targets, {result['frame_elements']:,} frame elements "
        f"written to {output}",
        fg=typer.colors.GREEN,
    )

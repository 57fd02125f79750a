"""Convert FrameNet 1.5 / 1.7 into spaCy DocBin corpora plus a frames.json inventory.

    python scripts/convert_framenet.py fn15 assets/framenet/fndata-1.5.zip \
        assets/framenet/splits/fulltext_doc_splits_das2014_opensesame.json corpus/framenet15 \
        --summary metrics/corpora.json
    python scripts/convert_framenet.py fn17 assets/framenet/fn17/frames_xml \
        assets/framenet/fn17/lexicon_json/FN17_enlu_id.json \
        assets/framenet/fn17/open_sesame/fn1.7.dev.syntaxnet.conll corpus/framenet17 \
        --fn15-frames corpus/framenet15/frames.json --summary metrics/corpora.json

The work is done by spacy_frames.corpora.framenet_convert; this only parses arguments, prints
the summary and merges it into the summary JSON (key "framenet15" / "framenet17").
The gold keeps every overt FE FrameNet annotates, those on (or over) their own target
included (*president* is the Leader of Leadership); ``--drop-target-fes`` skips them.
"""

from pathlib import Path
from typing import Any, Dict, List, Optional

import srsly
import typer

from spacy_frames.corpora.framenet_convert import SPLIT_COUNT_KEYS, convert_framenet15, convert_framenet17

Arg = typer.Argument
Opt = typer.Option
app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)

# the per-split counts, as the converter names them (its last one is a detail, not a column)
TABLE_COLUMNS = ("docs",) + SPLIT_COUNT_KEYS[:-1]


def print_summary(summary: Dict[str, Any]) -> None:
    splits = [k for k, v in summary.items() if isinstance(v, dict) and "sentences" in v]
    header = ["split"] + [
        c.replace("_targets", "").replace("sentences_without", "no-target sents") for c in TABLE_COLUMNS
    ]
    rows = [
        [split] + ["-" if summary[split].get(c) is None else f"{summary[split][c]:,}" for c in TABLE_COLUMNS]
        for split in splits
    ]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for row in [header] + rows:
        typer.echo("  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))
    for split in splits:
        extra = {k: v for k, v in summary[split].items() if k not in TABLE_COLUMNS + ("frame_elements",) and v}
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
    if path is None:
        return
    data = srsly.read_json(path) if path.exists() else {}
    data[key] = summary
    path.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(path, data)
    typer.echo(f"Summary written to {path} ['{key}']")


# fmt: off
@app.command("fn15")
def fn15_cli(
    zip_path: Path = Arg(..., help="FrameNet 1.5 release zip (fndata-1.5.zip)"),
    splits: Path = Arg(..., help="Split JSON with dev_files / test_files"),
    output_dir: Path = Arg(..., help="Output directory for {train,dev,test,exemplars}.spacy and frames.json"),
    exemplar_limit: Optional[int] = Opt(None, "--exemplar-limit", help="Convert at most this many exemplar sentences"),
    summary: Optional[Path] = Opt(None, "--summary", help="JSON file to merge the summary into (key 'framenet15')"),
    keep_target_fes: bool = Opt(True, "--keep-target-fes/--drop-target-fes", help="Keep the FEs FrameNet puts on (or over) their own target in the gold (the default); --drop-target-fes skips them"),
):
    # fmt: on
    """Convert FrameNet 1.5: full text (Das et al. split), exemplars and the inventory."""
    result = convert_framenet15(
        zip_path, splits, output_dir, exemplar_limit=exemplar_limit, keep_target_fes=keep_target_fes
    )
    print_summary(result)
    merge_summary(summary, "framenet15", result)


# fmt: off
@app.command("fn17")
def fn17_cli(
    frames_xml: Path = Arg(..., help="FrameNet 1.7 frames_xml directory"),
    lexicon: Path = Arg(..., help="FN17_enlu_id.json"),
    conll: Path = Arg(..., help="open-sesame FN1.7 dev CoNLL"),
    output_dir: Path = Arg(..., help="Output directory for dev.spacy and frames.json"),
    fn15_frames: Optional[Path] = Opt(None, "--fn15-frames", help="FN1.5 frames.json, to count targets with frames / LUs new in 1.7"),
    summary: Optional[Path] = Opt(None, "--summary", help="JSON file to merge the summary into (key 'framenet17')"),
    keep_target_fes: bool = Opt(True, "--keep-target-fes/--drop-target-fes", help="Keep the FEs FrameNet puts on (or over) their own target in the gold (the default); --drop-target-fes skips them"),
):
    # fmt: on
    """Convert FrameNet 1.7: the open-sesame dev set and the 1.7 inventory."""
    result = convert_framenet17(
        frames_xml, lexicon, conll, output_dir, fn15_inventory=fn15_frames, keep_target_fes=keep_target_fes
    )
    print_summary(result)
    merge_summary(summary, "framenet17", result)


if __name__ == "__main__":
    app()

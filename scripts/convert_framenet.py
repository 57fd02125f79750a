"""Convert FrameNet 1.5 / 1.7 into spaCy DocBin corpora plus a frames.json inventory.

A thin wrapper kept for old command lines; the command is `spacy-frames convert`
(spacy_frames/cli/convert.py, docs/tools.md):

    python scripts/convert_framenet.py fn15 ZIP SPLITS OUTPUT_DIR [--summary FILE]
        = python -m spacy_frames convert framenet ZIP OUTPUT_DIR --splits SPLITS --summary-key framenet15
    python scripts/convert_framenet.py fn17 FRAMES_XML LEXICON CONLL OUTPUT_DIR [--fn15-frames F] [--summary FILE]
        = python -m spacy_frames convert fn17 ...
"""

from pathlib import Path
from typing import Optional

import typer

from spacy_frames.cli.convert import KEEP_TARGET_FES_HELP, fn17_cli, framenet_cli

Arg = typer.Argument
Opt = typer.Option
app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)
app.command("fn17")(fn17_cli)


@app.command("fn15")
def fn15_cli(
    # fmt: off
    zip_path: Path = Arg(..., help="FrameNet 1.5 release zip (fndata-1.5.zip) or directory"),
    splits: Path = Arg(..., help="Split JSON with dev_files / test_files"),
    output_dir: Path = Arg(..., help="Output directory for {train,dev,test,exemplars}.spacy and frames.json"),
    exemplar_limit: Optional[int] = Opt(None, "--exemplar-limit", help="Convert at most this many exemplar sentences"),
    summary: Optional[Path] = Opt(None, "--summary", help="JSON file to merge the summary into (key 'framenet15')"),
    keep_target_fes: bool = Opt(True, "--keep-target-fes/--drop-target-fes", help=KEEP_TARGET_FES_HELP),
    # fmt: on
):
    """Convert FrameNet 1.5: full text (Das et al. split), exemplars and the inventory."""
    framenet_cli(zip_path, output_dir, splits, exemplar_limit, summary, "framenet15", keep_target_fes)


if __name__ == "__main__":
    app()

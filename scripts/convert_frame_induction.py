"""Write the frame-induction folds (verb exemplars of FrameNet 1.5) and their Table-2 counts.

    python scripts/convert_frame_induction.py assets/framenet/fndata-1.5.zip corpus/frame_induction \
        --summary metrics/frame_inducer_data.json

The work is done by spacy_frames.corpora.frame_induction; the folds are seeded, so a
re-run writes the same instances and the same lemma -> fold map (folds.json).
"""

from pathlib import Path
from typing import Optional

import srsly
import typer

from spacy_frames.corpora.frame_induction import N_FOLDS, convert_frame_induction

COLUMNS = ("verbs", "lexical_units", "frames", "instances", "polysemous_verbs", "polysemous_share")


# fmt: off
def main(
    zip_path: Path = typer.Argument(..., help="FrameNet 1.5 release zip"),
    output_dir: Path = typer.Argument(..., help="Output directory for fold{0,1,2}.spacy and folds.json"),
    max_per_lu: int = typer.Option(100, "--max-per-lu", help="Instances kept per verb LU (seeded sample)"),
    seed: int = typer.Option(0, "--seed"),
    limit: Optional[int] = typer.Option(None, "--limit", help="Read at most this many exemplar sentences (tests)"),
    summary: Optional[Path] = typer.Option(None, "--summary", help="JSON file for the counts"),
):
    # fmt: on
    """Extract verb instances, split them into folds by lemma and write the DocBins."""
    result = convert_frame_induction(zip_path, output_dir, max_per_lu=max_per_lu, seed=seed, limit=limit)
    rows = [f"fold{k}" for k in range(N_FOLDS)] + ["all"]
    typer.echo("set     " + "  ".join(c.rjust(16) for c in COLUMNS))
    for row in rows:
        typer.echo(f"{row:<8}" + "  ".join(str(result[row][c]).rjust(16) for c in COLUMNS))
    if summary is not None:
        summary.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(summary, result)
        typer.echo(f"Summary written to {summary}")


if __name__ == "__main__":
    typer.run(main)

"""What capping USE's reading buys en_frames_trf: the pipeline assembled by the product's
`assemble-frames-trf` (its vars media_model and pipeline overridden), with one study run's
media_framer in place of the main job's, measured on whole documents beside the bare transformer (the product's
benchmark-pipeline measure, one fresh process per pipeline).

    python scripts/use_words_speed.py headboth-multi-en-a0-w512@test-en metrics/media_framer/use_words_speed.json
"""

import subprocess
import sys
from pathlib import Path
from typing import List

import srsly
import typer

from spacy_frames.tools.pipeline_benchmark import benchmark_documents

STUDY = Path(__file__).resolve().parents[1]
ROOT = STUDY.parents[1]
DOCUMENTS = ["corpus/framenet15/test.spacy", "corpus/media_frames/en_test.spacy", "assets/discourse/gdtb/pdtb/raw"]


def assemble(media_model: str, output: Path) -> None:
    """The product's assemble-frames-trf command, with this media_framer and output."""
    command = ["spacy", "project", "run", "assemble-frames-trf", str(ROOT), "--force"]
    command += ["--vars.media_model", media_model, "--vars.pipeline", str(output)]
    subprocess.run([sys.executable, "-m", *command], check=True, stdout=subprocess.DEVNULL)


def main(
    run: str = typer.Argument(..., help="A run of this study (metrics/media_framer/runs/<run>.json)"),
    output: Path = typer.Argument(...),
    documents: List[str] = typer.Option(DOCUMENTS, "--documents"),
):
    spec = srsly.read_json(STUDY / "metrics" / "media_framer" / "runs" / f"{run}.json")
    pipeline = STUDY / "training" / "frames_trf" / run
    assemble(spec["model"], pipeline)
    result = {"run": run, "media_model": spec["model"], "documents": {}}
    for corpus in documents:
        measured = benchmark_documents(
            str(pipeline), str(ROOT / "training/transformer"), ROOT / corpus, n_words=20000, n_threads=2, batch_size=64
        )
        result["documents"][corpus] = measured
        typer.echo(f"{corpus}: {measured['words_per_second']} ratio {measured['full_over_bare']}")
    srsly.write_json(output, result)


if __name__ == "__main__":
    typer.run(main)

"""What capping USE's reading buys en_frames_trf: the pipeline assembled as the product's
`assemble-frames-trf` builds it, with one study run's media_framer in place of the main
job's, measured on whole documents beside the bare transformer (the product's
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
    """The product's assemble-frames-trf steps with this media_framer."""
    steps = [
        ["spacy", "assemble", "configs/frames_trf.cfg", str(output), "--paths.frames", "training/frames_final"]
        + ["--paths.elements", "training/frames_final", "--paths.inducer", "training/inducer_clustered"]
        + ["--paths.discourse", "training/discourse_final/model-best", "--paths.media", media_model],
        ["spacy_frames", "releases", str(output), "--current", "framenet15"]
        + ["--add", "framenet17=corpus/framenet17/frames.json", "--use", "framenet17"],
        ["spacy_frames", "half-storage", str(output), "--component", "frame_identifier"],
    ]
    for step in steps:
        subprocess.run([sys.executable, "-m", *step], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def main(
    run: str = typer.Argument(..., help="A run of this study (metrics/media_framer/runs/<run>.json)"),
    output: Path = typer.Argument(...),
    documents: List[str] = typer.Option(DOCUMENTS, "--documents"),
):
    spec = srsly.read_json(STUDY / "metrics" / "media_framer" / "runs" / f"{run}.json")
    pipeline = STUDY / "training" / "frames_trf" / run
    assemble(str(ROOT / spec["model"]), pipeline)
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

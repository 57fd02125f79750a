"""The COFFTEA ablation table: lookup baseline, L_B only, L_C only, L_B then L_C.

    python scripts/frame_ablation.py OUTPUT NAME=MODEL [NAME=MODEL ...] [--split test]

Every model is scored with gold targets on the same FN1.5 split through the
registered scorer; the lookup-table baseline (most frequent frame of the gold
LU in train + exemplars) is scored on the same examples.
"""

from pathlib import Path
from typing import List

import spacy
import srsly
import typer

from spacy_frames.extensions import install_extensions
from spacy_frames.inventory.frames import FrameInventory
from spacy_frames.scoring.frames_eval import evaluate_frames, frame_examples, lu_frame_counts, score_lookup_baseline

COLUMNS = ("frame_acc", "frame_r1", "frame_r3", "frame_r5", "frame_overall", "frame_acc_ambiguous")


def main(
    output: Path,
    runs: List[str],
    split: str = typer.Option("test", "--split"),
    fn15_dir: Path = typer.Option(Path("../../corpus/framenet15"), "--fn15"),
):
    install_extensions()
    rows = []
    examples = None
    for run in runs:
        name, _, model = run.partition("=")
        nlp = spacy.load(model)
        examples = frame_examples(nlp, fn15_dir / f"{split}.spacy", gold_targets=True)
        scores = evaluate_frames(nlp, examples)
        row = {"run": name, "model": model}
        row.update({k: scores[k] for k in COLUMNS})
        rows.append(row)
        typer.echo(row)
    if examples is not None:
        counts = lu_frame_counts([fn15_dir / "train.spacy", fn15_dir / "exemplars.spacy"])
        inventory = FrameInventory().from_disk(fn15_dir / "frames.json")
        baseline = score_lookup_baseline(examples, counts, inventory)
        row = {"run": "lookup baseline", "model": None}
        row.update({k: baseline.get(k) for k in COLUMNS})
        rows.insert(0, row)
        typer.echo(row)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, {"split": f"framenet15/{split} (gold targets)", "runs": rows})


if __name__ == "__main__":
    typer.run(main)

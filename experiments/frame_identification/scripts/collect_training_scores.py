"""Collect the dev scores `spacy train` stored in trained pipelines into one JSON table.

    python scripts/collect_training_scores.py OUTPUT NAME=TRAINING_DIR [NAME=TRAINING_DIR ...]

Each TRAINING_DIR is a `spacy train --output` directory; its model-last/meta.json
holds the last dev evaluation, its config the settings that produced it.
"""

from pathlib import Path
from typing import List

import srsly
import typer
from spacy.language import Language
from spacy.util import load_config

import spacy_frames.pipeline.frame_identifier  # noqa: F401  (registers the factory)

SETTINGS = (
    "objective",
    "n_negatives",
    "train_frame_encoder",
    "share_frame_encoder",
    "frame_memory",
    "frame_memory_lr_scale",
)
SCORES = ("frame_overall", "frame_acc", "frame_r1", "frame_r3", "frame_r5", "frame_acc_ambiguous")


def main(output: Path, runs: List[str]):
    rows = []
    for run in runs:
        name, _, directory = run.partition("=")
        model = Path(directory) / "model-last"
        meta = srsly.read_json(model / "meta.json")
        config = load_config(model / "config.cfg", interpolate=False)
        component = config["components"]["frame_identifier"]
        row = {"run": name, "steps": config["training"]["max_steps"]}
        # a setting added after a run was trained takes the factory default
        defaults = Language.get_factory_meta(component.get("factory", "frame_identifier")).default_config
        row.update({k: component.get(k, defaults.get(k)) for k in SETTINGS})
        row["temperature"] = component["loss"]["temperature"]
        row.update(
            {k: round(100 * meta["performance"][k], 2) for k in SCORES if meta["performance"].get(k) is not None}
        )
        timing = Path(directory) / "timing.json"  # left by scripts/timed.py
        if timing.exists():
            row["minutes"] = srsly.read_json(timing)["minutes"]
        rows.append(row)
        typer.echo(row)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, {"split": "framenet15/dev (gold targets)", "runs": rows})


if __name__ == "__main__":
    typer.run(main)

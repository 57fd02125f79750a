"""Collect the timing.json files that scripts/timed.py left in training directories.

    python -m frames_lab.collect_training_time OUTPUT NAME=TRAINING_DIR [...] [--budget-minutes 40]

Writes each run's wall-clock minutes, steps and seconds per step, the total, and
whether the total is within a budget (the default CPU profile's).
"""

from pathlib import Path
from typing import List, Optional

import srsly
import typer
from spacy.util import load_config


def main(output: Path, runs: List[str], budget_minutes: Optional[float] = typer.Option(None, "--budget-minutes")):
    rows = []
    for run in runs:
        name, _, directory = run.partition("=")
        timing_path = Path(directory) / "timing.json"
        if not timing_path.exists():
            typer.echo(f"✘ {timing_path} does not exist: train {name} through its project command first", err=True)
            raise typer.Exit(1)
        timing = srsly.read_json(timing_path)
        config = load_config(Path(directory) / "model-last" / "config.cfg", interpolate=False)
        steps = config["training"]["max_steps"]
        rows.append(
            {
                "run": name,
                "minutes": timing["minutes"],
                "steps": steps,
                "seconds_per_step": round(timing["seconds"] / steps, 2) if steps else None,
                "peak_rss_mib": timing["peak_rss_mib"],
                "cpu_count": timing["cpu_count"],
                "finished": timing["finished"],
            }
        )
    total = round(sum(row["minutes"] for row in rows), 2)
    result = {"runs": rows, "total_minutes": total}
    if budget_minutes is not None:
        result["budget_minutes"] = budget_minutes
        result["within_budget"] = total <= budget_minutes
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    runs_text = ", ".join(f"{row['run']} {row['minutes']} min" for row in rows)
    typer.echo(f"{runs_text}; total {total} min")


if __name__ == "__main__":
    typer.run(main)

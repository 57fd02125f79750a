"""What the studies' experiment scripts share (experiments/<study>/scripts/*_experiment.py):
the run cache, the commands that train a setting, the grid over settings and seeds, and
the report.

A run is one setting (with a seed, fold or tag in its name) trained and scored once; its
results go to one JSON file in the study's runs folder (metrics/<component>/runs/
<name>.json), and a run whose file exists is not run again (`--force` re-runs it), so a
table can be built over several invocations. `report` collects every run file into one
summary. The file format is each script's own and never changes with this module.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence

import srsly
import typer

# the run files' writer and cache check are the library's (spacy_frames.recipes uses them too)
from spacy_frames.recipes.runs import is_cached, write_json  # noqa: F401
from spacy_frames.util import use_gpu  # noqa: F401


# -- run files ------------------------------------------------------------------------
def load_runs(runs: Path, hint: Optional[str] = None) -> Dict[str, Dict[str, Any]]:
    """Every run file of a folder by name (file stem), in name order; with `hint`, no run
    at all is an error that says it."""
    found = {path.stem: srsly.read_json(path) for path in sorted(runs.glob("*.json"))}
    if not found and hint is not None:
        raise typer.BadParameter(f"no runs in {runs}: {hint}")
    return found


def report(
    runs: Path,
    output: Path,
    summarize: Callable[[Dict[str, Dict[str, Any]]], Dict[str, Any]],
    data: Optional[Path] = None,
    hint: str = "run some first",
) -> Dict[str, Any]:
    """Summarize every run of `runs` (with the data counts of `data` when that file
    exists) into `output` and print the summary's table."""
    summary = summarize(load_runs(runs, hint))
    if data is not None and data.exists():
        summary["data"] = srsly.read_json(data)
    write_json(output, summary)
    for line in summary.get("table", []):
        typer.echo(line)
    return summary


def run_grid(run: Callable[..., Any], settings: Sequence[str], seeds: Sequence[int], **options: Any) -> None:
    """Every (setting, seed) in turn, seed-major (one seed of every setting first); runs
    already cached are skipped by `run`, so a grid resumes where it stopped."""
    for seed in seeds:
        for setting in settings:
            run(setting.strip(), seed=seed, **options)


# -- training commands ----------------------------------------------------------------
def override_args(overrides: Iterable[str]) -> List[str]:
    """`spacy train` arguments of "section.key=value" overrides."""
    return [part for item in overrides for part in ("--" + item.split("=", 1)[0], item.split("=", 1)[1])]


def setting_args(setting: Mapping[str, Any]) -> List[str]:
    """`spacy train` arguments of a setting's overrides ({"section.key": value}, values as JSON)."""
    return [part for key, value in setting.items() for part in ("--" + key, json.dumps(value))]


TRAIN_LOG = "train_log.jsonl"


def timed_train(root: Path, config: Path, output: Path, args: Sequence[str], gpu_id: int = -1) -> None:
    """`spacy train config --output output args --gpu-id N`, timed by the product's
    scripts/timed.py into output/timing.json (wall time and peak memory). It runs in the
    product root `root`, where the configs' default paths (corpus/, training/, assets/)
    point, so a study passes its own paths absolute. Every evaluation also goes to
    output/train_log.jsonl (spaCy's ConsoleLogger.v2 `output_file`, same console table as
    the configs' v1 logger), so a run can say where its dev curve peaked."""
    output.mkdir(parents=True, exist_ok=True)
    (output / "timing.json").unlink(missing_ok=True)  # the marker of a finished run: see finished_training
    log = [
        "--training.logger.@loggers",
        "spacy.ConsoleLogger.v2",
        "--training.logger.output_file",
        str(output / TRAIN_LOG),
    ]
    cmd = [
        sys.executable,
        str(root / "scripts" / "timed.py"),
        str(output / "timing.json"),
        "--",
        sys.executable,
        "-m",
        "spacy",
        "train",
        str(config),
        "--output",
        str(output),
        *log,
        *args,
        "--gpu-id",
        str(gpu_id),
    ]
    subprocess.run(cmd, check=True, cwd=root)


def finished_training(output: Path) -> bool:
    """Whether a timed_train run into `output` ran to its end. Its model directories do
    not say: spaCy writes model-best at every improving evaluation and model-last also
    when training is interrupted; scripts/timed.py writes timing.json only on success."""
    return (output / "timing.json").exists()


def train_timing(output: Path) -> Optional[Dict[str, Any]]:
    """What scripts/timed.py recorded for a training run, if it did."""
    path = output / "timing.json"
    return srsly.read_json(path) if path.exists() else None


def dev_curve(output: Path) -> Optional[Dict[str, Any]]:
    """The dev scores of a timed_train run at each evaluation (step, score and the
    scores spaCy logged, in percent), and the step whose score was best (the step
    model-best was saved at: spaCy saves again on an equal score, so the last of equal
    scores). None for a run trained before the log existed."""
    path = output / TRAIN_LOG
    if not path.exists():
        return None
    rows = [
        {"step": r["step"], "score": round(r["score"], 4), **{k: round(v, 2) for k, v in r["scores"].items()}}
        for r in srsly.read_jsonl(path)
    ]
    if not rows:
        return None
    best = max(reversed(rows), key=lambda r: r["score"])
    return {"evaluations": rows, "best_step": best["step"], "last_step": rows[-1]["step"]}

"""Time the README's set-up command on a fresh clone in a fresh virtual environment.

    python scripts/time_setup.py --output metrics/setup_timing.json

Clones HEAD next to this checkout (so ../shared resolves the same), creates a new
venv, runs the install part and then the main job with it, and writes the wall times
and peak memory. The main job is `spacy project run all`, run as its workflow's steps one
`spacy project run <step>` at a time (what `run all` does), so each step's minutes are
recorded too (`step_seconds`). Takes several minutes; nothing in this checkout
changes except the output file.
"""

import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import srsly
import typer

ROOT = Path(__file__).resolve().parents[1]
INSTALL = 'python -m pip install torch==2.13.0 && python -m pip install -e ".[test]" -c constraints.txt'
# the README's: the pipeline reads its syntax from the installed en_core_web_sm
SYNTAX_INSTALL = "python -m spacy download en_core_web_sm"
MAIN_JOB = "python -m spacy project run all"


def run_timed(command: str, cwd: Path, env: dict, log: Optional[Path] = None) -> float:
    start = time.perf_counter()
    if log is None:
        subprocess.run(command, shell=True, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    else:
        with log.open("a") as handle:
            subprocess.run(command, shell=True, cwd=cwd, env=env, check=True, stdout=handle, stderr=subprocess.STDOUT)
    return round(time.perf_counter() - start, 1)


def workflow_steps(project_yml: Path, workflow: str = "all") -> list:
    """The commands of a project.yml workflow, in order."""
    steps = srsly.read_yaml(project_yml)["workflows"][workflow]
    if not steps:
        raise ValueError(f"workflow {workflow!r} of {project_yml} has no steps")
    return list(steps)


def main(
    output: Path = typer.Option(ROOT / "metrics" / "setup_timing.json", help="JSON file to write"),
    clone_dir: Path = typer.Option(ROOT.parent / "spacy_frames_timing", help="Fresh clone (removed first)"),
    venv_dir: Path = typer.Option(Path("/tmp/spacy_frames_timing_venv"), help="Fresh venv (removed first)"),
    log: Optional[Path] = typer.Option(None, help="Append the commands' output here (default: discarded)"),
    syntax_install: str = typer.Option(
        SYNTAX_INSTALL,
        help="How en_core_web_sm is installed (where GitHub is out of reach: python scripts/en_core_web_sm_from_copy.py)",
    ),
    keep_clone: bool = typer.Option(
        False, help="Keep the clone (its corpora, trained pipelines and metrics) afterwards"
    ),
):
    for path in (clone_dir, venv_dir):
        shutil.rmtree(path, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone_dir)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv_dir)], check=True)
    env = dict(os.environ, PATH=f"{venv_dir / 'bin'}:{os.environ['PATH']}")
    env.pop("PYTHONPATH", None)
    install = f"{INSTALL} && {syntax_install}"
    install_s = run_timed(install, clone_dir, env, log)
    step_seconds = {}
    for step in workflow_steps(clone_dir / "project.yml"):
        step_seconds[step] = run_timed(f"python -m spacy project run {step}", clone_dir, env, log)
    main_s = round(sum(step_seconds.values()), 1)
    # the clone's commit: the one timed (this checkout may have moved on meanwhile)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone_dir, capture_output=True, text=True).stdout.strip()
    result = {
        "commit": commit,
        "install_command": install,
        "install_seconds": install_s,
        "main_job_command": MAIN_JOB,
        "main_job_seconds": main_s,
        "main_job_minutes": round(main_s / 60, 1),
        "step_seconds": step_seconds,
        "total_seconds": round(install_s + main_s, 1),
        # peak RSS of the largest child process (KiB on Linux)
        "peak_child_rss_mib": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
    }
    # the training steps time themselves (scripts/timed.py)
    result["training_minutes"] = {
        path.parent.name: json.loads(path.read_text())["minutes"]
        for path in sorted((clone_dir / "training").glob("*/timing.json"))
    }
    # the main job rewrites the committed metrics it owns: any that came out different is listed
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--", "metrics"], cwd=clone_dir, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    result["metrics_changed"] = [line[3:] for line in changed]
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=2) + "\n")
    typer.echo(json.dumps(result, indent=2))
    if not keep_clone:
        shutil.rmtree(clone_dir, ignore_errors=True)


if __name__ == "__main__":
    typer.run(main)

"""Run files and the commands a training run executes.

A run writes one JSON file with its results; a run whose file exists is not run again
unless forced. Each command a run executes is appended, with its output, to the run's
log file.
"""

import json
import subprocess
import time
from pathlib import Path
from typing import Any, List, Optional

import srsly
import typer


def write_json(path: Path, data: Any, *, writer: str = "json") -> None:
    """Write a run or summary file (its folder made first). writer "json": the stdlib's,
    indent 1 (it writes 0.7 as 0.7; srsly's ujson: 0.7000000000000001); "srsly": srsly's
    write_json (indent 2), the format of media_framer's files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if writer == "srsly":
        srsly.write_json(path, data)
    else:
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf8")


def is_cached(path: Path, force: bool = False, *, mark: str = "✔ ", hint: str = " (--force re-runs)") -> bool:
    """Whether the run of `path` is done (and that is said) unless `force`."""
    if path.exists() and not force:
        typer.echo(f"{mark}{path} exists: skipped{hint}")
        return True
    return False


def run_logged(cmd: List[str], log: Path, cwd: Optional[Path] = None) -> float:
    """Run `cmd` in `cwd` with its output appended to `log` (after a `$ cmd` line); the
    seconds it took. A failing command raises RuntimeError naming the log."""
    start = time.time()
    with log.open("a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        code = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
    if code:
        raise RuntimeError(f"failed ({code}): {' '.join(cmd)}; see {log}")
    return round(time.time() - start, 1)

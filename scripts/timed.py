"""Run a command and record its wall-clock time and peak memory as JSON.

    python scripts/timed.py OUTPUT_JSON -- COMMAND [ARGS ...]

Used by the training steps of project.yml, so that every training run leaves
its own cost next to the model (collected into metrics/ by
frames_lab.collect_training_time in experiments/). The command's exit status is passed on.
"""

import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import srsly


def main(argv) -> int:
    if "--" not in argv or argv.index("--") != 1:
        sys.exit("usage: python scripts/timed.py OUTPUT_JSON -- COMMAND [ARGS ...]")
    output = Path(argv[0])
    command = argv[2:]
    start = time.perf_counter()
    status = subprocess.call(command)
    seconds = time.perf_counter() - start
    # ru_maxrss of the largest child process, in KiB on Linux
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    record = {
        "command": " ".join(command),
        "exit_status": status,
        "seconds": round(seconds, 1),
        "minutes": round(seconds / 60, 2),
        "peak_rss_mib": round(peak_kib / 1024, 1),
        "cpu_count": os.cpu_count(),
        "machine": f"{platform.system()} {platform.machine()}",
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    if status == 0:
        output.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(output, record)
    print(f"[timed] {record['minutes']} min, peak {record['peak_rss_mib']} MiB -> {output}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

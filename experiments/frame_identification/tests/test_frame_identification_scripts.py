"""The frame_identification study's scripts: the ablation table."""

import subprocess
import sys
from pathlib import Path

import pytest
import srsly

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def run_script(name, *args):
    return subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)], capture_output=True, text=True)


@pytest.mark.slow
def test_frame_ablation_table(trained_frames, toy_corpus, tmp_path):
    from frames_toy import toy_framenet15_dir

    fn15 = toy_framenet15_dir(toy_corpus, tmp_path / "framenet15")
    out = tmp_path / "ablation.json"
    result = run_script("frame_ablation.py", out, f"L_B_only={trained_frames}", "--split", "test", "--fn15", fn15)
    assert result.returncode == 0, result.stderr
    table = srsly.read_json(out)
    assert [row["run"] for row in table["runs"]] == ["lookup baseline", "L_B_only"]
    baseline, model = table["runs"]
    assert baseline["frame_acc"] == 100.0 and baseline["frame_r1"] is None  # train == test in the toy corpus
    assert 0 <= model["frame_acc"] <= 100 and 0 <= model["frame_r1"] <= 100

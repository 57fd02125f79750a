"""frames_lab: the training times collected, the timed training run and its dev curve, a setting's overrides."""

import subprocess
import sys
from pathlib import Path

import pytest
import srsly

ROOT = Path(__file__).resolve().parents[2]  # the product root (scripts/timed.py)


def run_module(name, *args):
    return subprocess.run([sys.executable, "-m", name, *map(str, args)], capture_output=True, text=True)


@pytest.mark.slow
def test_collect_training_time_totals_and_budget(tmp_path):
    for name, seconds, steps in (("stage1", 600.0, 300), ("stage2", 900.0, 1200)):
        model = tmp_path / name / "model-last"
        model.mkdir(parents=True)
        (model / "config.cfg").write_text(f"[training]\nmax_steps = {steps}\n")
        srsly.write_json(
            tmp_path / name / "timing.json",
            {"seconds": seconds, "minutes": seconds / 60, "peak_rss_mib": 100.0, "cpu_count": 2, "finished": "now"},
        )
    out = tmp_path / "time.json"
    result = run_module(
        "frames_lab.collect_training_time",
        out,
        f"stage1={tmp_path / 'stage1'}",
        f"stage2={tmp_path / 'stage2'}",
        "--budget-minutes",
        20,
    )
    assert result.returncode == 0, result.stderr
    metrics = srsly.read_json(out)
    assert metrics["total_minutes"] == 25.0 and metrics["within_budget"] is False
    assert [r["seconds_per_step"] for r in metrics["runs"]] == [2.0, 0.75]
    missing = run_module("frames_lab.collect_training_time", out, f"stage3={tmp_path / 'stage3'}")
    assert missing.returncode != 0 and "timing.json does not exist" in missing.stderr


@pytest.mark.slow
def test_timed_train_logs_the_dev_curve(tmp_path):
    """timed_train writes every evaluation to train_log.jsonl (whatever the config's
    console logger), and dev_curve reads the steps, scores and the best step back."""
    import spacy
    from frames_lab.runs import TRAIN_LOG, dev_curve, finished_training, timed_train
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    docs = []
    for i, (text, label) in enumerate([("good fine", "POS"), ("bad awful", "NEG")] * 4):
        doc = nlp.make_doc(f"{text} {i}")
        doc.cats = {"POS": float(label == "POS"), "NEG": float(label == "NEG")}
        docs.append(doc)
    DocBin(docs=docs).to_disk(tmp_path / "toy.spacy")
    nlp.add_pipe("textcat")
    filled = nlp.config
    filled["training"].update({"max_steps": 4, "eval_frequency": 2})
    filled["training"]["logger"] = {"@loggers": "spacy.ConsoleLogger.v1", "progress_bar": False}
    config = tmp_path / "toy.cfg"
    filled.to_disk(config)
    root = ROOT
    assert dev_curve(tmp_path / "out") is None  # a run from before the log
    timed_train(
        root,
        config,
        tmp_path / "out",
        ["--paths.train", str(tmp_path / "toy.spacy"), "--paths.dev", str(tmp_path / "toy.spacy")],
    )
    assert (tmp_path / "out" / TRAIN_LOG).exists() and (tmp_path / "out" / "timing.json").exists()
    curve = dev_curve(tmp_path / "out")
    steps = [row["step"] for row in curve["evaluations"]]
    assert steps == [0, 2, 4] and curve["last_step"] == 4
    assert all("cats_score" in row and 0 <= row["score"] <= 1 for row in curve["evaluations"])
    best = max(row["score"] for row in curve["evaluations"])
    assert curve["best_step"] == [row["step"] for row in curve["evaluations"] if row["score"] == best][-1]
    # a finished run is marked by timing.json; a failed retry into the same folder removes
    # the mark (its model folders stay, as spaCy leaves them after an interruption)
    assert finished_training(tmp_path / "out")
    with pytest.raises(subprocess.CalledProcessError):
        timed_train(
            root,
            config,
            tmp_path / "out",
            ["--paths.train", str(tmp_path / "missing.spacy"), "--paths.dev", str(tmp_path / "toy.spacy")],
        )
    assert not finished_training(tmp_path / "out") and (tmp_path / "out" / "model-last").exists()

"""The frame_induction study's scripts: the table's steps and their cache, the per-rotation
summary, the class-weight drift, the t-SNE plot and the clustering benchmark."""

import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import srsly

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def run_script(name, *args):
    return subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)], capture_output=True, text=True)


def _toy_embeddings(path, seed, n_frames=4, per_frame=30):

    from spacy_frames.scoring.induction_eval import save_embeddings

    rng = numpy.random.default_rng(seed)
    centres = rng.standard_normal((n_frames, 8)) * 3
    frames = numpy.repeat([f"F{i}" for i in range(n_frames)], per_frame)
    v_word = (centres.repeat(per_frame, axis=0) + rng.standard_normal((len(frames), 8))).astype("float32")
    lemmas = numpy.array([f"v{i % 10}" for i in range(len(frames))])
    save_embeddings(path, {"v_word": v_word, "v_mask": None, "frames": frames, "lemmas": lemmas, "lus": lemmas})
    return path


@pytest.mark.slow
def test_plot_induction_tsne_writes_png(tmp_path):
    a = _toy_embeddings(tmp_path / "a.npz", 0)
    b = _toy_embeddings(tmp_path / "b.npz", 1)
    png = tmp_path / "tsne.png"
    result = run_script("plot_induction_tsne.py", png, f"vanilla={a}", f"tuned={b}", "--top", 3, "--per-frame", 20)
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run_script("plot_induction_tsne.py", tmp_path / "x.png", f"vanilla={a}", "tuned")
    assert bad.returncode != 0 and "NAME=PATH" in bad.stderr


@pytest.mark.slow
def test_benchmark_induction_clustering(tmp_path):
    dev = _toy_embeddings(tmp_path / "dev.npz", 0)
    test = _toy_embeddings(tmp_path / "test.npz", 1)
    out = tmp_path / "scale.json"
    result = run_script(
        "benchmark_induction_clustering.py",
        "run",
        out,
        "--dev",
        dev,
        "--test",
        test,
        "--n-groups",
        16,
        "--synthetic",
        2000,
    )
    assert result.returncode == 0, result.stderr
    scale = srsly.read_json(out)
    exact, faiss = scale["fold"]["exact_one_step"], scale["fold"]["faiss"]
    assert exact["method"] == "one-step" and faiss["method"] == "faiss" and faiss["n_groups"] == 16
    assert exact["n_instances"] == faiss["n_instances"] == 120 and 0 < faiss["bcf"] <= 100
    assert scale["synthetic"]["n_instances"] == 2000 and scale["synthetic"]["peak_rss_mib"] > 0


def test_frame_induction_experiment_losses_and_cached_steps(tmp_path, monkeypatch):
    """Every system's loss builds from the registry, and a step or a tuning setting whose
    JSON exists is skipped without training (the workflow resumes where it stopped)."""
    import frame_induction_experiment as fie
    from spacy.util import registry
    from typer.testing import CliRunner

    for name, loss in fie.SYSTEMS.items():
        if loss is not None:
            params = {k: v for k, v in loss.items() if k != "@losses"}
            assert registry.losses.get(loss["@losses"])(**params) is not None, name

    def no_training(*args, **kwargs):
        raise AssertionError("a cached step must not train")

    monkeypatch.setattr(fie, "train_system", no_training)
    monkeypatch.setattr(fie, "STUDY", tmp_path)
    monkeypatch.setattr(fie, "RUNS", tmp_path / "runs")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "triplet_fold1.json").write_text("{}")
    tuning = tmp_path / "metrics" / "frame_inducer" / "tuning"
    tuning.mkdir(parents=True)
    (tuning / "arcface@m1_fold0.json").write_text("{}")
    runner = CliRunner()
    result = runner.invoke(fie.app, ["run", "triplet", "--fold", "1"])
    assert result.exit_code == 0 and "skipped" in result.output
    result = runner.invoke(fie.app, ["tune", "arcface", "--tag", "m1"])
    assert result.exit_code == 0 and "skipped" in result.output
    result = runner.invoke(fie.app, ["tune", "nonsense"])
    assert result.exit_code != 0


def test_frame_induction_experiment_gives_another_encoder_its_own_transformer(tmp_path, monkeypatch):
    """The inducer's listener reads the transformer pipeline: the default encoder keeps the
    shared one, another encoder (mpnet) gets a pipeline assembled from it once, so that
    v_word does not silently come from MiniLM; the head variant's transformer is kept."""
    import frame_induction_experiment as fie

    calls = []

    def fake_assemble(args, check, cwd=None):
        calls.append(args)
        Path(args[5]).mkdir(parents=True)

    monkeypatch.setattr(fie, "WORK", tmp_path)
    monkeypatch.setattr(fie.subprocess, "run", fake_assemble)
    shared = fie.VARIANTS["own"][1]
    assert fie.transformer_for(fie.DEFAULT_ENCODER, shared) == shared
    assert fie.transformer_for("assets/encoders/all-mpnet-base-v2", fie.VARIANTS["head"][1]) == fie.VARIANTS["head"][1]
    own = fie.transformer_for("assets/encoders/all-mpnet-base-v2", shared)
    assert own == str(tmp_path / "transformers" / "all-mpnet-base-v2")
    assert calls[0][-2:] == ["--paths.encoder", "assets/encoders/all-mpnet-base-v2"]
    assert fie.transformer_for("assets/encoders/all-mpnet-base-v2", shared) == own and len(calls) == 1


def test_frame_induction_per_rotation_summary(tmp_path):
    """Each rotation's dev scores, the tuned system's test gain over vanilla and one cluster
    per lemma, and the 3-rotation mean against the +8 bars (None until every rotation ran)."""
    import frame_induction_experiment as fie

    def run(bcf, lemma=None, tuned=None):
        out = {"two-step": {"bcf": bcf}, "1cpv": {"bcf": lemma}}
        return {**out, "tuned": {"setting": tuned}} if tuned else out

    srsly.write_json(tmp_path / "vanilla_fold0.json", {"bcf": 52.0})
    srsly.write_json(tmp_path / "triplet@m0.1_fold0.json", {"bcf": 55.0})
    runs = {f"vanilla_fold{k}": run(50.0 + k, 49.0 + k) for k in range(3)}
    runs["triplet@tuned_fold0"] = run(59.0, tuned="triplet@m0.1")
    summary = fie.per_rotation(runs, tmp_path)
    assert summary["rotation0"]["dev_two_step_bcf"] == {"triplet@m0.1": 55.0, "vanilla": 52.0}
    assert summary["rotation0"]["tuned"]["triplet@tuned"] == {
        "setting": "triplet@m0.1",
        "over_vanilla": 9.0,
        "over_1cpv": 10.0,
    }
    assert "tuned" not in summary["rotation1"] and summary["rotation1"]["test_two_step_bcf"] == {
        "vanilla": 51.0,
        "1cpv": 50.0,
    }
    assert summary["mean"]["triplet@tuned"] == {
        "rotations": 1,
        "over_vanilla": 9.0,
        "over_1cpv": 10.0,
        "bar_8_met": None,
    }
    runs.update({"triplet@tuned_fold1": run(58.0, tuned="a"), "triplet@tuned_fold2": run(58.0, tuned="b")})
    mean = fie.per_rotation(runs, tmp_path)["mean"]["triplet@tuned"]
    assert mean["rotations"] == 3 and mean["over_vanilla"] == 7.33 and mean["bar_8_met"] is False
    # two tuned losses: each rotation takes the one its own dev fold scored higher
    srsly.write_json(tmp_path / "adacos@clr100_fold0.json", {"bcf": 56.0})
    runs["adacos@tuned_fold0"] = run(54.0, tuned="adacos@clr100")
    summary = fie.per_rotation(runs, tmp_path)
    assert summary["rotation0"]["dev_choice"] == {
        "system": "adacos@tuned",
        "setting": "adacos@clr100",
        "over_vanilla": 4.0,
        "over_1cpv": 5.0,
    }
    assert "dev_choice" not in summary["rotation1"]  # its tuned run's setting has no dev score here
    assert summary["mean"]["dev_choice"]["rotations"] == 1 and summary["mean"]["adacos@tuned"]["over_vanilla"] == 4.0


def test_class_weight_drift_measures_from_the_seeded_start():
    """class-weights: an untouched table has moved 0 (cosine 1); rows moved by a known
    vector report that distance; rows past the training frames are not counted."""
    import frame_induction_experiment as fie

    from spacy_frames.ml.frame_inducer import initial_class_weights

    start = initial_class_weights(10, 16)
    still = fie.class_weight_drift(start.copy(), 4)
    assert still["moved_mean"] == 0.0 and still["cosine_to_start_mean"] == 1.0 and still["classes"] == 4
    trained = start.copy()
    trained[:4] += 3.0 / 4.0  # each of 16 coordinates: distance 3 per row
    trained[4:] = 100.0
    moved = fie.class_weight_drift(trained, 4)
    assert moved["moved_mean"] == moved["moved_min"] == 3.0 and moved["cosine_to_start_mean"] < 0.5


def test_frame_induction_experiment_names_a_midtuned_encoder_by_its_run(tmp_path, monkeypatch):
    import frame_induction_experiment as fie

    monkeypatch.setattr(fie, "WORK", tmp_path)
    monkeypatch.setattr(fie.subprocess, "run", lambda args, check, cwd=None: Path(args[5]).mkdir(parents=True))
    out = fie.transformer_for("training/midtune/framenet-triplet/encoder", fie.VARIANTS["own"][1])
    assert out == str(tmp_path / "transformers" / "framenet-triplet")

"""The project's helper scripts: timing of training runs and its collection."""

import subprocess
import sys
from pathlib import Path

import numpy
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
    result = run_script(
        "collect_training_time.py",
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
    missing = run_script("collect_training_time.py", out, f"stage3={tmp_path / 'stage3'}")
    assert missing.returncode != 0 and "timing.json does not exist" in missing.stderr


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


def _toy_embeddings(path, seed, n_frames=4, per_frame=30):
    import numpy

    from spacy_frames.scoring.induction_eval import save_embeddings

    rng = numpy.random.default_rng(seed)
    centres = rng.standard_normal((n_frames, 8)) * 3
    frames = numpy.repeat([f"F{i}" for i in range(n_frames)], per_frame)
    v_word = (centres.repeat(per_frame, axis=0) + rng.standard_normal((len(frames), 8))).astype("float32")
    lemmas = numpy.array([f"v{i % 10}" for i in range(len(frames))])
    save_embeddings(path, {"v_word": v_word, "v_mask": None, "frames": frames, "lemmas": lemmas, "lus": lemmas})
    return path


def test_plot_induction_tsne_writes_png(tmp_path):
    a = _toy_embeddings(tmp_path / "a.npz", 0)
    b = _toy_embeddings(tmp_path / "b.npz", 1)
    png = tmp_path / "tsne.png"
    result = run_script("plot_induction_tsne.py", png, f"vanilla={a}", f"tuned={b}", "--top", 3, "--per-frame", 20)
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run_script("plot_induction_tsne.py", tmp_path / "x.png", f"vanilla={a}", "tuned")
    assert bad.returncode != 0 and "NAME=PATH" in bad.stderr


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


def test_discourse_experiment_settings_are_valid_overrides():
    """Every setting of the ablation script names config keys that exist."""
    import spacy

    sys.path.insert(0, str(SCRIPTS))
    import discourse_experiment

    from spacy_frames.tools.experiments import setting_args

    config = spacy.util.load_config(SCRIPTS.parent / "configs" / "discourse.cfg", interpolate=False)
    for name, setting in discourse_experiment.SETTINGS.items():
        for key in setting:
            node = config
            for part in key.split("."):
                assert part in node, f"{name}: {key} is not in configs/discourse.cfg"
                node = node[part]
    assert setting_args({"a.b": [1.0, 0.0]}) == ["--a.b", "[1.0, 0.0]"]
    # the ablations share one length; `packaged` keeps the config's (the main job's)
    ablations = {k: v for k, v in discourse_experiment.SETTINGS.items() if not k.startswith("packaged")}
    assert {s["training.max_steps"] for s in ablations.values()} == {600}
    # the main job's two candidates train at the same compute: 2 epochs with copies, 4 without;
    # the config is the CE one
    config = spacy.util.load_config(SCRIPTS.parent / "configs" / "discourse.cfg", interpolate=True)
    assert (
        discourse_experiment.SETTINGS["packaged-ce"]["training.max_steps"]
        == 2 * discourse_experiment.SETTINGS["packaged"]["training.max_steps"]
    )
    assert config["training"]["max_steps"] == discourse_experiment.SETTINGS["packaged-ce"]["training.max_steps"]
    assert (
        config["components"]["discourse_sense"]["contrastive_weight"] == 0.0
        and not config["corpora"]["train"]["augment"]
    )
    assert (
        config["components"]["discourse_sense"]["separator"]
        == config["corpora"]["train"]["separator"]
        == config["corpora"]["dev"]["separator"]
    )


def test_benchmark_component_assembles_both_variants(trained_frames, trained_discourse, tmp_path):
    """Own copy (replace_listeners) and head (listening to the base transformer) both run."""
    import spacy

    sys.path.insert(0, str(SCRIPTS))
    import benchmark_component

    text = "Prices rose sharply. So demand outpaced the supply of grain."
    own = benchmark_component.assemble(str(trained_frames), str(trained_discourse), tmp_path / "own", True)
    head = benchmark_component.assemble(str(trained_frames), str(trained_discourse), tmp_path / "head", False)
    from spacy_frames.corpora.discourse import DiscourseRelation, input_doc, relation_doc

    # the own copy encodes the pair "Arg1 [SEP] Arg2" on its own: what the standalone
    # (listening) model sees when the separator is in the doc, as in training
    trained = spacy.load(trained_discourse)
    rel = DiscourseRelation(
        "t", "Implicit", "Prices rose sharply.", "So demand outpaced the supply of grain.", ["Contingency.Cause.Result"]
    )
    standalone = trained(input_doc(trained, relation_doc(trained, rel, separator="[SEP]")))._.discourse_relations
    assembled = spacy.load(own)(text)._.discourse_relations
    assert [r["sense"] for r in assembled] == [r["sense"] for r in standalone]
    assert assembled[0]["score"] == pytest.approx(standalone[0]["score"], abs=1e-4)
    assert text[slice(*assembled[0]["arg1"])] == "Prices rose sharply."
    # the head listens to the base pipeline's transformer: it runs, on other features
    relations = spacy.load(head)(text)._.discourse_relations
    assert len(relations) == 1 and relations[0]["arg1"] == assembled[0]["arg1"]


def test_media_report_ablation_rows(tmp_path, monkeypatch):
    """The report's ablation table: one row per cached run of mCPT's ablation, in order."""
    sys.path.insert(0, str(SCRIPTS))
    import media_experiment

    assert all(name in media_experiment.SETTINGS for _, name in media_experiment.ABLATION)
    runs = tmp_path / "runs"
    runs.mkdir()

    def scores(micro):
        return {"en": {"micro_f1": micro, "macro_f1": micro / 2, "per_frame_f1": {}, "n": 3}}

    for name, dev, test in (("frozen-en", 0.7, 0.6), ("own-en", 0.8, 0.5)):
        srsly.write_json(
            runs / f"{name}.json",
            {
                "setting": name,
                "model": str(tmp_path / "none"),
                "threshold_tuning": {},
                "scores": {"dev": scores(dev), "test": scores(test)},
                "timings_s": {"training_total": 1.0},
            },
        )
    monkeypatch.setattr(media_experiment, "RUNS", runs)
    monkeypatch.setattr(media_experiment, "ROOT", tmp_path)
    media_experiment.report_cli(tmp_path / "report.json")
    report = srsly.read_json(tmp_path / "report.json")
    assert [row["setting"] for row in report["ablation"]] == ["own-en", "frozen-en"]
    assert report["ablation"][0]["dev_micro_f1"] == 0.8 and report["ablation"][0]["test_macro_f1"] == 0.25
    assert report["zero_shot"] == {} and report["baselines"] is None


def test_frame_induction_experiment_losses_and_cached_steps(tmp_path, monkeypatch):
    """Every system's loss builds from the registry, and a step or a tuning setting whose
    JSON exists is skipped without training (the workflow resumes across sessions)."""
    from spacy.util import registry
    from typer.testing import CliRunner

    sys.path.insert(0, str(SCRIPTS))
    import frame_induction_experiment as fie

    for name, loss in fie.SYSTEMS.items():
        if loss is not None:
            params = {k: v for k, v in loss.items() if k != "@losses"}
            assert registry.losses.get(loss["@losses"])(**params) is not None, name

    def no_training(*args, **kwargs):
        raise AssertionError("a cached step must not train")

    monkeypatch.setattr(fie, "train_system", no_training)
    monkeypatch.setattr(fie, "ROOT", tmp_path)
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
    sys.path.insert(0, str(SCRIPTS))
    import frame_induction_experiment as fie

    calls = []

    def fake_assemble(args, check):
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
    sys.path.insert(0, str(SCRIPTS))
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
    sys.path.insert(0, str(SCRIPTS))
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


def test_timed_train_logs_the_dev_curve(tmp_path):
    """timed_train writes every evaluation to train_log.jsonl (whatever the config's
    console logger), and dev_curve reads the steps, scores and the best step back."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_frames.tools.experiments import TRAIN_LOG, dev_curve, finished_training, timed_train

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
    root = Path(__file__).resolve().parents[1]
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


def test_time_setup_times_the_main_job_step_by_step(tmp_path, monkeypatch):
    """time-setup runs the `all` workflow one `spacy project run <step>` at a time, in its
    order, and the main job's seconds are the sum of the steps' (nothing is installed or
    trained here: the clone, venv and commands are recorded, not run)."""
    import shutil
    import types

    import srsly

    sys.path.insert(0, str(SCRIPTS))
    import time_setup

    clone = tmp_path / "clone"
    commands = []

    def fake_subprocess_run(cmd, **kwargs):
        if cmd[:2] == ["git", "clone"]:
            clone.mkdir()
            shutil.copy(SCRIPTS.parent / "project.yml", clone / "project.yml")
        return types.SimpleNamespace(stdout="abc123\n", returncode=0)

    def fake_run_timed(command, cwd, env, log=None):
        commands.append(command)
        return 2.0

    monkeypatch.setattr(time_setup.subprocess, "run", fake_subprocess_run)
    monkeypatch.setattr(time_setup, "run_timed", fake_run_timed)
    out = tmp_path / "timing.json"
    time_setup.main(output=out, clone_dir=clone, venv_dir=tmp_path / "venv", log=None, keep_clone=False)
    steps = srsly.read_yaml(SCRIPTS.parent / "project.yml")["workflows"]["all"]
    assert commands[0] == time_setup.INSTALL and commands[1:] == [f"python -m spacy project run {s}" for s in steps]
    result = srsly.read_json(out)
    assert list(result["step_seconds"]) == steps and result["main_job_seconds"] == 2.0 * len(steps)
    assert result["commit"] == "abc123" and not clone.exists()


def test_midtune_experiment_pairs_each_e1_run_with_its_base_run(tmp_path, monkeypatch):
    """Issue 26's report: an E1 run (tagged mt-<encoder>) beside the base encoder's run of
    the same setting, the deltas computed, a run without its base listed as missing."""
    sys.path.insert(0, str(SCRIPTS))
    import midtune_experiment as mte
    import typer

    from spacy_frames.tools.experiments import write_json

    with pytest.raises(typer.BadParameter, match="form one of"):
        mte.check_name("propbank-triplet")
    with pytest.raises(typer.BadParameter):
        mte.check_name("base", base_ok=False)
    mte.check_name("dependency-classification")
    mte.check_name("frames-triplet")
    # a step count in the name (the size curve): framenet-triplet-1200 trains 1,200 steps
    assert mte.parse_name("framenet-triplet-1200") == ("framenet", "triplet", 1200)
    assert mte.parse_name("framenet-triplet") == ("framenet", "triplet", 0)
    for bad in ("framenet-triplet-0", "framenet-triplet-x", "framenet-triplet-12-3"):
        with pytest.raises(typer.BadParameter, match="<steps>"):
            mte.check_name(bad)
    runs = tmp_path / "runs"
    monkeypatch.setattr(mte, "OUT", tmp_path / "midtune")
    monkeypatch.setitem(mte.COMPONENTS, "discourse", {**mte.COMPONENTS["discourse"], "runs": runs})
    monkeypatch.setitem(mte.COMPONENTS, "inducer", {**mte.COMPONENTS["inducer"], "runs": tmp_path / "none"})
    # no component reads the project's own run folders here
    induction, media = tmp_path / "induction", tmp_path / "media"
    monkeypatch.setitem(mte.COMPONENTS, "inducer-triplet", {**mte.COMPONENTS["inducer-triplet"], "runs": induction})
    monkeypatch.setitem(mte.COMPONENTS, "media", {**mte.COMPONENTS["media"], "runs": media})
    monkeypatch.setitem(mte.COMPONENTS, "frames", {**mte.COMPONENTS["frames"], "runs": tmp_path / "frames"})
    encoder = lambda steps, after: {
        "loss_first": 1.0,
        "loss_last": 0.5,
        "steps": steps,
        "batch_size": 16,
        "examples": 1600,
        "held_out": {"form_accuracy_before": 70.0, "form_accuracy_after": after},
    }
    write_json(tmp_path / "midtune" / "encoders" / "framenet-triplet.json", encoder(100, 80.0))
    score = lambda acc: {"l2": {"acc": acc, "macro_f1": acc / 2}}
    write_json(runs / "packaged-ce_seed0.json", {"gdtb_dev": score(40.0), "gdtb_test": score(42.0)})
    write_json(runs / "packaged-ce@mt-framenet-triplet_seed0.json", {"gdtb_dev": score(41.5), "gdtb_test": score(41.0)})
    write_json(runs / "packaged-ce@mt-framenet-triplet_seed1.json", {"gdtb_dev": score(41.0), "gdtb_test": score(41.0)})
    mte.report_cli(tmp_path / "midtune.json")
    summary = srsly.read_json(tmp_path / "midtune.json")
    (row,) = summary["components"]["framenet-triplet"]["discourse"]
    assert row["base_run"] == "packaged-ce_seed0" and row["scores"]["gdtb_dev.l2.acc"] == {
        "base": 40.0,
        "e1": 41.5,
        "delta": 1.5,
    }
    assert row["scores"]["gdtb_test.l2.macro_f1"]["delta"] == -0.5
    assert summary["missing"] == ["discourse: packaged-ce_seed1 (base encoder)"]
    # a base run re-run today under its own tag (inducer-triplet), nested scores (media),
    # and the frame parser's pair of run files
    bcf = lambda value: {"two-step": {"bcf": value}}
    write_json(induction / "triplet_fold0.json", bcf(10.0))  # older code: not the pair
    write_json(induction / "triplet@mt-base_fold0.json", bcf(50.0))
    write_json(induction / "triplet@mt-framenet-triplet_fold0.json", bcf(52.0))
    write_json(media / "frozen-en@mt-base.json", {"scores": {"test": {"all": {"micro_f1": 0.7}}}})
    write_json(media / "frozen-en@mt-framenet-triplet.json", {"scores": {"test": {"all": {"micro_f1": 0.65}}}})
    frames = lambda overall: {"scores": {"frame_overall": overall, "fe_f_tuned": 55.0}}
    write_json(tmp_path / "frames" / "frames@mt-base.json", frames(88.0))
    write_json(tmp_path / "frames" / "frames@mt-framenet-triplet.json", frames(87.0))
    write_json(tmp_path / "frames" / "frames@mt-framenet-triplet_fe_threshold_dev.json", {"best": {}})  # not a run
    mte.report_cli(tmp_path / "midtune.json")
    rows = srsly.read_json(tmp_path / "midtune.json")["components"]["framenet-triplet"]
    (triplet,) = rows["inducer-triplet"]
    assert triplet["base_run"] == "triplet@mt-base_fold0" and triplet["scores"]["two-step.bcf"]["delta"] == 2.0
    assert rows["media"][0]["scores"]["scores.test.all.micro_f1"] == pytest.approx(
        {"base": 0.7, "e1": 0.65, "delta": -0.05}
    )
    (frames_row,) = rows["frames"]
    assert frames_row["base_run"] == "frames@mt-base" and frames_row["scores"]["scores.frame_overall"]["delta"] == -1.0
    assert frames_row["scores"]["scores.fe_f_tuned"]["delta"] == 0.0
    # two seeds paired: their means and the base seeds' spread
    write_json(runs / "packaged-ce_seed1.json", {"gdtb_dev": score(43.0), "gdtb_test": score(41.0)})
    mte.report_cli(tmp_path / "midtune.json")
    means = srsly.read_json(tmp_path / "midtune.json")["means"]["framenet-triplet"]["discourse"]
    assert means["gdtb_dev.l2.acc"] == {"base": 41.5, "e1": 41.25, "delta": -0.25, "base_range": 3.0, "runs": 2}
    # the size curve: one family, its encoders by the sentences they saw, E1 and base per measure
    write_json(tmp_path / "midtune" / "encoders" / "framenet-triplet-300.json", encoder(300, 90.0))
    mte.report_cli(tmp_path / "midtune.json")
    (small, large) = srsly.read_json(tmp_path / "midtune.json")["curve"]["framenet-triplet"]
    assert (small["encoder"], small["sentences_seen"], small["epochs"]) == ("framenet-triplet", 1600, 1.0)
    assert (large["encoder"], large["sentences_seen"], large["epochs"]) == ("framenet-triplet-300", 4800, 3.0)
    assert small["e1"]["held-out form accuracy"] == 80.0 and large["base"]["held-out form accuracy"] == 70.0
    assert small["e1"]["discourse GDTB dev L2 acc"] == 41.25 and small["runs"]["discourse GDTB dev L2 acc"] == 2
    assert "discourse GDTB dev L2 acc" not in large["e1"]  # no runs on it
    # media seeds pair by their suffix; a longer-trained encoder's runs stay its own
    write_json(media / "frozen-en@mt-base_seed1.json", {"scores": {"test": {"all": {"micro_f1": 0.72}}}})
    write_json(media / "frozen-en@mt-framenet-triplet_seed1.json", {"scores": {"test": {"all": {"micro_f1": 0.69}}}})
    write_json(media / "frozen-en@mt-framenet-triplet-300.json", {"scores": {"test": {"all": {"micro_f1": 0.5}}}})
    mte.report_cli(tmp_path / "midtune.json")
    report = srsly.read_json(tmp_path / "midtune.json")
    assert [r["e1_run"] for r in report["components"]["framenet-triplet"]["media"]] == [
        "frozen-en@mt-framenet-triplet",
        "frozen-en@mt-framenet-triplet_seed1",
    ]
    assert report["means"]["framenet-triplet"]["media"]["scores.test.all.micro_f1"]["e1"] == 0.67
    assert report["components"]["framenet-triplet-300"]["media"][0]["base_run"] == "frozen-en@mt-base"
    png = tmp_path / "curve.png"
    result = run_script("plot_midtune_curve.py", tmp_path / "midtune.json", png)
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    empty = tmp_path / "empty.json"
    write_json(empty, {"encoders": {}})
    missing = run_script("plot_midtune_curve.py", empty, tmp_path / "none.png")
    assert missing.returncode == 1 and "no curve" in missing.stderr and not (tmp_path / "none.png").exists()
    # nearest neighbours by cosine, never the sentence itself
    vectors = numpy.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    assert list(mte.nearest(vectors)) == [1, 0, 1]


def test_frame_induction_experiment_names_a_midtuned_encoder_by_its_run(tmp_path, monkeypatch):
    sys.path.insert(0, str(SCRIPTS))
    import frame_induction_experiment as fie

    monkeypatch.setattr(fie, "WORK", tmp_path)
    monkeypatch.setattr(fie.subprocess, "run", lambda args, check: Path(args[5]).mkdir(parents=True))
    out = fie.transformer_for("training/midtune/framenet-triplet/encoder", fie.VARIANTS["own"][1])
    assert out == str(tmp_path / "transformers" / "framenet-triplet")

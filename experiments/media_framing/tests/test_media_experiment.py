"""scripts/media_experiment.py: the multilingual recipe's settings, leave-one-language-out
isolation (the held-out language never reaches training or threshold tuning) and the
report's table; spaCy and the models are replaced by a recorder of the commands."""

import json
from pathlib import Path

import media_experiment as mx
import pytest
import srsly
import typer

from spacy_frames.recipes import media  # noqa: E402

LOLO = [name for name, spec in mx.SETTINGS.items() if "heldout" in spec]


def test_multilingual_recipe_is_phase_one_then_english():
    spec = mx.SETTINGS["headboth-multi-en"]
    first, second = spec["stages"]
    assert first["langs"] == mx.LANGS and second["langs"] == ["en"]
    assert first["transformer"] == second["transformer"] == mx.FRAMES and first["body"] == second["body"] == "both"
    assert spec["dev"] == ["en"] and spec["eval"] == mx.LANGS
    assert [s["body"] for s in mx.SETTINGS["use-multi-en"]["stages"]] == ["use", "use"]
    # without English (English held out) the recipe is phase one, tuned on the others' dev
    spec = mx.multilingual_recipe(["fr", "ge", "it", "po"], "headboth")
    assert [s["langs"] for s in spec["stages"]] == [["fr", "ge", "it", "po"]] and spec["dev"] == [
        "fr",
        "ge",
        "it",
        "po",
    ]


def test_every_lolo_setting_keeps_its_language_out():
    # headboth and use, each with and without the contrastive term, and each without it with a
    # linear head; headboth without it with USE reading 512 or 256 words; per language;
    # phase-one-only for the four with an English phase
    assert len(LOLO) == 8 * 5 + 4
    for name in LOLO:
        spec = mx.SETTINGS[name]
        held = spec["heldout"]
        assert name.startswith(f"lolo-{held}-")
        mx.check_heldout(spec)
        assert all(held not in stage["langs"] for stage in spec["stages"]) and held not in spec["dev"]
        assert sorted({lang for stage in spec["stages"] for lang in stage["langs"]}) == sorted(mx.OTHERS[held])
        assert mx.project().test_corpus(spec) == [
            str(mx.CORPUS / f"{held}_{s}.spacy") for s in ("train", "dev", "test")
        ]
    for family in mx.LOLO_FAMILIES:
        assert all(mx.lolo_setting(family, lang) in mx.SETTINGS for lang in mx.LANGS)


@pytest.mark.parametrize(
    "bad,match",
    [
        ({"stages": [mx.head(["en", "fr"])], "eval": ["fr"], "dev": ["en"], "heldout": "fr"}, "trains on"),
        ({"stages": [mx.head(["en"])], "eval": ["fr"], "dev": ["en", "fr"], "heldout": "fr"}, "tuned on"),
        ({"stages": [mx.head(["en"])], "eval": ["fr"], "heldout": "fr"}, "tuned on"),  # dev defaults to eval
        ({"stages": [mx.head(["en"])], "eval": ["fr", "ge"], "dev": ["en"], "heldout": "fr"}, "held-out language only"),
    ],
)
def test_check_heldout_rejects_leaks(bad, match):
    with pytest.raises(ValueError, match=match):
        mx.check_heldout(bad)


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """run_cli with every subprocess (the library's run_logged) replaced: returns the list of commands it ran."""
    for path in ("corpus/media_frames", "training/frames_final", "training/transformer"):
        (tmp_path / path).mkdir(parents=True)
    monkeypatch.setattr(mx, "ROOT", tmp_path)
    monkeypatch.setattr(mx, "CORPUS", tmp_path / "corpus" / "media_frames")
    monkeypatch.setattr(mx, "WORK", tmp_path / "training" / "media")
    monkeypatch.setattr(mx, "RUNS", tmp_path / "runs")
    commands = []

    def fake_sh(cmd, log):
        commands.append(cmd)
        if "media-cache-body" in cmd:
            Path(cmd[cmd.index("-o") + 1]).parent.mkdir(parents=True, exist_ok=True)
            srsly.write_msgpack(cmd[cmd.index("-o") + 1], {})
        if "evaluate-media" in cmd:
            langs = sorted({Path(p).name.split("_")[0] for p in cmd if p.endswith(".spacy")})
            score = {"micro_f1": 0.5, "macro_f1": 0.25, "per_frame_f1": {}, "n": 3}
            srsly.write_json(cmd[cmd.index("-o") + 1], {"all": score, **{lang: score for lang in langs}})
        return 1.0

    monkeypatch.setattr(media, "run_logged", lambda cmd, log, cwd=None: fake_sh(cmd, log))
    return commands


def corpus_langs(paths):
    return {Path(p).name.split("_")[0] for p in paths if str(p).endswith(".spacy")}


@pytest.mark.parametrize("setting", ["lolo-fr-headboth", "lolo-en-headboth", "lolo-po-use", "lolo-it-headboth-p1"])
def test_run_never_trains_or_tunes_on_the_held_out_language(recorded, setting, tmp_path):
    mx.run_cli(
        setting,
        seed=0,
        force=False,
        export=None,
        configs="configs",
        rescore=False,
        test_langs=None,
        transformer=None,
        tag="",
    )
    held = mx.SETTINGS[setting]["heldout"]
    trains = [c for c in recorded if c[2:4] == ["spacy", "train"]]
    assert len(trains) == len(mx.SETTINGS[setting]["stages"])
    for cmd in trains:
        for option in ("--paths.train", "--paths.dev"):
            assert held not in corpus_langs(json.loads(cmd[cmd.index(option) + 1]))
    caches = [c for c in recorded if "media-cache-body" in c]
    assert all(held not in corpus_langs(c) for c in caches)
    (tune,) = [c for c in recorded if "media-thresholds" in c]
    assert held not in corpus_langs(tune) and corpus_langs(tune) == set(mx.SETTINGS[setting]["dev"])
    test = [c for c in recorded if "evaluate-media" in c][-1]
    assert [Path(p).name for p in test if p.endswith(".spacy")] == [
        f"{held}_{s}.spacy" for s in ("train", "dev", "test")
    ]
    run = srsly.read_json(tmp_path / "runs" / f"{setting}.json")
    assert run["dev_langs"] == mx.SETTINGS[setting]["dev"] and len(run["test_corpus"]) == 3


def test_multilingual_recipe_run_starts_the_english_phase_from_phase_one(recorded):
    mx.run_cli(
        "headboth-multi-en",
        seed=0,
        force=False,
        export=None,
        configs="configs",
        rescore=False,
        test_langs=None,
        transformer=None,
        tag="",
    )
    first, second = [c for c in recorded if c[2:4] == ["spacy", "train"]]
    assert corpus_langs(json.loads(first[first.index("--paths.train") + 1])) == set(mx.LANGS)
    assert corpus_langs(json.loads(second[second.index("--paths.train") + 1])) == {"en"}
    assert "--paths.media_init" not in first
    stage0 = Path(first[first.index("--output") + 1]) / "model-last"
    assert mx.ROOT / second[second.index("--paths.media_init") + 1] == stage0
    assert second[second.index("--paths.transformer") + 1] == mx.FRAMES
    (tune,) = [c for c in recorded if "media-thresholds" in c]
    assert corpus_langs(tune) == {"en"}


def test_report_lolo_table_and_mean(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    runs.mkdir()

    def write(name, scores):
        spec = mx.SETTINGS[name]
        srsly.write_json(
            runs / f"{name}.json",
            {
                "setting": name,
                "model": "none",
                "stages": spec["stages"],
                "dev_langs": spec["dev"],
                "threshold_tuning": {},
                "scores": {"dev": {"all": {"micro_f1": 0.7, "macro_f1": 0.5, "n": 2}}, "test": scores},
                "timings_s": {"training_total": 2.0},
            },
        )

    for k, lang in enumerate(mx.LANGS):
        write(mx.lolo_setting("headboth-multi-en", lang), {lang: {"micro_f1": 0.5 + k / 100, "macro_f1": 0.4, "n": 10}})
    write("lolo-fr-use", {"fr": {"micro_f1": 0.4, "macro_f1": 0.3, "n": 10}})
    write("headboth-multi-en", {lang: {"micro_f1": 0.72, "macro_f1": 0.5, "n": 5} for lang in mx.LANGS})
    monkeypatch.setattr(mx, "RUNS", runs)
    monkeypatch.setattr(mx, "ROOT", tmp_path)
    monkeypatch.setattr(mx, "STUDY", tmp_path)
    mx.report_cli(tmp_path / "report.json")
    lolo = srsly.read_json(tmp_path / "report.json")["leave_one_language_out"]
    both = lolo["recipes"]["headboth-multi-en"]
    assert both["mean"]["micro_f1"] == 0.52 and both["n_languages"] == 5 and both["bar_mean_micro_0.60"] is False
    assert both["fr"]["trained_on"] == ["en", "ge", "it", "po"] and both["fr"]["thresholds_tuned_on"] == ["en"]
    assert both["en"]["thresholds_tuned_on"] == ["fr", "ge", "it", "po"]
    assert (
        lolo["recipes"]["use-multi-en"]["n_languages"] == 1
        and lolo["recipes"]["use-multi-en"]["bar_mean_micro_0.60"] is None
    )
    assert lolo["baseline_use_lr_baselines_md"]["mean"] == 0.581 and lolo["baseline_use_lr_remeasured"] is None
    assert lolo["trained_on_all"]["headboth-multi-en"]["test"]["en"]["micro_f1"] == 0.72


ALPHA = "--components.media_framer.contrastive_weight"
WIDTH = "--components.media_framer.model.hidden_width"


@pytest.mark.parametrize(
    "setting,alpha,width",
    [
        ("lolo-fr-use-a0", "0.0", None),
        ("lolo-en-headboth-a0", "0.0", None),
        ("lolo-fr-use", None, None),
        ("lolo-fr-use-a0-lin", "0.0", "0"),
        ("headboth-multi-en-a0-lin", "0.0", "0"),
    ],
)
def test_recipe_variants_reach_every_training_stage(recorded, setting, alpha, width):
    """-a0: no contrastive term, -lin: a linear head, in every stage of the chain."""
    mx.run_cli(
        setting,
        seed=0,
        force=False,
        export=None,
        configs="configs",
        rescore=False,
        test_langs=None,
        transformer=None,
        tag="",
    )
    trains = [c for c in recorded if c[2:4] == ["spacy", "train"]]
    assert len(trains) == len(mx.SETTINGS[setting]["stages"])
    for cmd in trains:
        assert (cmd[cmd.index(ALPHA) + 1] if ALPHA in cmd else None) == alpha
        assert (cmd[cmd.index(WIDTH) + 1] if WIDTH in cmd else None) == width


def test_main_job_scores_english_only_in_its_own_run_file(recorded, tmp_path):
    """--test-langs en: the same stages and thresholds, test scored on English only, written
    beside (not over) the setting's full run, as package_meta reads it."""
    mx.run_cli(
        "headboth-multi-en-a0",
        seed=0,
        force=False,
        export=None,
        configs="configs",
        rescore=False,
        test_langs="en",
        transformer=None,
        tag="",
    )
    trains = [c for c in recorded if c[2:4] == ["spacy", "train"]]
    assert len(trains) == 2 and corpus_langs(json.loads(trains[0][trains[0].index("--paths.train") + 1])) == set(
        mx.LANGS
    )
    test = [c for c in recorded if "evaluate-media" in c][-1]
    assert corpus_langs(test) == {"en"}
    assert not (tmp_path / "runs" / "headboth-multi-en-a0.json").exists()
    run = srsly.read_json(tmp_path / "runs" / "headboth-multi-en-a0@test-en.json")
    assert set(run["scores"]["test"]) == {"all", "en"} and run["test_corpus"] == ["corpus/media_frames/en_test.spacy"]
    with pytest.raises(typer.BadParameter, match="tests on"):
        mx.run_cli(
            "headboth-en",
            seed=0,
            force=False,
            export=None,
            configs="configs",
            rescore=False,
            test_langs="fr",
            transformer=None,
            tag="",
        )


def test_body_cache_encodes_missing_languages_in_one_process(recorded, tmp_path, monkeypatch):
    """The frozen transformer's article vectors: one media-cache-body call for every language
    not cached yet, split into per-language files; cached languages are not encoded again."""

    def fake_sh(cmd, log):
        recorded.append(cmd)
        langs = [Path(p).name.split("_")[0] for p in cmd if p.endswith(".spacy")]
        Path(cmd[cmd.index("-o") + 1]).parent.mkdir(parents=True, exist_ok=True)
        srsly.write_msgpack(cmd[cmd.index("-o") + 1], {f"{lang}/{k}": [float(k)] for lang in langs for k in range(2)})
        return 1.0

    monkeypatch.setattr(media, "run_logged", lambda cmd, log, cwd=None: fake_sh(cmd, log))
    timings = {}
    merged = mx.project().body_cache(mx.FRAMES, ["en", "fr"], Path(tmp_path / "log"), timings)
    assert len(recorded) == 1 and corpus_langs(recorded[0]) == {"en", "fr"}
    assert set(srsly.read_msgpack(tmp_path / merged)) == {"en/0", "en/1", "fr/0", "fr/1"}
    assert set(srsly.read_msgpack(mx.WORK / "cache" / "training_frames_final__fr.msgpack")) == {"fr/0", "fr/1"}
    mx.project().body_cache(mx.FRAMES, ["en", "fr", "ge"], Path(tmp_path / "log"), timings)
    assert len(recorded) == 2 and corpus_langs(recorded[1]) == {"ge"}
    assert not list((mx.WORK / "cache").glob("*pending*"))


def test_encoder_swap_replaces_only_the_minilm_body(recorded, tmp_path):
    """--transformer: the frozen MiniLM body read from another pipeline, the run
    tagged; settings on frame_identifier's transformer refuse it."""
    (tmp_path / "training" / "e1").mkdir(parents=True)
    mx.run_cli(
        "frozen-en",
        seed=0,
        force=False,
        export=None,
        configs="configs",
        rescore=False,
        test_langs=None,
        transformer="training/e1",
        tag="mt-x",
    )
    (train,) = [c for c in recorded if c[2:4] == ["spacy", "train"]]
    assert train[train.index("--paths.transformer") + 1] == "training/e1"
    assert "training_e1__en" in train[train.index("--paths.body_cache") + 1]
    assert (tmp_path / "runs" / "frozen-en@mt-x.json").exists() and not (tmp_path / "runs" / "frozen-en.json").exists()
    with pytest.raises(typer.BadParameter, match="swaps"):
        mx.run_cli(
            "headboth-en",
            seed=0,
            force=False,
            export=None,
            configs="configs",
            rescore=False,
            test_langs=None,
            transformer="training/e1",
            tag="mt-x",
        )
    with pytest.raises(typer.BadParameter, match="needs a --tag"):
        mx.run_cli(
            "frozen-en",
            seed=0,
            force=False,
            export=None,
            configs="configs",
            rescore=False,
            test_langs=None,
            transformer="training/e1",
            tag="",
        )


def test_media_report_ablation_rows(tmp_path, monkeypatch):
    """The report's ablation table: one row per cached run of mCPT's ablation, in order."""
    assert all(name in mx.SETTINGS for _, name in mx.ABLATION)
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
    monkeypatch.setattr(mx, "RUNS", runs)
    monkeypatch.setattr(mx, "ROOT", tmp_path)
    monkeypatch.setattr(mx, "STUDY", tmp_path)
    mx.report_cli(tmp_path / "report.json")
    report = srsly.read_json(tmp_path / "report.json")
    assert [row["setting"] for row in report["ablation"]] == ["own-en", "frozen-en"]
    assert report["ablation"][0]["dev_micro_f1"] == 0.8 and report["ablation"][0]["test_macro_f1"] == 0.25
    assert report["zero_shot"] == {} and report["baselines"] is None

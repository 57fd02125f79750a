"""media_framer experiments: mCPT's training stages as one command per setting.

    python scripts/media_experiment.py run own-en           # mCPT's stages, English only
    python scripts/media_experiment.py run head-en          # head on frame_identifier's frozen transformer
    python scripts/media_experiment.py run zs-fr-use        # zero-shot: fr held out, USE body
    python scripts/media_experiment.py run headboth-multi-en  # phase one on all five languages, then English
    python scripts/media_experiment.py run lolo-fr-headboth   # its leave-one-language-out version (fr held out)
    python scripts/media_experiment.py grid --settings a,b  # several, cached
    python scripts/media_experiment.py report               # metrics/media_framer.json

A setting is a chain of stages, each a `spacy train` of configs/media_head.cfg (frozen
body: head pre- or post-training over cached article vectors) or configs/media_framer.cfg
(end-to-end contrastive fine-tuning, truncated articles). Thresholds are then tuned per
frame on dev and the result is scored on dev and test per language. Each run writes
metrics/media_framer/runs/<setting>.json and is skipped when that exists (--force reruns);
models stay under training/media/<setting>/. Tune on dev; test is read once per setting.

The stages are run, and the multilingual recipes defined, by the library
(spacy_frames.recipes.media, whose recipes `spacy-frames train-media` trains); this
script adds the ablations, the zero-shot and the leave-one-language-out settings.

Leave-one-language-out settings (`lolo-<lang>-<recipe>`, `heldout` in the spec) test on
every labelled article of the held-out language (its train, dev and test splits, as
../shared/BASELINES.md does); no stage trains on it and its dev never tunes thresholds
(`check_heldout`, run before anything else).
"""

from pathlib import Path
from typing import Dict, Optional

import srsly
import typer
from frames_lab.runs import load_runs, run_grid, write_json

from spacy_frames.recipes.media import (
    BASE,
    FRAMES,
    LANGS,
    MULTI_RECIPES,
    RECIPE_BODIES,
    RECIPES,
    MediaProject,
    e2e,
    head,
    multilingual_recipe,
    run_spec,
    summary_line,
)

STUDY = Path(__file__).resolve().parents[1]  # experiments/media_framing: its runs and models
ROOT = STUDY.parents[1]  # the product: its corpora, configs and pipelines (the commands run there)
RUNS = STUDY / "metrics" / "media_framer" / "runs"
WORK = STUDY / "training" / "media"
CORPUS = ROOT / "corpus" / "media_frames"

app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)


def project() -> MediaProject:
    """The library's media runs on this study's paths (read when called)."""
    return MediaProject(ROOT, corpus=CORPUS, work=WORK, runs=RUNS)


OTHERS = {lang: [x for x in LANGS if x != lang] for lang in LANGS}
# mCPT's stages: head pre-training (frozen body), contrastive end-to-end fine-tuning, head
# post-training (frozen body, whole articles); phase one on all languages, phase two on the
# target language. "own-en" is mCPT's recipe in English; the others are its ablations.
SETTINGS: Dict[str, Dict] = {
    "own-en": {"stages": [head(["en"]), e2e(["en"]), head(["en"], transformer="previous")], "eval": ["en"]},
    "own-en-multilingual": {
        "stages": [head(LANGS), e2e(LANGS), e2e(["en"]), head(["en"], transformer="previous")],
        "eval": ["en"],
    },
    "own-en-no-contrastive": {
        "stages": [head(["en"]), e2e(["en"], alpha=0.0), head(["en"], transformer="previous")],
        "eval": ["en"],
    },
    "own-en-no-sampler": {
        "stages": [head(["en"]), e2e(["en"], sampler=False), head(["en"], transformer="previous")],
        "eval": ["en"],
    },
    "own-en-trunc128": {
        "stages": [head(["en"]), e2e(["en"], max_tokens=128), head(["en"], transformer="previous")],
        "eval": ["en"],
    },
    "own-en-trunc512": {
        "stages": [head(["en"]), e2e(["en"], max_tokens=512, steps=75), head(["en"], transformer="previous")],
        "eval": ["en"],
    },
    "frozen-en": {"stages": [head(["en"])], "eval": ["en"]},  # without end-to-end training
    "head-en": {"stages": [head(["en"], transformer=FRAMES)], "eval": ["en"]},
    "headboth-en": {"stages": [head(["en"], transformer=FRAMES, body="both")], "eval": ["en"]},
    "use-en": {"stages": [head(["en"], body="use")], "eval": ["en"]},
    "both-en": {"stages": [head(["en"], body="both")], "eval": ["en"]},
    "multi-use": {"stages": [head(LANGS, body="use")], "eval": LANGS},
    "multi-both": {"stages": [head(LANGS, body="both")], "eval": LANGS},
}
# mCPT's ablation table (its Table 4) and the truncation of the end-to-end stage, as rows
# of (label, setting); `own-en` is the full recipe without the multilingual phase
ABLATION = [
    ("mCPT stages, English only (own-en)", "own-en"),
    ("+ multilingual phase one (all languages, then English)", "own-en-multilingual"),
    ("without the contrastive term (alpha 0)", "own-en-no-contrastive"),
    ("without the contrast sampler", "own-en-no-sampler"),
    ("without end-to-end training (head on the frozen body)", "frozen-en"),
    ("end-to-end stage on articles truncated to 128 tokens", "own-en-trunc128"),
    ("end-to-end stage on articles truncated to 512 tokens (75 steps)", "own-en-trunc512"),
]
for _lang in ("fr", "ge", "it", "po"):
    for _body in ("minilm", "use", "both"):
        SETTINGS[f"zs-{_lang}-{_body}"] = {
            "stages": [head(OTHERS[_lang], body=_body)],
            "eval": [_lang],
            "dev": OTHERS[_lang],
        }

# The multilingual packaged recipes (spacy_frames.recipes.media: RECIPE_BODIES,
# multilingual_recipe), tested on every language.
# `lolo-<lang>-headboth-p1`: phase one only, thresholds on the other four languages' dev.
# "-lin": a linear head (hidden_width 0), level with logistic regression leave-one-language-out
# where the hidden layer trails it (metrics/media_framer/head_probe.json).
SETTINGS.update(RECIPES)
# leave one language out: the recipe on the other four, tested on all of the held-out language
LOLO_FAMILIES = {
    "headboth-multi-en": "headboth",
    "use-multi-en": "use",
    "headboth-multi-p1": "headboth-p1",
    "headboth-multi-en-a0": "headboth-a0",
    "use-multi-en-a0": "use-a0",
    "headboth-multi-en-a0-lin": "headboth-a0-lin",
    "use-multi-en-a0-lin": "use-a0-lin",
}
for _lang in LANGS:
    for _body in RECIPE_BODIES:
        SETTINGS[f"lolo-{_lang}-{_body}"] = {
            **multilingual_recipe(OTHERS[_lang], _body),
            "eval": [_lang],
            "heldout": _lang,
            "test_splits": ["train", "dev", "test"],
        }
    if _lang != "en":  # without English there is no English phase: lolo-en-headboth is phase one only
        SETTINGS[f"lolo-{_lang}-headboth-p1"] = {
            **multilingual_recipe(OTHERS[_lang], "headboth", english_phase=False),
            "eval": [_lang],
            "heldout": _lang,
            "test_splits": ["train", "dev", "test"],
        }
# the earlier recipe: the English-only packaged recipe on every labelled article of the languages it never saw
SETTINGS["headboth-en-unseen"] = {
    "stages": [head(["en"], transformer=FRAMES, body="both")],
    "eval": OTHERS["en"],
    "dev": ["en"],
    "test_splits": ["train", "dev", "test"],
}


def lolo_setting(family: str, lang: str) -> str:
    """The leave-one-language-out setting of a recipe family for one held-out language."""
    suffix = LOLO_FAMILIES[family]
    if suffix == "headboth-p1" and lang == "en":
        suffix = "headboth"
    return f"lolo-{lang}-{suffix}"


# ../shared/BASELINES.md's multilingual zero-shot floor (frozen USE + LR on the other four
# languages, one threshold 0.3, every labelled article of the held-out one), as quoted
# there; `media_baselines.py --only lolo` re-measures it (baselines.json: "lolo")
BASELINES_MD_LOLO = {"en": 0.551, "fr": 0.551, "ge": 0.623, "it": 0.594, "po": 0.584, "mean": 0.581}


def check_heldout(spec: Dict) -> None:
    """A leave-one-language-out setting must not train on, or tune thresholds on, its held-out language."""
    held = spec.get("heldout")
    if held is None:
        return
    for k, stage in enumerate(spec["stages"]):
        if held in stage["langs"]:
            raise ValueError(f"stage {k} trains on the held-out language {held!r}")
    if held in spec.get("dev", spec["eval"]):
        raise ValueError(f"thresholds would be tuned on the held-out language {held!r}")
    if spec["eval"] != [held]:
        raise ValueError(f"a leave-one-language-out setting tests on its held-out language only, not {spec['eval']}")


def with_encoder(spec: Dict, transformer: str) -> Dict:
    """The setting with the MiniLM body's transformer pipeline (`BASE`) replaced, nothing
    else changed (a component re-trained on a mid-tuned encoder). Only for
    settings whose head stages read `BASE` (or the previous stage's model); an end-to-end
    stage starts from the previous stage's model, which then holds the swapped body."""
    other = [
        stage["transformer"]
        for stage in spec["stages"]
        if stage["kind"] == "head" and stage["body"] != "use" and stage["transformer"] not in (BASE, "previous")
    ]
    if other or spec["stages"][0]["kind"] == "e2e":
        raise ValueError(
            f"--transformer swaps {BASE} in head stages; this setting's stages read {', '.join(other) or 'it end to end first'}"
        )
    stages = [
        {**stage, "transformer": transformer} if stage["kind"] == "head" and stage["transformer"] == BASE else stage
        for stage in spec["stages"]
    ]
    return {**spec, "stages": stages}


@app.command("run")
def run_cli(
    setting: str = typer.Argument(..., help=f"One of: {', '.join(SETTINGS)}"),
    seed: int = typer.Option(0, "--seed"),
    force: bool = typer.Option(False, "--force", help="Rerun even if the run's JSON exists"),
    export: Optional[Path] = typer.Option(None, "--export", help="Copy the final (threshold-tuned) pipeline here"),
    configs: str = typer.Option("configs", "--configs", help="Directory of the media_*.cfg configs"),
    rescore: bool = typer.Option(
        False, "--rescore", help="Keep a cached run's model: only re-tune thresholds and re-score"
    ),
    test_langs: Optional[str] = typer.Option(
        None,
        "--test-langs",
        help="Score test on these of the setting's languages only "
        "(comma-separated); the run is then <setting>@test-<langs>",
    ),
    transformer: Optional[str] = typer.Option(
        None,
        "--transformer",
        help=f"A transformer pipeline in place of {BASE} (the MiniLM body), e.g. a mid-tuned encoder's; needs --tag",
    ),
    tag: str = typer.Option("", "--tag", help="Suffix of the run name: <setting>@<tag>"),
):
    """Train one setting's stages, tune thresholds on dev, score dev and test."""
    if setting not in SETTINGS:
        raise typer.BadParameter(f"unknown setting {setting!r}; choose from {', '.join(SETTINGS)}")
    check_heldout(SETTINGS[setting])
    try:
        spec, name = run_spec(setting, SETTINGS[setting], test_langs.split(",") if test_langs else None, tag, seed)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from err
    if transformer:
        if not tag:
            raise typer.BadParameter("--transformer needs a --tag naming the run")
        if not (ROOT / transformer).exists():
            raise typer.BadParameter(f"--transformer {transformer!r} does not exist")
        try:
            spec = with_encoder(spec, transformer)
        except ValueError as err:
            raise typer.BadParameter(str(err)) from err
    run = project().train(setting, spec, name, seed=seed, configs=configs, force=force, rescore=rescore, export=export)
    if run is not None:
        typer.echo(summary_line(name, run))


@app.command("grid")
def grid_cli(
    settings: str = typer.Option(..., "--settings", help="Comma-separated settings"),
    seed: int = typer.Option(0, "--seed"),
):
    """Several settings in turn (each skipped when cached)."""
    run_grid(
        run_cli,
        settings.split(","),
        [seed],
        force=False,
        export=None,
        configs="configs",
        rescore=False,
        test_langs=None,
        transformer=None,
        tag="",
    )


def lolo_summary(runs: Dict[str, Dict], baselines: Optional[Dict]) -> Dict:
    """Per recipe family, micro/macro-F1 on every labelled article of each held-out language
    and their mean (over the languages run), beside the USE + LR floor; the packaged
    multilingual recipes' test scores per language."""
    floor = (baselines or {}).get("lolo", {}).get("use_lr")
    out = {
        "test": "every labelled article (train + dev + test splits) of the held-out language",
        "baseline_use_lr_baselines_md": BASELINES_MD_LOLO,
        "baseline_use_lr_remeasured": floor,
        "recipes": {},
    }
    for family in LOLO_FAMILIES:
        rows = {}
        for lang in LANGS:
            name = lolo_setting(family, lang)
            if name in runs:
                test = runs[name]["scores"]["test"][lang]
                rows[lang] = {
                    "micro_f1": test["micro_f1"],
                    "macro_f1": test["macro_f1"],
                    "n": test["n"],
                    "setting": name,
                    "trained_on": sorted({x for st in runs[name]["stages"] for x in st["langs"]}),
                    "thresholds_tuned_on": runs[name].get("dev_langs"),
                    "training_s": runs[name]["timings_s"]["training_total"],
                }
        if rows:
            mean = {m: round(sum(r[m] for r in rows.values()) / len(rows), 4) for m in ("micro_f1", "macro_f1")}
            out["recipes"][family] = {
                **rows,
                "mean": mean,
                "n_languages": len(rows),
                "bar_mean_micro_0.60": (mean["micro_f1"] >= 0.60) if len(rows) == len(LANGS) else None,
            }
    for name in (*MULTI_RECIPES, "headboth-en-unseen"):
        if name in runs:
            out.setdefault("trained_on_all", {})[name] = {
                "test": {
                    lang: {m: s[m] for m in ("micro_f1", "macro_f1", "n")}
                    for lang, s in runs[name]["scores"]["test"].items()
                },
                "dev": {
                    lang: {m: s[m] for m in ("micro_f1", "macro_f1", "n")}
                    for lang, s in runs[name]["scores"]["dev"].items()
                },
                "training_s": runs[name]["timings_s"]["training_total"],
                "threshold_tuning": runs[name].get("threshold_tuning"),
            }
    return out


@app.command("report")
def report_cli(output: Path = typer.Argument(STUDY / "metrics" / "media_framer.json")):
    """Collect the runs and the baselines into one table."""
    runs = load_runs(RUNS)
    media = project()
    for name, run in runs.items():  # runs written before threshold_tuning was recorded
        if run.get("threshold_tuning") is None and media.threshold_tuning(run["model"]) is not None:
            run["threshold_tuning"] = media.threshold_tuning(run["model"])
            write_json(RUNS / f"{name}.json", run, writer="srsly")
    baselines_path = STUDY / "metrics" / "media_framer" / "baselines.json"
    summary = {
        "runs": {
            name: {
                "test": run["scores"]["test"],
                "dev": run["scores"]["dev"],
                "threshold_tuning": run.get("threshold_tuning"),
                "timings_s": run["timings_s"],
            }
            for name, run in runs.items()
        },
        "baselines": srsly.read_json(baselines_path) if baselines_path.exists() else None,
    }
    zero_shot = {}
    for body in ("minilm", "use", "both"):
        per_lang = {
            lang: runs[f"zs-{lang}-{body}"]["scores"]["test"][lang]
            for lang in ("fr", "ge", "it", "po")
            if f"zs-{lang}-{body}" in runs
        }
        if per_lang:
            zero_shot[body] = {
                **{k: {"micro_f1": v["micro_f1"], "macro_f1": v["macro_f1"]} for k, v in per_lang.items()},
                "mean": {
                    m: round(sum(v[m] for v in per_lang.values()) / len(per_lang), 4) for m in ("micro_f1", "macro_f1")
                },
                "n_languages": len(per_lang),
            }
    summary["zero_shot"] = zero_shot
    summary["leave_one_language_out"] = lolo_summary(runs, summary["baselines"])
    summary["ablation"] = [
        {
            "row": label,
            "setting": name,
            "training_s": runs[name]["timings_s"]["training_total"],
            **{
                f"{split}_{m}": runs[name]["scores"][split]["en"][m]
                for split in ("dev", "test")
                for m in ("micro_f1", "macro_f1")
            },
        }
        for label, name in ABLATION
        if name in runs
    ]
    write_json(output, summary, writer="srsly")
    typer.echo(f"{len(runs)} runs -> {output}")


if __name__ == "__main__":
    app()

"""discourse_sense experiments: the ablations of Long & Webber (2022) over seeds, one run at a time.

    python scripts/discourse_experiment.py run full --seed 0
    python scripts/discourse_experiment.py run full --seed 0 --variant head
    python scripts/discourse_experiment.py report metrics/discourse_sense.json

A run trains configs/discourse.cfg with the setting's overrides (`spacy train`, timed),
then scores GDTB dev and test and DiscoGeM test (implicit relations, arguments given) and
writes metrics/discourse_sense/runs/<setting>[-head]_seed<k>.json; a run whose JSON exists
is skipped (--force re-runs), so the tables can be built over several sessions. Choose
settings on dev: the report shows dev beside test. Models stay under training/discourse/.
"""
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import srsly
import typer

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "metrics" / "discourse_sense" / "runs"
WORK = ROOT / "training" / "discourse"
CORPUS = ROOT / "corpus" / "discourse"

# the ablations train 600 steps (dev scored every 200); the configs' own length is the
# main job's (configs/discourse.cfg: 360, to stay within its 15-minute budget)
ABLATION_STEPS = {"training.max_steps": 600, "training.eval_frequency": 200}
FULL_METHOD = {"components.discourse_sense.head_weights": [1.0, 1.0, 0.0], "components.discourse_sense.contrastive_weight": 1.0, "corpora.train.augment": True}
FULL = {**FULL_METHOD, **ABLATION_STEPS}
# the paper's ablation ladder (Table 4) and negative sets (Figure 5); `packaged` is what
# the main job trains: the full method plus the finest-sense head that en_frames_trf
# needs to name level-3 senses, at the variant config's own length
SETTINGS: Dict[str, dict] = {
    "ce-l2": {"components.discourse_sense.head_weights": [0.0, 1.0, 0.0], "components.discourse_sense.contrastive_weight": 0.0, "corpora.train.augment": False, **ABLATION_STEPS},
    "ce-multitask": {"components.discourse_sense.head_weights": [1.0, 1.0, 0.0], "components.discourse_sense.contrastive_weight": 0.0, "corpora.train.augment": False, **ABLATION_STEPS},
    "contrastive": {**FULL, "corpora.train.augment": False},
    "full": FULL,
    "neg-all": {**FULL, "components.discourse_sense.contrastive.negatives": "all"},
    "neg-other-level1": {**FULL, "components.discourse_sense.contrastive.negatives": "other-level1"},
    "packaged": {**FULL_METHOD, "components.discourse_sense.head_weights": [1.0, 1.0, 1.0]},
}
VARIANTS = {"own": "configs/discourse.cfg", "head": "configs/discourse_head.cfg"}
EVAL_SETS = {"gdtb_dev": "gdtb_dev.spacy", "gdtb_test": "gdtb_test.spacy", "discogem_test": "discogem_test.spacy"}

app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf8")


def overrides_for(setting: Dict[str, object]) -> List[str]:
    return [part for key, value in setting.items() for part in ("--" + key, json.dumps(value))]


# fmt: off
@app.command("run")
def run_cli(
    setting: str = typer.Argument(..., help=f"One of {list(SETTINGS)}"),
    seed: int = typer.Option(0, "--seed"),
    variant: str = typer.Option("own", "--variant", help="own: fine-tune an own encoder copy; head: frozen frame_identifier transformer"),
    train_sets: str = typer.Option("gdtb", "--train", help="gdtb or gdtb+discogem"),
    override: List[str] = typer.Option([], "--override", help="Extra `spacy train` override, e.g. training.max_steps=300"),
    tag: str = typer.Option("", "--tag", help="Suffix of the run name for a setting tried on dev"),
    force: bool = typer.Option(False, "--force"),
    gpu_id: int = typer.Option(-1, "--gpu-id", help="GPU for training and scoring (-1: CPU)"),
):
    # fmt: on
    """Train one (setting, seed) and score it; skipped when its JSON exists."""
    import spacy

    from spacy_frames.discourse_eval import evaluate_corpus

    if setting not in SETTINGS:
        raise typer.BadParameter(f"unknown setting {setting!r}; choose from {list(SETTINGS)}")
    if variant not in VARIANTS or train_sets not in ("gdtb", "gdtb+discogem"):
        raise typer.BadParameter("variant: own|head; --train: gdtb|gdtb+discogem")
    name = setting + ("-head" if variant == "head" else "") + ("+discogem" if train_sets != "gdtb" else "") + (f"@{tag}" if tag else "")
    out_json = RUNS / f"{name}_seed{seed}.json"
    if out_json.exists() and not force:
        typer.echo(f"✔ {out_json} exists: skipped (--force re-runs)")
        return
    train = [str(CORPUS / "gdtb_train.spacy")] + ([str(CORPUS / "discogem_train.spacy")] if train_sets != "gdtb" else [])
    out = WORK / name / f"seed{seed}"
    model = out / "model-best"
    start = time.time()
    if not model.exists():
        out.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, str(ROOT / "scripts" / "timed.py"), str(out / "timing.json"), "--",
               sys.executable, "-m", "spacy", "train", str(ROOT / VARIANTS[variant]), "--output", str(out),
               "--paths.train", json.dumps(train), "--system.seed", str(seed), *overrides_for(SETTINGS[setting]),
               *[part for item in override for part in ("--" + item.split("=", 1)[0], item.split("=", 1)[1])],
               "--gpu-id", str(gpu_id)]
        subprocess.run(cmd, check=True)
    trained = time.time()
    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
    nlp = spacy.load(model)
    result = {"setting": setting, "variant": variant, "train": train_sets, "seed": seed, "overrides": SETTINGS[setting], "extra_overrides": override}
    for key, filename in EVAL_SETS.items():
        scores, _, _ = evaluate_corpus(nlp, CORPUS / filename)
        result[key] = scores
    result["timing"] = {"train_s": round(trained - start, 1), "eval_s": round(time.time() - trained, 1), "device": "gpu" if gpu_id >= 0 else "cpu"}
    if (out / "timing.json").exists():
        result["timing"]["train_timing"] = srsly.read_json(out / "timing.json")
    write_json(out_json, result)
    typer.echo(json.dumps({k: {lvl: {m: result[k][lvl][m] for m in ("acc", "macro_f1")} for lvl in ("l1", "l2")} for k in EVAL_SETS}, indent=1))


# fmt: off
@app.command("grid")
def grid_cli(
    settings: str = typer.Option(",".join(SETTINGS), "--settings", help="Comma-separated settings"),
    seeds: str = typer.Option("0,1,2", "--seeds", help="Comma-separated seeds"),
    variant: str = typer.Option("own", "--variant"),
    train_sets: str = typer.Option("gdtb", "--train"),
):
    # fmt: on
    """Every (setting, seed) in turn, seed-major (one seed of every setting first); runs
    that exist are skipped, so the grid resumes where it stopped."""
    for seed in [int(s) for s in seeds.split(",")]:
        for setting in settings.split(","):
            run_cli(setting, seed=seed, variant=variant, train_sets=train_sets, override=[], tag="", force=False, gpu_id=-1)


@app.command("dev-compare")
def dev_compare_cli(
    names: List[str] = typer.Argument(..., help="Trained run names, e.g. full full+discogem (models under training/discourse/)"),
    seed: int = typer.Option(0, "--seed", help="Seed whose models exist"),
    output: Path = typer.Option(ROOT / "metrics" / "discourse_sense" / "dev_compare.json", "--output"),
):
    """Dev-only choices on trained models: each with joint and top-down decoding, on GDTB
    dev and DiscoGeM dev (the second genre's dev set; test sets are never read). Merges
    into metrics/discourse_sense/dev_compare.json."""
    import spacy

    from spacy_frames.discourse_eval import evaluate_corpus
    from spacy_frames.pipeline.discourse_sense import DECODINGS

    out = srsly.read_json(output) if output.exists() else {}
    for name in names:
        model = WORK / name / f"seed{seed}" / "model-best"
        if not model.exists():
            raise typer.BadParameter(f"no model at {model}: train it with `run` (add --force when its run JSON is already cached)")
        for decoding in DECODINGS:
            nlp = spacy.load(model, config={"components": {"discourse_sense": {"decoding": decoding}}})
            for dev_set in ("gdtb_dev", "discogem_dev"):
                scores, _, _ = evaluate_corpus(nlp, CORPUS / f"{dev_set}.spacy")
                key = f"{name}_seed{seed}/{decoding}/{dev_set}"
                out[key] = {lvl: {m: scores[lvl][m] for m in ("acc", "macro_f1")} for lvl in ("l1", "l2")}
                typer.echo(f"{key}: {out[key]}")
    write_json(output, out)


@app.command("report")
def report_cli(output: Path = typer.Argument(ROOT / "metrics" / "discourse_sense.json")):
    """Mean ± sd over seeds of every run name, dev beside test, and the per-sense table."""
    from spacy_frames.discourse_eval import summarize_runs

    runs = {p.stem: srsly.read_json(p) for p in sorted(RUNS.glob("*.json"))}
    if not runs:
        raise typer.BadParameter(f"no runs in {RUNS}: run some first")
    summary = summarize_runs(runs, list(EVAL_SETS))
    data = ROOT / "metrics" / "discourse_data.json"
    if data.exists():
        summary["data"] = srsly.read_json(data)
    write_json(output, summary)
    for line in summary["table"]:
        typer.echo(line)


if __name__ == "__main__":
    app()

"""discourse_sense experiments: the ablations of Long & Webber (2022) over seeds, one run at a time.

    python scripts/discourse_experiment.py run full --seed 0
    python scripts/discourse_experiment.py run full --seed 0 --variant head
    python scripts/discourse_experiment.py report metrics/discourse_sense.json

A run trains configs/discourse.cfg with the setting's overrides (`spacy train`, timed),
then scores GDTB dev and test and DiscoGeM test (implicit relations, arguments given) and
writes metrics/discourse_sense/runs/<setting>[-head]_seed<k>.json; a run whose JSON exists
is skipped (--force re-runs), so the tables can be built over several invocations. Choose
settings on dev: the report shows dev beside test. Models stay under training/discourse/.
"""

import json
import time
from pathlib import Path
from typing import Dict, List

import srsly
import typer
from frames_lab.runs import (
    dev_curve,
    finished_training,
    is_cached,
    override_args,
    report,
    run_grid,
    setting_args,
    timed_train,
    train_timing,
    use_gpu,
    write_json,
)

STUDY = Path(__file__).resolve().parents[1]  # experiments/discourse: its runs and models
ROOT = STUDY.parents[1]  # the product: its corpora, configs and encoder
RUNS = STUDY / "metrics" / "discourse_sense" / "runs"
WORK = STUDY / "training" / "discourse"
CORPUS = ROOT / "corpus" / "discourse"

# the ablations train 600 steps (dev scored every 200); the configs' own length is the
# main job's (configs/discourse.cfg: 360, to stay within its 15-minute budget)
ABLATION_STEPS = {"training.max_steps": 600, "training.eval_frequency": 200}
FULL_METHOD = {
    "components.discourse_sense.head_weights": [1.0, 1.0, 0.0],
    "components.discourse_sense.contrastive_weight": 2.0,
    "corpora.train.augment": True,
}
FULL = {**FULL_METHOD, **ABLATION_STEPS}
# the paper's ablation ladder (Table 4) and negative sets (Figure 5); `packaged` is what
# the main job trains: the full method plus the finest-sense head that en_frames_trf
# needs to name level-3 senses, at the variant config's own length
SETTINGS: Dict[str, dict] = {
    "ce-l2": {
        "components.discourse_sense.head_weights": [0.0, 1.0, 0.0],
        "components.discourse_sense.contrastive_weight": 0.0,
        "corpora.train.augment": False,
        **ABLATION_STEPS,
    },
    "ce-multitask": {
        "components.discourse_sense.head_weights": [1.0, 1.0, 0.0],
        "components.discourse_sense.contrastive_weight": 0.0,
        "corpora.train.augment": False,
        **ABLATION_STEPS,
    },
    "contrastive": {**FULL, "corpora.train.augment": False},
    "full": FULL,
    "neg-all": {**FULL, "components.discourse_sense.contrastive.negatives": "all"},
    "neg-other-level1": {**FULL, "components.discourse_sense.contrastive.negatives": "other-level1"},
    "packaged": {
        **FULL_METHOD,
        "components.discourse_sense.head_weights": [1.0, 1.0, 1.0],
        "training.max_steps": 210,
        "training.optimizer.learn_rate.warmup_steps": 21,
    },
    # what the main job trains (configs/discourse.cfg): multi-task CE with the finest-sense
    # head and no copies, 4 epochs; `packaged` is the full method at the same compute
    # (2 epochs, each relation with its copy)
    "packaged-ce": {
        "components.discourse_sense.head_weights": [1.0, 1.0, 1.0],
        "components.discourse_sense.contrastive_weight": 0.0,
        "corpora.train.augment": False,
        "training.max_steps": 420,
        "training.optimizer.learn_rate.warmup_steps": 42,
    },
}
VARIANTS = {"own": "configs/discourse.cfg", "head": "configs/discourse_head.cfg"}
EVAL_SETS = {"gdtb_dev": "gdtb_dev.spacy", "gdtb_test": "gdtb_test.spacy", "discogem_test": "discogem_test.spacy"}

app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)


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
    epochs: int = typer.Option(0, "--epochs", help="Train N epochs over the original relations (dev scored every epoch, warm-up 10 %, best epoch kept); 0: the setting's steps. Adds @e<N> to the run name"),
):
    # fmt: on
    """Train one (setting, seed) and score it; skipped when its JSON exists."""
    import spacy

    from spacy_frames.scoring.discourse_eval import evaluate_corpus

    if setting not in SETTINGS:
        raise typer.BadParameter(f"unknown setting {setting!r}; choose from {list(SETTINGS)}")
    if variant not in VARIANTS or train_sets not in ("gdtb", "gdtb+discogem"):
        raise typer.BadParameter("variant: own|head; --train: gdtb|gdtb+discogem")
    tag = "@".join(t for t in (f"e{epochs}" if epochs else "", tag) if t)
    name = setting + ("-head" if variant == "head" else "") + ("+discogem" if train_sets != "gdtb" else "") + (f"@{tag}" if tag else "")
    out_json = RUNS / f"{name}_seed{seed}.json"
    if is_cached(out_json, force):
        return
    train = [str(CORPUS / "gdtb_train.spacy")] + ([str(CORPUS / "discogem_train.spacy")] if train_sets != "gdtb" else [])
    overrides = {**SETTINGS[setting], "paths.train": train, "system.seed": seed}
    if epochs:
        overrides.update(epoch_overrides(VARIANTS[variant], overrides, epochs))
    composition = batch_composition(VARIANTS[variant], overrides)
    typer.echo(f"batches of one epoch: {composition}")
    out = WORK / name / f"seed{seed}"
    model = out / "model-best"
    start = time.time()
    if not finished_training(out):  # an interrupted run leaves model-best / model-last behind
        out.mkdir(parents=True, exist_ok=True)
        timed_train(ROOT, ROOT / VARIANTS[variant], out, [*setting_args(overrides), *override_args(override)], gpu_id)
    trained = time.time()
    use_gpu(gpu_id)
    nlp = spacy.load(model)
    result = {"setting": setting, "variant": variant, "train": train_sets, "seed": seed, "epochs": epochs or None,
              "overrides": {k: v for k, v in overrides.items() if k not in ("paths.train", "system.seed")},
              "extra_overrides": override, "batch_composition": composition}
    result["predictions"] = {}
    for key, filename in EVAL_SETS.items():
        scores, predicted, _ = evaluate_corpus(nlp, CORPUS / filename)
        result[key] = scores
        result["predictions"][key] = predicted
    result["timing"] = {"train_s": round(trained - start, 1), "eval_s": round(time.time() - trained, 1), "device": "gpu" if gpu_id >= 0 else "cpu"}
    timing, curve = train_timing(out), dev_curve(out)
    if timing is not None:
        result["timing"]["train_timing"] = timing
    if curve is not None:
        result["dev_curve"] = curve
    write_json(out_json, result)
    typer.echo(json.dumps({k: {lvl: {m: result[k][lvl][m] for m in ("acc", "macro_f1")} for lvl in ("l1", "l2")} for k in EVAL_SETS}, indent=1))


def load_run_config(config_path: str, overrides: Dict[str, object]):
    from spacy.util import load_config

    return load_config(ROOT / config_path, overrides={"paths.encoder": str(ROOT / "assets/encoders/all-MiniLM-L6-v2"), **overrides}, interpolate=True)


def train_corpus_batches(config_path: str, overrides: Dict[str, object]):
    """One epoch of training batches as `spacy train` builds them (examples shuffled
    with the training seed, then the configured batcher), without the transformer."""
    import random

    import spacy
    from spacy.util import registry

    config = load_run_config(config_path, overrides)
    nlp = spacy.blank(config["nlp"]["lang"])
    corpus = registry.resolve({"train": config["corpora"]["train"]})["train"]
    batcher = registry.resolve({"batcher": config["training"]["batcher"]})["batcher"]
    examples = list(corpus(nlp))
    random.Random(config["training"]["seed"]).shuffle(examples)
    return list(batcher(examples))


def epoch_overrides(config_path: str, overrides: Dict[str, object], epochs: int) -> Dict[str, object]:
    """Steps for `epochs` passes over the training relations, dev scored every epoch,
    warm-up 10 % of the steps (the authors' schedule)."""
    per_epoch = len(train_corpus_batches(config_path, overrides))
    steps = per_epoch * epochs
    return {"training.max_steps": steps, "training.eval_frequency": per_epoch,
            "training.optimizer.learn_rate.warmup_steps": max(1, steps // 10)}


def batch_composition(config_path: str, overrides: Dict[str, object]) -> Dict[str, object]:
    """What one epoch's batches give the contrastive loss (positives per anchor, copies
    beside their originals): written into every run's JSON."""
    from spacy_frames.corpora.batching import relation_batch_stats

    return relation_batch_stats(train_corpus_batches(config_path, overrides))


# fmt: off
@app.command("batch-stats")
def batch_stats_cli(
    setting: str = typer.Argument("full", help=f"One of {list(SETTINGS)}"),
    variant: str = typer.Option("own", "--variant"),
    override: List[str] = typer.Option([], "--override", help="e.g. training.batcher.size=64"),
):
    # fmt: on
    """Batch composition of one epoch of a setting (no training)."""
    extra = {item.split("=", 1)[0]: json.loads(item.split("=", 1)[1]) for item in override}
    typer.echo(json.dumps(batch_composition(VARIANTS[variant], {**SETTINGS[setting], **extra}), indent=1))


# fmt: off
@app.command("grid")
def grid_cli(
    settings: str = typer.Option(",".join(SETTINGS), "--settings", help="Comma-separated settings"),
    seeds: str = typer.Option("0,1,2", "--seeds", help="Comma-separated seeds"),
    variant: str = typer.Option("own", "--variant"),
    train_sets: str = typer.Option("gdtb", "--train"),
    epochs: int = typer.Option(0, "--epochs", help="As for `run`"),
):
    # fmt: on
    """Every (setting, seed) in turn, seed-major (one seed of every setting first); runs
    that exist are skipped, so the grid resumes where it stopped."""
    run_grid(run_cli, settings.split(","), [int(s) for s in seeds.split(",")], variant=variant, train_sets=train_sets, override=[], tag="",
             force=False, gpu_id=-1, epochs=epochs)


@app.command("dev-compare")
def dev_compare_cli(
    names: List[str] = typer.Argument(..., help="Trained run names, e.g. full full+discogem (models under training/discourse/)"),
    seed: int = typer.Option(0, "--seed", help="Seed whose models exist"),
    output: Path = typer.Option(STUDY / "metrics" / "discourse_sense" / "dev_compare.json", "--output"),
):
    """Dev-only choices on trained models: each with joint and top-down decoding, on GDTB
    dev and DiscoGeM dev (the second genre's dev set; test sets are never read). Merges
    into metrics/discourse_sense/dev_compare.json."""
    import spacy

    from spacy_frames.pipeline.discourse_sense import DECODINGS
    from spacy_frames.scoring.discourse_eval import evaluate_corpus

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


# fmt: off
@app.command("compare")
def compare_cli(
    name_a: str = typer.Argument(..., help="Run name of system A, e.g. full@e5"),
    name_b: str = typer.Argument(..., help="Run name of system B, e.g. ce-multitask@e5"),
    seeds: str = typer.Option("0,1,2,3,4", "--seeds"),
    eval_set: str = typer.Option("gdtb_test", "--set", help=f"One of {list(EVAL_SETS)}"),
    resamples: int = typer.Option(1000, "--resamples"),
):
    # fmt: on
    """Paired bootstrap over the relations of one set: A minus B (each averaged over its
    seeds), 95 % interval; writes metrics/discourse_sense/compare/<A>_vs_<B>_<set>.json.
    Runs without stored predictions are predicted again from their saved model."""
    import spacy

    from spacy_frames.scoring.discourse_eval import evaluate_corpus, paired_bootstrap

    used: Dict[str, List[int]] = {}

    def predictions(name: str) -> List[List[str]]:
        runs = []
        for seed in [int(x) for x in seeds.split(",")]:
            path = RUNS / f"{name}_seed{seed}.json"
            if not path.exists():
                continue
            used.setdefault(name, []).append(seed)
            run = srsly.read_json(path)
            if eval_set not in run.get("predictions", {}):
                model = WORK / name / f"seed{seed}" / "model-best"
                if not model.exists():
                    raise typer.BadParameter(f"{path} has no predictions and {model} is gone: re-run it with --force")
                _, predicted, _ = evaluate_corpus(spacy.load(model), CORPUS / EVAL_SETS[eval_set])
                run.setdefault("predictions", {})[eval_set] = predicted
                write_json(path, run)
            runs.append(run["predictions"][eval_set])
        if not runs:
            raise typer.BadParameter(f"no runs of {name} for seeds {seeds}")
        return runs

    from spacy.tokens import DocBin

    from spacy_frames.extensions import install_extensions

    install_extensions()
    nlp = spacy.blank("en")
    gold = [list(d._.discourse_gold["senses"]) for d in DocBin().from_disk(CORPUS / EVAL_SETS[eval_set]).get_docs(nlp.vocab)
            if d._.discourse_gold and d._.discourse_gold.get("senses")]
    runs_a, runs_b = predictions(name_a), predictions(name_b)
    # the seeds each side was averaged over (a seed still training is left out)
    result = {"a": name_a, "b": name_b, "set": eval_set, "seed_list_a": used[name_a], "seed_list_b": used[name_b],
              **paired_bootstrap(runs_a, runs_b, gold, n_resamples=resamples)}
    write_json(STUDY / "metrics" / "discourse_sense" / "compare" / f"{name_a}_vs_{name_b}_{eval_set}.json", result)
    typer.echo(json.dumps(result, indent=1))


@app.command("report")
def report_cli(output: Path = typer.Argument(STUDY / "metrics" / "discourse_sense.json")):
    """Mean ± sd over seeds of every run name, dev beside test, and the per-sense table."""
    from spacy_frames.scoring.discourse_eval import summarize_runs

    report(RUNS, output, lambda runs: summarize_runs(runs, list(EVAL_SETS)), ROOT / "metrics" / "discourse_data.json")


if __name__ == "__main__":
    app()

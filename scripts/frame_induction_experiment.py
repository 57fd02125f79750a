"""The frame-induction table (Yamada et al. 2023, Table 3), one (system, fold) step at a time.

    python scripts/frame_induction_experiment.py run vanilla --fold 0
    python scripts/frame_induction_experiment.py run arcface --fold 0
    python scripts/frame_induction_experiment.py run arcface --fold 0 --variant head
    python scripts/frame_induction_experiment.py report metrics/frame_inducer.json

Variants: `own` (configs/inducer.cfg) fine-tunes the inducer's own copy of the encoder;
`head` (configs/inducer_head.cfg) trains a projection head on the frozen transformer of
frame_identifier (training/frames_final); its runs are named <system>-head.

A step trains the system's frame_inducer on the rotation's train fold (configs/inducer.cfg
with the system's loss; `vanilla` is the untrained encoder), embeds the dev and test folds,
chooses alpha and calibrates the stopping criteria on dev, clusters test and writes
metrics/frame_inducer/runs/<system>_fold<k>.json. A step whose JSON exists is skipped
(--force re-runs it), so the table can be built over several sessions; `report` builds
metrics/frame_inducer.json from whatever steps exist. Models and embeddings stay under
training/frame_induction/ (never committed).
"""
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import srsly
import typer

from spacy_frames.corpora.frame_induction import N_FOLDS, fold_rotation

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "metrics" / "frame_inducer" / "runs"
WORK = ROOT / "training" / "frame_induction"
CORPUS = ROOT / "corpus" / "frame_induction"

# the losses compared (spacy-frames.*Loss.v1); margins chosen on dev from the authors'
# candidates (`tune`, inducer-dev-tuning; README): contrastive 0.1 / 0.2 / 0.5 / 1.0,
# ArcFace 0.01 / 0.02 / 0.05 / 0.1 rad (in degrees here), scale 64
VARIANTS = {
    "own": ("configs/inducer.cfg", "training/transformer", ""),
    "head": ("configs/inducer_head.cfg", "training/frames_final", "-head"),
}
SYSTEMS: Dict[str, Optional[dict]] = {
    "vanilla": None,
    "triplet": {"@losses": "spacy-frames.TripletLoss.v1", "margin": 0.1},
    "contrastive": {"@losses": "spacy-frames.ContrastiveLoss.v1", "pos_margin": 0.0, "neg_margin": 1.0},
    "softmax": {"@losses": "spacy-frames.SoftmaxLoss.v1"},
    "arcface": {"@losses": "spacy-frames.ArcFaceLoss.v1", "margin": 2.865, "scale": 64.0},
    "adacos": {"@losses": "spacy-frames.AdaCosLoss.v1"},
}

app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)


def write_json(path: Path, data) -> None:
    # the stdlib writes 0.7 as 0.7 (srsly's ujson: 0.7000000000000001)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf8")


def fold_path(k: int) -> Path:
    return CORPUS / f"fold{k}.spacy"


def use_gpu(gpu_id: int) -> None:
    """Embed on the GPU (training gets `--gpu-id`); -1 keeps everything on the CPU."""
    if gpu_id >= 0:
        import spacy

        spacy.require_gpu(gpu_id)


def train_system(system: str, name: str, fold: int, config: Path, overrides: List[str], encoder: str, transformer: str, gpu_id: int = -1) -> Path:
    """Train (or, for vanilla, assemble) the rotation's pipeline; returns its path."""
    import spacy

    rotation = fold_rotation(fold)
    out = WORK / name / f"fold{fold}"
    model = out / ("model" if system == "vanilla" else "model-last")
    if model.exists():
        return model
    cfg = spacy.util.load_config(config)
    if SYSTEMS[system] is not None:
        cfg["components"]["frame_inducer"]["loss"] = dict(SYSTEMS[system])
    out.mkdir(parents=True, exist_ok=True)
    cfg.to_disk(out / "config.cfg")
    paths = [
        "--paths.encoder", encoder, "--paths.transformer", transformer,
        "--paths.train", json.dumps([str(fold_path(rotation["train"]))]),
        "--paths.dev", json.dumps([str(fold_path(rotation["dev"]))]),
    ]
    if system == "vanilla":
        cmd = [sys.executable, "-m", "spacy", "assemble", str(out / "config.cfg"), str(model), *paths,
               "--training.optimizer.learn_rate.total_steps", "1"]
    else:
        cmd = [sys.executable, str(ROOT / "scripts" / "timed.py"), str(out / "timing.json"), "--",
               sys.executable, "-m", "spacy", "train", str(out / "config.cfg"), "--output", str(out), *paths, *overrides,
               "--gpu-id", str(gpu_id)]
    subprocess.run(cmd, check=True)
    return model


def embeddings(model: Path, fold: int, cache: Path, with_mask: bool):
    from spacy_frames.induction_eval import embed_instances, load_embeddings, load_instances, save_embeddings

    if cache.exists():
        return load_embeddings(cache)
    import spacy

    nlp = spacy.load(model)
    data = embed_instances(nlp, load_instances(fold_path(fold), nlp.vocab), with_mask=with_mask)
    save_embeddings(cache, data)
    return data


# fmt: off
@app.command("run")
def run_cli(
    system: str = typer.Argument(..., help=f"One of {list(SYSTEMS)}"),
    fold: int = typer.Option(..., "--fold", help="Test fold of the rotation (0..2)"),
    variant: str = typer.Option("own", "--variant", help="own: fine-tune an own encoder copy; head: frozen frame_identifier transformer"),
    encoder: str = typer.Option("assets/encoders/all-MiniLM-L6-v2", "--encoder"),
    no_mask: bool = typer.Option(False, "--no-mask", help="Skip v_mask (alpha = 0 only)"),
    force: bool = typer.Option(False, "--force", help="Re-run even if the step's JSON exists"),
    override: List[str] = typer.Option([], "--override", help="Extra `spacy train` override, e.g. training.max_steps=300"),
    tag: str = typer.Option("", "--tag", help="Suffix of the run name for a setting swept on dev, e.g. m0.5"),
    gpu_id: int = typer.Option(-1, "--gpu-id", help="GPU for training and embedding (-1: CPU)"),
):
    # fmt: on
    """One (system, fold) step of the table; skipped when its JSON exists."""
    from spacy_frames.induction_eval import baselines, evaluate_fold

    if system not in SYSTEMS:
        raise typer.BadParameter(f"unknown system {system!r}; choose from {list(SYSTEMS)}")
    if variant not in VARIANTS:
        raise typer.BadParameter(f"unknown variant {variant!r}; choose from {list(VARIANTS)}")
    config, transformer, suffix = VARIANTS[variant]
    name = system + suffix + (f"@{tag}" if tag else "")
    out_json = RUNS / f"{name}_fold{fold}.json"
    if out_json.exists() and not force:
        typer.echo(f"✔ {out_json} exists: skipped (--force re-runs)")
        return
    start = time.time()
    overrides = [part for item in override for part in ("--" + item.split("=", 1)[0], item.split("=", 1)[1])]
    model = train_system(system, name, fold, ROOT / config, overrides, encoder, transformer, gpu_id)
    trained = time.time()
    use_gpu(gpu_id)
    rotation = fold_rotation(fold)
    cache = WORK / name / f"fold{fold}"
    # the untrained encoder is the same in every rotation: its embeddings of a fold are shared
    shared = WORK / name / "embeddings" if system == "vanilla" else cache
    dev = embeddings(model, rotation["dev"], shared / f"fold{rotation['dev']}.npz", not no_mask)
    test = embeddings(model, rotation["test"], shared / f"fold{rotation['test']}.npz", not no_mask)
    embedded = time.time()
    result = evaluate_fold(dev, test)
    result.update(baselines(test))
    timing = {"train_s": round(trained - start, 1), "embed_s": round(embedded - trained, 1), "cluster_s": round(time.time() - embedded, 1)}
    timing_file = cache / "timing.json"
    if timing_file.exists():
        timing["train_timing"] = srsly.read_json(timing_file)
    timing["device"] = "gpu" if gpu_id >= 0 else "cpu"
    result.update({"system": name, "variant": variant, "rotation": rotation, "timing": timing, "loss": SYSTEMS[system], "overrides": override})
    RUNS.mkdir(parents=True, exist_ok=True)
    write_json(out_json, result)
    typer.echo(json.dumps({k: result[k] for k in ("one-step", "two-step", "1cpv") if k in result}, indent=1))


# fmt: off
@app.command("tune")
def tune_cli(
    system: str = typer.Argument(..., help=f"One of {list(SYSTEMS)}"),
    fold: int = typer.Option(0, "--fold", help="Rotation whose train fold is trained on and whose dev fold scores it"),
    override: List[str] = typer.Option([], "--override", help="`spacy train` override, e.g. training.max_steps=300"),
    tag: str = typer.Option("", "--tag", help="Name of the setting, e.g. lr1e-4"),
    dev_per_lu: int = typer.Option(10, "--dev-per-lu", help="Dev instances kept per LU (the proxy's sample)"),
    encoder: str = typer.Option("assets/encoders/all-MiniLM-L6-v2", "--encoder"),
    force: bool = typer.Option(False, "--force", help="Re-run even if the setting's JSON exists"),
):
    # fmt: on
    """Score a setting on the dev fold only (the test fold is never read): train, embed
    an LU-capped dev sample, and for each alpha cluster it two-step with the stopping
    criterion calibrated on that same sample. An optimistic but even-handed proxy for
    comparing settings; writes metrics/frame_inducer/tuning/<system>@<tag>_fold<k>.json."""
    from spacy_frames.corpora.frame_induction import choose_instances
    from spacy_frames.induction_eval import embed_instances, load_instances, ranking_recall, run_method, mixed

    if system not in SYSTEMS:
        raise typer.BadParameter(f"unknown system {system!r}; choose from {list(SYSTEMS)}")
    name = system + (f"@{tag}" if tag else "")
    out_json = ROOT / "metrics" / "frame_inducer" / "tuning" / f"{name}_fold{fold}.json"
    if out_json.exists() and not force:
        typer.echo(f"✔ {out_json} exists: skipped (--force re-runs)")
        return
    overrides = [part for item in override for part in ("--" + item.split("=", 1)[0], item.split("=", 1)[1])]
    start = time.time()
    model = train_system(system, name, fold, ROOT / VARIANTS["own"][0], overrides, encoder, VARIANTS["own"][1])
    trained = time.time()
    import spacy

    nlp = spacy.load(model)
    dev_fold = fold_rotation(fold)["dev"]
    docs = load_instances(fold_path(dev_fold), nlp.vocab)
    keep = choose_instances([d.spans["targets"][0]._.lexical_unit or "" for d in docs], dev_per_lu, 0, seed=0)
    dev = embed_instances(nlp, [docs[i] for i in keep], with_mask=True)
    result = run_method("two-step", dev, dev)
    result["ranking_recall"] = ranking_recall(mixed(dev, result["alpha"]), dev["frames"], dev["lemmas"])
    result.update({"system": name, "dev_fold": dev_fold, "n_dev": len(keep), "dev_per_lu": dev_per_lu,
                   "loss": SYSTEMS[system], "overrides": override,
                   "timing": {"train_s": round(trained - start, 1), "eval_s": round(time.time() - trained, 1)}})
    out_json.parent.mkdir(parents=True, exist_ok=True)
    write_json(out_json, result)
    typer.echo(json.dumps({k: result[k] for k in ("alpha", "bcf", "pif", "dev_bcf_by_alpha", "ranking_recall")}, indent=1))


@app.command("diagnose")
def diagnose_cli(
    systems: List[str] = typer.Argument(..., help="Run names whose cached embeddings are analysed, e.g. vanilla triplet"),
    fold: int = typer.Option(0, "--fold"),
    output: Path = typer.Option(ROOT / "metrics" / "frame_inducer" / "diagnostics.json", "--output"),
):
    """Where two-step clustering loses: BcF with an oracle first step (pseudo-LUs = gold
    LUs) and with an oracle second step (each pseudo-LU takes its majority gold frame),
    next to the real two-step BcF, on the test fold's cached embeddings at the run's alpha."""
    import numpy

    from spacy_frames.clustering import cluster_scores
    from spacy_frames.clustering.induction import merge_pseudo_lus, twostep_cluster
    from spacy_frames.induction_eval import load_embeddings, mixed

    rotation = fold_rotation(fold)
    out = srsly.read_json(output) if output.exists() else {}
    for name in systems:
        run = srsly.read_json(RUNS / f"{name}_fold{fold}.json")
        cache = WORK / name / ("embeddings" if name == "vanilla" else f"fold{fold}")
        test = load_embeddings(cache / f"fold{rotation['test']}.npz")
        params, alpha = run["two-step"]["params"], run["two-step"]["alpha"]
        X = mixed(test, alpha)
        labels, plu = twostep_cluster(X, test["lemmas"], params)
        _, lu = numpy.unique([f"{a}|{b}" for a, b in zip(test["lemmas"], test["frames"])], return_inverse=True)
        oracle1 = merge_pseudo_lus(X, lu.ravel(), params)
        majority = numpy.empty(len(X), dtype=object)
        for p_id in numpy.unique(plu):
            rows = numpy.where(plu == p_id)[0]
            values, counts = numpy.unique(test["frames"][rows], return_counts=True)
            majority[rows] = values[counts.argmax()]
        oracle2 = majority.astype(str)
        out[f"{name}_fold{fold}"] = {
            "alpha": round(alpha, 1), "n_plu": int(plu.max()) + 1, "n_gold_lus": int(lu.max()) + 1,
            "two_step_bcf": round(cluster_scores(test["frames"], labels)["bcf"], 2),
            "oracle_step1_bcf": round(cluster_scores(test["frames"], oracle1)["bcf"], 2),
            "oracle_step2_bcf": round(cluster_scores(test["frames"], oracle2)["bcf"], 2),
        }
        typer.echo(f"{name}: {out[f'{name}_fold{fold}']}")
    write_json(output, out)


@app.command("report")
def report_cli(output: Path = typer.Argument(ROOT / "metrics" / "frame_inducer.json")):
    """Average every system over the folds it has, next to the per-fold baselines."""
    from spacy_frames.induction_eval import summarize_runs

    runs = {p.stem: srsly.read_json(p) for p in sorted(RUNS.glob("*.json"))}
    if not runs:
        raise typer.BadParameter(f"no runs in {RUNS}: run some steps first")
    names = [system + suffix for _, _, suffix in VARIANTS.values() for system in SYSTEMS]
    summary = summarize_runs(runs, names, N_FOLDS)
    data_file = ROOT / "metrics" / "frame_inducer_data.json"
    if data_file.exists():
        summary["data"] = srsly.read_json(data_file)
    write_json(output, summary)
    for line in summary["table"]:
        typer.echo(line)


if __name__ == "__main__":
    app()

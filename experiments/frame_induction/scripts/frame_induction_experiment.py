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
(--force re-runs it), so the table can be built over several invocations; `report` builds
metrics/frame_inducer.json from whatever steps exist. Models and embeddings stay under
training/frame_induction/ (never committed).
"""

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy
import srsly
import typer
from frames_lab.runs import (
    finished_training,
    is_cached,
    override_args,
    report,
    timed_train,
    train_timing,
    use_gpu,
    write_json,
)

from spacy_frames.corpora.frame_induction import N_FOLDS, fold_rotation

STUDY = Path(__file__).resolve().parents[1]  # experiments/frame_induction: its runs and models
ROOT = STUDY.parents[1]  # the product: its corpora, configs, encoders and pipelines
RUNS = STUDY / "metrics" / "frame_inducer" / "runs"
WORK = STUDY / "training" / "frame_induction"
CORPUS = ROOT / "corpus" / "frame_induction"
SCORE_KEYS = ("pu", "ipu", "pif", "bcp", "bcr", "bcf")

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


def fold_path(k: int) -> Path:
    return CORPUS / f"fold{k}.spacy"


TUNING = STUDY / "metrics" / "frame_inducer" / "tuning"
# the LU-capped dev proxy of the first tuning runs (10 instances per LU)
PROXY_PER_LU = 10
BATCH_SIZE = 32  # configs/inducer.cfg [training.batcher] size


def tuning_split(fold: int) -> Dict[str, int]:
    """The folds a setting is tuned on for rotation `fold` (test fold k): its own train
    fold (k + 2) and its own dev fold (k + 1), never its test fold. The dev fold of
    rotation k is the test fold of rotation k + 1, so what rotation k's dev fold chose is
    used for rotation k only (`tuned_setting`)."""
    rotation = fold_rotation(fold)
    return {"train": rotation["train"], "dev": rotation["dev"]}


def tuning_path(name: str, fold: int, dev_per_lu: int, tuning_dir: Optional[Path] = None) -> Path:
    """tuning/<name>_fold<k>.json for the LU-capped proxy (10 per LU), tuning/full_dev/...
    for the full dev fold (dev_per_lu 0), tuning/dev<N>/... for other caps."""
    tuning_dir = TUNING if tuning_dir is None else tuning_dir
    sub = "" if dev_per_lu == PROXY_PER_LU else ("full_dev" if dev_per_lu <= 0 else f"dev{dev_per_lu}")
    return (tuning_dir / sub if sub else tuning_dir) / f"{name}_fold{fold}.json"


def tuned_setting(system: str, fold: int, dev_per_lu: int = 0, tuning_dir: Optional[Path] = None) -> Dict[str, Any]:
    """The setting of `system` that rotation `fold`'s own dev fold scored best (two-step
    BcF, ties to the first name): among its tuning files for this rotation and dev
    protocol only (<system>_fold<k>.json and <system>@<tag>_fold<k>.json)."""
    directory = tuning_path("x", fold, dev_per_lu, tuning_dir).parent
    candidates = sorted(directory.glob(f"{system}_fold{fold}.json")) + sorted(
        directory.glob(f"{system}@*_fold{fold}.json")
    )
    scored = []
    for path in candidates:
        data = srsly.read_json(path)
        if data.get("dev_fold") != tuning_split(fold)["dev"]:
            raise ValueError(f"{path} was not scored on rotation {fold}'s dev fold {tuning_split(fold)['dev']}")
        scored.append((data["bcf"], path.stem[: -len(f"_fold{fold}")], data))
    if not scored:
        raise ValueError(
            f"no tuning runs of {system!r} for rotation {fold} in {directory}: run `tune {system} --fold {fold}` first"
        )
    bcf, name, data = max(scored, key=lambda item: item[0])  # max keeps the first of equals
    return {
        "name": name,
        "bcf": bcf,
        "overrides": list(data.get("overrides", [])),
        "file": str(tuning_path(name, fold, dev_per_lu, tuning_dir)),
    }


def budget_overrides(fold: int, max_per_lu: int, epochs: float) -> List[str]:
    """`spacy train` overrides for a training budget counted as the paper counts it:
    at most `max_per_lu` training instances per LU (0 = all; the paper's Table 5: 10, 30,
    100) and `epochs` passes over them in batches of 32 (warm-up 10 % of the steps)."""
    import math

    from spacy_frames.corpora.frame_induction import choose_instances, read_index

    overrides = [f"variables.max_per_lu={max_per_lu}"]
    if epochs > 0:
        index = read_index(fold_path(tuning_split(fold)["train"]))
        if index is None:
            raise ValueError(f"{fold_path(tuning_split(fold)['train'])} has no sidecar index to count its instances")
        n = len(choose_instances([f"{lu}|{frame}" for lu, frame in index], max_per_lu, 0, seed=0))
        steps = max(1, math.ceil(epochs * n / BATCH_SIZE))
        overrides += [
            f"training.max_steps={steps}",
            f"training.optimizer.learn_rate.warmup_steps={max(1, steps // 10)}",
        ]
    return overrides


DEFAULT_ENCODER = "assets/encoders/all-MiniLM-L6-v2"
# the tag of the base-encoder runs (project.yml: inducer-base-encoder)
BASE_ENCODER_TAG = "mpnet"


def product_path(path: str) -> str:
    """A path given on the command line (relative to where the command runs, e.g. this
    study's folder), relative to the product root when it lies inside it: training and
    the encoders' names read it there."""
    if not path:
        return path
    resolved = Path(path).resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(resolved)


def transformer_for(encoder: str, transformer: str) -> str:
    """The transformer pipeline the inducer's listener reads. For the default encoder it is
    the shared one; another encoder (e.g. all-mpnet-base-v2) gets its own pipeline,
    assembled once from configs/transformer.cfg, so that v_word and v_mask both come from it."""
    if Path(encoder) == Path(DEFAULT_ENCODER) or transformer != VARIANTS["own"][1]:
        return transformer
    # a mid-tuned encoder is saved as <run>/encoder: named by its run
    out = WORK / "transformers" / (Path(encoder).parent.name if Path(encoder).name == "encoder" else Path(encoder).name)
    if not out.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "spacy",
                "assemble",
                str(ROOT / "configs" / "transformer.cfg"),
                str(out),
                "--paths.encoder",
                encoder,
            ],
            check=True,
            cwd=ROOT,
        )
    return str(out)


def train_system(
    system: str,
    name: str,
    fold: int,
    config: Path,
    overrides: List[str],
    encoder: str,
    transformer: str,
    gpu_id: int = -1,
) -> Path:
    """Train (or, for vanilla, assemble) the rotation's pipeline; returns its path."""
    import spacy

    rotation = fold_rotation(fold)
    out = WORK / name / f"fold{fold}"
    model = out / ("model" if system == "vanilla" else "model-last")
    if model.exists() and (system == "vanilla" or finished_training(out)):  # model-last is also saved on interruption
        return model
    cfg = spacy.util.load_config(config)
    if SYSTEMS[system] is not None:
        cfg["components"]["frame_inducer"]["loss"] = dict(SYSTEMS[system])
    out.mkdir(parents=True, exist_ok=True)
    cfg.to_disk(out / "config.cfg")
    paths = [
        "--paths.encoder",
        encoder,
        "--paths.transformer",
        transformer,
        "--paths.train",
        json.dumps([str(fold_path(rotation["train"]))]),
        "--paths.dev",
        json.dumps([str(fold_path(rotation["dev"]))]),
    ]
    if system == "vanilla":
        subprocess.run(
            [
                sys.executable,
                "-m",
                "spacy",
                "assemble",
                str(out / "config.cfg"),
                str(model),
                *paths,
                "--training.optimizer.learn_rate.total_steps",
                "1",
            ],
            check=True,
            cwd=ROOT,
        )
    else:
        timed_train(ROOT, out / "config.cfg", out, [*paths, *overrides], gpu_id)
    return model


def embeddings(model: Path, fold: int, cache: Path, with_mask: bool):
    from spacy_frames.scoring.induction_eval import embed_instances, load_embeddings, load_instances, save_embeddings

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
    encoder: str = typer.Option(DEFAULT_ENCODER, "--encoder", help="The untrained encoder (another than MiniLM gets its own transformer pipeline)"),
    no_mask: bool = typer.Option(False, "--no-mask", help="Skip v_mask (alpha = 0 only)"),
    force: bool = typer.Option(False, "--force", help="Re-run even if the step's JSON exists"),
    override: List[str] = typer.Option([], "--override", help="Extra `spacy train` override, e.g. training.max_steps=300"),
    tag: str = typer.Option("", "--tag", help="Suffix of the run name for a setting swept on dev, e.g. m0.5"),
    gpu_id: int = typer.Option(-1, "--gpu-id", help="GPU for training and embedding (-1: CPU)"),
    tuned: bool = typer.Option(False, "--tuned", help="Use the setting this rotation's own dev fold chose (`tune ... --fold K`); the run is <system>@tuned"),
    tuned_dev_per_lu: int = typer.Option(0, "--tuned-dev-per-lu", help="Which tuning protocol --tuned reads: 0 the full dev fold, 10 the LU-capped proxy"),
    max_per_lu: int = typer.Option(-1, "--max-per-lu", help="Training instances per LU (0 = all; -1: the config's 10)"),
    epochs: float = typer.Option(0.0, "--epochs", help="Epochs over the capped training fold, batches of 32 (0: the config's 600 steps)"),
    transformer_path: str = typer.Option("", "--transformer", help="head variant: the frozen transformer's pipeline instead of training/frames_final (needs --tag)"),
):
    # fmt: on
    """One (system, fold) step of the table; skipped when its JSON exists."""
    from spacy_frames.scoring.induction_eval import baselines, evaluate_fold

    if system not in SYSTEMS:
        raise typer.BadParameter(f"unknown system {system!r}; choose from {list(SYSTEMS)}")
    if variant not in VARIANTS:
        raise typer.BadParameter(f"unknown variant {variant!r}; choose from {list(VARIANTS)}")
    config, transformer, suffix = VARIANTS[variant]
    encoder, transformer_path = product_path(encoder), product_path(transformer_path)
    if transformer_path:
        if variant != "head" or not tag:
            raise typer.BadParameter("--transformer is for --variant head, with a --tag naming the run")
        if not (ROOT / transformer_path).exists():
            raise typer.BadParameter(f"--transformer {transformer_path!r} does not exist")
        transformer = transformer_path
    chosen = None
    if tuned:
        if system == "vanilla" or tag:
            raise typer.BadParameter("--tuned picks the tag itself, for a trained system")
        chosen = tuned_setting(system + suffix, fold, tuned_dev_per_lu)
        override = chosen["overrides"] + list(override)
        typer.echo(f"rotation {fold}: {chosen['name']} (dev BcF {chosen['bcf']:.2f}, {chosen['file']})")
    if max_per_lu >= 0 or epochs > 0:
        override = budget_overrides(fold, 10 if max_per_lu < 0 else max_per_lu, epochs) + list(override)
    name = system + suffix + (f"@{tag}" if tag else "@tuned" if tuned else "")
    out_json = RUNS / f"{name}_fold{fold}.json"
    if is_cached(out_json, force):
        return
    start = time.time()
    overrides = override_args(override)
    # a tuned run reuses the model its tuning run trained (same setting, same folds)
    model_name = chosen["name"] if chosen is not None else name
    model = train_system(system, model_name, fold, ROOT / config, overrides, encoder, transformer_for(encoder, transformer), gpu_id)
    trained = time.time()
    use_gpu(gpu_id)
    rotation = fold_rotation(fold)
    cache = WORK / model_name / f"fold{fold}"
    # the untrained encoder is the same in every rotation: its embeddings of a fold are shared
    shared = WORK / model_name / "embeddings" if system == "vanilla" else cache
    dev = embeddings(model, rotation["dev"], shared / f"fold{rotation['dev']}.npz", not no_mask)
    test = embeddings(model, rotation["test"], shared / f"fold{rotation['test']}.npz", not no_mask)
    embedded = time.time()
    result = evaluate_fold(dev, test)
    result.update(baselines(test))
    timing = {"train_s": round(trained - start, 1), "embed_s": round(embedded - trained, 1), "cluster_s": round(time.time() - embedded, 1)}
    if train_timing(cache) is not None:
        timing["train_timing"] = train_timing(cache)
    timing["device"] = "gpu" if gpu_id >= 0 else "cpu"
    result.update({"system": name, "variant": variant, "rotation": rotation, "timing": timing, "loss": SYSTEMS[system], "overrides": override,
                   "transformer": transformer})
    if chosen is not None:
        result["tuned"] = {"setting": chosen["name"], "dev_bcf": chosen["bcf"], "file": chosen["file"], "dev_fold": rotation["dev"]}
    write_json(out_json, result)
    typer.echo(json.dumps({k: result[k] for k in ("one-step", "two-step", "1cpv") if k in result}, indent=1))


# fmt: off
@app.command("held-out-lus")
def held_out_lus_cli(
    fold: int = typer.Option(0, "--fold", help="Rotation (its test fold k; its dev fold k+1)"),
    output: Path = typer.Option(..., "--output", "-o", help="JSON list of lexical units to write"),
):
    """The verb lexical units of rotation `fold`'s dev and test folds ("lemma.v"): what a
    frame_identifier must not learn labelled for a clean head-variant comparison
    (`spacy-frames.FrameNetCorpus.v1`'s exclude_lexical_units)."""
    rotation = fold_rotation(fold)
    folds = srsly.read_json(ROOT / "corpus" / "frame_induction" / "folds.json")
    lus = sorted(f"{lemma}.v" for lemma, k in folds["lemmas"].items() if k in (rotation["dev"], rotation["test"]))
    write_json(output, lus)
    typer.echo(f"{len(lus)} verb LUs of folds {rotation['dev']} (dev) and {rotation['test']} (test) -> {output}")


@app.command("tune")
def tune_cli(
    system: str = typer.Argument(..., help=f"One of {list(SYSTEMS)}"),
    fold: int = typer.Option(0, "--fold", help="Rotation (its test fold k): trained on its train fold k+2, scored on its dev fold k+1"),
    override: List[str] = typer.Option([], "--override", help="`spacy train` override, e.g. training.max_steps=300"),
    tag: str = typer.Option("", "--tag", help="Name of the setting, e.g. lr1e-4"),
    dev_per_lu: int = typer.Option(PROXY_PER_LU, "--dev-per-lu", help="Dev instances kept per LU: 10 the LU-capped proxy, 0 the full dev fold (tuning/full_dev/)"),
    max_per_lu: int = typer.Option(-1, "--max-per-lu", help="Training instances per LU (0 = all; -1: the config's 10)"),
    epochs: float = typer.Option(0.0, "--epochs", help="Epochs over the capped training fold, batches of 32 (0: the config's 600 steps)"),
    encoder: str = typer.Option(DEFAULT_ENCODER, "--encoder", help="The untrained encoder (another than MiniLM gets its own transformer pipeline)"),
    force: bool = typer.Option(False, "--force", help="Re-run even if the setting's JSON exists"),
    gpu_id: int = typer.Option(-1, "--gpu-id", help="GPU for training and embedding (-1: CPU)"),
):
    # fmt: on
    """Score a setting on rotation k's own dev fold only (train fold k+2, dev fold k+1;
    its test fold k is never read): train, embed the dev fold (all of it with
    --dev-per-lu 0, else an LU-capped sample), and for each alpha cluster it two-step with
    the stopping criterion calibrated on that same dev data. Writes
    metrics/frame_inducer/tuning/[full_dev/]<system>@<tag>_fold<k>.json; `run --tuned`
    uses the best setting of each rotation for that rotation only."""
    from spacy_frames.corpora.frame_induction import choose_instances
    from spacy_frames.scoring.induction_eval import embed_instances, load_instances, mixed, ranking_recall, run_method

    if system not in SYSTEMS:
        raise typer.BadParameter(f"unknown system {system!r}; choose from {list(SYSTEMS)}")
    encoder = product_path(encoder)
    name = system + (f"@{tag}" if tag else "")
    out_json = tuning_path(name, fold, dev_per_lu, STUDY / "metrics" / "frame_inducer" / "tuning")
    if is_cached(out_json, force):
        return
    if max_per_lu >= 0 or epochs > 0:
        override = budget_overrides(fold, 10 if max_per_lu < 0 else max_per_lu, epochs) + list(override)
    overrides = override_args(override)
    start = time.time()
    model = train_system(system, name, fold, ROOT / VARIANTS["own"][0], overrides, encoder, transformer_for(encoder, VARIANTS["own"][1]), gpu_id)
    trained = time.time()
    use_gpu(gpu_id)
    import spacy

    nlp = spacy.load(model)
    dev_fold = tuning_split(fold)["dev"]
    docs = load_instances(fold_path(dev_fold), nlp.vocab)
    keep = choose_instances([d.spans["targets"][0]._.lexical_unit or "" for d in docs], max(dev_per_lu, 0), 0, seed=0)
    dev = embed_instances(nlp, [docs[i] for i in keep], with_mask=True)
    result = run_method("two-step", dev, dev)
    result["ranking_recall"] = ranking_recall(mixed(dev, result["alpha"]), dev["frames"], dev["lemmas"])
    result.update({"system": name, "rotation": fold_rotation(fold), "dev_fold": dev_fold, "n_dev": len(keep), "dev_per_lu": dev_per_lu,
                   "loss": SYSTEMS[system], "overrides": override,
                   "timing": {"train_s": round(trained - start, 1), "eval_s": round(time.time() - trained, 1)}})
    write_json(out_json, result)
    typer.echo(json.dumps({k: result[k] for k in ("alpha", "bcf", "pif", "dev_bcf_by_alpha", "ranking_recall")}, indent=1))


@app.command("diagnose")
def diagnose_cli(
    systems: List[str] = typer.Argument(..., help="Run names whose cached embeddings are analysed, e.g. vanilla triplet"),
    fold: int = typer.Option(0, "--fold"),
    output: Path = typer.Option(STUDY / "metrics" / "frame_inducer" / "diagnostics.json", "--output"),
):
    """Where two-step clustering loses: BcF with an oracle first step (pseudo-LUs = gold
    LUs) and with an oracle second step (each pseudo-LU takes its majority gold frame),
    next to the real two-step BcF, on the test fold's cached embeddings at the run's alpha."""
    import numpy

    from spacy_frames.clustering import cluster_scores
    from spacy_frames.clustering.induction import merge_pseudo_lus, twostep_cluster
    from spacy_frames.scoring.induction_eval import load_embeddings, mixed

    rotation = fold_rotation(fold)
    out = srsly.read_json(output) if output.exists() else {}
    for name in systems:
        run = srsly.read_json(RUNS / f"{name}_fold{fold}.json")
        # a tuned run's embeddings sit with the model its tuning run trained
        model_name = run.get("tuned", {}).get("setting", name)
        cache = WORK / model_name / ("embeddings" if model_name.split("@")[0] == "vanilla" else f"fold{fold}")
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
            "loss": run.get("loss"), "overrides": run.get("overrides", []),
            "alpha": round(alpha, 1), "n_plu": int(plu.max()) + 1, "n_gold_lus": int(lu.max()) + 1,
            "two_step_bcf": round(cluster_scores(test["frames"], labels)["bcf"], 2),
            "oracle_step1_bcf": round(cluster_scores(test["frames"], oracle1)["bcf"], 2),
            "oracle_step2_bcf": round(cluster_scores(test["frames"], oracle2)["bcf"], 2),
        }
        typer.echo(f"{name}: {out[f'{name}_fold{fold}']}")
    write_json(output, out)


@app.command("packaged-cut")
def packaged_cut_cli(
    model: Path = typer.Argument(ROOT / "training" / "inducer_clustered", help="Pipeline with a fitted frame_inducer"),
    vectors: Path = typer.Argument(ROOT / "training" / "inducer_fit_vectors.npz", help="The fit's embeddings (spacy-frames fit-inducer --save-vectors)"),
    corpus: Path = typer.Argument(ROOT / "corpus" / "framenet17" / "dev.spacy", help="Gold-annotated dev corpus"),
    scales: str = typer.Option("0.03125,0.0625,0.125,0.25,0.5,1,2", "--scales", help="pair_ratio multipliers tried"),
    output: Path = typer.Option(STUDY / "metrics" / "frame_inducer_fn17_dev_cut.json", "--output"),
):
    """Choose the packaged inducer's two-step cut on a dev corpus: re-cluster the fit's
    saved embeddings with pair_ratio x scale (the same first step, X-means per verb, for
    every scale) and score each assignment rule on the corpus's gold verb targets, beside
    one cluster per verb lemma. Changes nothing on disk but the JSON."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_frames.clustering import cluster_scores, one_cluster_per_lemma
    from spacy_frames.clustering.induction import merge_pseudo_lus, twostep_cluster
    from spacy_frames.extensions import install_extensions
    from spacy_frames.pipeline.frame_inducer import ASSIGNMENTS
    from spacy_frames.recipes.inducer import verb_targets
    from spacy_frames.scoring.induction_eval import embed_targets, get_inducer
    from spacy_frames.suggesters.frames import target_lemma

    install_extensions()
    start = time.time()
    nlp = spacy.load(model)
    inducer = get_inducer(nlp)
    params = dict(inducer.cluster_info["params"]["two-step"])
    base = float(params["pair_ratio"]) / float(params.get("cut_scale", 1.0))
    with numpy.load(vectors, allow_pickle=False) as f:
        X, fit_lemmas, fit_frames = f["vectors"], f["lemmas"], f["frames"]
    docs = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
    verb_targets(docs)
    targets = [list(doc.spans["targets"]) for doc in docs]
    V, _, _ = embed_targets(nlp, docs, targets, progress=False)
    spans = [s for t in targets for s in t]
    frames = numpy.array([s.label_ for s in spans])
    lemmas = [target_lemma(s) for s in spans]
    base_scores = cluster_scores(frames, one_cluster_per_lemma(lemmas))
    _, plu = twostep_cluster(X, fit_lemmas, params)
    result: Dict[str, Any] = {"base_pair_ratio": base, "n_fit": int(len(X)), "n_plu": int(plu.max()) + 1,
                              "n_verb_targets": len(spans), "1cpv": {k: round(base_scores[k], 2) for k in SCORE_KEYS}, "scales": {}}
    for scale in [float(x) for x in scales.split(",")]:
        labels = merge_pseudo_lus(X, plu, {"pair_ratio": base * scale})
        inducer.set_clusters(X, labels.tolist(), frames=fit_frames.tolist(), lemmas=fit_lemmas.tolist())
        entry = {"n_clusters": len(inducer.centroids.names)}
        for assignment in ASSIGNMENTS:
            ids = numpy.asarray(inducer.centroids.names)[inducer.assign(V, lemmas, assignment)]
            scores = cluster_scores(frames, ids)
            entry[assignment] = {k: round(scores[k], 2) for k in SCORE_KEYS}
        result["scales"][str(scale)] = entry
        typer.echo(f"scale {scale}: {entry['n_clusters']} clusters, BcF " + ", ".join(f"{a} {entry[a]['bcf']:.1f}" for a in ASSIGNMENTS)
                   + f" (1cpv {base_scores['bcf']:.1f})")
    configured = inducer.cfg["assignment"]
    best = max(result["scales"], key=lambda k: result["scales"][k][configured]["bcf"])
    result["best_scale"] = {"assignment": configured, "scale": float(best), "bcf": result["scales"][best][configured]["bcf"]}
    typer.echo(f"best for the configured assignment ({configured}): scale {best}")
    result["time_s"] = round(time.time() - start, 1)
    write_json(output, result)


def class_weight_drift(trained: numpy.ndarray, n_classes: int) -> Dict[str, float]:
    """How far the first `n_classes` rows (the training frames) of a class-weight table
    moved from their seeded start (rows of N(0, 1/width): norm about 1)."""
    from spacy_frames.ml.frame_inducer import initial_class_weights

    rows, start = trained[:n_classes], initial_class_weights(*trained.shape)[:n_classes]
    start_norm = numpy.linalg.norm(start, axis=1)
    moved = numpy.linalg.norm(rows - start, axis=1)
    cosine = (rows * start).sum(1) / numpy.linalg.norm(rows, axis=1) / start_norm
    return {"classes": n_classes, "start_row_norm": round(float(start_norm.mean()), 3), "moved_mean": round(float(moved.mean()), 3),
            "moved_min": round(float(moved.min()), 3), "cosine_to_start_mean": round(float(cosine.mean()), 3)}


@app.command("class-weights")
def class_weights_cli(
    models: List[Path] = typer.Argument(..., help="Trained inducer pipelines of a classification loss"),
    output: Path = typer.Option(STUDY / "metrics" / "frame_inducer" / "class_weights.json", "--output"),
):
    """Whether each training frame's class vector moved from its seeded
    start, so a head that stays near-random shows."""
    import spacy

    from spacy_frames.ml.frame_inducer import CLASS_WEIGHTS
    from spacy_frames.scoring.induction_eval import get_inducer

    summary = srsly.read_json(output) if output.exists() else {}
    for path in models:
        inducer = get_inducer(spacy.load(path))
        layer = inducer.model.get_ref(CLASS_WEIGHTS)
        if not layer.has_param("W"):
            raise typer.BadParameter(f"{path}: its loss has no class weights")
        summary[str(path)] = {**class_weight_drift(layer.get_param("W"), len(inducer.cfg["labels"])), "class_lr_scale": inducer.cfg["class_lr_scale"]}
        typer.echo(f"{path}: {summary[str(path)]}")
    write_json(output, summary)


@app.command("mask-layers")
def mask_layers_cli(
    fold: int = typer.Option(0, "--fold", help="Rotation whose dev fold (k+1) is embedded and clustered"),
    encoder: Path = typer.Option(ROOT / "assets" / "encoders" / "all-MiniLM-L6-v2", "--encoder", help="The untrained encoder"),
    output: Path = typer.Option(STUDY / "metrics" / "frame_inducer" / "mask_layers.json", "--output"),
    window: int = typer.Option(32, "--window", help="Context tokens each side of the mask (configs/inducer.cfg mask_window)"),
    batch_size: int = typer.Option(64, "--batch-size"),
):
    """v_mask from every layer of the untrained encoder: the hidden state at [MASK] of each
    layer (0 = the embeddings), alone (alpha = 1), clustered one-step and two-step on a
    rotation's dev fold with the stopping criterion calibrated on it, as `run` scores
    alpha = 1 on dev (`dev_bcf_by_alpha["1.0"]`); the last layer is the component's v_mask."""
    import spacy
    import torch
    from transformers import AutoModel, AutoTokenizer

    from spacy_frames.clustering import calibrate_and_cluster, cluster_scores
    from spacy_frames.ml.frame_inducer import masked_texts, mix
    from spacy_frames.scoring.induction_eval import load_instances
    from spacy_frames.suggesters.frames import target_lemma

    start = time.time()
    dev_fold = tuning_split(fold)["dev"]
    docs = load_instances(fold_path(dev_fold), spacy.blank("en").vocab)
    spans = [doc.spans["targets"][0] for doc in docs]
    tokenizer = AutoTokenizer.from_pretrained(str(encoder))
    model = AutoModel.from_pretrained(str(encoder)).eval()
    texts = masked_texts([[span] for span in spans], tokenizer.mask_token, window)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    layers = None
    with torch.no_grad():
        for b in range(0, len(order), batch_size):
            idx = order[b : b + batch_size]
            batch = tokenizer([texts[i] for i in idx], padding=True, truncation=True, max_length=128, return_tensors="pt")
            hidden = model(**batch, output_hidden_states=True).hidden_states
            is_mask = batch["input_ids"] == tokenizer.mask_token_id
            positions = torch.where(is_mask.any(1), is_mask.int().argmax(1), torch.zeros_like(batch["input_ids"][:, 0]))
            rows = torch.arange(len(idx))
            if layers is None:
                layers = [numpy.zeros((len(texts), h.shape[-1]), dtype="float32") for h in hidden]
            for layer, h in zip(layers, hidden):
                layer[idx] = h[rows, positions].numpy()
    embedded = time.time()
    frames = numpy.array([s.label_ for s in spans])
    lemmas = numpy.array([target_lemma(s) for s in spans])
    result: Dict[str, Any] = {"rotation": fold_rotation(fold), "dev_fold": dev_fold, "n_dev": len(spans),
                              "encoder": str(encoder.relative_to(ROOT)) if encoder.is_relative_to(ROOT) else str(encoder),
                              "window": window, "layers": {}}
    for i, vectors in enumerate(layers):
        X = mix(vectors, None, 0.0)
        entry = {}
        for method in ("one-step", "two-step"):
            _, labels = calibrate_and_cluster(method, X, lemmas, frames)
            scores = cluster_scores(frames, labels)
            entry[method] = {k: round(scores[k], 2) for k in ("bcf", "pif", "n_clusters")}
        result["layers"][str(i)] = entry
        typer.echo(f"layer {i}: one-step BcF {entry['one-step']['bcf']:.1f}, two-step BcF {entry['two-step']['bcf']:.1f}")
    result["timing"] = {"embed_s": round(embedded - start, 1), "cluster_s": round(time.time() - embedded, 1)}
    write_json(output, result)


@app.command("report")
def report_cli(output: Path = typer.Argument(STUDY / "metrics" / "frame_inducer.json")):
    """Average every system over the folds it has, next to the per-fold baselines."""
    from spacy_frames.scoring.induction_eval import summarize_runs

    names = [system + suffix + tuned for _, _, suffix in VARIANTS.values() for system in SYSTEMS for tuned in ("", "@tuned")]
    names += [f"vanilla@{BASE_ENCODER_TAG}", f"triplet@{BASE_ENCODER_TAG}-m0.1"]

    def summarize(runs):
        summary = summarize_runs(runs, names, N_FOLDS)
        summary["per_rotation"] = per_rotation(runs, TUNING / "full_dev")
        return summary

    report(RUNS, output, summarize, ROOT / "metrics" / "frame_inducer_data.json", hint="run some steps first")


def per_rotation(runs: Dict[str, Dict[str, Any]], tuning_dir: Path) -> Dict[str, Any]:
    """The protocol, rotation by rotation: every setting scored on the rotation's own
    full dev fold (two-step BcF), the one `--tuned` took, and on the test fold the tuned
    system beside vanilla and one cluster per lemma (the bars: +8 over each, 3-rotation mean)."""
    out: Dict[str, Any] = {}
    for k in range(N_FOLDS):
        dev = {path.stem[: -len(f"_fold{k}")]: round(srsly.read_json(path)["bcf"], 2) for path in sorted(tuning_dir.glob(f"*_fold{k}.json"))}
        row: Dict[str, Any] = {"dev_fold": tuning_split(k)["dev"], "dev_two_step_bcf": dev, "test_fold": k}
        vanilla = runs.get(f"vanilla_fold{k}")
        if vanilla is not None:
            row["test_two_step_bcf"] = {"vanilla": round(vanilla["two-step"]["bcf"], 2), "1cpv": round(vanilla["1cpv"]["bcf"], 2)}
        for name, run in runs.items():
            if name.endswith(f"@tuned_fold{k}") and vanilla is not None:
                system = name[: -len(f"_fold{k}")]
                bcf = round(run["two-step"]["bcf"], 2)
                row["test_two_step_bcf"][system] = bcf
                row.setdefault("tuned", {})[system] = {"setting": run["tuned"]["setting"], "over_vanilla": round(bcf - vanilla["two-step"]["bcf"], 2),
                                                      "over_1cpv": round(bcf - vanilla["1cpv"]["bcf"], 2)}
        tuned = {s: r for s, r in row.get("tuned", {}).items() if r["setting"] in dev}
        if tuned:  # the loss this rotation's dev fold prefers, the one a user of this protocol would ship
            best = max(sorted(tuned), key=lambda s: dev[tuned[s]["setting"]])
            row["dev_choice"] = {"system": best, **tuned[best]}
        out[f"rotation{k}"] = row
    by_system: Dict[str, List[Dict[str, Any]]] = {}
    for row in out.values():
        for system, result in sorted(row.get("tuned", {}).items()):
            by_system.setdefault(system, []).append(result)
        if "dev_choice" in row:
            by_system.setdefault("dev_choice", []).append(row["dev_choice"])
    out["mean"] = {}
    for system, rows in by_system.items():
        gains = {key: round(float(numpy.mean([r[key] for r in rows])), 2) for key in ("over_vanilla", "over_1cpv")}
        complete = len(rows) == N_FOLDS
        out["mean"][system] = {"rotations": len(rows), **gains, "bar_8_met": min(gains.values()) >= 8 if complete else None}
    return out


if __name__ == "__main__":
    app()

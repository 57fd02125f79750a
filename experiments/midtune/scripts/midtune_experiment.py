"""Semantic mid-tuning's table: every component re-trained on a mid-tuned
sentence encoder E1 against the base encoder, one run at a time.

    python scripts/midtune_experiment.py encoder framenet-triplet        # train E1 (form-objective)
    python scripts/midtune_experiment.py neighbours framenet-triplet     # nearest held-out sentences, base vs E1
    python scripts/midtune_experiment.py run inducer framenet-triplet --fold 0
    python scripts/midtune_experiment.py run discourse framenet-triplet --seed 0
    python scripts/midtune_experiment.py run discourse base --seed 0
    python scripts/midtune_experiment.py run frames framenet-triplet      # frame_identifier + frame_elements
    python scripts/midtune_experiment.py run media framenet-triplet       # media_framer's frozen-body head
    python scripts/midtune_experiment.py run inducer-triplet base --fold 0
    python scripts/midtune_experiment.py report                          # metrics/midtune.json

An encoder is named <form>-<objective>[-<steps>] (forms: framenet, dependency, frames
(frame-only); objectives: triplet, classification; steps: configs/midtune.cfg's 600 unless named) and trained by `spacy_frames.midtune.train` on the cached parses
(corpus/midtune/parses.spacy, `spacy project run midtune-parse`) into
training/midtune/<name>/encoder (both in this study's folder); "base" is the untrained all-MiniLM-L6-v2. A component run
delegates to that component's own experiment script with nothing changed but the encoder
(its transformer pipeline assembled from configs/transformer.cfg), so its run file lands
in the component study's runs folder, tagged mt-<name>; the base encoder's runs are the
scripts' own untagged runs of the same setting. Every step is skipped when its file
exists (--force re-runs), so the table is built over several invocations; `report` pairs
every E1 run with its base run and lists what is still missing.
"""

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import numpy
import srsly
import typer
from frames_lab.runs import finished_training, is_cached, timed_train, train_timing, write_json

STUDY = Path(__file__).resolve().parents[1]  # experiments/midtune: its sample, encoders and table
ROOT = STUDY.parents[1]  # the product: its corpora, configs, encoder and main-job models
OUT = STUDY / "metrics" / "midtune"
WORK = STUDY / "training" / "midtune"
PARSES = STUDY / "corpus" / "midtune" / "parses.spacy"
STUDIES = ROOT / "experiments"
BASE = "base"
BASE_ENCODER = "assets/encoders/all-MiniLM-L6-v2"
FORMS, OBJECTIVES = ("framenet", "dependency", "frames"), ("triplet", "classification")
# each component's run: the experiment script, its arguments, the run file
# the base encoder writes (E1's adds @mt-<name> to the setting), and the scores compared
COMPONENTS: Dict[str, Dict] = {
    # frame_inducer: Table 3's vanilla step (the untrained encoder's embeddings) on rotation k
    "inducer": {
        "script": "experiments/frame_induction/scripts/frame_induction_experiment.py",
        "runs": STUDIES / "frame_induction" / "metrics" / "frame_inducer" / "runs",
        "run": "vanilla{tag}_fold{fold}",
        "scores": ["two-step.bcf", "two-step.pif", "ranking_recall.all", "ranking_recall.same", "ranking_recall.diff"],
    },
    # discourse_sense: what the main job trains (packaged-ce: 4 epochs of multi-task CE)
    "discourse": {
        "script": "experiments/discourse/scripts/discourse_experiment.py",
        "runs": STUDIES / "discourse" / "metrics" / "discourse_sense" / "runs",
        "run": "packaged-ce{tag}_seed{seed}",
        "scores": [
            "gdtb_dev.l2.acc",
            "gdtb_dev.l2.macro_f1",
            "gdtb_test.l2.acc",
            "gdtb_test.l2.macro_f1",
            "discogem_test.l2.acc",
        ],
    },
    # frame_inducer's shipped loss (triplet, margin 0.1), Table 3's fine-tuning step of an own
    # encoder copy on rotation k; the committed triplet_fold0 is older code, so the base
    # encoder is re-run today under the tag mt-base
    "inducer-triplet": {
        "script": "experiments/frame_induction/scripts/frame_induction_experiment.py",
        "runs": STUDIES / "frame_induction" / "metrics" / "frame_inducer" / "runs",
        "run": "triplet{tag}_fold{fold}",
        "base_tag": "mt-base",
        "scores": ["two-step.bcf", "two-step.pif", "ranking_recall.all", "ranking_recall.same", "ranking_recall.diff"],
    },
    # media_framer: a head on the frozen MiniLM body (English, mCPT's head stage), the body's
    # transformer swapped (seed 0 unsuffixed, others _seed<n>, as media_experiment names
    # them); the packaged recipe reads frame_identifier's transformer instead.
    # The committed frozen-en is older code: the base encoder is re-run under the tag mt-base
    "media": {
        "script": "experiments/media_framing/scripts/media_experiment.py",
        "runs": STUDIES / "media_framing" / "metrics" / "media_framer" / "runs",
        "run": "frozen-en{tag}{seed}",
        "base_tag": "mt-base",
        "seed_suffix": True,
        "scores": [
            "scores.dev.all.micro_f1",
            "scores.dev.all.macro_f1",
            "scores.test.all.micro_f1",
            "scores.test.all.macro_f1",
        ],
    },
    # frame_identifier + frame_elements: the main job's stages 1 and 2 (frame_elements inside
    # stage 2) and frame_elements' dev sweep, run here (`run_frames`); the base encoder's run is
    # the main job's own frame parser
    "frames": {
        "script": None,
        "runs": OUT / "frames",
        "run": "frames{tag}",
        "base_tag": "mt-base",
        "scores": ["scores.frame_overall", "scores.frame_acc", "scores.frame_r1", "scores.fe_f_tuned"],
    },
}

app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)


def parse_name(name: str):
    """<form>-<objective>[-<steps>] -> (form, objective, steps; 0: configs/midtune.cfg's)."""
    parts = name.split("-")
    steps = int(parts.pop()) if len(parts) == 3 and parts[2].isdigit() and int(parts[2]) > 0 else 0
    if len(parts) != 2 or parts[0] not in FORMS or parts[1] not in OBJECTIVES:
        raise typer.BadParameter(
            f"encoder {name!r}: <form>-<objective>[-<steps>], form one of {FORMS}, objective one of {OBJECTIVES}"
        )
    return parts[0], parts[1], steps


def check_name(name: str, base_ok: bool = True) -> None:
    if name == BASE and base_ok:
        return
    try:
        parse_name(name)
    except typer.BadParameter as err:
        raise typer.BadParameter(str(err) + (f", or {BASE!r}" if base_ok else "")) from err


def encoder_dir(name: str) -> Path:
    return ROOT / BASE_ENCODER if name == BASE else WORK / name / "encoder"


def transformer_pipeline(name: str) -> Path:
    """The shared-transformer pipeline (configs/transformer.cfg) on encoder `name`."""
    if name == BASE:
        return ROOT / "training" / "transformer"
    out = WORK / name / "transformer"
    if not out.exists():
        if not encoder_dir(name).exists():
            raise typer.BadParameter(
                f"no encoder {encoder_dir(name)}: run `midtune_experiment.py encoder {name}` first"
            )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "spacy",
                "assemble",
                str(ROOT / "configs" / "transformer.cfg"),
                str(out),
                "--paths.encoder",
                str(encoder_dir(name)),
            ],
            check=True,
            cwd=ROOT,
        )
    return out


def midtune_config(name: str, steps: int = 0):
    """configs/midtune.cfg with the form, objective and steps of `name` (the loss to match);
    `steps` overrides the name's."""
    import spacy
    from spacy.util import registry

    form, objective, name_steps = parse_name(name)
    steps = steps or name_steps
    config = spacy.util.load_config(
        ROOT / "configs" / "midtune.cfg", overrides={"paths.encoder": str(ROOT / BASE_ENCODER)}, interpolate=True
    )
    config["midtune"]["form"], config["midtune"]["objective"] = form, objective
    if steps:
        config["midtune"]["max_steps"] = steps
    if objective == "classification":
        config["midtune"]["loss"] = {"@losses": "spacy-frames.MidtunePairLoss.v1"}
    return config, registry.resolve(config, validate=False)


@app.command("encoder")
def encoder_cli(
    name: str = typer.Argument(
        ..., help="<form>-<objective>[-<steps>], e.g. framenet-triplet or framenet-triplet-1200"
    ),
    steps: int = typer.Option(0, "--steps", help="Training steps (0: the name's, else configs/midtune.cfg's)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", help="GPU to train on (-1: CPU)"),
    force: bool = typer.Option(False, "--force"),
):
    """Mid-tune E1 / E2 on the cached parses; E1 under training/midtune/<name>/encoder,
    the summary (losses, weights moved, held-out form accuracy) in metrics/midtune/encoders/."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_frames.extensions import install_extensions
    from spacy_frames.midtune.train import midtune

    check_name(name, base_ok=False)
    out_json = OUT / "encoders" / f"{name}.json"
    # the summary is committed, the encoder is not: a fresh clone trains it again
    if encoder_dir(name).exists() and is_cached(out_json, force):
        return
    if not PARSES.exists():
        raise typer.BadParameter(f"{PARSES} not found: run `spacy project run midtune-parse` first")
    config, resolved = midtune_config(name, steps)
    install_extensions()
    docs = list(DocBin().from_disk(PARSES).get_docs(spacy.blank("en").vocab))
    summary = midtune(resolved, docs, WORK / name, log=typer.echo, gpu_id=gpu_id)
    summary["config"] = {k: v for k, v in config["midtune"].items() if k != "loss"}
    summary["encoder"] = str(encoder_dir(name).relative_to(ROOT))
    write_json(out_json, summary)


def held_out_docs(n_held: int):
    """The last `n_held` parsed sentences: the ones `midtune` never trains on."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_frames.extensions import install_extensions

    install_extensions()
    return list(DocBin().from_disk(PARSES).get_docs(spacy.blank("en").vocab))[-n_held:]


def nearest(vectors: numpy.ndarray) -> numpy.ndarray:
    """Each row's nearest other row by cosine."""
    unit = vectors / numpy.maximum(numpy.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    sims = unit @ unit.T
    numpy.fill_diagonal(sims, -numpy.inf)
    return sims.argmax(axis=1)


@app.command("neighbours")
def neighbours_cli(
    names: List[str] = typer.Argument(..., help="The mid-tuned encoders, each compared with the base one"),
    n_show: int = typer.Option(5, "--show", help="Queries printed with their neighbours"),
    force: bool = typer.Option(False, "--force"),
):
    """The paper's semantic search (its Table 6 shape), offline: each held-out sentence
    (never mid-tuned on) and its nearest other held-out sentence under the base encoder and
    under E1, mean pooled. Scored by how often the neighbour evokes a frame the query
    evokes (frames from our own parse), and a few queries shown. One file per encoder;
    the parses are read once for all of them."""
    import torch

    from spacy_frames.midtune.loop import Encoder

    for name in names:
        check_name(name, base_ok=False)
    todo = [name for name in names if not is_cached(OUT / f"neighbours_{name}.json", force)]
    if not todo:
        return
    # the held-out split and length each E1 was trained with: one split for all
    settings = {name: midtune_config(name)[0]["midtune"] for name in todo}
    splits = {(int(s["held_out"]), int(s["max_length"])) for s in settings.values()}
    if len(splits) > 1:
        raise typer.BadParameter(
            f"the encoders were trained with different held-out splits / lengths {sorted(splits)}: one at a time"
        )
    n_held, max_length = splits.pop()
    docs = held_out_docs(n_held)
    frames = [{span.label_ for span in doc.spans.get("frames", [])} for doc in docs]
    texts = [doc.text for doc in docs]
    scored = [i for i, f in enumerate(frames) if f]
    shown = [int(i) for i in numpy.random.default_rng(0).choice(len(docs), size=min(n_show, len(docs)), replace=False)]
    searched: Dict[str, tuple] = {}
    for which in [BASE] + todo:
        encoder = Encoder(str(encoder_dir(which)), max_length)
        encoder.model.eval()
        with torch.no_grad():
            vectors = numpy.concatenate([encoder(texts[i : i + 64]).numpy() for i in range(0, len(texts), 64)])
        nn = nearest(vectors)
        shared = [bool(frames[i] & frames[nn[i]]) for i in scored]
        jaccard = [len(frames[i] & frames[nn[i]]) / len(frames[i] | frames[nn[i]]) for i in scored]
        searched[which] = (
            nn,
            {
                "neighbour_shares_a_frame": round(100.0 * numpy.mean(shared), 2),
                "frame_jaccard": round(100.0 * numpy.mean(jaccard), 2),
            },
        )
    for name in todo:
        result: Dict = {
            "encoder": name,
            "sentences": len(docs),
            "with_frames": len(scored),
            "by_encoder": {which: searched[which][1] for which in (BASE, name)},
        }
        result["queries"] = [
            {"query": texts[i], **{which: texts[searched[which][0][i]] for which in (BASE, name)}} for i in shown
        ]
        write_json(OUT / f"neighbours_{name}.json", result)
        typer.echo(f"{name}: " + json.dumps(result["by_encoder"]))


def frames_scores(stage2: Path, fe_sweep: Dict) -> Dict:
    """FN1.5 dev scores of a stage-2 model (spaCy's training evaluation, in its meta) and
    frame_elements' FE F after the dev sweep, all in percent."""
    perf = srsly.read_json(stage2 / "meta.json")["performance"]
    scores = {key: round(100.0 * perf[key], 2) for key in ("frame_overall", "frame_acc", "frame_r1", "fe_f")}
    scores["fe_f_tuned"] = fe_sweep["best"]["fe_f"]
    return scores


def run_frames(name: str, tag: str, force: bool) -> None:
    spec = COMPONENTS["frames"]
    out_json = spec["runs"] / (spec["run"].format(tag=f"@{tag}") + ".json")
    if is_cached(out_json, force):
        return
    if name == BASE:
        stage2, sweep = (
            ROOT / "training" / "frames_stage2" / "model-best",
            ROOT / "metrics" / "frame_elements_threshold_dev.json",
        )
        if not stage2.exists() or not sweep.exists():
            raise typer.BadParameter(
                "the base run is the main job's: run `spacy project run train-frames-stage2 tune-fe-threshold` first"
            )
        timings = {
            stage: srsly.read_json(ROOT / "training" / stage / "timing.json")["minutes"]
            for stage in ("frames_stage1", "frames_stage2")
            if (ROOT / "training" / stage / "timing.json").exists()
        }
        write_json(
            out_json,
            {
                "encoder": name,
                "model": str(stage2.relative_to(ROOT)),
                "scores": frames_scores(stage2, srsly.read_json(sweep)),
                "minutes": timings,
                "source": "the main job's frame parser (train-frames-stage1/2, tune-fe-threshold)",
            },
        )
        return
    work, encoder = WORK / name, encoder_dir(name).relative_to(ROOT)
    transformer = transformer_pipeline(name).relative_to(ROOT)
    timings = {}
    stage1, stage2 = work / "frames_stage1", work / "frames_stage2"
    for stage, cmd in (
        (
            stage1,
            ["configs/frames_stage1.cfg", "--paths.encoder", str(encoder), "--paths.transformer", str(transformer)],
        ),
        (
            stage2,
            [
                "configs/frames_stage2_fe.cfg",
                "--paths.encoder",
                str(encoder),
                "--paths.stage1",
                str(stage1 / "model-best"),
            ],
        ),
    ):
        if force or not finished_training(stage):
            timed_train(ROOT, ROOT / cmd[0], stage, cmd[1:])
        timings[stage.name] = train_timing(stage)["minutes"]
    sweep_path = out_json.with_name(f"{out_json.stem}_fe_threshold_dev.json")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "spacy_frames",
            "tune-fe-threshold",
            str(stage2 / "model-best"),
            "--corpus",
            "corpus/framenet15/dev.spacy",
            "--output",
            str(sweep_path),
        ],
        check=True,
        cwd=ROOT,
    )
    write_json(
        out_json,
        {
            "encoder": name,
            "model": str((stage2 / "model-best").relative_to(ROOT)),
            "scores": frames_scores(stage2 / "model-best", srsly.read_json(sweep_path)),
            "minutes": timings,
            "source": "configs/frames_stage1.cfg and frames_stage2_fe.cfg on E1 (encoder and transformer), tune-fe-threshold",
        },
    )


@app.command("run")
def run_cli(
    component: str = typer.Argument(..., help=f"One of {list(COMPONENTS)}"),
    name: str = typer.Argument(..., help="Encoder: base or <form>-<objective>[-<steps>]"),
    seed: int = typer.Option(0, "--seed"),
    fold: int = typer.Option(0, "--fold", help="inducer: the rotation's test fold"),
    force: bool = typer.Option(False, "--force"),
):
    """One component trained and scored on encoder `name` by its own experiment script."""
    if component not in COMPONENTS:
        raise typer.BadParameter(f"unknown component {component!r}; choose from {list(COMPONENTS)}")
    check_name(name)
    spec = COMPONENTS[component]
    tag = spec.get("base_tag", "") if name == BASE else f"mt-{name}"
    if component == "frames":  # no experiment script of its own: the main job's stages
        return run_frames(name, tag, force)
    args: List[str] = [sys.executable, str(ROOT / spec["script"]), "run"]
    if component in ("inducer", "inducer-triplet"):
        args += ["vanilla" if component == "inducer" else "triplet", "--fold", str(fold)]
        if tag:
            args += ["--encoder", str(encoder_dir(name).relative_to(ROOT)), "--tag", tag]
    elif component == "media":
        args += ["frozen-en", "--seed", str(seed)]
        if tag:
            args += ["--transformer", str(transformer_pipeline(name).relative_to(ROOT)), "--tag", tag]
    elif component == "discourse":
        args += ["packaged-ce", "--seed", str(seed)]
        if tag:
            args += ["--override", f"paths.transformer={transformer_pipeline(name).relative_to(ROOT)}", "--tag", tag]
    if force:
        args.append("--force")
    subprocess.run(args, check=True, cwd=ROOT)


def last_commit(path: Path) -> Optional[str]:
    """The commit that last changed `path` (None when it is not committed)."""
    out = subprocess.run(["git", "log", "-1", "--format=%h", "--", str(path)], capture_output=True, text=True, cwd=ROOT)
    return out.stdout.strip() or None


def _get(run: Dict, dotted: str) -> Optional[float]:
    value = run
    for key in dotted.split("."):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


# the curve's measures: (label, component or None for the encoder's own files, score key)
CURVE_MEASURES = [
    ("held-out form accuracy", None, "form_accuracy"),
    ("neighbour shares a frame", None, "neighbour_shares_a_frame"),
    ("media_framer dev micro-F1", "media", "scores.dev.all.micro_f1"),
    ("inducer vanilla two-step BcF", "inducer", "two-step.bcf"),
    ("discourse GDTB dev L2 acc", "discourse", "gdtb_dev.l2.acc"),
    ("frame_identifier FN1.5 dev Overall", "frames", "scores.frame_overall"),
]


def curve(summary: Dict) -> Dict:
    """Per family (<form>-<objective>), each E1 by the sentences it saw (steps x batch):
    every measure of CURVE_MEASURES on E1 (mean over a component's runs) and on the base
    encoder, the size curve."""
    families: Dict[str, List[Dict]] = {}
    for name, encoder in summary["encoders"].items():
        form, objective, _ = parse_name(name)
        point = {
            "encoder": name,
            "steps": encoder["steps"],
            "sentences_seen": encoder["steps"] * encoder["batch_size"],
            "epochs": round(encoder["steps"] * encoder["batch_size"] / encoder["examples"], 2),
            "e1": {},
            "base": {},
        }
        point["base"]["held-out form accuracy"] = encoder["held_out"]["form_accuracy_before"]
        point["e1"]["held-out form accuracy"] = encoder["held_out"]["form_accuracy_after"]
        if name in summary["neighbours"]:
            point["base"]["neighbour shares a frame"] = summary["neighbours"][name][BASE]["neighbour_shares_a_frame"]
            point["e1"]["neighbour shares a frame"] = summary["neighbours"][name][name]["neighbour_shares_a_frame"]
        for label, component, key in CURVE_MEASURES[2:]:
            rows = summary["components"].get(name, {}).get(component, [])
            pairs = [
                (r["scores"][key]["base"], r["scores"][key]["e1"])
                for r in rows
                if r["scores"].get(key, {}).get("delta") is not None
            ]
            if pairs:
                point["base"][label] = round(float(numpy.mean([b for b, _ in pairs])), 4)
                point["e1"][label] = round(float(numpy.mean([e for _, e in pairs])), 4)
                point.setdefault("runs", {})[label] = len(pairs)
        families.setdefault(f"{form}-{objective}", []).append(point)
    return {family: sorted(points, key=lambda p: p["steps"]) for family, points in sorted(families.items())}


def run_names(spec: Dict, name: str) -> List[str]:
    """The run files of encoder `name` for one component: its pattern with the seed / fold
    as digits only, so that framenet-triplet does not pick up framenet-triplet-3600's."""
    tag = f"@mt-{name}"
    seed = r"(_seed\d+)?" if spec.get("seed_suffix") else r"\d+"
    regex = re.escape(spec["run"].format(tag=tag, seed="SEEDMARK", fold="FOLDMARK"))
    pattern = re.compile(regex.replace("SEEDMARK", seed).replace("FOLDMARK", r"\d+"))
    candidates = {p.stem for p in spec["runs"].glob(spec["run"].format(tag=tag, seed="*", fold="*") + ".json")}
    return sorted(n for n in candidates if pattern.fullmatch(n))


@app.command("report")
def report_cli(output: Path = typer.Argument(STUDY / "metrics" / "midtune.json")):
    """metrics/midtune.json: the encoders trained, the neighbour search, and every
    component's E1 run beside its base run (what is missing listed)."""
    summary: Dict = {
        "encoders": {p.stem: srsly.read_json(p) for p in sorted((OUT / "encoders").glob("*.json"))},
        "neighbours": {
            p.stem.split("_", 1)[1]: srsly.read_json(p)["by_encoder"] for p in sorted(OUT.glob("neighbours_*.json"))
        },
        "components": {},
        "missing": [],
        "table": [],
    }
    for name in summary["encoders"]:
        for component, spec in COMPONENTS.items():
            for run_name in run_names(spec, name):
                base_name = run_name.replace(f"@mt-{name}", f"@{spec['base_tag']}" if "base_tag" in spec else "")
                e1_run = srsly.read_json(spec["runs"] / f"{run_name}.json")
                base_path = spec["runs"] / f"{base_name}.json"
                if not base_path.exists():
                    summary["missing"].append(f"{component}: {base_name} (base encoder)")
                    continue
                base_run = srsly.read_json(base_path)
                row = {"base_run": base_name, "e1_run": run_name, "scores": {}}
                for key in spec["scores"]:
                    b, e = _get(base_run, key), _get(e1_run, key)
                    row["scores"][key] = {
                        "base": b,
                        "e1": e,
                        "delta": None if b is None or e is None else round(e - b, 2),
                    }
                summary["components"].setdefault(name, {}).setdefault(component, []).append(row)
                row["base_run_commit"] = last_commit(base_path)  # the base run may be older than the E1 run
                summary["table"].append(
                    f"{name} {run_name}: "
                    + ", ".join(
                        f"{k} {v['base']:.2f} -> {v['e1']:.2f}"
                        for k, v in row["scores"].items()
                        if v["delta"] is not None
                    )
                )
    # several seeds of one setting: the mean of each side, and how far the base encoder's
    # own seeds spread (the noise a gain must clear)
    for name, by_component in summary["components"].items():
        for component, rows in by_component.items():
            if len(rows) < 2:
                continue
            means = {}
            for key in rows[0]["scores"]:
                pairs = [
                    (r["scores"][key]["base"], r["scores"][key]["e1"])
                    for r in rows
                    if r["scores"][key]["delta"] is not None
                ]
                if len(pairs) < 2:
                    continue
                base, e1 = numpy.array(pairs).T
                means[key] = {
                    "base": round(float(base.mean()), 2),
                    "e1": round(float(e1.mean()), 2),
                    "delta": round(float((e1 - base).mean()), 2),
                    "base_range": round(float(base.max() - base.min()), 2),
                    "runs": len(pairs),
                }
            summary.setdefault("means", {}).setdefault(name, {})[component] = means
            summary["table"].append(
                f"{name} {component} mean of {len(rows)} runs: "
                + ", ".join(
                    f"{k} {v['base']:.2f} -> {v['e1']:.2f} (base range {v['base_range']:.2f})" for k, v in means.items()
                )
            )
    for name, by_encoder in summary["neighbours"].items():
        summary["table"].append(
            f"{name} neighbours: "
            + ", ".join(f"{which} {scores['neighbour_shares_a_frame']:.2f}" for which, scores in by_encoder.items())
            + " (% sharing a frame)"
        )
    summary["curve"] = curve(summary)
    write_json(output, summary)
    for line in summary["table"] + [f"missing: {m}" for m in summary["missing"]]:
        typer.echo(line)


if __name__ == "__main__":
    app()

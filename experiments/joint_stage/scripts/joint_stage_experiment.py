"""What the main job's joint stage 2 trains on: the FE data schedule and discourse_sense
as a listener of the shared transformer, one run at a time.

    python scripts/joint_stage_experiment.py run full-text-x1
    python scripts/joint_stage_experiment.py run full-text-x3
    python scripts/joint_stage_experiment.py own-copy
    python scripts/joint_stage_experiment.py run full-text-x3+discourse
    python scripts/joint_stage_experiment.py head head-v2
    python scripts/joint_stage_experiment.py report metrics/joint_stage.json

A run composes the stage-2 config of the research frame_elements (frames_lab.fe_research:
../frame_elements/configs/frames_stage2_fe.cfg, the main job's recipe as these runs
trained it) with the setting's changes into training/<setting>/config.cfg, trains it from
the product's stage 1 (`spacy train`, timed), then scores it on dev as the main job
chooses: frame_elements tuned for open-sesame's measure on FN1.5 dev (gold frames;
`python -m frames_lab.fe_research tune`, as `tune-frame-elements`), frame_identifier's
FN1.5 dev scores at the kept checkpoint, and, with discourse_sense in the stage, GDTB dev
and test (implicit relations, arguments given). `own-copy` scores the main job's discourse_sense with its own encoder copy the same
way. Results go to metrics/joint_stage/runs/<name>.json; a run whose file exists is
skipped (--force re-runs it).

With discourse_sense, the training corpus mixes FrameNet and GDTB (`spacy-frames.MixedCorpus.v1`):
GDTB repeated so that it is seen about `discourse_epochs` times (the own copy trains 4
epochs), and the steps grown so that FrameNet is seen as often as in the frames-only stage.
"""

import copy
import math
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import srsly
import typer
from frames_lab.runs import (
    dev_curve,
    finished_training,
    is_cached,
    report,
    setting_args,
    timed_train,
    train_timing,
    write_json,
)

STUDY = Path(__file__).resolve().parents[1]  # experiments/joint_stage
ROOT = STUDY.parents[1]  # the product
RUNS = STUDY / "metrics" / "joint_stage" / "runs"
TUNING = STUDY / "metrics" / "joint_stage" / "tuning"  # the threshold sweeps
WORK = STUDY / "training"
FN15 = ROOT / "corpus" / "framenet15"
GDTB = ROOT / "corpus" / "discourse"
# the stage 2 with the research frame_elements, as these runs trained it
STAGE2 = STUDY.parent / "frame_elements" / "configs" / "frames_stage2_fe.cfg"
DISCOURSE = ROOT / "configs" / "discourse.cfg"

# max_steps: the frames-only stage's steps; the schedules are compared at 1,200 (STAGE2
# trains 1,800)
# discourse_epochs: passes over GDTB's implicit relations (the own copy trains 4)
SETTINGS: Dict[str, Dict[str, Any]] = {
    "full-text-x1": {"full_text_repeats": 1, "discourse_epochs": 0, "max_steps": 1200},
    "full-text-x3": {"full_text_repeats": 3, "discourse_epochs": 0, "max_steps": 1200},
    "discourse": {"full_text_repeats": 1, "discourse_epochs": 4, "max_steps": 1200},
    "full-text-x3+discourse": {"full_text_repeats": 3, "discourse_epochs": 4, "max_steps": 1200},
    # the schedule for 1.5 times the steps: what more minutes of the main job buy
    "full-text-x3-steps1800": {"full_text_repeats": 3, "discourse_epochs": 0, "max_steps": 1800},
    # the same with another seed: is the gain more than a reseed moves?
    "full-text-x3-steps1800-seed1": {"full_text_repeats": 3, "discourse_epochs": 0, "max_steps": 1800, "seed": 1},
    # the shipped schedule with frame_elements' candidates from every span up to 20 tokens of
    # the window (and the target, the subtrees), pruned to the 40 best of each target by the
    # learned pruner before the span scorer; tuned with that suggester (every n-gram)
    "enumerate-prune-steps1800": {
        "full_text_repeats": 3,
        "discourse_epochs": 0,
        "max_steps": 1800,
        "overrides": {
            "components.frame_elements.suggester.max_ngram": 20,
            "components.frame_elements.suggester.ngram_gap": None,
            "components.frame_elements.model.prune_k": 40,
        },
        "ngram_gaps": ["none"],
    },
}
# the same without the dependency parse: no subtree candidates, no syntax features
SETTINGS["enumerate-prune-parse-free-steps1800"] = {
    **SETTINGS["enumerate-prune-steps1800"],
    "overrides": {
        **SETTINGS["enumerate-prune-steps1800"]["overrides"],
        "components.frame_elements.suggester.subtrees": False,
        "components.frame_elements.model.syntax": False,
    },
}
# the same with one-hots of the coarse POS of each span's edges and neighbours in the syntax
# features' place (the frame_elements study's `pos` option)
SETTINGS["enumerate-prune-parse-free-pos-steps1800"] = {
    **SETTINGS["enumerate-prune-parse-free-steps1800"],
    "overrides": {
        **SETTINGS["enumerate-prune-parse-free-steps1800"]["overrides"],
        "components.frame_elements.model.pos": True,
    },
}
FRAME_SCORES = ("frame_overall", "frame_acc", "frame_r1", "fe_os_f", "fe_f")

app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)


def corpus_words(reader: Dict[str, Any]) -> int:
    """Words one epoch of a training reader yields (what spaCy's batch_by_words counts)."""
    import spacy
    from spacy.util import registry

    nlp = spacy.blank("en")
    resolved = registry.resolve({"reader": reader})["reader"]
    return sum(len(eg.predicted) for eg in resolved(nlp))


def composed_config(setting: Dict[str, Any]):
    """STAGE2 with the setting's data schedule and, with
    discourse_epochs, discourse_sense (configs/discourse.cfg's recipe, reading the shared
    transformer without a separator) and GDTB mixed into the training corpus."""
    from thinc.api import Config

    config = Config().from_disk(STAGE2, interpolate=False)
    config["paths"].update(
        {
            "encoder": str(ROOT / "assets/encoders/all-MiniLM-L6-v2"),
            "stage1": str(ROOT / "training/frames_stage1/model-best"),
            "train": str(FN15 / "train.spacy"),
            "dev": str(FN15 / "dev.spacy"),
            "exemplars": str(FN15 / "exemplars.spacy"),
            "frames": str(FN15 / "frames.json"),
            "tagger": "en_core_web_sm",
        }
    )
    framenet = copy.deepcopy(config["corpora"]["train"])
    framenet["full_text_repeats"] = setting["full_text_repeats"]
    config["corpora"]["train"] = framenet
    if "seed" in setting:
        config["system"]["seed"] = setting["seed"]
    for dotted, value in setting.get("overrides", {}).items():
        *sections, key = dotted.split(".")
        section = config
        for name in sections:
            section = section[name]
        section[key] = value
    if setting.get("max_steps"):
        # four evaluations, the last at the last step; warm-up the shipped 5 %
        steps = config["training"]["max_steps"] = setting["max_steps"]
        config["training"]["eval_frequency"] = steps // 4
        config["training"]["optimizer"]["learn_rate"]["warmup_steps"] = round(steps * 0.05)
    if not setting["discourse_epochs"]:
        return config, {}
    discourse_cfg = Config().from_disk(DISCOURSE, interpolate=False)
    component = copy.deepcopy(discourse_cfg["components"]["discourse_sense"])
    component["separator"] = ""  # a listener reads the document's pass: nothing between the arguments
    config["nlp"]["pipeline"] = [*config["nlp"]["pipeline"], "discourse_sense"]
    config["components"]["discourse_sense"] = component
    gdtb = {
        "@readers": "spacy-frames.DiscourseCorpus.v1",
        "paths": [str(GDTB / "gdtb_train.spacy")],
        "types": ["Implicit"],
        "augment": False,
        "split_senses": True,
        "shuffle": True,
        "seed": 0,
    }
    # the readers resolved on their own, to count their words: the paths interpolated
    resolved_framenet = config.interpolate()["corpora"]["train"]
    words = {"framenet": corpus_words(resolved_framenet), "discourse": corpus_words(gdtb)}
    # the frames-only stage covers a fraction of its FrameNet epoch; spaCy shuffles the
    # mixed corpus, so each corpus is covered by the same fraction: GDTB is repeated for
    # about `discourse_epochs` passes at that fraction, and the steps grow so that the
    # FrameNet words seen stay the frames-only stage's
    base_steps = config["training"]["max_steps"]
    covered = base_steps * config["training"]["batcher"]["size"] / words["framenet"]
    repeats = max(1, math.ceil(setting["discourse_epochs"] / min(covered, 1.0)))
    config["corpora"]["train"] = {
        "@readers": "spacy-frames.MixedCorpus.v1",
        "corpora": {"framenet": framenet, "discourse": gdtb},
        "repeats": {"discourse": repeats},
    }
    steps = round(base_steps * (words["framenet"] + repeats * words["discourse"]) / words["framenet"])
    # four evaluations, the last at the last step (so model-best can be the final model)
    config["training"]["eval_frequency"] = -(-steps // 4)
    config["training"]["max_steps"] = steps = 4 * config["training"]["eval_frequency"]
    config["training"]["optimizer"]["learn_rate"]["warmup_steps"] = round(steps * 0.05)
    for key in ("disc_l1_acc", "disc_l1_macro_f1", "disc_l2_acc", "disc_l2_macro_f1"):
        config["training"]["score_weights"][key] = None  # the checkpoint is chosen on the frame scores
    extent = {"corpus_words": words, "discourse_repeats": repeats, "max_steps": steps}
    extent["discourse_epochs_seen"] = round(min(covered, 1.0) * repeats, 2)
    return config, extent


def frames_dev(model: Path, name: str, fn17: bool = False, ngram_gaps: Sequence[str] = ()) -> Dict[str, Any]:
    """frame_elements tuned on FN1.5 dev for open-sesame's measure (gold frames), as the
    main job's tune-frame-elements; frame_identifier's FN1.5 dev scores at the checkpoint;
    with `fn17`, the tuned model's FEs on FN1.7 dev too (`evaluate-frame-elements`: gold
    targets and frames, the FN1.7 inventory swapped in). `ngram_gaps` limits the tuning's
    candidate n-gram gaps (default: the tuning's own)."""
    tuned = TUNING / f"{name}_fe_threshold_dev.json"
    tuned.parent.mkdir(parents=True, exist_ok=True)
    tuned_model = WORK / f"{name}_tuned"
    cmd = [sys.executable, "-m", "frames_lab.fe_research", "tune", str(model), "--corpus", str(FN15 / "dev.spacy")]
    cmd += ["--criterion", "fe_os_f", "--output", str(tuned)]
    for gap in ngram_gaps:
        cmd += ["--ngram-gap", gap]
    subprocess.run([*cmd, "--output-model", str(tuned_model)] if fn17 else cmd, check=True, cwd=ROOT)
    best = srsly.read_json(tuned)["best"]
    performance = srsly.read_json(model / "meta.json")["performance"]
    result = {
        "fe_gold_frames_tuned": {
            k: best[k]
            for k in (
                "fe_os_p",
                "fe_os_r",
                "fe_os_f",
                "fe_f",
                "threshold",
                "ngram_gap",
                "candidate_rows",
                "candidate_recall",
                "kept_recall",
            )
        },
        "checkpoint": {k: round(100 * performance[k], 2) for k in FRAME_SCORES if k in performance},
    }
    if fn17:
        scored = TUNING / f"{name}_frame_elements_dev.json"
        cmd = [sys.executable, "-m", "spacy_frames", "evaluate-frame-elements", str(tuned_model), "--split", "dev"]
        subprocess.run([*cmd, "--output", str(scored)], check=True, cwd=ROOT)
        fn17_dev = srsly.read_json(scored)["fn17_dev"]
        result["fe_fn17_dev"] = {k: fn17_dev[k] for k in ("fe_os_p", "fe_os_r", "fe_os_f", "fe_f")}
    return result


def discourse_scores(model: Path) -> Dict[str, Any]:
    """GDTB dev and test, implicit relations, arguments given (the pipeline's other
    components are left out: discourse_sense reads only the transformer)."""
    import spacy

    from spacy_frames.scoring.discourse_eval import evaluate_corpus

    keep = {"transformer", "discourse_sense"}
    pipeline = spacy.util.load_config(Path(model) / "config.cfg")["nlp"]["pipeline"]
    nlp = spacy.load(model, disable=[n for n in pipeline if n not in keep])
    out = {}
    for split in ("dev", "test"):
        scores, _, _ = evaluate_corpus(nlp, GDTB / f"gdtb_{split}.spacy")
        out[f"gdtb_{split}"] = {lvl: {m: scores[lvl][m] for m in ("acc", "macro_f1")} for lvl in ("l1", "l2")}
    return out


def run_file(name: str, table: Dict[str, Any], force: bool) -> Optional[Path]:
    """The result file of run `name` of `table`, or None when it exists (unless force)."""
    if name not in table:
        raise typer.BadParameter(f"unknown setting {name!r}; choose from {list(table)}")
    out_json = RUNS / f"{name}.json"
    return None if is_cached(out_json, force) else out_json


@app.command("run")
def run_cli(
    setting: str = typer.Argument(..., help=f"One of {list(SETTINGS)}"),
    force: bool = typer.Option(False, "--force"),
):
    """Train one setting's stage 2 from the product's stage 1 and score it on dev."""
    out_json = run_file(setting, SETTINGS, force)
    if out_json is None:
        return
    out = WORK / setting
    config, extent = composed_config(SETTINGS[setting])
    if not finished_training(out):  # an interrupted run leaves model-best / model-last behind
        out.mkdir(parents=True, exist_ok=True)
        config.to_disk(out / "config.cfg")
        timed_train(ROOT, out / "config.cfg", out, [])
    model = out / "model-best"
    frames_only = not SETTINGS[setting]["discourse_epochs"]
    scores = frames_dev(model, setting, fn17=frames_only, ngram_gaps=SETTINGS[setting].get("ngram_gaps", ()))
    result = {"setting": setting, **SETTINGS[setting], **extent, **scores}
    if SETTINGS[setting]["discourse_epochs"]:
        result["discourse"] = discourse_scores(model)
    result["timing"] = train_timing(out)
    result["dev_curve"] = dev_curve(out)
    write_json(out_json, result)
    typer.echo(srsly.json_dumps({k: v for k, v in result.items() if k != "dev_curve"}, indent=1))


@app.command("score-last")
def score_last_cli(
    setting: str = typer.Argument(..., help="A trained setting"),
    force: bool = typer.Option(False, "--force"),
):
    """A trained run's last checkpoint (model-last), scored as a run is, with its frame
    scores from `evaluate-frames` on FN1.5 dev (gold targets): for a run whose last step
    fell between two evaluations, so model-best is an earlier checkpoint."""
    out_json = RUNS / f"{setting}@last.json"
    if is_cached(out_json, force):
        return
    model = WORK / setting / "model-last"
    if not model.exists():
        raise typer.BadParameter(f"no model at {model}: train it with `run {setting}` first")
    name = f"{setting}@last"
    result = {"setting": name, **frames_dev(model, name)}
    frames = TUNING / f"{name}_frames_dev.json"
    cmd = [sys.executable, "-m", "spacy_frames", "evaluate-frames", str(model), "--split", "dev", "--fn17", ""]
    subprocess.run([*cmd, "--output", str(frames)], check=True, cwd=ROOT)
    scores = srsly.read_json(frames)["fn15_gold_targets"]
    result["checkpoint"] = {k: scores[k] for k in ("frame_overall", "frame_acc", "frame_r1")}
    if SETTINGS[setting]["discourse_epochs"]:
        result["discourse"] = discourse_scores(model)
    write_json(out_json, result)
    typer.echo(srsly.json_dumps(result, indent=1))


@app.command("own-copy")
def own_copy_cli(force: bool = typer.Option(False, "--force")):
    """The main job's discourse_sense with its own encoder copy (training/discourse_final),
    scored on GDTB as the runs are."""
    out_json = RUNS / "own-copy.json"
    if is_cached(out_json, force):
        return
    model = ROOT / "training" / "discourse_final"
    result = {
        "setting": "own-copy",
        "discourse": discourse_scores(model / "model-best"),
        "timing": train_timing(model),
    }
    write_json(out_json, result)
    typer.echo(srsly.json_dumps(result, indent=1))


# discourse_sense as a head on the main job's frozen frame parser (configs/discourse_head.cfg):
# the pair head of each setting
HEADS: Dict[str, Dict[str, Any]] = {
    "head-v1": {},
    "head-v2": {
        "components.discourse_sense.model.@architectures": "spacy-frames.DiscourseSense.v2",
        "components.discourse_sense.model.edges": True,
        "components.discourse_sense.model.cross_attention": True,
    },
}


@app.command("head")
def head_cli(
    name: str = typer.Argument(..., help=f"One of {list(HEADS)}"),
    force: bool = typer.Option(False, "--force"),
):
    """discourse_sense trained as a head on the main job's frozen frame parser
    (training/frames_final; configs/discourse_head.cfg), with the setting's pair head, and
    scored on GDTB as the runs are: no second transformer pass, and no transformer
    training of its own."""
    out_json = run_file(name, HEADS, force)
    if out_json is None:
        return
    out = WORK / name
    paths = {
        "paths.encoder": str(ROOT / "assets/encoders/all-MiniLM-L6-v2"),
        "paths.transformer": str(ROOT / "training/frames_final"),
        "paths.train": [str(GDTB / "gdtb_train.spacy")],
        "paths.dev": [str(GDTB / "gdtb_dev.spacy")],
    }
    if not finished_training(out):
        timed_train(ROOT, ROOT / "configs" / "discourse_head.cfg", out, setting_args({**paths, **HEADS[name]}))
    result = {"setting": name, "discourse": discourse_scores(out / "model-best"), "timing": train_timing(out)}
    write_json(out_json, result)
    typer.echo(srsly.json_dumps(result, indent=1))


def summarize(runs: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    table = [
        "| run | FE open-sesame F (gold frames, tuned) | FN1.7 dev FE open-sesame F | gold FEs among candidates / kept rows | frame Overall | frame Acc | GDTB dev L2 acc / F1 | GDTB test L2 acc / F1 | train min |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, run in runs.items():
        disc = run.get("discourse")
        dev = f"{disc['gdtb_dev']['l2']['acc']} / {disc['gdtb_dev']['l2']['macro_f1']}" if disc else "–"
        test = f"{disc['gdtb_test']['l2']['acc']} / {disc['gdtb_test']['l2']['macro_f1']}" if disc else "–"
        timing = run.get("timing") or {}
        parts = (
            [timing] if "minutes" in timing else [t for t in timing.values() if isinstance(t, dict) and "minutes" in t]
        )
        minutes = "+".join(str(t["minutes"]) for t in parts) or "–"
        checkpoint = run.get("checkpoint", {})
        tuned = run.get("fe_gold_frames_tuned", {})
        fe = tuned.get("fe_os_f", "–")
        # FN1.5 dev at the tuned setting; a run file without them shows –
        recall = f"{tuned['candidate_recall']} / {tuned['kept_recall']}" if "candidate_recall" in tuned else "–"
        fe17 = run.get("fe_fn17_dev", {}).get("fe_os_f", "–")
        table.append(
            f"| {name} | {fe} | {fe17} | {recall} | {checkpoint.get('frame_overall', '–')} | "
            f"{checkpoint.get('frame_acc', '–')} | {dev} | {test} | {minutes} |"
        )
    return {"runs": runs, "table": table}


@app.command("report")
def report_cli(output: Path = typer.Argument(STUDY / "metrics" / "joint_stage.json")):
    """Every run in one table: the table of the study's README."""
    report(RUNS, output, summarize, hint="run some settings first")


if __name__ == "__main__":
    app()

"""frame_elements' parse screen: what FrameNet annotates, candidates that reach it, a span
model that knows its target, and the data schedule, at equal steps on dev.

    python scripts/fe_parse_screen.py run baseline
    python scripts/fe_parse_screen.py grid --settings baseline,target,enumerate-prune
    python scripts/fe_parse_screen.py report

A run trains a fresh FE head (the research frame_elements, frames_lab.fe_research: this
study's configs/frame_elements.cfg) on the main job's frozen frame parser
(../../training/frames_final) for the setting's steps, on FN1.5 full text and exemplars
converted with the FEs FrameNet puts on their own target (corpus/framenet15_target_fes:
`spacy project run convert-target-fes`), then fits decoding, pieces per FE and threshold
on FN1.5 dev for open-sesame's measure (`python -m frames_lab.fe_research tune
--criterion fe_os_f`) and writes metrics/frame_elements/parse_screen/
runs/<setting>.json: both measures at the chosen setting, the suggester's recall of the gold
FEs before and after pruning, the candidate rows and the training minutes. A run whose
file exists is skipped (--force re-runs it). Settings are chosen on dev only.

Runs compare only on one frozen parser. `runs/` were made on a frame parser whose stage 2
had no target candidate (this study's configs/frames_stage2_fe.cfg with the suggester's
include_target and the model's on_target false); `--tag target-parser` names the runs made
on the main job's parser as it is trained now (its own `runs@target-parser/` and report),
e.g.

    python scripts/fe_parse_screen.py grid --tag target-parser --settings target,target-full-text-x3
"""

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import srsly
import typer
from frames_lab.runs import finished_training, is_cached, report, run_grid, setting_args, timed_train, write_json

STUDY = Path(__file__).resolve().parents[1]  # experiments/frame_elements
ROOT = STUDY.parents[1]  # the product: the trained frame parser
CONFIG = STUDY / "configs" / "frame_elements.cfg"  # the research frame_elements as a head
RUNS = STUDY / "metrics" / "frame_elements" / "parse_screen" / "runs"
WORK = STUDY / "training" / "fe_parse_screen"


def runs_dir(tag: str = "") -> Path:
    """Where the runs on one frozen parser go (see the module docstring)."""
    return RUNS.parent / f"runs@{tag}" if tag else RUNS


def work_dir(tag: str = "") -> Path:
    return WORK.parent / f"fe_parse_screen@{tag}" if tag else WORK


CORPUS = STUDY / "corpus" / "framenet15_target_fes"

FE = "components.frame_elements"
# the settings of configs/frames_stage2_fe.cfg without the target candidate, as a head on the frozen
# transformer, 600 steps; dev is scored once after training, by the tuning
BASELINE: Dict[str, Any] = {
    f"{FE}.suggester.ngram_gap": 0,
    f"{FE}.negative_fraction": 1.0,
    f"{FE}.model.hidden_width": 512,
    f"{FE}.model.token_width": 128,
    "training.max_steps": 600,
    "training.eval_frequency": 10000,
}
TARGET = {**BASELINE, f"{FE}.suggester.include_target": True, f"{FE}.model.on_target": True}
ENUMERATE = {
    **TARGET,
    f"{FE}.suggester.max_ngram": 20,
    f"{FE}.suggester.ngram_gap": None,
    f"{FE}.model.prune_k": 40,
}
CONTEXT = {**ENUMERATE, f"{FE}.model.target_tokens": 64, f"{FE}.model.target_context": True}
SETTINGS: Dict[str, Dict[str, Any]] = {
    "baseline": BASELINE,
    "baseline-300": {**BASELINE, "training.max_steps": 300},
    "baseline-1200": {**BASELINE, "training.max_steps": 1200},
    # the FE on the target: a candidate, with a feature that says so
    "target": TARGET,
    # every span up to 20 tokens of the window (and the subtrees, the target), pruned to
    # the 40 best of each target by the learned pruner
    "enumerate-prune": ENUMERATE,
    # the target-conditioned token features with one attention layer over each window
    "context": CONTEXT,
    "target-context": {**TARGET, f"{FE}.model.target_tokens": 64, f"{FE}.model.target_context": True},
    # the queries and "no FE" shifted by the target's frame definition vector
    "target-frame-queries": {**TARGET, f"{FE}.model.frame_queries": True},
    # the data schedule at equal steps: the full text three times per epoch; full text only
    "target-full-text-x3": {**TARGET, "corpora.train.full_text_repeats": 3},
    "target-full-text-only": {**TARGET, "variables.max_exemplars": 0},
    # fe_candidate_suggester.v2: the phrases the target sits in, cut at it, and the text
    # from the target to the nearest punctuation and to the sentence edges
    "target-phrases-clauses": {
        **TARGET,
        f"{FE}.suggester.@misc": "frames-lab.fe_candidate_suggester.v2",
        f"{FE}.suggester.phrases": True,
        f"{FE}.suggester.clauses": True,
    },
    # what the dependency parse is worth: the shipped head (target) without the syntax
    # features, without the subtree candidates, without both; and the parse-free
    # enumeration of every span up to 20 tokens with the learned pruner
    "target-no-syntax": {**TARGET, f"{FE}.model.syntax": False},
    "target-no-subtrees": {**TARGET, f"{FE}.suggester.subtrees": False},
    "target-parse-free": {**TARGET, f"{FE}.model.syntax": False, f"{FE}.suggester.subtrees": False},
    "enumerate-prune-parse-free": {**ENUMERATE, f"{FE}.model.syntax": False, f"{FE}.suggester.subtrees": False},
    # the coarse POS of the span's edges and neighbours in the syntax features' place
    "target-no-syntax-pos": {**TARGET, f"{FE}.model.syntax": False, f"{FE}.model.pos": True},
    "enumerate-prune-parse-free-pos": {
        **ENUMERATE,
        f"{FE}.model.syntax": False,
        f"{FE}.suggester.subtrees": False,
        f"{FE}.model.pos": True,
    },
}

# The product's component as a head in the same regime (configs/fe_head_shipped.cfg): as
# shipped, without the parse (the parser left out of the pipeline: no subtree candidates,
# no syntax features), and as a token tagger conditioned on the target (frame_elements_bio:
# every token of the window tagged B-/I- per FE or outside), each tuned by the product's
# `tune-fe-threshold`. Keys: spaCy overrides; "blocks": frame_elements' config blocks
# replaced; "parser": False leaves the parser out.
SHIPPED_CONFIG = STUDY / "configs" / "fe_head_shipped.cfg"
HEAD_STEPS = {"training.max_steps": 600, "training.eval_frequency": 10000}
TOKEN_TAGGER = {
    "factory": "frame_elements_bio",
    "suggester": {"@misc": "frames-lab.fe_token_suggester.v1", "window": 30},
}
PRODUCT_HEADS: Dict[str, Dict[str, Any]] = {
    "shipped-head": dict(HEAD_STEPS),
    "shipped-head-parse-free": {**HEAD_STEPS, "parser": False},
    "token-tagger": {**HEAD_STEPS, "parser": False, "blocks": TOKEN_TAGGER},
}
HEAD_KEYS = ("blocks", "parser")  # what head_config applies, not spaCy overrides


def head_config(setting: str, out: Path) -> Path:
    """The product head's config of `setting` (blocks replaced, the parser left out when
    asked: spaCy would resume a sourced component that is not frozen), written under `out`."""
    from thinc.api import Config

    head = PRODUCT_HEADS[setting]
    config = Config().from_disk(SHIPPED_CONFIG, interpolate=False)
    config["components"]["frame_elements"].update(head.get("blocks", {}))
    if not head.get("parser", True):
        del config["components"]["parser"]
        for section, key in (
            ("nlp", "pipeline"),
            ("training", "frozen_components"),
            ("training", "annotating_components"),
        ):
            config[section][key] = [name for name in config[section][key] if name != "parser"]
    out.mkdir(parents=True, exist_ok=True)
    config.to_disk(out / "head.cfg")
    return out / "head.cfg"


app = typer.Typer(add_completion=False)


@app.command("run")
def run_cli(
    setting: str = typer.Argument(..., help=f"One of {list(SETTINGS)}"),
    force: bool = typer.Option(False, "--force"),
    frames: Path = typer.Option(ROOT / "training" / "frames_final", "--frames", help="The frozen frame parser"),
    tag: str = typer.Option("", "--tag", help="Name of the frozen parser: its runs go to their own directory"),
):
    """Train one setting and fit it on dev; skipped when its JSON exists."""
    if setting not in SETTINGS and setting not in PRODUCT_HEADS:
        raise typer.BadParameter(f"unknown setting {setting!r}; choose from {[*SETTINGS, *PRODUCT_HEADS]}")
    out_json = runs_dir(tag) / f"{setting}.json"
    if is_cached(out_json, force):
        return
    for path in (CORPUS / "train.spacy", CORPUS / "exemplars.spacy", frames):
        if not path.exists():
            raise typer.BadParameter(
                f"{path} is missing: run `spacy project run convert-target-fes` (and the main job)"
            )
    product = setting in PRODUCT_HEADS
    overrides = {k: v for k, v in (PRODUCT_HEADS if product else SETTINGS)[setting].items() if k not in HEAD_KEYS}
    paths = {
        "paths.train": str(CORPUS / "train.spacy"),
        "paths.dev": str(CORPUS / "dev.spacy"),
        "paths.exemplars": str(CORPUS / "exemplars.spacy"),
        "paths.fe_frames": str(CORPUS / "frames.json"),
        "paths.frames": str(frames),
    }
    out = work_dir(tag) / setting
    start = time.time()
    if not finished_training(out):
        config = head_config(setting, out) if product else CONFIG
        timed_train(ROOT, config, out, [*setting_args({**paths, **overrides})])
    trained = time.time()
    # the product's heads keep their configured candidates (the shipped gap; the tagger has none)
    gap = 0 if setting in ("shipped-head", "shipped-head-parse-free") else overrides.get(f"{FE}.suggester.ngram_gap")
    tune_json = out / "tune_dev.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "frames_lab.fe_research",
            "tune",
            str(out / "model-last"),
            "--corpus",
            str(CORPUS / "dev.spacy"),
            "--output",
            str(tune_json),
            "--ngram-gap",
            "none" if gap is None else str(gap),
            "--max-pieces",
            "1",
            "--max-pieces",
            "2",
            "--criterion",
            "fe_os_f",
        ],
        check=True,
        cwd=STUDY,
    )
    tuned = srsly.read_json(tune_json)
    best = tuned["best"]
    one_piece, two_pieces = (
        max(
            (r for r in tuned["grid"] if r["max_pieces"] == n and r["decoding"] == best["decoding"]),
            key=lambda r: r["fe_os_f"] or 0.0,
        )
        for n in (1, 2)
    )
    write_json(
        out_json,
        {
            "setting": setting,
            "parser": tag or "without-target-candidate",
            "overrides": overrides,
            "dev": best,
            "dev_one_piece": one_piece,
            "dev_two_pieces": two_pieces,
            "train_minutes": round((trained - start) / 60, 1),
            "tune_minutes": round((time.time() - trained) / 60, 1),
        },
    )
    typer.echo(json.dumps(best))


@app.command("grid")
def grid_cli(
    settings: str = typer.Option(",".join(SETTINGS), "--settings", help="Comma-separated settings"),
    tag: str = typer.Option("", "--tag", help="Name of the frozen parser: its runs go to their own directory"),
):
    """Every setting in turn; runs that exist are skipped, so the grid resumes."""
    run_grid(
        lambda setting, seed: run_cli(setting, force=False, frames=ROOT / "training" / "frames_final", tag=tag),
        settings.split(","),
        [0],
    )


@app.command("prune-k")
def prune_k_cli(
    setting: str = typer.Argument(..., help="A trained setting with a pruner"),
    k: int = typer.Argument(..., help="Rows kept per target at prediction"),
    force: bool = typer.Option(False, "--force"),
):
    """A trained setting's pruner keeping k rows per target at prediction (its ranking does
    not depend on k, so no retraining), fitted on dev as `run` fits: what recall after
    pruning and F a larger k buys. Writes metrics/frame_elements/parse_screen/<setting>@k<k>.json."""
    import spacy

    from spacy_frames.extensions import install_extensions
    from spacy_frames.scoring.frame_elements_eval import DEFAULT_FE_THRESHOLDS, fe_examples

    out_json = RUNS.parent / f"{setting}@k{k}.json"
    if is_cached(out_json, force):
        return
    install_extensions()
    nlp = spacy.load(WORK / setting / "model-last")
    pipe = nlp.get_pipe("frame_elements")
    if not pipe.model.attrs.get("prune_k"):
        raise typer.BadParameter(f"{setting} has no pruner")
    pipe.model.attrs["prune_k"] = k  # the model's attrs are saved with it: set after loading
    gap = SETTINGS[setting].get(f"{FE}.suggester.ngram_gap")
    result = pipe.find_threshold(
        fe_examples(nlp, CORPUS / "dev.spacy"),
        nlp=nlp,
        thresholds=DEFAULT_FE_THRESHOLDS,
        ngram_gaps=[gap],
        criterion="fe_os_f",
    )
    write_json(out_json, {"setting": setting, "prune_k": k, "dev": result["best"]})
    typer.echo(json.dumps(result["best"]))


def summarize(runs: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    keys = ("fe_os_p", "fe_os_r", "fe_os_f", "fe_p", "fe_r", "fe_f", "candidate_recall", "kept_recall")
    header = ["setting", *keys, "pieces", "rows", "train min"]
    table: List[str] = [" | ".join(header)]
    for name, run in runs.items():
        dev = run["dev"]
        cells = [name, *(str(dev.get(k)) for k in keys), str(dev["max_pieces"]), str(dev["candidate_rows"])]
        table.append(" | ".join(cells + [str(run["train_minutes"])]))
    return {"runs": runs, "table": table}


@app.command("report")
def report_cli(
    output: Optional[Path] = typer.Option(None, "--output", help="Default: parse_screen[@TAG].json"),
    tag: str = typer.Option("", "--tag", help="The runs on this frozen parser"),
):
    """Every run on one frozen parser in one table (FN1.5 dev, gold frames)."""
    if output is None:  # one file per frozen parser: a tagged report never overwrites another's
        output = RUNS.parent.parent / (f"parse_screen@{tag}.json" if tag else "parse_screen.json")
    report(runs_dir(tag), output, summarize, hint="run some first: python scripts/fe_parse_screen.py run baseline")


if __name__ == "__main__":
    app()

"""`spacy-frames evaluate-frames` and `evaluate-frame-elements`: frame identification and
frame elements on the converted FrameNet corpora."""

from pathlib import Path
from typing import List, Optional

import typer

from ._util import Arg, Opt, _fail, app


@app.command("evaluate-frames")
def evaluate_frames_cli(
    # fmt: off
    model: str = Arg(..., help="Trained pipeline with a frame_identifier"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    fn15_dir: Path = Opt(Path("corpus/framenet15"), "--fn15", help="Converted FrameNet 1.5 corpus"),
    fn17_dir: Optional[Path] = Opt(Path("corpus/framenet17"), "--fn17", help="Converted FrameNet 1.7 dev ('' to skip)"),
    split: str = Opt("test", "--split", help="FN1.5 split to score: dev (tuning) or test (report once)"),
    baseline: bool = Opt(True, "--baseline/--no-baseline", help="Also score the lookup-table baseline"),
    # fmt: on
):
    """Frame identification (gold targets), target detection, FN1.7 dev, lookup baseline."""
    import srsly

    from ..scoring.frames_eval import evaluate_frame_identifier

    try:
        result = evaluate_frame_identifier(
            model, fn15_dir, fn17_dir if fn17_dir and str(fn17_dir) else None, split, baseline
        )
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    gold = result["fn15_gold_targets"]
    typer.echo(
        f"FN1.5 {split} (gold targets): Acc {gold['frame_acc']}  R@1 {gold['frame_r1']}  R@3 {gold['frame_r3']}  "
        f"R@5 {gold['frame_r5']}  Overall {gold['frame_overall']}  ambiguous Acc {gold['frame_acc_ambiguous']}"
    )
    det = result["fn15_target_detection"]
    typer.echo(f"target detection: P {det['target_p']}  R {det['target_r']}  F {det['target_f']}")
    if "lookup_baseline" in result:
        typer.echo(
            f"lookup baseline: Acc {result['lookup_baseline']['frame_acc']}  ambiguous {result['lookup_baseline']['frame_acc_ambiguous']}"
        )
    if result.get("fn17_dev"):
        typer.echo(f"FN1.7 dev: {result['fn17_dev']}")


@app.command("evaluate-frame-elements")
def evaluate_frame_elements_cli(
    # fmt: off
    model: str = Arg(..., help="Trained pipeline with frame_identifier and frame_elements"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    fn15_dir: Path = Opt(Path("corpus/framenet15"), "--fn15", help="Converted FrameNet 1.5 corpus"),
    fn17_dir: Optional[Path] = Opt(Path("corpus/framenet17"), "--fn17", help="Converted FrameNet 1.7 dev ('' to skip)"),
    splits: List[str] = Opt(
        ["dev"], "--split", help="FN1.5 split(s) on gold frames: dev (tuning), test (report once); repeatable"
    ),
    end_to_end: bool = Opt(False, "--end-to-end", help="Also FN1.5 test from raw text (predicted targets and frames)"),
    # fmt: on
):
    """Frame-element P/R/F, strict and on open-sesame's measure: gold targets and frames on FN1.5 and FN1.7 dev, end to end."""
    import srsly

    from ..inventory.frames import FrameInventory
    from ..pipeline.inventory_ops import set_inventory
    from ..scoring.frame_elements_eval import (
        evaluate_frame_elements,
        evaluate_frame_elements_fn17,
        load_frame_parser,
    )

    fn17_dir = fn17_dir if fn17_dir and str(fn17_dir) else None
    try:
        nlp = load_frame_parser(model)
        result = evaluate_frame_elements(nlp, model, fn15_dir, splits, end_to_end)
        if fn17_dir is not None and (fn17_dir / "dev.spacy").exists():
            # FN1.7 frames swapped into both components, nothing retrained
            set_inventory(nlp, FrameInventory().from_disk(fn17_dir / "frames.json"))
            result.update(evaluate_frame_elements_fn17(nlp, fn15_dir, fn17_dir))
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    for key, scores in result.items():
        if isinstance(scores, dict) and "fe_f" in scores:
            typer.echo(
                f"{key}: FE P {scores['fe_p']}  R {scores['fe_r']}  F {scores['fe_f']}  (core F {scores['fe_core_f']}, non-core F {scores['fe_noncore_f']}; {scores['gold_fes']} gold FEs)"
            )
            if "fe_os_f" in scores:
                typer.echo(
                    f"  open-sesame measure: P {scores['fe_os_p']}  R {scores['fe_os_r']}  F {scores['fe_os_f']}"
                )

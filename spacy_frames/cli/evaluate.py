"""`spacy-frames evaluate MODEL DATA.spacy`: every score the pipeline can give on gold
data, in one table (`spacy evaluate` runs the same scorers but prints none of them)."""

from pathlib import Path
from typing import Optional

import typer

from ._util import Arg, Opt, _fail, app


@app.command("evaluate")
def evaluate_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline: installed package name or path"),
    data_path: Path = Arg(
        ...,
        metavar="DATA",
        help="Gold .spacy DocBin: FrameNet targets / FEs, discourse relations, media articles, or a mix",
    ),
    output: Optional[Path] = Opt(None, "--output", "-o", help="JSON file for all scores and words/s"),
    gpu_id: int = Opt(-1, "--gpu-id", "-g", help="GPU to run on (-1: CPU)"),
    gold_targets: bool = Opt(
        False, "--gold-targets", help="Give the pipeline the gold targets (frames on gold targets; no target P/R/F)"
    ),
    batch_size: Optional[int] = Opt(None, "--batch-size", help="Default: the pipeline's nlp.batch_size"),
    inventory: Optional[str] = Opt(
        None,
        "--inventory",
        help="Frame inventory to score under: a release the pipeline carries (framenet15, framenet17) or a frames.json; default: the pipeline's own",
    ),
    # fmt: on
):
    """Score a pipeline on gold data: one row per score the data and the pipeline allow, and words/s."""
    import spacy
    import srsly

    from ..scoring.report import check_data, evaluate_report, print_report
    from ..util import use_gpu

    try:
        check_data(data_path)  # before the (slow) model load
        use_gpu(gpu_id)
        nlp = spacy.load(model)
        if inventory is not None:
            from ..pipeline.inventory_ops import set_inventory

            set_inventory(nlp, inventory)
        report = evaluate_report(nlp, data_path, gold_targets=gold_targets, batch_size=batch_size)
        if "frame_inventory" in nlp.meta:
            report["frame_inventory"] = nlp.meta["frame_inventory"]
    except (OSError, ValueError) as err:
        _fail(err)
    print_report(report)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(output, report)
        typer.secho(f"✔ scores written to {output}", fg=typer.colors.GREEN)

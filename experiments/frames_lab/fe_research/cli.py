"""The research frame_elements' command line (`python -m frames_lab.fe_research`).

    python -m frames_lab.fe_research tune training/x/model-best --corpus dev.spacy -o sweep.json \
        --ngram-gap 0 --phrases-clauses off --phrases-clauses on --criterion fe_os_f

`errors` counts where a trained frame_elements loses F on a dev corpus with gold frames
(`errors.py`). `tune` fits a pipeline's research frame_elements (factory `frame_elements_research`) on
dev with gold frames, as the product's `tune-fe-threshold` fits its own: the candidate
set (n-gram gaps, and fe_candidate_suggester.v2's phrases and clauses on, off or as
configured), decoding, pieces per FE and decision threshold, for open-sesame's measure or
the strict one. It writes the same JSON (the configured setting's row, the best, the
whole grid and the suggester settings chosen) and, with --output-model, saves the pipeline
with the choice in its cfg and config.cfg. On a pipeline with the product's frame_elements
it writes the product's settings grid (`product_grid.py`: gaps, decodings, pieces and
thresholds; the product's own tuner fits the threshold alone) and saves nothing.
"""

from pathlib import Path
from typing import Dict, List, Optional

import typer

FACTORY = "frame_elements_research"
# the product's frame_elements and the study's subclass of it: tuned by the settings grid
PRODUCT_FACTORIES = ("frame_elements", "frame_elements_bio")
PHRASES_CLAUSES = {"on": True, "off": False, "configured": None}

app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)


@app.callback()
def main() -> None:
    """The research frame_elements' commands."""


@app.command("tune")
def tune_cli(
    model: str = typer.Argument(..., help="Trained pipeline with a research frame_elements"),
    corpus: Path = typer.Option(Path("corpus/framenet15/dev.spacy"), "--corpus", help="Dev corpus with gold FEs"),
    output: Path = typer.Option(..., "--output", "-o", help="JSON file to write (the sweep)"),
    output_model: Optional[Path] = typer.Option(
        None, "--output-model", help="Save the pipeline with the chosen settings here"
    ),
    ngram_gap: List[str] = typer.Option(
        ["none", "2", "0"],
        "--ngram-gap",
        help="Candidate n-gram gaps to try (repeat; 'none': every n-gram of the window)",
    ),
    phrases_clauses: List[str] = typer.Option(
        ["configured"],
        "--phrases-clauses",
        help="Candidates also from the phrases the target sits in and the clauses around it (fe_candidate_suggester.v2): 'on', 'off' or 'configured' (repeat to compare)",
    ),
    max_pieces: List[int] = typer.Option([1], "--max-pieces", help="Most spans per FE of a target to try (repeat)"),
    criterion: str = typer.Option(
        "fe_os_f", "--criterion", help="What to maximise: fe_os_f (open-sesame's measure) or fe_f (exact span and name)"
    ),
):
    """Choose the research frame_elements' candidate set, decoding, pieces per FE and
    decision threshold on dev (gold frames)."""
    import srsly

    try:
        gaps = [None if g.lower() in ("none", "null") else int(g) for g in ngram_gap]
    except ValueError:
        raise typer.BadParameter(f"--ngram-gap takes integers >= 0 or 'none', got {ngram_gap}") from None
    if any(value not in PHRASES_CLAUSES for value in phrases_clauses):
        raise typer.BadParameter(f"--phrases-clauses takes 'on', 'off' or 'configured', got {phrases_clauses}")
    extras = [PHRASES_CLAUSES[value] for value in phrases_clauses]
    try:
        result = tune(model, corpus, output_model, gaps, extras, max_pieces, criterion)
    except (OSError, ValueError) as err:
        typer.secho(f"✘ {err}", fg=typer.colors.RED, err=True)
        raise typer.Exit(1) from None
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    best, before = result["best"], result["before"]
    typer.echo(
        f"best: n-gram gap {best['ngram_gap']}, phrases and clauses {'on' if best['phrases_clauses'] else 'off'}, "
        f"{best['decoding']} decoding, {best['max_pieces']} piece(s) per FE, threshold {best['threshold']}: "
        f"FE P {best['fe_p']}  R {best['fe_r']}  F {best['fe_f']}, open-sesame F {best['fe_os_f']} "
        f"({best['candidate_rows']} candidate rows)"
        + (f" (was {before['fe_f']} at {before['threshold']}, {before['candidate_rows']} rows)" if before else "")
    )


def tune(
    model: str,
    corpus: Path,
    output_model: Optional[Path],
    gaps: List[Optional[int]],
    extras: List[Optional[bool]],
    max_pieces: List[int],
    criterion: str,
) -> Dict:
    """`FrameElementsResearch.find_threshold` of the pipeline at `model` on `corpus`; with
    `output_model`, the pipeline saved there with the choice."""
    import spacy

    from spacy_frames.extensions import install_extensions
    from spacy_frames.scoring.frame_elements_eval import DEFAULT_FE_THRESHOLDS, fe_examples

    from .product_grid import product_grid

    install_extensions()
    nlp = spacy.load(model)
    if "frame_elements" not in nlp.pipe_names:
        raise ValueError(f"{model} has no enabled frame_elements component (pipeline: {nlp.pipe_names})")
    factory = nlp.get_pipe_meta("frame_elements").factory
    if factory in PRODUCT_FACTORIES:  # its settings grid, the pipeline left as it is
        if output_model is not None or extras != [None]:
            raise ValueError("the product's frame_elements: no --output-model or --phrases-clauses (its tuner saves)")
        result = product_grid(
            nlp,
            fe_examples(nlp, corpus),
            thresholds=DEFAULT_FE_THRESHOLDS,
            ngram_gaps=gaps,
            max_pieces=max_pieces,
            criterion=criterion,
        )
        result["best"]["phrases_clauses"] = False
        return {**result, "model": str(model), "corpus": str(corpus), "criterion": criterion}
    if factory != FACTORY:
        raise ValueError(f"{model}'s frame_elements is made by factory '{factory}', not '{FACTORY}'")
    result = nlp.get_pipe("frame_elements").find_threshold(
        fe_examples(nlp, corpus),
        nlp=nlp,
        thresholds=DEFAULT_FE_THRESHOLDS,
        ngram_gaps=gaps,
        phrases_clauses=extras,
        max_pieces=max_pieces,
        criterion=criterion,
    )
    result.update({"model": str(model), "corpus": str(corpus)})
    if output_model is not None:
        # trained with frame_identifier disabled (gold frames); saved as a whole frame parser
        for name in [n for n in nlp.disabled if n == "frame_identifier"]:
            nlp.enable_pipe(name)
        best = result["best"]
        chosen = {key: best[key] for key in ("decoding", "threshold", "max_pieces")}
        save_with_settings(nlp, "frame_elements", chosen, output_model, {"suggester": result["suggester"]})
        result["saved"] = str(output_model)
    return result


def save_with_settings(nlp, component: str, chosen: Dict, output_model: Path, config_settings: Dict) -> None:
    """Save `nlp` with `chosen` settings of `component` in its cfg (what a loaded pipeline
    uses) and in config.cfg (what a reader sees), and `config_settings` of its registered
    blocks ({"suggester": {...}}: in config.cfg only, the loaded pipeline builds them from
    it; a key the block lacks is added)."""
    from spacy.util import load_config

    nlp.get_pipe(component).cfg.update(chosen)
    nlp.to_disk(output_model)
    config_path = Path(output_model) / "config.cfg"
    overrides = {f"components.{component}.{key}": value for key, value in chosen.items()}
    config = load_config(config_path, overrides=overrides, interpolate=False)
    for block, values in config_settings.items():
        section = config["components"][component].get(block)
        if not isinstance(section, dict):
            raise ValueError(f"{component} has no block '{block}' in its config")
        section.update(values)
    config.to_disk(config_path)


@app.command("open-sesame-measure")
def open_sesame_measure_cli(
    model: str = typer.Argument(..., help="Trained pipeline with frame_elements"),
    output: Path = typer.Option(..., "--output", "-o", help="JSON file to write"),
    fn15_dir: Path = typer.Option(Path("corpus/framenet15"), "--fn15", help="Converted FrameNet 1.5 corpus"),
    fn17_dir: Optional[Path] = typer.Option(None, "--fn17", help="Converted FrameNet 1.7 dev"),
    split: List[str] = typer.Option(["dev"], "--split", help="FN1.5 split(s) on gold frames; repeatable"),
    end_to_end: bool = typer.Option(False, "--end-to-end", help="Also FN1.5 test from raw text"),
    lu_lookup: Optional[Path] = typer.Option(
        None, "--lu-lookup", help="Train DocBin with FEs on their target: also score the predictions plus the LU lookup"
    ),
):
    """The product's frame_elements evaluation, with a train-LU lookup of the FE on the target beside it."""
    import srsly

    from .lu_lookup import evaluate_open_sesame

    try:
        result = evaluate_open_sesame(model, fn15_dir, fn17_dir, split, end_to_end, lu_lookup)
    except (OSError, ValueError) as err:
        typer.secho(f"✘ {err}", fg=typer.colors.RED, err=True)
        raise typer.Exit(1) from None
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    for key, scores in result.items():
        if isinstance(scores, dict) and "fe_os_f" in scores:
            typer.echo(f"{key}: open-sesame F {scores['fe_os_f']}  lookup {scores.get('with_lu_lookup')}")


@app.command("errors")
def errors_cli(
    model: str = typer.Argument(..., help="Trained pipeline with frame_elements"),
    corpus: Path = typer.Option(Path("corpus/framenet15/dev.spacy"), "--corpus", help="Corpus with gold FEs (dev)"),
    output: Path = typer.Option(..., "--output", "-o", help="JSON file to write"),
):
    """Each gold and each predicted FE of the gold targets (gold frames) in one class:
    correct, boundary, label, overlap_other, missed / spurious."""
    import spacy
    import srsly

    from spacy_frames.extensions import install_extensions
    from spacy_frames.scoring.frame_elements_eval import fe_examples

    from .errors import fe_error_breakdown

    install_extensions()
    try:
        nlp = spacy.load(model)
        result = {"model": model, "corpus": str(corpus)}
        result.update(fe_error_breakdown(nlp, fe_examples(nlp, corpus)))
    except (OSError, ValueError) as err:
        typer.secho(f"✘ {err}", fg=typer.colors.RED, err=True)
        raise typer.Exit(1) from None
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    typer.echo(f"gold: {result['gold']}\npredicted: {result['predicted']}")

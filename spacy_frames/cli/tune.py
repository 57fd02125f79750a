"""`spacy-frames tune-detection` and `tune-fe-threshold`: settings fitted on dev after
training, by the components' own methods (`FrameIdentifier.find_thresholds` and
`fit_target_calibration`, `FrameElements.find_threshold`), saved with the pipeline: the
run-time settings in the component's cfg and in config.cfg, which a loaded pipeline is
built from (pipeline/base.py)."""

from pathlib import Path
from typing import Optional

import typer

from ._util import Arg, Opt, _fail, app


@app.command("tune-detection")
def tune_detection_cli(
    # fmt: off
    model: str = Arg(..., help="Trained pipeline with a frame_identifier"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write (the whole grid and the best cut-offs)"),
    corpus: Path = Opt(Path("corpus/framenet15/dev.spacy"), "--corpus", help="Dev corpus the cut-offs are tuned on"),
    output_model: Optional[Path] = Opt(None, "--output-model", help="Save the pipeline with the chosen cut-offs here"),
    train: Optional[Path] = Opt(
        None,
        "--train",
        help="Training corpus: also fit the target calibration (target rates from it, weights by cross-validation on dev) and save that",
    ),
    # fmt: on
):
    """Tune the target detector's cut-offs (in-lexicon and out-of-lexicon) for F1 on dev;
    with --train, fit the target calibration too (and use it)."""
    import json

    import spacy

    from ..extensions import install_extensions
    from ..scoring.frames_eval import DEFAULT_OOV_THRESHOLDS, DEFAULT_THRESHOLDS, frame_examples

    try:
        install_extensions()
        nlp = spacy.load(model)
        if "frame_identifier" not in nlp.pipe_names:
            raise ValueError(f"{model} has no frame_identifier component (pipeline: {nlp.pipe_names})")
        for path in [corpus] + ([train] if train is not None else []):
            if not Path(path).exists():
                raise FileNotFoundError(f"Corpus '{path}' not found: run `spacy project run convert` first.")
        pipe = nlp.get_pipe("frame_identifier")
        before = (pipe.cfg["threshold"], pipe.cfg["oov_threshold"])
        examples = frame_examples(nlp, corpus, gold_targets=False)
        result = pipe.find_thresholds(
            examples, nlp=nlp, thresholds=DEFAULT_THRESHOLDS, oov_thresholds=DEFAULT_OOV_THRESHOLDS
        )
        result.update({"model": str(model), "corpus": str(corpus)})
        result["before"] = next(
            (row for row in result["grid"] if (row["threshold"], row["oov_threshold"]) == before), None
        )
        chosen = {key: result["best"][key] for key in ("threshold", "oov_threshold")}
        chosen["overlapping_candidates"] = False
        if train is not None:
            calibrated = pipe.fit_target_calibration(examples, frame_examples(nlp, train, gold_targets=False), nlp=nlp)
            calibrated["train"] = str(train)
            result["calibrated"] = calibrated
            chosen.update({"threshold": calibrated["best"]["threshold"], "overlapping_candidates": True})
        if output_model is not None:  # the methods set the chosen values in nlp.config too
            nlp.to_disk(output_model)
            result["saved"] = str(output_model)
            result["saved_settings"] = chosen
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    # the stdlib writes 0.95 as 0.95 (srsly's ujson: 0.9500000000000001)
    output.write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")
    best, before = result["best"], result["before"]
    if before:
        typer.echo(
            f"before: threshold {before['threshold']} oov {before['oov_threshold']}: P {before['target_p']} R {before['target_r']} F {before['target_f']}"
        )
    typer.echo(
        f"best:   threshold {best['threshold']} oov {best['oov_threshold']}: P {best['target_p']} R {best['target_r']} F {best['target_f']}"
    )
    if "calibrated" in result:
        cal = result["calibrated"]["best"]
        typer.echo(
            f"calibrated (5-fold CV on dev): l2 {cal['l2']} threshold {cal['threshold']}: P {cal['target_p']} R {cal['target_r']} F {cal['target_f']}"
        )
    if output_model is not None:
        typer.echo(f"saved to {output_model}")


@app.command("tune-fe-threshold")
def tune_fe_threshold_cli(
    # fmt: off
    model: str = Arg(..., help="Trained pipeline with frame_elements"),
    corpus: Path = Opt(Path("corpus/framenet15/dev.spacy"), "--corpus", help="Dev corpus with gold FEs"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write (the sweep)"),
    output_model: Optional[Path] = Opt(None, "--output-model", help="Save the pipeline with the chosen settings here"),
    criterion: str = Opt(
        "fe_os_f", "--criterion", help="What to maximise: fe_os_f (open-sesame's measure) or fe_f (exact span and name)"
    ),
    # fmt: on
):
    """Choose frame_elements' decision threshold on dev (gold frames)."""
    import spacy
    import srsly

    from ..extensions import install_extensions
    from ..scoring.frame_elements_eval import DEFAULT_FE_THRESHOLDS, fe_examples

    try:
        install_extensions()
        nlp = spacy.load(model)
        if "frame_elements" not in nlp.pipe_names:
            raise ValueError(f"{model} has no enabled frame_elements component (pipeline: {nlp.pipe_names})")
        pipe = nlp.get_pipe("frame_elements")
        result = pipe.find_threshold(
            fe_examples(nlp, corpus),
            nlp=nlp,
            thresholds=DEFAULT_FE_THRESHOLDS,
            criterion=criterion,
        )
        result.update({"model": str(model), "corpus": str(corpus)})
        if output_model is not None:  # find_threshold set its choice in nlp.config too
            # trained with frame_identifier disabled (gold frames); saved as a whole frame parser
            for name in [n for n in nlp.disabled if n == "frame_identifier"]:
                nlp.enable_pipe(name)
            nlp.to_disk(output_model)
            result["saved"] = str(output_model)
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    best, before = result["best"], result["before"]
    typer.echo(
        f"best: threshold {best['threshold']}: FE P {best['fe_p']}  R {best['fe_r']}  F {best['fe_f']}, "
        f"open-sesame F {best['fe_os_f']} ({best['candidate_rows']} candidate rows)"
        + (f" (was {before['fe_f']} at {before['threshold']}, {before['candidate_rows']} rows)" if before else "")
    )

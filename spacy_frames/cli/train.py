"""`spacy-frames fit-inducer` (the frame_inducer's centroids) and `spacy-frames train-media`
(a media_framer recipe, stage by stage)."""

from pathlib import Path
from typing import Optional

import typer

from ..recipes.media import RECIPES
from ._util import Arg, Opt, _fail, app


@app.command("fit-inducer")
def fit_inducer_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with a trained frame_inducer"),
    input_path: Path = Arg(..., metavar="INPUT", help=".spacy instances with gold frames (span labels) to cluster"),
    output_path: Path = Arg(..., metavar="OUTPUT", help=".spacy file written with span._.induced_frame set"),
    store_centroids: Path = Opt(..., "--store-centroids", help="Save the pipeline with the fitted centroids here"),
    save_vectors: Optional[Path] = Opt(
        None, "--save-vectors", help="Keep the instances' embeddings (.npz: vectors, lemmas, frames) for re-clustering"
    ),
    cut_scale: float = Opt(1.0, "--cut-scale", help="Calibrated two-step cut times this (< 1: finer clusters)"),
    # fmt: on
):
    """Fit the frame_inducer's cluster centroids: two-step clustering of the instances, its cut
    calibrated on their gold frames; saves the pipeline that assigns new targets to them."""
    import json

    from ..recipes.inducer import fit_inducer

    try:
        result = fit_inducer(
            model, input_path, output_path, store_centroids, save_vectors=save_vectors, cut_scale=cut_scale
        )
    except (OSError, ValueError) as err:
        _fail(err)
    typer.echo(json.dumps(result, indent=1))


@app.command("train-media")
def train_media_cli(
    # fmt: off
    setting: str = Arg(
        ..., help=f"Recipe, one of: {', '.join(RECIPES)} (en_frames_trf packages headboth-multi-en-a0-w256)"
    ),
    test_langs: Optional[str] = Opt(
        None,
        "--test-langs",
        help="Score test on these of the recipe's languages only (comma-separated); the run is then <setting>@test-<langs>",
    ),
    configs: str = Opt("configs", "--configs", help="Directory of the media_*.cfg configs"),
    export: Optional[Path] = Opt(None, "--export", help="Copy the final (threshold-tuned) pipeline here"),
    force: bool = Opt(False, "--force", help="Train again even if the run file exists"),
    seed: int = Opt(0, "--seed", help="Training seed (a run of another seed than 0 is named <run>_seed<n>)"),
    corpus: Path = Opt(Path("corpus/media_frames"), "--corpus", help="Directory of the <lang>_<split>.spacy corpora"),
    work: Path = Opt(Path("training/media"), "--work", help="Directory of each run's models, logs and the body caches"),
    runs: Path = Opt(Path("metrics/media_framer/runs"), "--runs", help="Directory of the run files"),
    # fmt: on
):
    """Train media_framer with one of its multilingual recipes: a head over frozen bodies
    (frame_identifier's transformer and/or multilingual USE) trained on every language's
    train split, then on English; thresholds tuned on English dev, dev and test scored, the
    run written to <runs>/<name>.json. Run it in the project directory: the recipes read
    training/frames_final."""
    from ..recipes.media import MediaProject, run_spec, summary_line

    if setting not in RECIPES:
        _fail(ValueError(f"Unknown recipe {setting!r}: choose one of {', '.join(RECIPES)}."))
    try:
        spec, name = run_spec(setting, RECIPES[setting], test_langs.split(",") if test_langs else None, seed=seed)
        project = MediaProject(Path.cwd().resolve(), corpus=corpus, work=work, runs=runs)
        run = project.train(setting, spec, name, seed=seed, configs=configs, force=force, export=export)
    except (OSError, ValueError, RuntimeError) as err:
        _fail(err)
    if run is not None:
        typer.echo(summary_line(name, run))

"""`spacy-frames induce`: cluster a corpus's targets into induced frames. Its library
function is `spacy_frames.recipes.inducer.induce` (re-exported here with `scale_cut`)."""

from pathlib import Path
from typing import Optional

import typer

from ..recipes.inducer import induce, scale_cut
from ._util import Arg, Opt, _fail, app

__all__ = ["induce", "induce_cli", "scale_cut"]


@app.command("induce")
def induce_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with a frame_inducer"),
    input_path: Path = Arg(..., help=".spacy corpus whose targets are clustered"),
    output_path: Path = Arg(..., help=".spacy file written with span._.induced_frame set"),
    method: str = Opt("two-step", "--method", "-m", help="two-step | one-step | faiss"),
    dev: Optional[Path] = Opt(None, "--dev", help="Gold-labelled corpus the stopping criterion is calibrated on"),
    calibrate_on_input: bool = Opt(False, "--calibrate-on-input", help="Calibrate on the input's own gold frames"),
    store_centroids: Optional[Path] = Opt(
        None, "--store-centroids", help="Save the pipeline with these clusters as centroids here"
    ),
    batch_size: int = Opt(64, "--batch-size"),
    # fmt: on
):
    """Embed every target of a corpus, cluster them and write induced frames (optionally as centroids)."""
    import json

    try:
        result = induce(
            model,
            input_path,
            output_path,
            method=method,
            dev=dev,
            calibrate_on_input=calibrate_on_input,
            store_centroids=store_centroids,
            batch_size=batch_size,
        )
    except (OSError, ValueError) as err:
        _fail(err)
    typer.echo(json.dumps(result, indent=1))

"""Packaging commands: `spacy-frames half-storage` (a pipeline's own encoder weights in float16)
and `spacy-frames releases` (the frame inventories a pipeline carries)."""

from pathlib import Path
from typing import List, Optional

import typer

from ._util import Arg, Opt, _fail, app


@app.command("half-storage")
def half_storage_cli(
    # fmt: off
    model: Path = Arg(..., help="Pipeline directory (rewritten in place unless --output)"),
    component: List[str] = Opt(
        ..., "--component", "-c", help="Component whose own encoder weights are stored in float16 (repeat)"
    ),
    output: Optional[Path] = Opt(None, "--output", "-o", help="Save here instead"),
    # fmt: on
):
    """Store the named components' own torch weights in float16 (loaded back as float32)."""
    import json

    from ..tools.half_storage import half_storage

    try:
        result = half_storage(model, list(component), output)
    except (OSError, ValueError) as err:
        _fail(err)
    typer.echo(json.dumps(result, indent=1))


@app.command("releases")
def releases_cli(
    # fmt: off
    model: Path = Arg(..., help="Pipeline directory with frame_identifier (rewritten in place unless --output)"),
    current: Optional[str] = Opt(
        None, "--current", help="Store the active inventory, with its trained frame memory, under this release name"
    ),
    add: List[str] = Opt([], "--add", help="NAME=frames.json: carry this inventory as release NAME (repeat)"),
    use: Optional[str] = Opt(None, "--use", help="Release to make active (the pipeline's default)"),
    output: Optional[Path] = Opt(None, "--output", "-o", help="Save here instead"),
    # fmt: on
):
    """Carry frame inventories inside a pipeline by release name, so that
    `spacy_frames.set_inventory(nlp, NAME)` works on the installed pipeline, and choose the
    active one."""
    import json

    from ..extensions import install_extensions
    from ..inventory.frames import FrameInventory
    from ..pipeline.inventory_ops import find_frame_identifier, inventory_meta, set_inventory
    from ..tools.model_check import load_pipeline

    try:
        pairs = [item.split("=", 1) for item in add]
        if any(len(pair) != 2 for pair in pairs):
            raise ValueError(f"--add takes NAME=frames.json, got {add}")
        install_extensions()
        nlp = load_pipeline(model)
        identifier = find_frame_identifier(nlp)
        if current is not None:
            identifier.store_release(current)
        for name, path in pairs:
            identifier.store_release(name, FrameInventory().from_disk(path))
        if use is not None:
            set_inventory(nlp, use)
        nlp.meta["frame_inventory"] = inventory_meta(identifier)
        nlp.to_disk(output or model)
    except (OSError, ValueError, KeyError) as err:
        _fail(err)
    typer.echo(json.dumps(nlp.meta["frame_inventory"], indent=1))

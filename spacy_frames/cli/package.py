"""`spacy-frames half-storage`: a packaged pipeline's own encoder weights in float16."""

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

"""`spacy-frames fetch-assets`: the project's assets from a mirror or upstream, checksummed."""

from pathlib import Path
from typing import List, Optional

import typer

from ._util import Arg, Opt, _fail, app


@app.command("fetch-assets")
def fetch_assets_cli(
    # fmt: off
    project_yml: Path = Arg(Path("project.yml"), help="project.yml whose `assets` to fetch"),
    mirror: Optional[str] = Opt(
        None,
        "--mirror",
        "-m",
        help="Mirror directory ('' = download from upstream; default: the project's vars.assets_mirror when it exists)",
    ),
    only: List[str] = Opt([], "--only", help="Fetch only assets whose dest contains this (repeatable)"),
    extra: bool = Opt(False, "--extra", help="Also fetch optional assets (e.g. all-mpnet-base-v2)"),
    # fmt: on
):
    """Fetch project assets from the mirror (or upstream) and verify their checksums."""
    from ..tools.assets import AssetError, fetch_assets, project_mirror

    try:
        if mirror is None:
            mirror = project_mirror(project_yml)
            typer.echo(f"Mirror: {mirror}" if mirror else "No mirror directory: fetching from upstream")
        rows = fetch_assets(project_yml, mirror or None, only=only, extra=extra)
    except AssetError as err:
        _fail(err)
    for row in rows:
        typer.echo(f"✔ {row['asset']}: {row['status']}")

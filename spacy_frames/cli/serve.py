"""`spacy-frames serve MODEL`: the pipeline behind an HTTP API and a page (the `serve` extra)."""

from typing import List

import typer

from ..tools.server import BATCH_WAIT_S  # FastAPI and uvicorn load only when serving
from ._util import Arg, Opt, _fail, app


@app.command("serve")
def serve_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline: installed package name or path"),
    host: str = Opt("127.0.0.1", "--host", help="Address to bind (default: this machine only)"),
    port: int = Opt(8080, "--port"),
    batch_size: int = Opt(32, "--batch-size", help="Texts per nlp.pipe batch (concurrent requests share batches)"),
    batch_wait_ms: float = Opt(
        BATCH_WAIT_S * 1000, "--batch-wait-ms", help="After a request, wait this long for more to batch with it"
    ),
    max_body_bytes: int = Opt(1_000_000, "--max-body-bytes", help="Largest request body (413 over it)"),
    max_texts: int = Opt(64, "--max-texts", help="Most texts in one request (413 over it)"),
    max_chars: int = Opt(20_000, "--max-chars", help="Most characters in one text (413 over it)"),
    exclude: List[str] = Opt([], "--exclude", help="Leave this component out, for speed (repeatable)"),
    # fmt: on
):
    """Serve MODEL: POST /parse (annotate's records), POST /render (HTML), GET /health, GET /meta, and a page at /."""
    try:
        import uvicorn

        from ..tools.server import ServeLimits, create_app
    except ImportError as err:
        _fail(ImportError(f"{err}: install the serve extra, pip install 'spacy-frames[serve]'"))
    from ..extensions import install_extensions
    from ..tools.model_check import load_pipeline

    try:
        install_extensions()
        nlp = load_pipeline(model, exclude=exclude)
    except (OSError, ValueError) as err:
        _fail(err)
    limits = ServeLimits(max_body_bytes=max_body_bytes, max_texts=max_texts, max_chars=max_chars)
    if batch_wait_ms < 0:
        _fail(ValueError(f"--batch-wait-ms must be >= 0, got {batch_wait_ms}"))
    server_app = create_app(nlp, model, limits, batch_size=batch_size, batch_wait_s=batch_wait_ms / 1000)
    typer.secho(f"Serving {model} on http://{host}:{port}/ (Ctrl+C stops)", fg=typer.colors.GREEN, err=True)
    uvicorn.run(server_app, host=host, port=port, log_level="info")

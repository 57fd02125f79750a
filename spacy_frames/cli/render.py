"""`spacy-frames render MODEL INPUT OUTPUT.html`: the parses of a few documents as one
HTML page (displaCy span style, one block per frame)."""

from pathlib import Path

import typer

from ._util import Arg, Opt, _fail, app


@app.command("render")
def render_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline: installed package name or path"),
    input_path: Path = Arg(
        ..., metavar="INPUT", help=".txt (one document per non-empty line) or a .spacy DocBin (its texts)"
    ),
    output: Path = Arg(..., help="HTML file to write"),
    limit: int = Opt(20, "--limit", help="Render the first N documents"),
    # fmt: on
):
    """Render the pipeline's frames, frame elements, induced frames, discourse relations and media frames."""
    import spacy
    from spacy.tokens import DocBin

    from ..render import render

    try:
        if output.suffix.lower() not in (".html", ".htm"):
            raise ValueError(f"OUTPUT must be an .html file, got '{output}'")
        if not input_path.is_file():
            raise FileNotFoundError(f"Input '{input_path}' not found")
        if input_path.suffix == ".txt":
            texts = [line.strip() for line in input_path.read_text(encoding="utf8").splitlines() if line.strip()]
        elif input_path.suffix == ".spacy":
            texts = [doc.text for doc in DocBin().from_disk(input_path).get_docs(spacy.blank("en").vocab)]
        else:
            raise ValueError(f"INPUT must be a .txt or .spacy file, got '{input_path}'")
        nlp = spacy.load(model)
    except (OSError, ValueError) as err:
        _fail(err)
    docs = list(nlp.pipe(texts[:limit]))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render(docs), encoding="utf8")
    typer.secho(f"✔ {len(docs)} documents rendered to {output}", fg=typer.colors.GREEN)

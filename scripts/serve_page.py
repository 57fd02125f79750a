"""Screenshot of the `spacy-frames serve` page with a sentence parsed (the serve-page command).

python scripts/serve_page.py MODEL OUT.png [--text "..."]
"""

import sys
from pathlib import Path

import typer

SAMPLE = "The committee decided to postpone the vote after protesters blocked the entrance to the building."


def main(
    model: str = typer.Argument(..., help="Pipeline: installed package name or path"),
    output: Path = typer.Argument(..., help="PNG to write"),
    text: str = typer.Option(SAMPLE, "--text", help="The text parsed on the page"),
):
    from spacy_frames.tools.serve_load import screenshot_page

    try:
        screenshot_page(model, output, text)
    except (OSError, RuntimeError, ValueError) as err:
        sys.exit(f"✘ {err}")
    typer.echo(f"✔ {output}")


if __name__ == "__main__":
    typer.run(main)

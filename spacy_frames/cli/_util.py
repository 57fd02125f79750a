"""The `spacy-frames` typer app that every command module registers on, and its helpers."""

import typer

app = typer.Typer(name="spacy-frames", no_args_is_help=True, add_completion=False)
Arg = typer.Argument
Opt = typer.Option


def _fail(err: Exception) -> None:
    typer.secho(f"✘ {err}", fg=typer.colors.RED, err=True)
    raise typer.Exit(1)

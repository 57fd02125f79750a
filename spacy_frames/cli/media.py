"""`spacy-frames media-cache-body`, `media-thresholds` and `evaluate-media`: media framing."""

from pathlib import Path
from typing import List, Optional

import typer

from ._util import Arg, Opt, _fail, app


@app.command("media-cache-body")
def media_cache_body_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline whose (frozen) transformer encodes the articles"),
    corpora: List[Path] = Arg(..., help="Converted media-frames corpora (corpus/media_frames/*.spacy)"),
    output: Path = Opt(..., "--output", "-o", help="msgpack file of article vectors (the reader's body_cache)"),
    component: str = Opt("media_framer", "--component", "-c", help="Component whose listener is cached"),
    # fmt: on
):
    """Encode whole articles once with a frozen transformer, for the head-only training stages."""
    import spacy

    from ..corpora.media_cache import write_body_cache

    try:
        n = write_body_cache(spacy.load(model), component, corpora, output)
    except (OSError, ValueError) as err:
        _fail(err)
    typer.echo(f"✔ {n} article vectors written to {output}")


@app.command("media-thresholds")
def media_thresholds_cli(
    # fmt: off
    model: Path = Arg(..., help="Trained pipeline with media_framer (updated in place unless --output)"),
    dev: List[Path] = Arg(..., help="Dev corpora (corpus/media_frames/*_dev.spacy)"),
    output: Optional[Path] = Opt(None, "--output", "-o", help="Save the tuned pipeline here instead"),
    component: str = Opt("media_framer", "--component", "-c"),
    # fmt: on
):
    """Tune each frame's decision threshold on dev and save it with the component."""
    import spacy

    from ..scoring.media_eval import tune_media_thresholds

    try:
        nlp = spacy.load(model)
        thresholds = tune_media_thresholds(nlp, component, dev)
    except (OSError, ValueError) as err:
        _fail(err)
    nlp.to_disk(output or model)
    typer.echo("\n".join(f"{label}\t{t:.2f}" for label, t in thresholds.items()))
    typer.echo(f"✔ thresholds saved in {output or model}")


@app.command("evaluate-media")
def evaluate_media_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with media_framer"),
    corpora: List[Path] = Arg(..., help="Test corpora (corpus/media_frames/<lang>_test.spacy)"),
    output: Optional[Path] = Opt(None, "--output", "-o", help="JSON file for the scores"),
    component: str = Opt("media_framer", "--component", "-c"),
    # fmt: on
):
    """Micro/macro-F1 of doc._.media_frames per language."""
    import json

    import spacy

    from ..scoring.media_eval import evaluate_media

    try:
        scores = evaluate_media(spacy.load(model), component, corpora)
    except (OSError, ValueError) as err:
        _fail(err)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(scores, indent=1))
    for lang, s in scores.items():
        typer.echo(f"{lang}\tmicro-F1 {s['micro_f1']:.3f}\tmacro-F1 {s['macro_f1']:.3f}\tn {s['n']}")

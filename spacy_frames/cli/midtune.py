"""`spacy-frames midtune-sample` (the sentence sample), `spacy-frames midtune-parse` (parse the sentence sample with en_frames_trf, cached) and
`spacy-frames midtune` (train E1 / E2 on the parses, save E1 as an encoder directory)."""

from pathlib import Path
from typing import Optional

import typer

from ._util import Arg, Opt, _fail, app


@app.command("midtune-sample")
def midtune_sample_cli(
    # fmt: off
    assets: Path = Opt(Path("assets"), "--assets", help="Fetched assets (GDTB, DiscoGeM)"),
    corpus: Path = Opt(
        Path("corpus"), "--corpus", help="Converted corpora (FN1.5 exemplars/dev/test, media framer splits)"
    ),
    out: Path = Opt(Path("corpus/midtune"), "--out", help="Directory for sentences.jsonl and counts.json"),
    size: int = Opt(20000, "--size", help="Sentences in the sample"),
    seed: int = Opt(0, "--seed"),
    # fmt: on
):
    """Sample English sentences for mid-tuning, no component's dev or test text."""
    from ..midtune.sample import build_sample, write_sample

    try:
        records, counts = build_sample(assets, corpus, size, seed)
    except (OSError, ValueError) as err:
        _fail(err)
    write_sample(out, records, counts)
    for source, c in counts["sources"].items():
        typer.echo(
            f"{source:<10} available {c['available']:>7}  sampled {c['sampled']:>6}  excluded {c['excluded_sentences']:>5}"
        )
    typer.secho(f"✔ {counts['total']} sentences written to {out}", fg=typer.colors.GREEN)


@app.command("midtune-parse")
def midtune_parse_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline that parses the sentences (en_frames_trf: frames, FEs, dependency parse)"),
    sample: Path = Arg(..., help="sentences.jsonl of `spacy-frames midtune-sample`"),
    output: Path = Arg(..., help=".spacy DocBin of the parsed sentences (the cache)"),
    limit: Optional[int] = Opt(None, "--limit", help="Parse only the first N sentences"),
    batch_size: int = Opt(32, "--batch-size"),
    # fmt: on
):
    """Parse the mid-tuning sample once; the DocBin keeps frames, FEs and the dependency parse."""
    import spacy
    import srsly
    from spacy.tokens import DocBin
    from tqdm import tqdm

    from ..corpora.docbins import add_docs
    from ..extensions import install_extensions

    if not sample.is_file():
        _fail(FileNotFoundError(f"Sample '{sample}' not found: run `spacy project run midtune-sample` first."))
    texts = [record["text"] for record in srsly.read_jsonl(sample)][:limit]
    if not texts:
        _fail(ValueError(f"Sample '{sample}' holds no sentences."))
    try:
        install_extensions()
        nlp = spacy.load(model, exclude=["frame_inducer", "discourse_sense", "media_framer"])
    except (OSError, ValueError) as err:
        _fail(err)
    parsed = tqdm(nlp.pipe(texts, batch_size=batch_size), total=len(texts), desc="parsing", unit="sent")
    docbin = add_docs(DocBin(store_user_data=True), parsed)
    output.parent.mkdir(parents=True, exist_ok=True)
    docbin.to_disk(output)
    typer.secho(f"✔ {len(texts)} parsed sentences written to {output}", fg=typer.colors.GREEN)


@app.command("midtune", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def midtune_cli(
    ctx: typer.Context,
    # fmt: off
    config_path: Path = Arg(..., help="configs/midtune.cfg"),
    parses: Path = Arg(..., help="Parsed sentences (.spacy, from midtune-parse)"),
    output: Path = Arg(..., help="Directory: encoder/ (E1, usable as paths.encoder), summary.json, losses.json"),
    gpu_id: int = Opt(-1, "--gpu-id", "-g", help="GPU to train on (-1: CPU)"),
    # fmt: on
):
    """Mid-tune a sentence encoder on the parses (overrides as in spacy train: --midtune.form dependency)."""
    import spacy
    from spacy.cli._util import parse_config_overrides
    from spacy.tokens import DocBin
    from spacy.util import registry

    from ..extensions import install_extensions
    from ..midtune.train import midtune

    try:
        if not parses.is_file():
            raise FileNotFoundError(f"Parses '{parses}' not found: run `spacy-frames midtune-parse` first.")
        config = spacy.util.load_config(config_path, overrides=parse_config_overrides(ctx.args), interpolate=True)
        from ..ml.transformer import check_encoder

        check_encoder(str(config["paths"]["encoder"]))
        resolved = registry.resolve(config, validate=False)
        install_extensions()
        docs = list(DocBin().from_disk(parses).get_docs(spacy.blank("en").vocab))
        summary = midtune(resolved, docs, output, log=typer.echo, gpu_id=gpu_id)
    except (OSError, ValueError) as err:
        _fail(err)
    typer.secho(
        f"✔ E1 saved to {summary['encoder']} (loss {summary['loss_first']} -> {summary['loss_last']})",
        fg=typer.colors.GREEN,
    )

"""Words/s cost of a component in en_frames_trf: own encoder copy vs head on the shared transformer.

    python scripts/benchmark_component.py ../../training/frames_final --component discourse_sense \
        --own ../discourse/training/discourse/packaged/seed0/model-best \
        --head ../discourse/training/discourse/packaged-head/seed0/model-best \
        --corpus ../../corpus/discourse/gdtb_test.spacy --output metrics/benchmark_discourse_sense.json

Assembles BASE + the component twice under training/bench/ (the own variant with its
transformer copy moved into the component by `replace_listeners`, as
the product's configs/frames_trf.cfg does; the head variant listening to BASE's transformer), then
measures BASE and both in fresh processes, same run, same threads (spacy_frames.tools.benchmark).
The corpus must be what the component works on (discourse_sense: several sentences per
text, as it classifies adjacent sentences; media_framer: whole articles). The assembling runs in its own process,
so the measuring processes do not inherit its memory high-water mark.
"""

from pathlib import Path

import srsly
import typer


def assemble(base: str, component_model: str, output: Path, own: bool, component: str = "discourse_sense") -> str:
    import spacy

    nlp = spacy.load(base)
    source = spacy.load(component_model)
    if own:
        source.replace_listeners("transformer", component, ["model.tok2vec"])
    nlp.add_pipe(component, source=source)
    nlp.to_disk(output)
    return str(output)


# fmt: off
def main(
    base: str = typer.Argument(..., help="Pipeline with the shared transformer (frame_identifier's)"),
    own: str = typer.Option(..., "--own", help="The component trained with its own encoder copy"),
    head: str = typer.Option(..., "--head", help="The component trained as a head on BASE's transformer"),
    component: str = typer.Option("discourse_sense", "--component", "-c"),
    corpus: Path = typer.Option(..., "--corpus", help=".spacy corpus whose texts are annotated"),
    output: Path = typer.Option(..., "--output", "-o"),
    work: Path = typer.Option(Path("training/bench"), "--work", help="Where the assembled pipelines go"),
    n_threads: int = typer.Option(2, "--n-threads"),
    n_words: int = typer.Option(20000, "--n-words"),
):
    # fmt: on
    """Assemble BASE + the component (own, head) and measure all three."""
    import multiprocessing

    from spacy_frames.tools.benchmark import benchmark

    work.mkdir(parents=True, exist_ok=True)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        models = [base] + [pool.apply(assemble, (base, model, work / f"with_{component}_{name}", is_own, component))
                           for model, name, is_own in ((own, "own", True), (head, "head", False))]
    result = benchmark(models, corpus, n_threads=n_threads, n_words=n_words)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    for row in result["results"]:
        typer.echo(f"{row['model']}: {row['words_per_second']} words/s, peak {row['peak_rss_mib']} MiB")


if __name__ == "__main__":
    typer.run(main)

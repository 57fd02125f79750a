"""frame_elements' two prediction paths on the same docs: the factorised span layer the
component runs (`predict_hidden`) and the training forward's feature matrix through the same
layer. Both label the docs after the components before frame_elements; their outputs are
compared, and each path is timed `rounds` times, alternating, on 2 torch threads."""

import time
from pathlib import Path
from statistics import median

import spacy
import srsly
import typer
from spacy.tokens import DocBin

import spacy_frames.ml.frame_elements as fe_model
from spacy_frames.extensions import install_extensions


def feature_matrix_path(model, pooled, index, static):
    """The span layer as training runs it: the (rows, 5 x width + features) matrix."""
    return model.layers[0].predict(fe_model.feature_matrix(model.ops, pooled, index, static))


def main(
    model: Path,
    corpus: Path,
    output: Path,
    limit: int = typer.Option(400, help="Documents (sentences) of the corpus"),
    rounds: int = typer.Option(3, help="Timed passes of each path"),
):
    import torch

    torch.set_num_threads(2)
    install_extensions()
    nlp = spacy.load(model)
    texts = [doc.text for doc in DocBin().from_disk(corpus).get_docs(nlp.vocab)][:limit]
    before = nlp.pipe_names[: nlp.pipe_names.index("frame_elements")]
    with nlp.select_pipes(enable=before):
        docs = list(nlp.pipe(texts, batch_size=32))
    pipe, factorised = nlp.get_pipe("frame_elements"), fe_model.predict_hidden
    paths = {"factorised": factorised, "feature_matrix": feature_matrix_path}
    seconds = {name: [] for name in paths}
    outputs = {}
    for _ in range(rounds):
        for name, path in paths.items():
            fe_model.predict_hidden = path
            copies = [doc.copy() for doc in docs]
            start = time.perf_counter()
            for i in range(0, len(copies), 32):
                pipe.set_annotations(copies[i : i + 32], pipe.predict(copies[i : i + 32]))
            seconds[name].append(round(time.perf_counter() - start, 3))
            outputs[name] = [[(s.start, s.end, s.label_) for s in d.spans.get("frame_elements", [])] for d in copies]
    fe_model.predict_hidden = factorised
    result = {
        "model": str(model),
        "corpus": str(corpus),
        "documents": len(docs),
        "words": sum(len(doc) for doc in docs),
        "seconds": seconds,
        "median_seconds": {name: median(values) for name, values in seconds.items()},
        "feature_matrix_over_factorised": round(median(seconds["feature_matrix"]) / median(seconds["factorised"]), 3),
        "same_frame_elements": outputs["factorised"] == outputs["feature_matrix"],
    }
    srsly.write_json(output, result)
    typer.echo(result)


if __name__ == "__main__":
    typer.run(main)

"""Seconds each component of the heads' pipelines takes on FrameNet 1.5 test's documents
(the transformer first, then each head on the transformer's output), beside
en_core_web_sm's stack on the same texts; run on an otherwise idle machine:

    python scripts/component_times.py training/tagger_window/model-best \
        training/tagger_sentencizer/model-best --output metrics/component_times.json
"""

import time
from pathlib import Path
from typing import Dict, List

import spacy
import typer
from evaluate_stack import SM_MODEL, document_examples, write_result
from spacy.language import Language

from spacy_frames.extensions import install_extensions

CORPUS = Path("../../corpus/framenet15/test.spacy")


def component_seconds(nlp: Language, texts: List[str], batch_size: int = 16) -> Dict[str, float]:
    list(nlp.pipe(texts[:4]))  # warm up
    start = time.perf_counter()
    docs = list(nlp.make_doc(text) for text in texts)
    seconds = {"tokenizer": time.perf_counter() - start}
    for name, component in nlp.pipeline:
        start = time.perf_counter()
        docs = list(component.pipe(docs, batch_size=batch_size))
        seconds[name] = time.perf_counter() - start
    return {name: round(value, 2) for name, value in seconds.items()}


def main(
    models: List[Path] = typer.Argument(..., help="Pipelines of heads on the shared transformer"),
    output: Path = typer.Option(..., "--output", "-o"),
    corpus: Path = typer.Option(CORPUS, "--corpus"),
):
    install_extensions()
    sm = spacy.load(SM_MODEL, exclude=["ner", "senter"])
    texts = [eg.reference.text for eg in document_examples(sm, corpus)]
    result: Dict = {"corpus": str(corpus), "documents": len(texts), "words": None, "seconds": {}}
    result["seconds"]["en_core_web_sm"] = component_seconds(sm, texts)
    result["words"] = sum(len(doc) for doc in sm.pipe(texts))
    for model in models:
        result["seconds"][str(model)] = component_seconds(spacy.load(model), texts)
    write_result(output, result)


if __name__ == "__main__":
    typer.run(main)

"""Tags, lemmas and sentences from the shared transformer's heads against en_core_web_sm's
stack, on FrameNet 1.5 test (reported once), each on the same measure:

    python scripts/evaluate_stack.py training/tagger_senter/model-best --output metrics/own_stack.json

- tag accuracy on FrameNet's own PTB tags (full-text test sentences joined back into
  documents of at most 10 sentences, scored on FrameNet's tokens through spaCy's alignment);
- sentence P/R/F on those documents (en_core_web_sm: its parser's sentences);
- lexical-unit lookup of the gold targets (the lexicon frame_identifier uses, on lemma and
  FrameNet POS): the share whose span the lexicon gives the gold lexical unit (`lu_exact`)
  or any lexical unit (`lu_found`);
- words/s on the same documents: our heads beside the transformer they read (the
  transformer alone, and with the heads) and en_core_web_sm's tok2vec, tagger, parser,
  attribute_ruler and lemmatizer.
"""

import time
from pathlib import Path
from typing import Dict, List

import spacy
import srsly
import typer
from spacy.language import Language
from spacy.tokens import DocBin
from spacy.training import Example
from spacy.util import registry

from spacy_frames.extensions import TARGETS_KEY, align_target, install_extensions
from spacy_frames.inventory.frames import FrameInventory
from spacy_frames.inventory.lexicon import Lexicon

SM_MODEL = "en_core_web_sm"


def document_examples(nlp: Language, corpus: Path, max_sentences: int = 10) -> List[Example]:
    reader = registry.readers.get("spacy-frames.FrameNetDocuments.v1")
    return list(reader(str(corpus), max_sentences=max_sentences)(nlp))


def tags_and_sentences(nlp: Language, examples: List[Example]) -> Dict[str, float]:
    scores = nlp.evaluate(examples, batch_size=16)
    return {key: round(100 * scores[key], 2) for key in ("tag_acc", "sents_p", "sents_r", "sents_f")}


def lu_lookup(nlp: Language, corpus: Path, lexicon: Lexicon) -> Dict[str, float]:
    """The gold targets of `corpus` (sentence docs) on the pipeline's lemmas and POS."""
    install_extensions()
    references = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
    exact = found = n = 0
    for reference, doc in zip(references, nlp.pipe((r.text for r in references), batch_size=32)):
        for target in reference.spans.get(TARGETS_KEY, []):
            n += 1
            span = align_target(target, doc)
            lu = lexicon.lexical_unit(span) if span is not None else None
            found += lu is not None
            exact += lu is not None and lu == target._.lexical_unit
    return {"targets": n, "lu_exact": round(100 * exact / n, 2), "lu_found": round(100 * found / n, 2)}


def words_per_second(nlp: Language, texts: List[str], repeats: int = 2) -> float:
    list(nlp.pipe(texts[:4]))  # warm up
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        n_words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=16))
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    return round(n_words / best, 1)


def main(
    model: Path = typer.Argument(
        ..., help="The trained heads (transformer, tagger, senter, attribute_ruler, lemmatizer)"
    ),
    output: Path = typer.Option(..., "--output", "-o"),
    corpus: Path = typer.Option(Path("../../corpus/framenet15/test.spacy"), "--corpus"),
    frames: Path = typer.Option(Path("../../corpus/framenet15/frames.json"), "--frames"),
):
    install_extensions()
    ours = spacy.load(model)
    sm = spacy.load(SM_MODEL, exclude=["ner", "senter"])  # what en_frames_trf sources from it
    lexicon = Lexicon(FrameInventory().from_disk(frames))
    examples = document_examples(ours, corpus)
    texts = [eg.reference.text for eg in examples]
    result = {"model": str(model), "corpus": str(corpus), "documents": len(examples)}
    for name, nlp in (("heads", ours), ("en_core_web_sm", sm)):
        result[name] = {**tags_and_sentences(nlp, examples), **lu_lookup(nlp, corpus, lexicon)}
        result[name]["words_per_second"] = words_per_second(nlp, texts)
    with ours.select_pipes(enable=["transformer"]):
        result["transformer_alone_words_per_second"] = words_per_second(ours, texts)
    write_result(output, result)


def write_result(output: Path, result: Dict) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    typer.echo(srsly.json_dumps(result, indent=2))


if __name__ == "__main__":
    typer.run(main)

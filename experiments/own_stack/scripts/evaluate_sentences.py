"""Sentence boundaries without a parser: spaCy's rule-based `sentencizer` beside
en_core_web_sm's parser, on FrameNet 1.5's full-text sentences joined back into documents
(at most 10 sentences each; dev for choosing, test reported once), the measure of
`evaluate_stack.py`:

    python scripts/evaluate_sentences.py --output metrics/sentences.json

The sentencizer splits after sentence-final punctuation; it has no weights, so it costs the
pipeline nothing to ship. Also written: its words/s, and the gold sentence starts it
misses that follow no sentence-final punctuation (headlines, bylines, list items), which no
rule sees.
"""

from pathlib import Path
from typing import Dict, List

import spacy
import typer
from evaluate_stack import SM_MODEL, document_examples, words_per_second, write_result
from spacy.language import Language
from spacy.training import Example

from spacy_frames.extensions import install_extensions

CORPORA = Path("../../corpus/framenet15")
FINAL_PUNCT = {".", "!", "?", "...", ".''", "?''", "!''"}


def sentence_scores(nlp: Language, examples: List[Example]) -> Dict[str, float]:
    scores = nlp.evaluate(examples, batch_size=16)
    return {key: round(100 * scores[key], 2) for key in ("sents_p", "sents_r", "sents_f")}


def starts_after_no_punct(examples: List[Example]) -> int:
    """Gold sentence starts (not a document's first token) whose previous token is not
    sentence-final punctuation."""
    return sum(
        1
        for eg in examples
        for token in eg.reference[1:]
        if token.is_sent_start and eg.reference[token.i - 1].text not in FINAL_PUNCT
    )


def main(output: Path = typer.Option(..., "--output", "-o"), corpora: Path = typer.Option(CORPORA, "--corpora")):
    install_extensions()
    sentencizer = spacy.blank("en")
    sentencizer.add_pipe("sentencizer")
    parser = spacy.load(SM_MODEL, exclude=["ner", "senter", "attribute_ruler", "lemmatizer"])
    result: Dict = {"corpora": str(corpora)}
    for split in ("dev", "test"):
        examples = document_examples(sentencizer, corpora / f"{split}.spacy")
        gold = sum(1 for eg in examples for token in eg.reference if token.is_sent_start)
        result[f"fn15_{split}"] = {
            "documents": len(examples),
            "gold_sentences": gold,
            "gold_starts_after_no_final_punctuation": starts_after_no_punct(examples),
            # each pipeline scores examples made with its own vocab
            "sentencizer": sentence_scores(sentencizer, examples),
            "en_core_web_sm_parser": sentence_scores(parser, document_examples(parser, corpora / f"{split}.spacy")),
        }
    texts = [eg.reference.text for eg in document_examples(sentencizer, corpora / "test.spacy")]
    result["sentencizer_words_per_second"] = words_per_second(sentencizer, texts)
    write_result(output, result)


if __name__ == "__main__":
    typer.run(main)

"""A pytest plugin that writes every doc a pipeline with a tagger or a parser annotates, with
the test that sent it, to $RECORD_SYNTAX/<pid>.jsonl: the texts tests/syntax_toy.py records
en_core_web_sm's annotations of (`python -m pytest -p syntax_texts_plugin tests experiments`)."""

import json
import os

from spacy.language import Language

OUT = os.environ["RECORD_SYNTAX"]
os.makedirs(OUT, exist_ok=True)


def _record(nlp, doc):
    if "parser" not in nlp.pipe_names and "tagger" not in nlp.pipe_names:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[0]
    with open(os.path.join(OUT, f"{os.getpid()}.jsonl"), "a") as f:
        f.write(
            json.dumps({"test": test, "words": [t.text for t in doc], "spaces": [bool(t.whitespace_) for t in doc]})
            + "\n"
        )


_ensure = Language._ensure_doc
_update = Language.update
_evaluate = Language.evaluate


def _ensure_doc(self, doc_like):
    doc = _ensure(self, doc_like)
    _record(self, doc)
    return doc


def update(self, examples, *args, **kwargs):
    examples = list(examples)
    for eg in examples:
        _record(self, eg.predicted)
    return _update(self, examples, *args, **kwargs)


def evaluate(self, examples, *args, **kwargs):
    examples = list(examples)
    for eg in examples:
        _record(self, eg.predicted)
    return _evaluate(self, examples, *args, **kwargs)


Language._ensure_doc = _ensure_doc
Language.update = update
Language.evaluate = evaluate

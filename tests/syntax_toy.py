"""A tiny English syntax pipeline built on the fly, for the test configs to source their
`tok2vec`, `tagger`, `parser`, `attribute_ruler` and `lemmatizer` from (`paths.tagger`),
as the main job sources them from en_core_web_sm: the tests need no model package.

The tagger and the parser (on a small tok2vec, as en_core_web_sm's) are trained until they
give back, exactly, the tags and dependency trees of `fixtures/tiny_syntax.jsonl`: what
en_core_web_sm gave the texts the tests run through a pipeline with a tagger or a parser,
and the toy corpora. POS and morphology come from the package's PTB attribute_ruler
patterns, lemmas from spaCy's rule lemmatizer (spacy-lookups-data). To record it again
(with en_core_web_sm installed):

    RECORD_SYNTAX=/tmp/texts python -m pytest -p syntax_texts_plugin tests experiments
    python tests/syntax_toy.py record /tmp/texts en_core_web_sm
"""

import atexit
import functools
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List

RECORDS = Path(__file__).parent / "fixtures" / "tiny_syntax.jsonl"
WIDTH = 64
LISTENER = {"@architectures": "spacy.Tok2VecListener.v1", "width": WIDTH, "upstream": "tok2vec"}
TOK2VEC = {
    "@architectures": "spacy.HashEmbedCNN.v2",
    "width": WIDTH,
    "depth": 2,
    "embed_size": 2000,
    "window_size": 1,
    "maxout_pieces": 3,
    "subword_features": True,
    "pretrained_vectors": None,
}
PARSER = {
    "@architectures": "spacy.TransitionBasedParser.v2",
    "state_type": "parser",
    "extra_state_tokens": False,
    "hidden_width": 64,
    "maxout_pieces": 2,
    "use_upper": True,
    "tok2vec": LISTENER,
}


@functools.lru_cache(maxsize=None)
def tiny_syntax_path() -> Path:
    """The tiny pipeline, built once per test process (configs source it as `paths.tagger`)."""
    folder = Path(tempfile.mkdtemp(prefix="tiny-syntax-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return build_tiny_syntax(folder / "pipeline")


@functools.lru_cache(maxsize=None)
def tiny_syntax_nlp():
    """The tiny pipeline loaded (for tests that parse a recorded text directly)."""
    import spacy

    return spacy.load(tiny_syntax_path())


def read_records(path: Path = RECORDS) -> List[Dict[str, Any]]:
    with path.open(encoding="utf8") as f:
        return [json.loads(line) for line in f if line.strip()]


def build_tiny_syntax(path: Path, records: Path = RECORDS, max_epochs: int = 200, seed: int = 0) -> Path:
    """Train the tiny pipeline until it reproduces every recorded doc's tags, heads and
    labels (an error after `max_epochs` otherwise: never a silently different parse) and
    save it to `path`."""
    import spacy
    from spacy.tokens import Doc
    from spacy.training import Example
    from spacy.util import fix_random_seed, minibatch

    from spacy_frames.pipeline.tagging import ptb_attribute_patterns

    fix_random_seed(seed)
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": TOK2VEC})
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": LISTENER}})
    # every label kept (spaCy maps labels rarer than 30 to "dep" by default)
    nlp.add_pipe("parser", config={"model": PARSER, "min_action_freq": 1})
    ruler = nlp.add_pipe("attribute_ruler")
    nlp.add_pipe("lemmatizer", config={"mode": "rule"})
    examples = []
    for record in read_records(records):
        words, spaces = record["words"], record["spaces"]
        reference = Doc(
            nlp.vocab, words=words, spaces=spaces, tags=record["tags"], heads=record["heads"], deps=record["deps"]
        )
        examples.append(Example(Doc(nlp.vocab, words=words, spaces=spaces), reference))
    optimizer = nlp.initialize(lambda: examples)
    ruler.add_patterns(ptb_attribute_patterns())  # after initialize, which clears them
    rng = random.Random(seed)
    for epoch in range(max_epochs):
        rng.shuffle(examples)
        for batch in minibatch(examples, size=8):
            nlp.update(batch, sgd=optimizer, drop=0.0)
        if epoch % 10 == 9 and not mismatches(nlp, examples):
            break
    else:
        raise RuntimeError(
            f"tiny syntax pipeline: {len(mismatches(nlp, examples))} docs still differ after {max_epochs} epochs"
        )
    # it stands in for en_core_web_sm 3.8.0, the version the pipelines name
    nlp.meta["version"] = "3.8.0"
    nlp.to_disk(path)
    return path


def mismatches(nlp, examples) -> List[str]:
    """The texts whose predicted tags, heads or labels differ from the recorded ones."""
    wrong = []
    for eg, doc in zip(examples, nlp.pipe(eg.predicted.copy() for eg in examples)):
        gold = eg.reference
        # whitespace tokens left out: en_core_web_sm attaches them by rule, not by its model
        if any((t.tag_, t.head.i, t.dep_) != (g.tag_, g.head.i, g.dep_) for t, g in zip(doc, gold) if not g.is_space):
            wrong.append(gold.text)
    return wrong


# docs longer than this are recorded as their sentences (the very long documents some tests
# feed need a parse, not a particular one)
MAX_RECORDED = 60
# the tests whose own documents are hostile text (symbols, scripts, word salad): they need a
# parse, not a particular one
HOSTILE_TESTS = ("tests/test_robustness.py", "tests/test_record_schema.py")


def recorded_texts(texts: Path) -> List[Dict[str, Any]]:
    """The docs (words, spaces) the plugin wrote to the folder `texts`, less those only the
    hostile tests sent, and the toy corpora's docs; each once, in the order first seen."""
    import spacy
    from spacy.tokens import DocBin

    by_key: Dict[tuple, set] = {}
    for path in sorted(texts.glob("*.jsonl")):
        for line in path.read_text(encoding="utf8").splitlines():
            item = json.loads(line)
            by_key.setdefault((tuple(item["words"]), tuple(item["spaces"])), set()).add(item["test"])
    keys = [key for key, tests in by_key.items() if not tests <= set(HOSTILE_TESTS)]
    nlp = spacy.blank("en")
    from conftest import TINY_BERT_SENTENCES

    toy_docs = [nlp(text) for text in TINY_BERT_SENTENCES]
    with tempfile.TemporaryDirectory() as tmp:
        for path in write_toy_corpora(Path(tmp), nlp):
            toy_docs.extend(DocBin().from_disk(path).get_docs(nlp.vocab))
    keys += [(tuple(t.text for t in doc), tuple(bool(t.whitespace_) for t in doc)) for doc in toy_docs]
    return [{"words": list(words), "spaces": list(spaces)} for words, spaces in dict.fromkeys(keys)]


def write_toy_corpora(folder: Path, nlp) -> List[Path]:
    """Every toy corpus the fixtures write, as DocBin files under `folder`."""
    from discourse_toy import write_toy_discourse
    from fe_toy import write_toy_fe_corpus
    from frames_toy import write_toy_corpus
    from inducer_toy import write_toy_folds
    from media_toy import write_toy_media

    written = [
        write_toy_corpus(folder / "frames", nlp.vocab),
        write_toy_fe_corpus(folder / "fe", nlp.vocab),
        write_toy_folds(folder / "inducer", nlp.vocab),
        write_toy_discourse(folder / "discourse", nlp),
        write_toy_media(folder / "media"),
    ]
    return sorted(path for place in written for path in Path(place).rglob("*.spacy"))


def record(texts: Path, model: str, output: Path = RECORDS) -> None:
    """Write `model`'s tags and trees of the recorded docs (`recorded_texts`): a doc of at
    most MAX_RECORDED tokens as it is, a longer one as its sentences of at most that many;
    docs mostly of symbols left out."""
    import spacy
    from spacy.tokens import Doc

    nlp = spacy.load(model)
    seen, rows = set(), []
    for item in recorded_texts(texts):
        doc = nlp(Doc(nlp.vocab, words=item["words"], spaces=item["spaces"]))
        for part in [doc] if len(doc) <= MAX_RECORDED else [sent.as_doc() for sent in doc.sents]:
            key = tuple(t.text_with_ws for t in part)
            words = [t for t in part if not t.is_space]
            if key in seen or len(part) > MAX_RECORDED or sum(t.is_alpha for t in words) < 0.6 * len(words):
                continue
            seen.add(key)
            rows.append(
                {
                    "words": [t.text for t in part],
                    "spaces": [bool(t.whitespace_) for t in part],
                    "tags": [t.tag_ for t in part],
                    "heads": [t.head.i for t in part],
                    "deps": [t.dep_ for t in part],
                }
            )
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("w", encoding="utf8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    print(f"{len(rows)} docs, {sum(len(r['words']) for r in rows)} tokens -> {output}")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "record":
        sys.exit("usage: python tests/syntax_toy.py record TEXTS_FOLDER MODEL")
    record(Path(sys.argv[2]), sys.argv[3])

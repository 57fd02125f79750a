"""Load-time overrides of the README's run-time settings on a trained pipeline, as a user
writes them (`spacy.load(MODEL, config={"components": {name: {key: value}}})`), each
against the pipeline as loaded, on held-out sentences:

    python scripts/check_overrides.py en_frames_trf assets/framenet/fn17/open_sesame/fn1.7.dev.syntaxnet.conll metrics/overrides.json

For each setting: the value the loaded component holds, what it changes in the output
(counts over the texts) and whether the output differs from the default's.
"""

from pathlib import Path
from typing import Any, Callable, Dict, List

import spacy
import srsly
import typer

from spacy_frames.corpora.framenet_sentences import iter_open_sesame_sentences
from spacy_frames.extensions import install_extensions


def frames(doc) -> List:
    return [(s.start, s.end, s._.frame) for s in doc._.frames]


def fes(doc) -> List:
    return [(e.start, e.end, e.label_, e.id_) for e in doc.spans.get("frame_elements", [])]


# (component, key, value, what to compare, a count of it)
OVERRIDES: List = [
    ("frame_identifier", "threshold", 0.9, frames, len),
    ("frame_identifier", "threshold", 0.1, frames, len),
    ("frame_identifier", "top_k", 1, lambda d: [len(s._.frame_ranking) for s in d._.frames], sum),
    ("frame_identifier", "lexicon_filter", False, frames, len),
    ("frame_elements", "threshold", 2.0, fes, len),
    ("frame_elements", "threshold", -2.0, fes, len),
    ("frame_elements", "use_excludes", False, fes, len),
    ("discourse_sense", "decoding", "top-down", lambda d: [r["sense"] for r in d._.discourse_relations], len),
    ("frame_inducer", "assignment", "nearest", lambda d: [s._.induced_frame for s in d._.frames], len),
    ("media_framer", "threshold", 0.05, lambda d: list(d._.media_frames), len),
]


def run(nlp, texts: List[str], view: Callable) -> List:
    return [view(doc) for doc in nlp.pipe(texts, batch_size=32)]


def main(model: str, sentences: Path, output: Path, limit: int = typer.Option(300, help="Texts (pairs of sentences)")):
    install_extensions()
    words = [s.text for s in iter_open_sesame_sentences(sentences)]
    # two sentences a text, so discourse_sense has adjacent pairs to label
    texts = [f"{a} {b}" for a, b in zip(words[0::2], words[1::2])][:limit]
    default = spacy.load(model)
    result: Dict[str, Any] = {"model": model, "texts": len(texts), "overrides": []}
    for name, key, value, view, count in OVERRIDES:
        nlp = spacy.load(model, config={"components": {name: {key: value}}})
        before, after = run(default, texts, view), run(nlp, texts, view)
        result["overrides"].append(
            {
                "component": name,
                "setting": key,
                "value": value,
                "default": default.get_pipe(name).cfg.get(key),
                "loaded": nlp.get_pipe(name).cfg.get(key),
                "count_default": sum(count(x) for x in before),
                "count_override": sum(count(x) for x in after),
                "texts_changed": sum(a != b for a, b in zip(before, after)),
            }
        )
        typer.echo(result["overrides"][-1])
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)


if __name__ == "__main__":
    typer.run(main)

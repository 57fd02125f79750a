"""Evaluation drivers of media_framer: per-frame thresholds tuned on dev articles, and
micro/macro-F1 per language of a pipeline over converted articles."""

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import numpy
from spacy.language import Language
from spacy.tokens import Doc
from tqdm import tqdm

from ..corpora.media_frames import article_info, load_articles
from .media import f1_scores, tune_shrunk_thresholds


def get_framer(nlp: Language, component: str):
    if component not in nlp.pipe_names:
        raise ValueError(f"The pipeline has no '{component}' component (it has {nlp.pipe_names}).")
    return nlp.get_pipe(component)


def gold_matrix(docs: Sequence[Doc], labels: Sequence[str]) -> numpy.ndarray:
    return numpy.asarray([[d.cats.get(label, 0.0) >= 0.5 for label in labels] for d in docs], dtype="int8").reshape(
        len(docs), len(labels)
    )


def predict_scores(nlp: Language, component: str, docs: Sequence[Doc], batch_size: int = 8) -> numpy.ndarray:
    framer = get_framer(nlp, component)
    texts = (d.text for d in docs)
    out = [
        [doc.cats.get(label, 0.0) for label in framer.labels]
        for doc in tqdm(nlp.pipe(texts, batch_size=batch_size), total=len(docs), desc="predicting", unit="article")
    ]
    return numpy.asarray(out, dtype="float32").reshape(len(docs), len(framer.labels))


def tune_media_thresholds(
    nlp: Language, component: str, paths: Sequence[Path], languages: Optional[Sequence[str]] = None
) -> Dict[str, float]:
    """Per-frame thresholds for micro-F1 on the (dev) articles, shrunk towards one global
    threshold by as much as cross-validation within dev says (media_eval.tune_shrunk_thresholds);
    set in the component's cfg (saved with it)."""
    framer = get_framer(nlp, component)
    docs = load_articles(nlp, paths, languages)
    scores = predict_scores(nlp, component, docs)
    framer.set_thresholds(tune_shrunk_thresholds(gold_matrix(docs, framer.labels), scores))
    return framer.cfg["thresholds"]


def evaluate_media(nlp: Language, component: str, paths: Sequence[Path]) -> Dict[str, Any]:
    """Micro/macro-F1 of doc._.media_frames per language and over all articles."""
    framer = get_framer(nlp, component)
    docs = load_articles(nlp, paths)
    scores = predict_scores(nlp, component, docs)
    predicted = scores >= framer.thresholds()[None, :]
    gold = gold_matrix(docs, framer.labels)
    langs = [article_info(d)["lang"] for d in docs]
    result = {"all": _rounded(f1_scores(gold, predicted, framer.labels))}
    for lang in sorted(set(langs)):
        rows = [i for i, x in enumerate(langs) if x == lang]
        result[lang] = _rounded(f1_scores(gold[rows], predicted[rows], framer.labels))
    return result


def _rounded(scores: Dict[str, Any]) -> Dict[str, Any]:
    return {
        k: (
            round(v, 4)
            if isinstance(v, float)
            else {f: round(x, 4) for f, x in v.items()}
            if isinstance(v, dict)
            else v
        )
        for k, v in scores.items()
    }

"""Corpus-level work around media_framer: cached transformer vectors for the frozen-body
training stages, per-frame thresholds tuned on dev, and evaluation per language."""
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc
from tqdm import tqdm

from .corpora.media_frames import MediaFramesCorpus, article_info
from .media_eval import f1_scores, tune_shrunk_thresholds
from .ml.media_framer import mean_rows


def article_key(doc: Doc) -> str:
    info = article_info(doc)
    if not info:
        raise ValueError("This doc is not a converted media-frames article (no doc.user_data['media_article']).")
    return f"{info['lang']}/{info['id']}"


def load_articles(nlp: Language, paths: Sequence[Path], languages: Optional[Sequence[str]] = None) -> List[Doc]:
    """Whole converted articles (the reader's checks and errors; no truncation or shuffle)."""
    corpus = MediaFramesCorpus([str(p) for p in paths], list(languages or []), max_tokens=0, shuffle=False, limit=0, seed=0)
    return corpus.load(nlp.vocab)


def get_framer(nlp: Language, component: str):
    if component not in nlp.pipe_names:
        raise ValueError(f"The pipeline has no '{component}' component (it has {nlp.pipe_names}).")
    return nlp.get_pipe(component)


def body_vectors(nlp: Language, component: str, docs: Sequence[Doc], batch_size: int = 8) -> numpy.ndarray:
    """The transformer part of the component's article feature, for whole articles: what
    a frozen body gives at every step, computed once. The pipeline runs up to the
    component (or whole, for a pipeline that does not have it yet: the first stage), then
    the component's listener (or one with the configs' mean pooling) and the mean over tokens."""
    if component in nlp.pipe_names:
        framer = get_framer(nlp, component)
        if not framer.model.has_ref("tok2vec"):
            raise ValueError(f"'{component}' has no transformer body (USE only): there is nothing to cache.")
        tok2vec, model = framer.model.get_ref("tok2vec"), framer.model
        before = nlp.pipe_names[: nlp.pipe_names.index(component)]
    else:
        if "transformer" not in nlp.pipe_names:
            raise ValueError(f"The pipeline has neither '{component}' nor a transformer (it has {nlp.pipe_names}).")
        from spacy.util import registry
        from thinc.api import reduce_mean

        tok2vec = registry.architectures.get("spacy-transformers.TransformerListener.v1")(grad_factor=1.0, pooling=reduce_mean(), upstream="*")
        width = nlp.get_pipe("transformer").model.get_dim("nO")
        for node in tok2vec.walk():
            if node.has_dim("nO") is None:
                node.set_dim("nO", width)
        model = tok2vec
        before = nlp.pipe_names[: nlp.pipe_names.index("transformer") + 1]
    rows = []
    with nlp.select_pipes(enable=before):
        for start in tqdm(range(0, len(docs), batch_size), desc="encoding articles", unit="batch"):
            batch = list(nlp.pipe(nlp.make_doc(doc.text) for doc in docs[start : start + batch_size]))
            pooled, _ = mean_rows(model.ops, tok2vec.predict(batch), tok2vec.get_dim("nO"))
            rows.append(model.ops.to_numpy(pooled))
    return numpy.concatenate(rows) if rows else numpy.zeros((0, 0), dtype="float32")


def write_body_cache(nlp: Language, component: str, paths: Sequence[Path], output: Path) -> int:
    docs = load_articles(nlp, paths)
    vectors = body_vectors(nlp, component, docs)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_msgpack(output, {article_key(d): [float(x) for x in v] for d, v in zip(docs, vectors)})
    return len(docs)


def gold_matrix(docs: Sequence[Doc], labels: Sequence[str]) -> numpy.ndarray:
    return numpy.asarray([[d.cats.get(label, 0.0) >= 0.5 for label in labels] for d in docs], dtype="int8").reshape(len(docs), len(labels))


def predict_scores(nlp: Language, component: str, docs: Sequence[Doc], batch_size: int = 8) -> numpy.ndarray:
    framer = get_framer(nlp, component)
    texts = (d.text for d in docs)
    out = [[doc.cats.get(label, 0.0) for label in framer.labels]
           for doc in tqdm(nlp.pipe(texts, batch_size=batch_size), total=len(docs), desc="predicting", unit="article")]
    return numpy.asarray(out, dtype="float32").reshape(len(docs), len(framer.labels))


def tune_media_thresholds(nlp: Language, component: str, paths: Sequence[Path], languages: Optional[Sequence[str]] = None) -> Dict[str, float]:
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
    return {k: (round(v, 4) if isinstance(v, float) else {f: round(x, 4) for f, x in v.items()} if isinstance(v, dict) else v)
            for k, v in scores.items()}

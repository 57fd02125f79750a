"""Cached transformer article vectors for media_framer's frozen-body training stages
(`spacy-frames media-cache-body`): what a frozen body gives each training article at every
step, computed once; the reader (`media_frames.py`, `body_cache`) puts them in
`doc.user_data[BODY_VECTOR_KEY]`."""

from pathlib import Path
from typing import Sequence

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc
from tqdm import tqdm

from ..ml.layers import mean_rows
from .media_frames import article_info, load_articles


def article_key(doc: Doc) -> str:
    info = article_info(doc)
    if not info:
        raise ValueError("This doc is not a converted media-frames article (no doc.user_data['media_article']).")
    return f"{info['lang']}/{info['id']}"


def body_vectors(nlp: Language, component: str, docs: Sequence[Doc], batch_size: int = 8) -> numpy.ndarray:
    """The transformer part of the component's article feature, for whole articles: what
    a frozen body gives at every step, computed once. The pipeline runs up to the
    component (or whole, for a pipeline that does not have it yet: the first stage), then
    the component's listener (or one with the configs' mean pooling) and the mean over tokens."""
    if component in nlp.pipe_names:
        framer = nlp.get_pipe(component)
        if not framer.model.has_ref("tok2vec"):
            raise ValueError(f"'{component}' has no transformer body (USE only): there is nothing to cache.")
        tok2vec, model = framer.model.get_ref("tok2vec"), framer.model
        before = nlp.pipe_names[: nlp.pipe_names.index(component)]
    else:
        if "transformer" not in nlp.pipe_names:
            raise ValueError(f"The pipeline has neither '{component}' nor a transformer (it has {nlp.pipe_names}).")
        from spacy.util import registry
        from thinc.api import reduce_mean

        tok2vec = registry.architectures.get("spacy-transformers.TransformerListener.v1")(
            grad_factor=1.0, pooling=reduce_mean(), upstream="*"
        )
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

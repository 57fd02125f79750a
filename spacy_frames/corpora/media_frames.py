"""SemEval-2023 Task 3 subtask 2 (multi-label news framing) as spaCy data.

The release (assets/media_frames/semeval2023_st2/{en,fr,ge,it,po}/) has per language
`train-articles-subtask-2/article<ID>.txt` and `train-labels-subtask-2.txt` (id TAB
comma-separated frames). There is no gold dev/test here, so each language's labelled
articles are split once, seeded and label-stratified (iterative stratification,
Sechidis et al. 2011), 70 / 15 / 15 into train / dev / test; the split (article ids only)
is written to corpus/media_frames/split.json and never re-drawn.

An article becomes a Doc of its text with `doc.cats` = 1.0 / 0.0 for each of the 14
frames and `doc.user_data["media_article"] = {"id": ..., "lang": ...}`.
"""

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.util import registry

from ..extensions import BODY_VECTOR_KEY
from .docbins import add_docs, docs_from
from .readers import require_corpus

# the 14 frames of the task, spelled as in the label files (Policy Frames Codebook order)
MEDIA_FRAMES: Tuple[str, ...] = (
    "Economic",
    "Capacity_and_resources",
    "Morality",
    "Fairness_and_equality",
    "Legality_Constitutionality_and_jurisprudence",
    "Policy_prescription_and_evaluation",
    "Crime_and_punishment",
    "Security_and_defense",
    "Health_and_safety",
    "Quality_of_life",
    "Cultural_identity",
    "Public_opinion",
    "Political",
    "External_regulation_and_reputation",
)
LANGUAGES: Tuple[str, ...] = ("en", "fr", "ge", "it", "po")
SPLITS: Tuple[str, ...] = ("train", "dev", "test")
SPLIT_FRACTIONS = (0.70, 0.15, 0.15)
ARTICLE_KEY = "media_article"


@dataclass
class Article:
    id: str
    lang: str
    text: str
    frames: List[str]


def read_semeval_articles(root: Path, lang: str) -> List[Article]:
    """The labelled train articles of one language, in label-file order."""
    folder = Path(root) / lang
    labels_file = folder / "train-labels-subtask-2.txt"
    if not labels_file.is_file():
        raise FileNotFoundError(
            f"SemEval-2023 st2: no {labels_file}. Run `spacy project run assets` (the data is research-only and "
            "comes from a mirror, e.g. ../shared/assets/media_frames/semeval2023_st2)."
        )
    articles = []
    for n, line in enumerate(labels_file.read_text(encoding="utf8").splitlines(), 1):
        if not line.strip():
            continue
        article_id, _, labels = line.partition("\t")
        frames = [f.strip() for f in labels.split(",") if f.strip()]
        unknown = [f for f in frames if f not in MEDIA_FRAMES]
        if unknown:
            raise ValueError(
                f"{labels_file}:{n}: unknown frame label(s) {unknown}; the task's 14 are {list(MEDIA_FRAMES)}"
            )
        path = folder / "train-articles-subtask-2" / f"article{article_id.strip()}.txt"
        if not path.is_file():
            raise FileNotFoundError(f"{labels_file}:{n}: article file {path} is missing")
        articles.append(Article(article_id.strip(), lang, path.read_text(encoding="utf8"), frames))
    return articles


def stratified_split(label_sets: Sequence[Sequence[str]], fractions=SPLIT_FRACTIONS, seed: int = 0) -> List[int]:
    """Iterative stratification for multi-label data: the split index (0, 1, 2, ...) of
    each item. The rarest label still to place goes first; each of its items goes to the
    split that most lacks that label (ties: the split that most lacks items, then at random)."""
    rng = random.Random(seed)
    n = len(label_sets)
    order = list(range(n))
    rng.shuffle(order)
    wanted_items = [f * n for f in fractions]
    labels = sorted({label for labels in label_sets for label in labels})
    wanted = {label: [f * sum(label in ls for ls in label_sets) for f in fractions] for label in labels}
    assignment = [-1] * n
    remaining = set(order)
    while remaining:
        counts = {label: sum(1 for i in remaining if label in label_sets[i]) for label in labels}
        open_labels = [label for label in labels if counts[label]]
        if not open_labels:  # items without labels: by size only
            items, label = [i for i in order if i in remaining], None
        else:
            label = min(open_labels, key=lambda lab: (counts[lab], lab))
            items = [i for i in order if i in remaining and label in label_sets[i]]
        for i in items:
            need = wanted[label] if label is not None else wanted_items
            best = max(range(len(fractions)), key=lambda s: (need[s], wanted_items[s], rng.random()))
            assignment[i] = best
            remaining.discard(i)
            wanted_items[best] -= 1
            for lab in label_sets[i]:
                wanted[lab][best] -= 1
    return assignment


def split_articles(articles: Sequence[Article], seed: int = 0) -> Dict[str, List[Article]]:
    assignment = stratified_split([a.frames for a in articles], SPLIT_FRACTIONS, seed)
    return {split: [a for a, s in zip(articles, assignment) if s == k] for k, split in enumerate(SPLITS)}


def article_doc(nlp: Language, article: Article) -> Doc:
    doc = nlp.make_doc(article.text)
    doc.cats = {frame: float(frame in article.frames) for frame in MEDIA_FRAMES}
    doc.user_data[ARTICLE_KEY] = {"id": article.id, "lang": article.lang}
    return doc


def articles_to_docbin(nlp: Language, articles: Iterable[Article]) -> DocBin:
    return add_docs(DocBin(store_user_data=True), (article_doc(nlp, article) for article in articles))


def article_info(doc: Doc) -> Dict[str, str]:
    return doc.user_data.get(ARTICLE_KEY) or {}


def truncate(doc: Doc, max_tokens: int) -> Doc:
    """The first `max_tokens` tokens of `doc` (0: all), with its cats and article info."""
    if not max_tokens or len(doc) <= max_tokens:
        return doc
    short = doc[:max_tokens].as_doc()
    short.cats = dict(doc.cats)
    if ARTICLE_KEY in doc.user_data:
        short.user_data[ARTICLE_KEY] = dict(doc.user_data[ARTICLE_KEY])
    return short


@registry.readers("spacy-frames.MediaFramesCorpus.v1")
def create_media_frames_reader(
    paths: List[str],
    languages: List[str] = [],  # noqa: B006 (config default, never mutated)
    max_tokens: int = 0,
    shuffle: bool = False,
    limit: int = 0,
    seed: int = 0,
    body_cache: Optional[str] = None,
) -> Callable[[Language], Iterable[Example]]:
    """Articles (corpus/media_frames/<lang>_<split>.spacy) as Examples with gold doc.cats.

    languages: keep only these ([] = all in the files).
    max_tokens: truncate each article to its first tokens (0 = whole articles): the
        end-to-end fine-tuning stage re-encodes every article at every step.
    shuffle: shuffle each epoch (seeded); limit: the first `limit` articles (0 = all).
    body_cache: vectors of the frozen transformer per article (`spacy-frames
        media-cache-body`), given to the component in frozen-body training stages.
    """
    return MediaFramesCorpus(paths, languages, max_tokens, shuffle, limit, seed, body_cache)


class MediaFramesCorpus:
    def __init__(self, paths, languages, max_tokens, shuffle, limit, seed, body_cache=None):
        if isinstance(paths, (str, Path)):
            paths = [paths]
        if not paths:
            raise ValueError("MediaFramesCorpus: no corpus files given.")
        self.paths = [require_corpus(p, "convert-media-frames") for p in paths]
        unknown = [lang for lang in languages if lang not in LANGUAGES]
        if unknown:
            raise ValueError(f"MediaFramesCorpus: unknown language(s) {unknown}; the corpus has {list(LANGUAGES)}")
        self.languages = set(languages)
        self.max_tokens, self.shuffle, self.limit = max_tokens, shuffle, limit
        self.rng = random.Random(seed)
        self._docs: Optional[List[Doc]] = None
        self.body_cache = None
        if body_cache:
            if not Path(body_cache).is_file():
                raise FileNotFoundError(
                    f"Body cache '{body_cache}' not found: write it with `spacy-frames media-cache-body`."
                )
            self.body_cache = srsly.read_msgpack(body_cache)

    def load(self, vocab) -> List[Doc]:
        if self._docs is None:
            docs = [doc for path in self.paths for doc in docs_from(DocBin().from_disk(path), vocab)]
            if self.languages:
                docs = [d for d in docs if article_info(d).get("lang") in self.languages]
            if self.limit:
                docs = docs[: self.limit]
            if not docs:
                raise ValueError(
                    f"Media frames corpus {[str(p) for p in self.paths]} holds no articles"
                    + (f" in {sorted(self.languages)}" if self.languages else "")
                    + "."
                )
            self._docs = [truncate(d, self.max_tokens) for d in docs]
        return self._docs

    def __call__(self, nlp: Language) -> Iterator[Example]:
        docs = list(self.load(nlp.vocab))
        if self.shuffle:
            self.rng.shuffle(docs)
        for reference in docs:
            predicted = nlp.make_doc(reference.text)
            info = article_info(reference)
            predicted.user_data[ARTICLE_KEY] = dict(info)
            if self.body_cache is not None:
                key = f"{info.get('lang')}/{info.get('id')}"
                if key not in self.body_cache:
                    raise KeyError(f"Article {key} is not in the body cache: rewrite it for these corpora.")
                predicted.user_data[BODY_VECTOR_KEY] = numpy.asarray(self.body_cache[key], dtype="float32")
            yield Example(predicted, reference)


def load_articles(nlp: Language, paths: Sequence[Path], languages: Optional[Sequence[str]] = None) -> List[Doc]:
    """Whole converted articles (the reader's checks and errors; no truncation or shuffle)."""
    corpus = MediaFramesCorpus(
        [str(p) for p in paths], list(languages or []), max_tokens=0, shuffle=False, limit=0, seed=0
    )
    return corpus.load(nlp.vocab)


def label_counts(articles: Sequence[Article]) -> Dict[str, int]:
    return {frame: sum(frame in a.frames for a in articles) for frame in MEDIA_FRAMES}

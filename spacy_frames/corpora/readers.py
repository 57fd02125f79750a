"""spaCy corpus readers (@readers) for the converted corpora."""

import random
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional

import srsly
from spacy.language import Language
from spacy.tokens import Doc, DocBin, Span, SpanGroup
from spacy.training import Example
from spacy.util import registry

from ..extensions import FE_KEY, TARGETS_KEY, align_target, fe_target_id, install_extensions, mark_partial
from ..inventory.frames import FrameInventory, renamed_frames
from .docbins import docs_from


@registry.readers("spacy-frames.FrameNetCorpus.v1")
def create_framenet_reader(
    path: str,
    exemplars: Optional[str] = None,
    max_exemplars: int = 0,
    gold_targets: bool = True,
    targets_key: str = TARGETS_KEY,
    limit: int = 0,
    seed: int = 0,
    gold_frames_key: Optional[str] = None,
    exclude_lexical_units: Optional[str] = None,
    frames_from: Optional[str] = None,
    frames_to: Optional[str] = None,
    full_text_repeats: int = 1,
    gold_tags: bool = False,
) -> Callable[[Language], Iterable[Example]]:
    """FrameNet DocBins (corpus/framenet15/*.spacy) as Examples.

    path: full-text DocBin. exemplars: optional exemplar DocBin, of which a
    seeded random sample of `max_exemplars` docs is added (0 = none, -1 = all).
    gold_targets: copy the gold target spans (and their lexical units) onto the
    predicted docs, so the pipeline labels exactly those targets (gold-target
    evaluation); false leaves target detection to the pipeline.
    limit: use only the first `limit` full-text docs (0 = all).
    gold_frames_key: also put the gold targets, labelled with their gold frames, in
    `doc.spans[gold_frames_key]` of the predicted docs ("frames": frame_elements is then
    trained and scored on gold targets and gold frames, with frame_identifier disabled).
    exclude_lexical_units: a JSON list of lexical units ("give.v") whose targets the
    corpus must not show labelled (a clean comparison for frame_inducer, whose test verbs
    frame_identifier must not have learned): an exemplar of one is dropped; in a full-text
    doc its target is removed and the doc's targets are marked partial, so the word is
    no "not a target" evidence either.
    frames_from, frames_to: two frame inventories (frames.json): the corpus's gold frames,
    named as in `frames_from`, are renamed to their names in `frames_to` by FrameNet frame
    ID (FN1.5 annotation trained against the FN1.7 inventory). A target whose frame
    `frames_to` lacks is removed with its FEs and the doc marked partial.
    full_text_repeats: each full-text doc is yielded this many times per epoch (the
    exemplars once): oversamples the full text, which has about four times the FE
    density of the exemplars, at the same number of steps.
    gold_tags: put FrameNet's own PTB tags on the predicted docs' tokens that match a
    FrameNet token exactly (an attribute_ruler and lemmatizer then give the POS and
    lemmas the lexicon reads, with no tagger in training).
    """
    if full_text_repeats < 1:
        raise ValueError(f"FrameNet corpus: full_text_repeats must be >= 1, got {full_text_repeats}")
    excluded = (
        frozenset(srsly.read_json(require_corpus(exclude_lexical_units, "inducer-clean-head")))
        if exclude_lexical_units
        else None
    )
    renaming = frame_renaming(frames_from, frames_to)
    return FrameNetCorpus(
        path,
        exemplars,
        max_exemplars,
        gold_targets,
        targets_key,
        limit,
        seed,
        gold_frames_key,
        excluded,
        renaming,
        full_text_repeats,
        gold_tags,
    )


@registry.readers("spacy-frames.MixedCorpus.v1")
def create_mixed_reader(
    # Any, not Callable: the config system would check the readers' blocks before building them
    corpora: Dict[str, Any],
    repeats: Dict[str, int] = {},  # noqa: B006 (config default, never mutated)
) -> Callable[[Language], Iterable[Example]]:
    """Several corpora as one training corpus, for a stage whose components learn from
    different annotation on one shared transformer (frame_identifier and frame_elements
    from FrameNet, discourse_sense from discourse relations): each component learns from
    the examples that carry its annotation and skips the others.

    corpora: the readers, by name. repeats: how many times per epoch each corpus is
    yielded (default 1), to balance corpora of different sizes at a number of steps.
    spaCy's training loop shuffles the examples together, so batches are mixed.
    """
    if not corpora:
        raise ValueError("MixedCorpus: no corpora given.")
    not_readers = sorted(name for name, corpus in corpora.items() if not callable(corpus))
    if not_readers:
        raise ValueError(f"MixedCorpus: {not_readers} are not corpus readers (a registered @readers block each).")
    unknown = sorted(set(repeats) - set(corpora))
    if unknown:
        raise ValueError(
            f"MixedCorpus: repeats name corpora that are not given: {unknown} (corpora: {sorted(corpora)})"
        )
    bad = {name: n for name, n in repeats.items() if not isinstance(n, int) or n < 1}
    if bad:
        raise ValueError(f"MixedCorpus: repeats must be integers >= 1, got {bad}")
    return MixedCorpus(dict(corpora), dict(repeats))


class MixedCorpus:
    def __init__(self, corpora: Dict[str, Callable[[Language], Iterable[Example]]], repeats: Dict[str, int]):
        self.corpora = corpora
        self.repeats = repeats

    def __call__(self, nlp: Language) -> Iterator[Example]:
        for name, corpus in self.corpora.items():
            for _ in range(self.repeats.get(name, 1)):
                yield from corpus(nlp)


def frame_renaming(frames_from: Optional[str], frames_to: Optional[str]) -> Optional[Dict[str, Optional[str]]]:
    """old frame name -> new name (None: gone) between two inventories, by frame ID."""
    if (frames_from is None) != (frames_to is None):
        raise ValueError(
            "FrameNet corpus: give both frames_from and frames_to (the inventories to rename gold frames between), or neither."
        )
    if frames_from is None:
        return None
    old, new = (FrameInventory().from_disk(require_corpus(p, "convert")) for p in (frames_from, frames_to))
    return renamed_frames(old, new)


class FrameNetCorpus:
    def __init__(
        self,
        path,
        exemplars,
        max_exemplars,
        gold_targets,
        targets_key,
        limit,
        seed,
        gold_frames_key=None,
        excluded=None,
        renaming=None,
        full_text_repeats=1,
        gold_tags=False,
    ):
        self.path = require_corpus(path)
        self.exemplars = require_corpus(exemplars) if exemplars and max_exemplars else None
        self.max_exemplars = max_exemplars
        self.gold_targets = gold_targets
        self.targets_key = targets_key
        self.limit = limit
        self.seed = seed
        self.gold_frames_key = gold_frames_key
        self.excluded = excluded
        self.renaming = renaming
        self.full_text_repeats = full_text_repeats
        self.gold_tags = gold_tags
        self._docs: Optional[List[Doc]] = None  # read once, reused every epoch

    def _load(self, vocab) -> List[Doc]:
        if self._docs is None:
            install_extensions()
            docs = docs_from(DocBin().from_disk(self.path), vocab)
            if self.limit:
                docs = docs[: self.limit]
            docs = docs * self.full_text_repeats
            if self.exemplars is not None:
                for doc in docs_from(sample_docbin(self.exemplars, self.max_exemplars, self.seed), vocab):
                    mark_partial(doc, self.targets_key)
                    docs.append(doc)
            if self.excluded:
                docs = [doc for doc in docs if drop_lexical_units(doc, self.excluded, self.targets_key)]
            if self.renaming is not None:
                docs = [doc for doc in docs if rename_frames(doc, self.renaming, self.targets_key)]
            if not docs:
                raise ValueError(f"FrameNet corpus '{self.path}' holds no documents.")
            self._docs = docs
        return self._docs

    def __call__(self, nlp: Language) -> Iterator[Example]:
        for reference in self._load(nlp.vocab):
            predicted = nlp.make_doc(reference.text)
            if self.gold_tags:
                copy_tags(reference, predicted)
            if self.gold_targets:
                copy_targets(reference, predicted, self.targets_key)
            if self.gold_frames_key:
                copy_targets(reference, predicted, self.targets_key, into=self.gold_frames_key)
            yield Example(predicted, reference)


@registry.readers("spacy-frames.FrameNetDocuments.v1")
def create_framenet_documents_reader(
    path: str,
    max_sentences: int = 10,
    exemplars: Optional[str] = None,
    max_exemplars: int = 0,
    seed: int = 0,
) -> Callable[[Language], Iterable[Example]]:
    """FrameNet's full-text sentences joined back into their documents, as Examples whose
    reference holds the sentence starts and FrameNet's PTB tags (its PENN layer): what a
    `senter` and a `tagger` learn from.

    path: a converted full-text DocBin (its docs in document order, each with
    user_data["framenet"]["doc"]); consecutive sentences of one document are joined, at
    most `max_sentences` per Example (a longer document is cut into several).
    exemplars, max_exemplars: a seeded sample of the exemplar DocBin added, each sentence
    its own Example (0 = none, -1 = all); those without PTB tags are left out.
    """
    if max_sentences < 1:
        raise ValueError(f"FrameNet documents: max_sentences must be >= 1, got {max_sentences}")
    sample = (path, exemplars if exemplars and max_exemplars else None, max_exemplars, seed)
    return partial(_framenet_documents, *sample, max_sentences=max_sentences)


def _framenet_documents(path, exemplars, max_exemplars, seed, nlp: Language, max_sentences: int) -> Iterator[Example]:
    install_extensions()
    groups: List[List[Doc]] = []
    for doc in docs_from(DocBin().from_disk(require_corpus(path)), nlp.vocab):
        name = (doc.user_data.get("framenet") or {}).get("doc")
        last = groups[-1] if groups else None
        if last and len(last) < max_sentences and name is not None and name == last[0].user_data["framenet"]["doc"]:
            last.append(doc)
        else:
            groups.append([doc])
    if exemplars is not None:
        sampled = docs_from(sample_docbin(require_corpus(exemplars), max_exemplars, seed), nlp.vocab)
        groups.extend([doc] for doc in sampled if len(doc) and all(t.tag_ for t in doc))
    for sentences in groups:
        reference = joined_sentences(nlp.vocab, sentences)
        yield Example(nlp.make_doc(reference.text), reference)


def joined_sentences(vocab, sentences: List[Doc]) -> Doc:
    """One Doc of `sentences` (a space between two), with their tags and sentence starts."""
    words, spaces, tags, starts = [], [], [], []
    for sentence in sentences:
        words += [t.text for t in sentence]
        spaces += [bool(t.whitespace_) for t in sentence[:-1]] + [True]
        tags += [t.tag_ for t in sentence]  # "" where FrameNet has none: spaCy's tagger skips it
        starts += [True] + [False] * (len(sentence) - 1)
    if spaces:
        spaces[-1] = False
    return Doc(vocab, words=words, spaces=spaces, tags=tags, sent_starts=starts)


def drop_lexical_units(doc: Doc, excluded: frozenset, key: str = TARGETS_KEY) -> bool:
    """Remove the targets of `excluded` lexical units from `doc` (marking its targets
    partial when one was removed); False when the doc had targets and none is left."""
    targets = list(doc.spans.get(key, []))
    kept = [t for t in targets if t._.lexical_unit not in excluded]
    if len(kept) == len(targets):
        return True
    doc.spans[key] = SpanGroup(doc, name=key, spans=kept)
    mark_partial(doc, key)
    return bool(kept)


def rename_frames(doc: Doc, renaming: Dict[str, Optional[str]], key: str = TARGETS_KEY) -> bool:
    """Rename `doc`'s gold frames (target labels and the frame in each FE span's link to its
    target) by `renaming`; targets of frames renamed to None are removed with their FEs and
    the doc marked partial. False when the doc had targets and none is left."""
    targets = list(doc.spans.get(key, []))
    if not targets:
        return True
    renamed, gone = [], set()
    for span in targets:
        label = renaming.get(span.label_, span.label_)
        if label is None:
            gone.add(fe_target_id(span))
            continue
        # the lexical unit and pieces stay: extension values are keyed by the span's offsets
        renamed.append(Span(doc, span.start, span.end, label=label, span_id=span.id))
    attrs = dict(doc.spans[key].attrs)
    doc.spans[key] = SpanGroup(doc, name=key, spans=renamed, attrs=attrs)
    if FE_KEY in doc.spans:
        fes = []
        for fe in doc.spans[FE_KEY]:
            if fe.id_ in gone:
                continue
            link = fe.id_.split(":", 2)
            if len(link) == 3:
                link[2] = renaming.get(link[2], link[2]) or link[2]
            fes.append(Span(doc, fe.start, fe.end, label=fe.label_, span_id=":".join(link)))
        doc.spans[FE_KEY] = SpanGroup(doc, name=FE_KEY, spans=fes, attrs=dict(doc.spans[FE_KEY].attrs))
    if gone:
        mark_partial(doc, key)
    return bool(renamed)


def copy_targets(reference: Doc, predicted: Doc, key: str = TARGETS_KEY, into: Optional[str] = None) -> None:
    """Put the reference's target spans (label, LU, pieces) on `predicted`, aligned by
    characters, under the same key or `into`."""
    into = into or key
    aligned = (align_target(ref, predicted) for ref in reference.spans.get(key, []))
    predicted.spans[into] = SpanGroup(predicted, name=into, spans=[span for span in aligned if span is not None])


def copy_tags(reference: Doc, predicted: Doc) -> None:
    """The reference's tags on the predicted tokens with the same characters (others keep none)."""
    tags = {(t.idx, len(t)): t.tag_ for t in reference if t.tag_}
    for token in predicted:
        tag = tags.get((token.idx, len(token)))
        if tag:
            token.tag_ = tag


def sample_docbin(path: Path, n: int, seed: int) -> DocBin:
    """A seeded random sample of n docs of a DocBin (all when n < 0), without building
    every Doc: the exemplar DocBin has 154k docs, and building them all takes minutes."""
    full = DocBin(store_user_data=True).from_disk(path)
    if n < 0 or n >= len(full):
        return full
    return subset_docbin(full, sorted(random.Random(seed).sample(range(len(full)), n)))


def subset_docbin(full: DocBin, keep: List[int]) -> DocBin:
    """The docs of `full` at the indices `keep`, without building any Doc."""
    sample = DocBin(attrs=[], store_user_data=True)
    sample.attrs = full.attrs
    sample.strings = full.strings
    for name in ("tokens", "spaces", "cats", "flags", "user_data", "span_groups"):
        values = getattr(full, name)
        setattr(sample, name, [values[i] for i in keep])
    return sample


def require_corpus(path, command: str = "convert") -> Path:
    """The path of a converted corpus file, or an error naming the project command that writes it."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"Corpus '{path}' not found: run `spacy project run {command}` to write it.")
    return path

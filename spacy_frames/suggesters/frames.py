"""Which spans the frame components look at.

Prediction time (registered suggesters, see the package docstring):
- `spacy-frames.frame_target_suggester.v1`, frame_identifier's targets: the preset targets
  of `doc.spans[targets_key]` when the doc has that key, else the lexicon's candidates
  (lemma.POS lookup, multiword LUs longest first) and the out-of-lexicon tokens whose
  POS is in `oov_pos`;
- `spacy-frames.predicate_suggester.v1`, frame_inducer's predicates: the frame spans of
  `doc.spans[spans_key]` (frame_identifier's output) when the doc has them, else the preset
  targets of `doc.spans[targets_key]`, those whose part of speech is in `pos`.

Training time (frame_identifier): the gold targets mapped onto the predicted docs, and the
detector's examples (gold targets, and the suggester's other candidates as negatives).
"""

from typing import Callable, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry
from thinc.api import Ops
from thinc.types import Ragged

from ..extensions import FRAMES_KEY, TARGETS_KEY, align_target
from ..inventory.frames import FrameInventory
from ..inventory.lexicon import UPOS_TO_FN, Lexicon, fn_pos, target_lexical_unit
from . import suggested_spans, to_ragged


# -- frame_identifier's targets ----------------------------------------------------------------
@registry.misc("spacy-frames.frame_target_suggester.v1")
def build_frame_target_suggester() -> Callable[..., Ragged]:
    """frame_identifier's targets. Context: `lexicon` (the component's), `targets_key`
    (the key of preset targets; None: the lexicon's candidates only), `oov_pos` and
    `overlapping` (a multiword LU's words are candidates too)."""
    return suggest_frame_targets


def suggest_frame_targets(
    docs: Iterable[Doc],
    *,
    ops: Optional[Ops] = None,
    lexicon: Lexicon,
    targets_key: Optional[str] = TARGETS_KEY,
    oov_pos: Sequence[str] = (),
    overlapping: bool = False,
) -> Ragged:
    rows = []
    for doc in docs:
        if targets_key is not None and targets_key in doc.spans:
            spans = [s for s in doc.spans[targets_key] if len(s)]  # empty spans are no targets
        else:
            spans = [span for span, _ in lexicon.candidates(doc, oov_pos=oov_pos, overlapping=overlapping)]
        rows.append([(s.start, s.end) for s in spans])
    return to_ragged(rows, ops=ops)


class TargetBatch:
    """The targets of a batch of docs: spans, their LUs, and whether they were preset."""

    def __init__(
        self, docs: List[Doc], spans: List[List[Span]], lexical_units: List[List[Optional[str]]], preset: List[bool]
    ):
        self.docs = docs
        self.spans = spans
        self.lexical_units = lexical_units
        self.preset = preset


def target_batch(docs: Sequence[Doc], suggested: Ragged, lexicon: Lexicon, targets_key: str) -> TargetBatch:
    """The suggested targets with their LUs: a preset target's own (or the one its lemmas
    and POS give), else the lexicon's (None: out of the lexicon)."""
    docs = list(docs)
    spans = suggested_spans(docs, suggested, (targets_key,))
    preset = [targets_key in doc.spans for doc in docs]
    lus = [
        [(s._.lexical_unit or target_lexical_unit(s)) if is_preset else lexicon.lexical_unit(s) for s in doc_spans]
        for doc_spans, is_preset in zip(spans, preset)
    ]
    return TargetBatch(docs, spans, lus, preset)


def gold_targets(
    examples: Sequence[Example], targets_key: str, inventory: FrameInventory, name: str
) -> Tuple[List[List[Span]], List[List[str]], List[List[Optional[str]]]]:
    """Gold target spans mapped onto each predicted doc (by characters), frames and LUs."""
    spans, frames, lus = [], [], []
    for eg in examples:
        doc_spans, doc_frames, doc_lus = [], [], []
        if targets_key in eg.reference.spans:
            for ref in eg.reference.spans[targets_key]:
                if ref.label_ not in inventory:
                    raise ValueError(
                        f"[{name}] training target '{ref.text}' has frame '{ref.label_}', which is not "
                        "in the frame inventory. Add the frame (frames.json / add_frame) or drop the target."
                    )
                span = align_target(ref, eg.predicted)
                if span is None:
                    continue
                doc_spans.append(span)
                doc_frames.append(ref.label_)
                doc_lus.append(ref._.lexical_unit)
        spans.append(doc_spans)
        frames.append(doc_frames)
        lus.append(doc_lus)
    return spans, frames, lus


def detection_examples(
    docs: List[Doc],
    gold_spans: List[List[Span]],
    partial: List[bool],
    candidates: Callable[[List[Doc]], List[List[Span]]],
) -> Tuple[List[List[Span]], List[float]]:
    """Gold targets (label 1) plus the candidates (`candidates(docs)`: the suggester's,
    without preset targets) that are not targets (label 0), in docs with at least one
    gold target (FrameNet leaves many sentences unannotated) whose annotation is
    exhaustive (exemplars annotate one LU only). Each doc lists its gold targets first."""
    exhaustive = [
        i for i, (golds, is_partial_doc) in enumerate(zip(gold_spans, partial)) if golds and not is_partial_doc
    ]
    found = dict(zip(exhaustive, candidates([docs[i] for i in exhaustive]) if exhaustive else []))
    spans, labels = [], []
    for i, golds in enumerate(gold_spans):
        gold_offsets = {(s.start, s.end) for s in golds}
        extra = [span for span in found.get(i, []) if (span.start, span.end) not in gold_offsets]
        spans.append(list(golds) + extra)
        labels.extend([1.0] * len(golds) + [0.0] * len(extra))
    return spans, labels


# -- frame_inducer's predicates ------------------------------------------------------------------
@registry.misc("spacy-frames.predicate_suggester.v1")
def build_predicate_suggester() -> Callable[..., Ragged]:
    """frame_inducer's predicates. Context: `spans_key` (frame spans), `targets_key`
    (preset targets, used when a doc has no frame spans) and `pos` (coarse POS kept)."""
    return suggest_predicates


def suggest_predicates(
    docs: Iterable[Doc],
    *,
    ops: Optional[Ops] = None,
    spans_key: str = FRAMES_KEY,
    targets_key: str = TARGETS_KEY,
    pos: Sequence[str] = ("VERB",),
) -> Ragged:
    rows = []
    for doc in docs:
        key = spans_key if spans_key in doc.spans else targets_key
        rows.append([(s.start, s.end) for s in doc.spans.get(key, []) if len(s) and is_predicate(s, pos)])
    return to_ragged(rows, ops=ops)


def is_predicate(span: Span, pos: Sequence[str]) -> bool:
    """Whether the target's part of speech is among `pos` (universal POS): from its lexical
    unit ("run.v") when it has one, else from the POS (or PTB tag) of its last token."""
    suffixes = {UPOS_TO_FN[p] for p in pos}
    lu = span._.lexical_unit
    if lu and "." in lu:
        return lu.rsplit(".", 1)[1] in suffixes
    return bool(len(span)) and fn_pos(span[-1]) in suffixes


def target_lemma(span: Span) -> str:
    """The verb lemma of a target: from its lexical unit ("give up.v" -> "give up") when it
    has one, else its tokens' lemmas (or lowercase forms)."""
    lu = span._.lexical_unit
    if lu:
        return lu.rsplit(".", 1)[0]
    return " ".join(t.lemma_ or t.lower_ for t in span).lower()

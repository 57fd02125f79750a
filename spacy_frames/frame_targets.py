"""Which spans frame_identifier looks at: preset or lexicon targets at prediction time,
gold targets and detector examples at training time."""
from typing import Any, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span
from spacy.training import Example

from .corpora.framenet import FrameInventory
from .corpora.readers import align_target
from .lexicon import Lexicon, target_lexical_unit
from .ml.frame_inducer import span_token_indices


class TargetBatch:
    """The targets of a batch of docs: spans, their LUs, and whether they were preset."""

    def __init__(self, docs: List[Doc], spans: List[List[Span]], lexical_units: List[List[Optional[str]]], preset: List[bool]):
        self.docs = docs
        self.spans = spans
        self.lexical_units = lexical_units
        self.preset = preset

    def token_indices(self, ops) -> List[List[Any]]:
        return [[ops.asarray(span_token_indices(span), dtype="i") for span in spans] for spans in self.spans]


def collect_targets(docs: Iterable[Doc], targets_key: str, lexicon: Lexicon, oov_pos: Sequence[str]) -> TargetBatch:
    """Preset targets where the doc has them, else lexicon (+ out-of-lexicon) candidates."""
    docs = list(docs)
    spans, lus, preset = [], [], []
    for doc in docs:
        if targets_key in doc.spans:
            doc_spans = [s for s in doc.spans[targets_key] if len(s)]  # empty spans are no targets
            spans.append(doc_spans)
            lus.append([s._.lexical_unit or target_lexical_unit(s) for s in doc_spans])
            preset.append(True)
        else:
            candidates = lexicon.candidates(doc, oov_pos=oov_pos)
            spans.append([span for span, _ in candidates])
            lus.append([lu for _, lu in candidates])
            preset.append(False)
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
    docs: List[Doc], gold_spans: List[List[Span]], partial: List[bool], lexicon: Lexicon, oov_pos: Sequence[str]
) -> Tuple[List[List[Span]], List[float]]:
    """Gold targets (label 1) plus lexicon candidates that are not targets (label 0),
    in docs with at least one gold target (FrameNet leaves many sentences
    unannotated) whose annotation is exhaustive (exemplars annotate one LU only).
    Each doc lists its gold targets first."""
    spans, labels = [], []
    for doc, golds, is_partial_doc in zip(docs, gold_spans, partial):
        gold_offsets = {(s.start, s.end) for s in golds}
        extra = []
        if golds and not is_partial_doc:
            for span, _ in lexicon.candidates(doc, oov_pos=oov_pos):
                if (span.start, span.end) not in gold_offsets:
                    extra.append(span)
        spans.append(list(golds) + extra)
        labels.extend([1.0] * len(golds) + [0.0] * len(extra))
    return spans, labels

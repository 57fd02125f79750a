"""Frame elements (FEs) of FrameNet targets: reading them and putting the gold FEs on a Doc.

The FrameNet readers call `read_fe_layer` on the rank-1 FE layer of an annotation set
(higher ranks hold second labels of phrases rank 1 already has) and `bio_spans` on the FE
column of an open-sesame CoNLL block; `set_gold_frame_elements` writes the FEs of the
targets that became spans into `doc.spans["frame_elements"]`: one span per FE (per piece
of a discontinuous FE), label = FE name, `span.id_` = its target's pointer
(`extensions.fe_target_id`; a `Span._` value would be shared by two targets' FEs on the
same text). FEs on or over their own target are kept unless `keep_target_fes=False`.
What is not a span (null instantiations, unaligned FEs, FEs of skipped targets, second
annotation sets) is counted in the converter's stats; docs/frame_elements.md lists the
summary's keys.
"""

import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span

from ..extensions import FE_KEY, fe_target_id, install_extensions, make_fe_span
from .framenet import _tag

NULL_INSTANTIATION_TYPES = ("CNI", "DNI", "INI", "INC")
# Keys of the stats Counter (prefixed "fe_" there), in the order of the summary.
FE_COUNT_KEYS = (
    "annotated",
    "spans",
    "targets_with_fes",
    "expanded",
    "discontinuous",
    "overlapping",
)
FE_SKIP_KEYS = ("overlaps_target", "unaligned", "of_skipped_targets", "duplicate_target", "duplicate")
_LABEL_PREFIX = "fe_label:"


@dataclass(frozen=True)
class FrameElement:
    """An overt FE of a target: FE name and character offsets (end exclusive)."""

    name: str
    start: int
    end: int


NullInstantiation = Tuple[str, str]  # (FE name, "CNI" / "DNI" / "INI" / "INC")


def read_fe_layer(layer: ET.Element) -> Tuple[List[FrameElement], List[NullInstantiation]]:
    """The overt FEs (sorted by offsets) and null instantiations of an ``FE`` layer."""
    overt: List[FrameElement] = []
    null: List[NullInstantiation] = []
    for label in layer.iterfind(_tag("label")):
        name = label.get("name", "")
        start, end = label.get("start"), label.get("end")
        if start is None or end is None:
            if label.get("itype"):
                null.append((name, label.get("itype", "")))
            continue
        overt.append(FrameElement(name, int(start), int(end) + 1))
    return sorted(overt, key=lambda fe: (fe.start, fe.end, fe.name)), null


def bio_spans(tags: Sequence[str]) -> List[Tuple[str, int, int]]:
    """(label, start, end) token ranges of a BIO or BIOS column ("B-Donor", "I-Donor",
    "S-Time", "O").

    Every ``B-`` and ``S-`` opens a span (so "B-Entity B-Entity" is two spans; an ``S-``
    span is one token); an ``I-`` continuing a span of another label, or after ``O`` or an
    ``S-``, opens one too (lenient, as conlleval).
    """
    spans: List[Tuple[str, int, int]] = []
    current: Optional[List] = None
    for i, tag in enumerate(tags):
        prefix, _, label = tag.partition("-")
        if prefix not in ("B", "I", "S") or not label:
            current = None
            continue
        if prefix in ("B", "S") or current is None or current[0] != label:
            current = [label, i, i + 1]
            spans.append(current)  # type: ignore[arg-type]
        else:
            current[2] = i + 1
        if prefix == "S":
            current = None
    return [(label, start, end) for label, start, end in spans]


def bio_elements(tags: Sequence[str], tokens: Sequence[Tuple[int, int, object]]) -> List[FrameElement]:
    """The FEs of an open-sesame block's FE BIO column, as character offsets of ``tokens``
    ((start_char, end_char, tag) per row)."""
    return [FrameElement(name, tokens[start][0], tokens[end - 1][1]) for name, start, end in bio_spans(tags)]


def count_null_instantiations(null: Iterable[NullInstantiation], stats: Counter) -> None:
    for _, itype in null:
        stats[f"fe_null_{itype}"] += 1


def count_skipped_target(elements: Sequence[FrameElement], null: Sequence[NullInstantiation], stats: Counter) -> None:
    """FEs of a target that did not become a span."""
    stats["fe_skipped_of_skipped_targets"] += len(elements)
    stats["fe_null_of_skipped_targets"] += len(null)


def _fe_tokens(doc: Doc, fe: FrameElement) -> Tuple[Optional[Tuple[int, int]], bool]:
    """Token range [start, end) of an FE and whether it had to be expanded; None if it
    cannot be aligned."""
    text = doc.text
    start, end = fe.start, fe.end
    if start < 0 or end > len(text) or start >= end:
        return None, False
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start == end:
        return None, False
    span = doc.char_span(start, end)
    if span is not None:
        return (span.start, span.end), False
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or len(span) == 0:
        return None, False
    return (span.start, span.end), True


def _target_tokens(span: Span, parts: Optional[Sequence[Sequence[int]]]) -> set:
    """Token indices of the target: its pieces (``parts``, token ranges) or the whole span."""
    ranges = parts if parts else [[span.start, span.end]]
    return {i for start, end in ranges for i in range(start, end)}


def set_gold_frame_elements(
    doc: Doc,
    targets: Sequence[
        Tuple[Span, Optional[Sequence[Sequence[int]]], Sequence[FrameElement], Sequence[NullInstantiation]]
    ],
    stats: Counter,
    *,
    keep_target_fes: bool = True,
) -> None:
    """Write ``doc.spans["frame_elements"]``: the FEs of each (target span, target parts,
    overt FEs, null instantiations), linked to their target (see the module docstring for
    what is skipped and how it is counted in ``stats``). ``keep_target_fes``: keep the FEs
    that overlap their target instead of skipping them."""
    install_extensions()
    if keep_target_fes:
        stats["fe_on_target"] += 0  # the summary then reports the count, 0 included
    fe_spans: List[Span] = []
    seen_targets = set()
    for span, parts, elements, null in targets:
        count_null_instantiations(null, stats)
        stats["fe_annotated"] += len(elements)
        key = fe_target_id(span)
        if key in seen_targets:
            stats["fe_skipped_duplicate_target"] += len(elements)
            continue
        seen_targets.add(key)
        target_tokens = _target_tokens(span, parts)
        kept: List[Tuple[int, int, str]] = []
        for fe in elements:
            tokens, expanded = _fe_tokens(doc, fe)
            if tokens is None:
                stats["fe_skipped_unaligned"] += 1
                continue
            on_target = bool(target_tokens.intersection(range(*tokens)))
            coincident = set(range(*tokens)) == target_tokens
            if on_target and not keep_target_fes:
                stats["fe_skipped_overlaps_target"] += 1
                stats["fe_overlaps_target_coincident"] += coincident
                continue
            if (tokens[0], tokens[1], fe.name) in kept:
                stats["fe_skipped_duplicate"] += 1
                continue
            if on_target:
                stats["fe_on_target"] += 1
                stats["fe_on_target_coincident"] += coincident
            stats["fe_expanded"] += expanded
            kept.append((tokens[0], tokens[1], fe.name))
        names = Counter(name for _, _, name in kept)
        stats["fe_discontinuous"] += sum(1 for n in names.values() if n > 1)
        stats["fe_overlapping"] += sum(
            1 for i, a in enumerate(kept) for b in kept[i + 1 :] if a[0] < b[1] and b[0] < a[1]
        )
        stats["fe_targets_with_fes"] += bool(kept)
        for start, end, name in sorted(kept):
            fe_spans.append(make_fe_span(span, start, end, name))
            stats[_LABEL_PREFIX + name] += 1
    stats["fe_spans"] += len(fe_spans)
    doc.spans[FE_KEY] = fe_spans


def fe_summary(stats: Counter) -> Dict[str, object]:
    """The ``frame_elements`` section of a split's summary, from the converter's stats."""
    summary: Dict[str, object] = {key: int(stats.get(f"fe_{key}", 0)) for key in FE_COUNT_KEYS}
    summary["fe_types"] = sum(1 for key in stats if key.startswith(_LABEL_PREFIX))
    summary["skipped"] = {key: int(stats.get(f"fe_skipped_{key}", 0)) for key in FE_SKIP_KEYS}
    summary["overlaps_target_coincident"] = int(stats.get("fe_overlaps_target_coincident", 0))
    if "fe_on_target" in stats:  # converted with keep_target_fes: FEs on their target kept
        summary["on_target"] = int(stats["fe_on_target"])
        summary["on_target_coincident"] = int(stats.get("fe_on_target_coincident", 0))
    # counted by the converter against the inventory (FE spans kept all the same)
    summary["label_not_in_frame"] = int(stats.get("fe_label_not_in_frame", 0))
    summary["null_instantiations"] = {key: int(stats.get(f"fe_null_{key}", 0)) for key in NULL_INSTANTIATION_TYPES}
    other = sorted(
        key[len("fe_null_") :]
        for key in stats
        if key.startswith("fe_null_")
        and key[len("fe_null_") :] not in NULL_INSTANTIATION_TYPES + ("of_skipped_targets",)
    )
    for itype in other:  # an itype FrameNet 1.5 does not use
        summary["null_instantiations"][itype] = int(stats[f"fe_null_{itype}"])  # type: ignore[index]
    summary["null_instantiations_of_skipped_targets"] = int(stats.get("fe_null_of_skipped_targets", 0))
    return summary

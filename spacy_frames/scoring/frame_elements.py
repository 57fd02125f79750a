"""Scores of frame-element labelling (the frame_elements scorer): exact span and label.

An FE is the tuple (target start_char, target end_char, FE start_char, FE end_char, FE
name): character offsets, so gold and predicted tokenisations may differ, and the
target's frame is not part of the match (a wrong frame shows up as wrong FE names).
Only docs with gold targets are scored (FrameNet leaves many sentences unannotated); on
those, every predicted FE of a gold target's offsets counts, FEs of targets that are
not gold targets do not (they are target-detection errors, scored by frame_identifier).
:func:`score_frame_elements_open_sesame` scores the same FEs the way open-sesame does
(per target and FE name, the set of spans, Core FEs weighing more); the registered scorer
reports both (`fe_os_*` beside `fe_*`).
"""

from collections import Counter, defaultdict
from typing import Any, Dict, Iterable, Optional, Set, Tuple

from spacy.tokens import Doc
from spacy.training import Example

from ..extensions import FE_KEY, TARGETS_KEY
from .prf import prf

FETuple = Tuple[int, int, int, int, str]
OPEN_SESAME_KEYS = ("fe_os_p", "fe_os_r", "fe_os_f")


def fe_tuples(doc: Doc, fe_key: str = FE_KEY) -> Dict[FETuple, Optional[str]]:
    """The doc's FE spans as FE tuples, each with the frame of its target."""
    out: Dict[FETuple, Optional[str]] = {}
    for span in doc.spans.get(fe_key, []):
        target, frame = span._.fe_target, span._.fe_frame
        if target is None:
            continue
        out[(target[0], target[1], span.start_char, span.end_char, span.label_)] = frame
    return out


def score_frame_elements(
    examples: Iterable[Example], *, fe_key: str = FE_KEY, targets_key: str = TARGETS_KEY, component=None, **kwargs
) -> Dict[str, Any]:
    """fe_p / fe_r / fe_f (micro, exact span and label); fe_core_f / fe_noncore_f (core
    FEs as the component's inventory types them: Core and Core-Unexpressed);
    fe_per_type: P/R/F and gold count n per FE name; fe_os_p / fe_os_r / fe_os_f
    (:func:`score_frame_elements_open_sesame`, with the component's inventory)."""
    inventory = _inventory_of(component)
    examples = list(examples)
    open_sesame = score_frame_elements_open_sesame(
        examples, inventory=inventory, fe_key=fe_key, targets_key=targets_key
    )
    counts: Dict[str, Counter] = defaultdict(Counter)
    per_type: Dict[str, Counter] = defaultdict(Counter)
    n_docs = 0
    for eg in examples:
        gold_targets = eg.reference.spans.get(targets_key, [])
        if not len(gold_targets):
            continue
        n_docs += 1
        target_offsets: Set[Tuple[int, int]] = {(t.start_char, t.end_char) for t in gold_targets}
        gold = {k: v for k, v in fe_tuples(eg.reference, fe_key).items() if (k[0], k[1]) in target_offsets}
        pred = {k: v for k, v in fe_tuples(eg.predicted, fe_key).items() if (k[0], k[1]) in target_offsets}
        for key, frame in gold.items():
            group = _core_group(inventory, frame, key[4])
            hit = key in pred
            for name in ("all", group):
                counts[name]["n"] += 1
                counts[name]["tp"] += hit
            per_type[key[4]]["n"] += 1
            per_type[key[4]]["tp"] += hit
        for key, frame in pred.items():
            for name in ("all", _core_group(inventory, frame, key[4])):
                counts[name]["pred"] += 1
            per_type[key[4]]["pred"] += 1
    if not n_docs:
        empty = {"fe_p": None, "fe_r": None, "fe_f": None, "fe_core_f": None, "fe_noncore_f": None}
        return {**empty, **open_sesame, "fe_per_type": {}}
    p, r, f = prf(counts["all"]["tp"], counts["all"]["pred"], counts["all"]["n"])
    scores: Dict[str, Any] = {"fe_p": p, "fe_r": r, "fe_f": f, **open_sesame}
    for group in ("core", "noncore"):
        c = counts[group]
        scores[f"fe_{group}_f"] = prf(c["tp"], c["pred"], c["n"])[2] if c["n"] or c["pred"] else None
    scores["fe_per_type"] = {
        name: dict(zip("prf", prf(c["tp"], c["pred"], c["n"])), n=c["n"]) for name, c in sorted(per_type.items())
    }
    return scores


def score_frame_elements_open_sesame(
    examples: Iterable[Example], *, inventory=None, fe_key: str = FE_KEY, targets_key: str = TARGETS_KEY
) -> Dict[str, Optional[float]]:
    """fe_os_p / fe_os_r / fe_os_f: open-sesame's labeled argument-identification measure
    (``labeled_eval`` of its ``sesame/evaluation.py``).

    Per gold target (its character offsets; FEs of other targets do not count, as in
    :func:`score_frame_elements`) and per FE name: the name is correct when the set of its
    predicted spans equals the set of its gold spans (so every piece of a discontinuous FE
    must be predicted, and an extra piece makes the name wrong). A name weighs 1 when it is
    a Core FE of the gold target's frame (core type "Core" only) and 0.5 otherwise; every
    name weighs 1 when the frame is not in ``inventory`` (or there is none). P = weighted
    correct / weighted predicted names, R = weighted correct / weighted gold names; the
    frame itself is no scored item. None when no doc has gold targets."""
    totals: Counter = Counter()
    core_sets: Dict[str, Optional[Set[str]]] = {}
    n_docs = 0
    for eg in examples:
        gold_targets = eg.reference.spans.get(targets_key, [])
        if not len(gold_targets):
            continue
        n_docs += 1
        frames: Dict[Tuple[int, int], str] = {}
        for target in gold_targets:
            frames.setdefault((target.start_char, target.end_char), target.label_)
        gold, pred = _fe_span_sets(eg.reference, fe_key), _fe_span_sets(eg.predicted, fe_key)
        for offsets, frame in frames.items():
            if frame not in core_sets:
                core_sets[frame] = _core_names(inventory, frame)
            core = core_sets[frame]
            gold_names, pred_names = gold.get(offsets, {}), pred.get(offsets, {})
            for name, spans in gold_names.items():
                weight = _os_weight(core, name)
                totals["gold"] += weight
                totals["tp"] += weight if pred_names.get(name) == spans else 0.0
            totals["pred"] += sum(_os_weight(core, name) for name in pred_names)
    if not n_docs:
        return dict.fromkeys(OPEN_SESAME_KEYS)
    return dict(zip(OPEN_SESAME_KEYS, prf(totals["tp"], totals["pred"], totals["gold"])))


def _inventory_of(component):
    """The component's frame inventory, or None (not linked yet, or no component)."""
    try:
        return getattr(component, "inventory", None)
    except ValueError:
        return None


def _fe_span_sets(doc: Doc, fe_key: str) -> Dict[Tuple[int, int], Dict[str, Set[Tuple[int, int]]]]:
    """Per target offsets, per FE name, the set of its spans' character offsets."""
    out: Dict[Tuple[int, int], Dict[str, Set[Tuple[int, int]]]] = defaultdict(lambda: defaultdict(set))
    for t_start, t_end, start, end, name in fe_tuples(doc, fe_key):
        out[(t_start, t_end)][name].add((start, end))
    return out


def _core_names(inventory, frame: str) -> Optional[Set[str]]:
    """The names of the frame's FEs of core type "Core"; None when the inventory lacks the frame."""
    if inventory is None or frame not in inventory:
        return None
    return {fe.name for fe in inventory.frame_elements(frame) if fe.core_type == "Core"}


def _os_weight(core: Optional[Set[str]], name: str) -> float:
    return 1.0 if core is None or name in core else 0.5


def _core_group(inventory, frame: Optional[str], fe: str) -> str:
    if inventory is None or frame is None or frame not in inventory:
        return "unknown"
    try:
        return "core" if inventory.frame_element(frame, fe).is_core else "noncore"
    except ValueError:
        return "unknown"

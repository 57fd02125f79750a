"""Scores of frame-element labelling, strict (`fe_*`) and open-sesame's (`fe_os_*`). An FE is
(target start_char, target end_char, FE start_char, FE end_char, FE name): tokenisations may
differ, and a wrong frame shows up as wrong FE names. Only docs with gold targets are scored,
and only the FEs of gold targets' offsets (others are frame_identifier's detection errors).
"""

from collections import Counter, defaultdict
from typing import Any, Dict, Iterable, Iterator, Optional, Set, Tuple

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
        if span._.fe_target is not None:
            out[(*span._.fe_target, span.start_char, span.end_char, span.label_)] = span._.fe_frame
    return out


def _scored(examples: Iterable[Example], fe_key: str, targets_key: str) -> Iterator[Tuple[Dict, Dict, Dict]]:
    """Per example with gold targets: the gold and the predicted FE tuples of the gold
    targets' offsets, and each gold target's frame by its offsets."""
    for eg in examples:
        targets = eg.reference.spans.get(targets_key, [])
        if len(targets):
            # reversed: of targets at the same offsets, the first one's frame
            frames = {(t.start_char, t.end_char): t.label_ for t in reversed(targets)}
            gold, pred = fe_tuples(eg.reference, fe_key), fe_tuples(eg.predicted, fe_key)
            yield (
                {k: v for k, v in gold.items() if k[:2] in frames},
                {k: v for k, v in pred.items() if k[:2] in frames},
                frames,
            )


def score_frame_elements(
    examples: Iterable[Example], *, fe_key: str = FE_KEY, targets_key: str = TARGETS_KEY, component=None, **kwargs
) -> Dict[str, Any]:
    """fe_p / fe_r / fe_f (micro, exact span and name); fe_core_f / fe_noncore_f (Core and
    Core-Unexpressed FEs of the component's inventory, and the others); fe_per_type: P/R/F and
    gold (n), correct (tp) and predicted (pred) counts per FE name; and fe_os_p / r / f."""
    inventory = _inventory_of(component)
    examples = list(examples)
    counts: Dict[str, Counter] = defaultdict(Counter)  # "all", "core", "noncore", "unknown", then per FE name
    n_docs = 0
    for gold, pred, _ in _scored(examples, fe_key, targets_key):
        n_docs += 1
        for tuples, kind in ((gold, "n"), (pred, "pred")):
            for key, frame in tuples.items():
                hit = kind == "n" and key in pred
                for name in ("all", _core_group(inventory, frame, key[4]), f"fe:{key[4]}"):
                    counts[name][kind] += 1
                    counts[name]["tp"] += hit
    scores: Dict[str, Any] = dict.fromkeys(("fe_p", "fe_r", "fe_f", "fe_core_f", "fe_noncore_f"))
    scores.update(
        score_frame_elements_open_sesame(examples, inventory=inventory, fe_key=fe_key, targets_key=targets_key)
    )
    scores["fe_per_type"] = {}
    if n_docs:
        scores.update(
            zip(("fe_p", "fe_r", "fe_f"), prf(counts["all"]["tp"], counts["all"]["pred"], counts["all"]["n"]))
        )
        for group in ("core", "noncore"):
            c = counts[group]
            scores[f"fe_{group}_f"] = prf(c["tp"], c["pred"], c["n"])[2] if c["n"] or c["pred"] else None
        scores["fe_per_type"] = {
            name[3:]: {**dict(zip("prf", prf(c["tp"], c["pred"], c["n"]))), **{k: c[k] for k in ("n", "tp", "pred")}}
            for name, c in sorted(counts.items())
            if name.startswith("fe:")
        }
    return scores


def score_frame_elements_open_sesame(
    examples: Iterable[Example], *, inventory=None, fe_key: str = FE_KEY, targets_key: str = TARGETS_KEY
) -> Dict[str, Optional[float]]:
    """open-sesame's labeled argument identification (``labeled_eval``, ``sesame/evaluation.py``):
    per gold target, an FE name is correct when its predicted spans are its gold spans; a name
    weighs 1 when it is a "Core" FE of the gold frame (or the inventory lacks the frame), else
    0.5; P = weighted correct / predicted, R = / gold; None when no doc has gold targets."""
    totals: Counter = Counter()
    core_sets: Dict[str, Optional[Set[str]]] = {}
    n_docs = 0
    for gold, pred, frames in _scored(examples, fe_key, targets_key):
        n_docs += 1
        gold_sets, pred_sets = _fe_span_sets(gold), _fe_span_sets(pred)
        for offsets, frame in frames.items():
            if frame not in core_sets:
                core_sets[frame] = _core_names(inventory, frame)
            core = core_sets[frame]
            gold_names, pred_names = gold_sets.get(offsets, {}), pred_sets.get(offsets, {})
            for name, spans in gold_names.items():
                totals["gold"] += _os_weight(core, name)
                totals["tp"] += _os_weight(core, name) if pred_names.get(name) == spans else 0.0
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


def _fe_span_sets(tuples: Dict[FETuple, Any]) -> Dict[Tuple[int, int], Dict[str, Set[Tuple[int, int]]]]:
    """Per target offsets, per FE name, the set of its spans' character offsets."""
    out: Dict[Tuple[int, int], Dict[str, Set[Tuple[int, int]]]] = defaultdict(lambda: defaultdict(set))
    for t_start, t_end, start, end, name in tuples:
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

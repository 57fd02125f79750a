"""Where frame_elements loses F: each gold and each predicted FE of the gold targets (gold
frames) put in one class (`fe_errors`), for choosing the next model on dev."""

from collections import Counter
from typing import Dict, Iterable, List

from spacy.language import Language
from spacy.training import Example

from spacy_frames.extensions import FE_KEY, TARGETS_KEY
from spacy_frames.scoring.frame_elements import fe_tuples

ERROR_CLASSES = ("correct", "boundary", "label", "overlap_other", "missed")


def fe_errors(
    examples: Iterable[Example], *, fe_key: str = FE_KEY, targets_key: str = TARGETS_KEY
) -> Dict[str, Dict[str, int]]:
    """Per gold FE and per predicted FE of the gold targets: `correct`; `boundary` (no
    exact match, but an overlapping FE of the same name on the other side); `label` (the
    same span, another name); `overlap_other` (only overlapping FEs of other names);
    `missed` (gold: nothing predicted over it) or `spurious` (predicted: no gold FE under it)."""

    def classify(item, other: Dict) -> str:
        t_start, t_end, start, end, label = item
        if item in other:
            return "correct"
        if any(o[:4] == item[:4] for o in other):
            return "label"
        overlapping = [o for o in other if o[:2] == (t_start, t_end) and o[2] < end and start < o[3]]
        if any(o[4] == label for o in overlapping):
            return "boundary"
        return "overlap_other" if overlapping else "missed"

    gold_counts, pred_counts = Counter(), Counter()
    for eg in examples:
        targets = {(t.start_char, t.end_char) for t in eg.reference.spans.get(targets_key, [])}
        if not targets:
            continue
        gold = {k: None for k in fe_tuples(eg.reference, fe_key) if k[:2] in targets}
        pred = {k: None for k in fe_tuples(eg.predicted, fe_key) if k[:2] in targets}
        gold_counts.update(classify(k, pred) for k in gold)
        pred_counts.update(classify(k, gold) for k in pred)
    spurious = {name: name.replace("missed", "spurious") for name in ERROR_CLASSES}
    return {
        "gold": {name: gold_counts[name] for name in ERROR_CLASSES},
        "predicted": {spurious[name]: pred_counts[name] for name in ERROR_CLASSES},
    }


def fe_error_breakdown(nlp: Language, examples: List[Example], batch_size: int = 32) -> Dict:
    """`fe_errors` of the pipeline's FEs on gold frames (frame_identifier disabled)."""
    disable = [name for name in ("frame_identifier",) if name in nlp.pipe_names]
    with nlp.select_pipes(disable=disable):
        docs = list(nlp.pipe((eg.predicted.copy() for eg in examples), batch_size=batch_size))
    return fe_errors([Example(doc, eg.reference) for doc, eg in zip(docs, examples)])

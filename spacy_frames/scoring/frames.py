"""Scores of frame identification (the frame_identifier scorer): frame accuracy and
recall@k against gold targets, target detection P/R/F, per-frame P/R/F."""

from collections import Counter, defaultdict
from typing import Any, Dict, Iterable, List, Tuple

from spacy.tokens import Span
from spacy.training import Example

from ..extensions import FRAMES_KEY, TARGETS_KEY
from .prf import f1, prf

# the scalar scores of frame identification, as the scorer reports them
FRAME_SCORE_KEYS = (
    "frame_acc",
    "frame_r1",
    "frame_r3",
    "frame_r5",
    "frame_overall",
    "frame_acc_ambiguous",
    "target_p",
    "target_r",
    "target_f",
)


def score_frame_identification(
    examples: Iterable[Example], *, spans_key: str = FRAMES_KEY, targets_key: str = TARGETS_KEY, **kwargs
) -> Dict[str, Any]:
    """Frame identification against gold targets, and target detection.

    Acc: predicted frame == gold over all gold targets (a target the pipeline did
    not find counts as wrong); R@k: gold frame among the top k of
    span._.frame_ranking (no lexicon filter); Overall: harmonic mean of Acc and
    R@1; ambiguous: Acc over targets whose lexical unit has several candidate
    frames. Target P/R/F compare target spans by characters, over docs that have
    at least one gold target (FrameNet leaves many sentences unannotated).
    frame_per_type: P/R/F of each frame label (a target found with the wrong
    frame, or not found, is a miss of its gold frame) and its gold count n.
    """
    n_gold = n_pred = n_match = 0
    per_frame: Dict[str, Counter] = defaultdict(Counter)  # frame -> tp / fp / n
    correct = ambiguous = ambiguous_correct = 0
    hits = {1: 0, 3: 0, 5: 0}
    for eg in examples:
        gold = list(eg.reference.spans[targets_key]) if targets_key in eg.reference.spans else []
        if not gold:
            continue
        pred_group = eg.predicted.spans[spans_key] if spans_key in eg.predicted.spans else []
        n_candidates = pred_group.attrs.get("n_candidates", []) if len(pred_group) else []
        # offsets -> predicted spans; FrameNet sometimes annotates one target twice
        # (two frames), so each prediction can match one gold target only
        predicted: Dict[Tuple[int, int], List[Tuple[Span, int]]] = {}
        for i, span in enumerate(pred_group):
            n_cands = n_candidates[i] if i < len(n_candidates) else 0
            predicted.setdefault((span.start_char, span.end_char), []).append((span, n_cands))
        n_gold += len(gold)
        n_pred += len(pred_group)
        for span in pred_group:
            per_frame[span.label_]["pred"] += 1
        for ref in gold:
            per_frame[ref.label_]["n"] += 1
            matches = predicted.get((ref.start_char, ref.end_char))
            if not matches:
                continue
            span, n_cands = matches.pop(0)
            n_match += 1
            ok = span.label_ == ref.label_
            correct += ok
            per_frame[ref.label_]["tp"] += ok
            if n_cands > 1:
                ambiguous += 1
                ambiguous_correct += ok
            ranked = [name for name, _ in (span._.frame_ranking or [])]
            for k in hits:
                hits[k] += ref.label_ in ranked[:k]
    if n_gold == 0:
        empty: Dict[str, Any] = {k: None for k in FRAME_SCORE_KEYS}
        empty["frame_per_type"] = {}
        return empty
    acc = correct / n_gold
    r1 = hits[1] / n_gold
    p, r, f = prf(n_match, n_pred, n_gold)
    return {
        "frame_acc": acc,
        "frame_r1": r1,
        "frame_r3": hits[3] / n_gold,
        "frame_r5": hits[5] / n_gold,
        "frame_overall": f1(acc, r1),
        "frame_acc_ambiguous": ambiguous_correct / ambiguous if ambiguous else None,
        "target_p": p,
        "target_r": r,
        "target_f": f,
        "frame_per_type": {frame: _prf(c["tp"], c["pred"], c["n"]) for frame, c in sorted(per_frame.items())},
    }


def _prf(tp: int, n_pred: int, n_gold: int) -> Dict[str, float]:
    p, r, f = prf(tp, n_pred, n_gold)
    return {"p": p, "r": r, "f": f, "n": n_gold}

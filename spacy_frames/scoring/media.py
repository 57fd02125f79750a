"""Scores of multi-label media framing: micro- and macro-F1 over the 14 frames (the
SemEval-2023 st2 measure is micro-F1), per-frame F1, and per-label threshold tuning.

Labels are 0/1 matrices (n_articles, n_frames) in MEDIA_FRAMES order. Macro-F1 averages
over the frames that occur in the gold or the predictions (sklearn's zero_division=0 over
all 14 would punish a small test split for frames it lacks).
"""

from typing import Any, Dict, Iterable, List, Optional, Sequence

import numpy
from spacy.training import Example

from ..corpora.media_frames import MEDIA_FRAMES
from .prf import prf


def label_matrix(label_sets: Iterable[Iterable[str]], frames: Sequence[str] = MEDIA_FRAMES) -> numpy.ndarray:
    index = {f: i for i, f in enumerate(frames)}
    rows = [list(s) for s in label_sets]
    matrix = numpy.zeros((len(rows), len(frames)), dtype="int8")
    for r, labels in enumerate(rows):
        for label in labels:
            matrix[r, index[label]] = 1
    return matrix


def f1_scores(gold: numpy.ndarray, pred: numpy.ndarray, frames: Sequence[str] = MEDIA_FRAMES) -> Dict[str, Any]:
    """{"micro_f1", "macro_f1", "per_frame_f1", "n"}; F1 values in [0, 1]."""
    gold = numpy.asarray(gold, dtype=bool)
    pred = numpy.asarray(pred, dtype=bool)
    if gold.shape != pred.shape:
        raise ValueError(f"f1_scores: gold {gold.shape} and predictions {pred.shape} differ in shape")
    tp = (gold & pred).sum(axis=0).astype(float)
    n_pred = pred.sum(axis=0).astype(float)
    n_gold = gold.sum(axis=0).astype(float)
    # macro: over the frames in the gold or the predictions
    per_frame = {
        frame: float(prf(tp[i], n_pred[i], n_gold[i])[2]) for i, frame in enumerate(frames) if n_pred[i] + n_gold[i] > 0
    }
    return {
        "micro_f1": float(prf(tp.sum(), n_pred.sum(), n_gold.sum())[2]),
        "macro_f1": float(numpy.mean(list(per_frame.values()))) if per_frame else 0.0,
        "per_frame_f1": per_frame,
        "n": int(gold.shape[0]),
    }


def tune_thresholds(
    gold: numpy.ndarray, scores: numpy.ndarray, grid: Optional[Sequence[float]] = None, default: float = 0.5
) -> List[float]:
    """Per frame, the threshold on `scores` that maximises that frame's F1 on (dev) data;
    a frame without gold positives keeps `default`. Ties go to the threshold closest to
    `default`, so small dev sets do not push thresholds to extremes for nothing."""
    gold = numpy.asarray(gold, dtype=bool)
    scores = numpy.asarray(scores, dtype=float)
    grid = list(grid) if grid is not None else [round(x, 2) for x in numpy.arange(0.05, 0.96, 0.05)]
    thresholds = []
    for j in range(gold.shape[1]):
        if not gold[:, j].any():
            thresholds.append(float(default))
            continue
        best = None
        for t in grid:
            pred = scores[:, j] >= t
            _, _, f1 = prf(float((pred & gold[:, j]).sum()), float(pred.sum()), float(gold[:, j].sum()))
            key = (round(f1, 9), -abs(t - default))
            if best is None or key > best[0]:
                best = (key, t)
        thresholds.append(float(best[1]))
    return thresholds


def micro_f1_at(gold: numpy.ndarray, scores: numpy.ndarray, thresholds: Sequence[float]) -> float:
    return f1_scores(gold, scores >= numpy.asarray(thresholds)[None, :], frames=[str(i) for i in range(gold.shape[1])])[
        "micro_f1"
    ]


def tune_global_threshold(
    gold: numpy.ndarray, scores: numpy.ndarray, grid: Optional[Sequence[float]] = None, default: float = 0.5
) -> float:
    """The one threshold for all frames that maximises micro-F1 (ties: nearest `default`)."""
    grid = list(grid) if grid is not None else [round(x, 2) for x in numpy.arange(0.05, 0.96, 0.05)]
    return float(max(grid, key=lambda t: (round(micro_f1_at(gold, scores, [t] * gold.shape[1]), 9), -abs(t - default))))


SHRINKAGES = (0.0, 0.25, 0.5, 0.75, 1.0)


def tune_shrunk_thresholds(
    gold: numpy.ndarray, scores: numpy.ndarray, shrinkage: Optional[float] = None, rounds: int = 20, seed: int = 0
) -> Dict[str, Any]:
    """Per-frame thresholds for micro-F1 on small dev sets: t_j = g + k * (p_j - g), with g
    the global threshold that maximises micro-F1 and p_j frame j's own F1-maximising
    threshold. k (0: one threshold for all, 1: fully per frame) is chosen, unless given,
    by repeated 2-fold cross-validation of micro-F1 within the (dev) data: per-frame
    thresholds fitted on a few dozen articles overfit. Returns {"thresholds", "global",
    "shrinkage", "cv_micro_f1"}."""
    gold = numpy.asarray(gold, dtype=bool)
    scores = numpy.asarray(scores, dtype=float)

    def fit(g, s, k):
        glob = tune_global_threshold(g, s)
        own = tune_thresholds(g, s, default=glob)
        return [round(glob + k * (t - glob), 4) for t in own], glob

    cv = {}
    if shrinkage is None:
        rng = numpy.random.default_rng(seed)
        n = gold.shape[0]
        folds = []
        for _ in range(rounds):
            order = rng.permutation(n)
            folds += [(order[: n // 2], order[n // 2 :]), (order[n // 2 :], order[: n // 2])]
        for k in SHRINKAGES:
            cv[k] = float(
                numpy.mean([micro_f1_at(gold[b], scores[b], fit(gold[a], scores[a], k)[0]) for a, b in folds])
            )
        shrinkage = max(SHRINKAGES, key=lambda k: (round(cv[k], 6), -k))
    thresholds, glob = fit(gold, scores, shrinkage)
    return {
        "thresholds": thresholds,
        "global": glob,
        "shrinkage": shrinkage,
        "cv_micro_f1": {str(k): round(v, 4) for k, v in cv.items()},
    }


def score_media_frames(examples: Iterable[Example], **kwargs) -> Dict[str, Any]:
    """The media_framer scorer: micro- and macro-F1 of doc._.media_frames against the
    gold cats (>= 0.5)."""
    examples = [eg for eg in examples if eg.reference.cats]
    if not examples:
        return {"media_micro_f1": None, "media_macro_f1": None}
    frames = sorted({c for eg in examples for c in eg.reference.cats})
    gold = numpy.asarray([[eg.reference.cats.get(f, 0.0) >= 0.5 for f in frames] for eg in examples])
    pred = numpy.asarray([[f in (eg.predicted._.media_frames or []) for f in frames] for eg in examples])
    scores = f1_scores(gold, pred, frames)
    return {
        "media_micro_f1": scores["micro_f1"],
        "media_macro_f1": scores["macro_f1"],
        "media_per_frame_f1": scores["per_frame_f1"],
    }

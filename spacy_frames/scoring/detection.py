"""Tuning frame_identifier's target calibration (`spacy-frames tune-detection --train`).

1. Target rates: every candidate (overlapping: multiword LUs and their words) of the
   exhaustively annotated training docs, and whether it is a gold target.
2. Dev: every candidate with its detector probability (one pass of the pipeline).
3. The calibration (pipeline/target_calibration.py) and its cut-off are chosen by 5-fold
   cross-validation over dev documents: the reported dev P/R/F are of held-out folds,
   never of the documents a fold was fitted on. The chosen setting is then refitted on all
   of dev and saved with the pipeline.
Counting follows the registered scorer: spans match by characters, over docs with at
least one gold target, each prediction matching one gold target.
"""

from collections import Counter
from typing import Dict, List, Sequence, Tuple

import numpy
from spacy.language import Language
from spacy.training import Example

from ..corpora.readers import is_partial
from ..extensions import TARGETS_KEY
from ..pipeline.target_calibration import TargetCalibration, candidate_key, resolve_overlaps
from .prf import prf

N_FOLDS = 5
L2_GRID = (0.1, 1.0, 10.0)
THRESHOLD_GRID = tuple(round(0.02 * i, 2) for i in range(5, 40))
SKIPPED = ("frame_elements", "parser", "frame_inducer", "discourse_sense", "media_framer")


class DocCandidates:
    """One doc's candidates: spans, keys, in-lexicon flags, detector probabilities, gold
    (and, when asked for, their target vectors)."""

    def __init__(self, spans, keys, known, probs, offsets, gold: Counter, vectors=None):
        self.spans, self.keys, self.known, self.probs, self.offsets, self.gold = (
            spans,
            keys,
            known,
            probs,
            offsets,
            gold,
        )
        self.vectors = vectors


def collect_candidates(
    nlp: Language,
    examples: Sequence[Example],
    with_probs: bool,
    exhaustive_only: bool = False,
    batch_size: int = 32,
    with_parser: bool = False,
    with_vectors: bool = False,
) -> List[DocCandidates]:
    """The overlapping candidates of the docs that have gold targets (with_probs: and the
    detector's probability of each; with_vectors: and their target vectors). The parser is
    skipped unless `with_parser` (it only moves a few sentence boundaries, and it is slow)."""
    pipe = nlp.get_pipe("frame_identifier")
    examples = [
        eg
        for eg in examples
        if eg.reference.spans.get(TARGETS_KEY) and not (exhaustive_only and is_partial(eg.reference))
    ]
    skipped = [
        n
        for n in nlp.pipe_names
        if (n in SKIPPED and not (with_parser and n == "parser"))
        or n == "frame_identifier"
        or (not with_probs and n == "transformer")
    ]
    saved = pipe.cfg.get("overlapping_candidates", False)
    pipe.cfg["overlapping_candidates"] = True
    out: List[DocCandidates] = []
    try:
        with nlp.select_pipes(disable=skipped):
            docs = list(nlp.pipe((eg.predicted for eg in examples), batch_size=batch_size))
        for start in range(0, len(docs), batch_size):
            chunk = docs[start : start + batch_size]
            vectors = None
            if with_probs:
                predicted = pipe.predict(chunk)
                batch, probs, vectors = predicted["batch"], predicted["probs"], predicted["vectors"]
            else:
                batch, probs = pipe.collect_targets(chunk), None
            offset = 0
            for j, (spans, lus) in enumerate(zip(batch.spans, batch.lexical_units)):
                eg = examples[start + j]
                known = [pipe.in_lexicon(lu) for lu in lus]
                keys = [candidate_key(s, lu if k else None) for s, lu, k in zip(spans, lus, known)]
                doc_probs = (
                    [float(p) for p in probs[offset : offset + len(spans)]] if probs is not None else [0.0] * len(spans)
                )
                doc_vectors = vectors[offset : offset + len(spans)] if with_vectors and vectors is not None else None
                offset += len(spans)
                gold = Counter((s.start_char, s.end_char) for s in eg.reference.spans[TARGETS_KEY])
                out.append(
                    DocCandidates(
                        spans, keys, known, doc_probs, [(s.start_char, s.end_char) for s in spans], gold, doc_vectors
                    )
                )
    finally:
        pipe.cfg["overlapping_candidates"] = saved
    return out


def count_rates(calibration: TargetCalibration, train_docs: Sequence[DocCandidates]) -> None:
    calibration.count((key, off in doc.gold) for doc in train_docs for key, off in zip(doc.keys, doc.offsets))


def detection_prf(
    docs: Sequence[DocCandidates], scores: Sequence[Sequence[float]], threshold: float
) -> Dict[str, float]:
    n_gold = sum(sum(doc.gold.values()) for doc in docs)
    n_pred = n_match = 0
    for doc, doc_scores in zip(docs, scores):
        keep = resolve_overlaps(doc.spans, doc_scores, [s >= threshold for s in doc_scores])
        kept = Counter(off for off, k in zip(doc.offsets, keep) if k)
        n_pred += sum(kept.values())
        n_match += sum(min(c, doc.gold[off]) for off, c in kept.items())
    p, r, f = prf(n_match, n_pred, n_gold)
    return {"target_p": round(100 * p, 2), "target_r": round(100 * r, 2), "target_f": round(100 * f, 2)}


def _design(
    calibration: TargetCalibration, docs: Sequence[DocCandidates]
) -> Tuple[numpy.ndarray, numpy.ndarray, List[int]]:
    X = [calibration.features(d.keys, d.probs, d.spans, d.known) for d in docs]
    y = numpy.asarray([float(off in d.gold) for d in docs for off in d.offsets])
    sizes = [len(d.offsets) for d in docs]
    return numpy.vstack(X) if X else numpy.zeros((0, 0)), y, sizes


def _split(values: numpy.ndarray, sizes: Sequence[int]) -> List[List[float]]:
    out, start = [], 0
    for n in sizes:
        out.append([float(v) for v in values[start : start + n]])
        start += n
    return out


def cross_validated_scores(
    calibration: TargetCalibration, docs: Sequence[DocCandidates], l2: float
) -> List[List[float]]:
    """Each dev doc's calibrated scores from a calibration fitted on the other folds."""
    X, y, sizes = _design(calibration, docs)
    doc_of_row = numpy.repeat(numpy.arange(len(docs)), sizes)
    scores = numpy.zeros(len(y))
    for fold in range(N_FOLDS):
        held = doc_of_row % N_FOLDS == fold
        fitted = TargetCalibration().from_dict(calibration.to_dict()).fit(X[~held], y[~held], l2=l2)
        scores[held] = fitted.score(X[held])
    return _split(scores, sizes)


def tune_calibration(calibration: TargetCalibration, dev_docs: Sequence[DocCandidates]) -> Dict:
    """Choose (l2, cut-off) by cross-validated dev F1, refit on all of dev."""
    grid = []
    for l2 in L2_GRID:
        scores = cross_validated_scores(calibration, dev_docs, l2)
        for t in THRESHOLD_GRID:
            grid.append({"l2": l2, "threshold": t, **detection_prf(dev_docs, scores, t)})
    best = max(grid, key=lambda row: row["target_f"])
    X, y, _ = _design(calibration, dev_docs)
    calibration.fit(X, y, l2=best["l2"])
    return {"best": best, "grid": grid}


def tune_calibrated_detection(nlp: Language, dev: Sequence[Example], train: Sequence[Example]) -> Dict:
    """Fit frame_identifier's target calibration (rates from `train`, weights and cut-off
    on `dev`) in place; the pipeline then uses it with overlapping candidates."""
    pipe = nlp.get_pipe("frame_identifier")
    calibration = TargetCalibration()
    train_docs = collect_candidates(nlp, train, with_probs=False, exhaustive_only=True)
    if not train_docs:
        raise ValueError("tune-detection --train: the training corpus has no documents with gold targets.")
    count_rates(calibration, train_docs)
    dev_docs = collect_candidates(nlp, dev, with_probs=True)
    if not dev_docs:
        raise ValueError("tune-detection: the dev corpus has no documents with gold targets.")
    result = tune_calibration(calibration, dev_docs)
    pipe.target_calibration = calibration
    result.update(
        {
            "train_docs": len(train_docs),
            "train_candidates": sum(len(d.offsets) for d in train_docs),
            "train_target_rate": round(calibration.base_rate, 4),
            "dev_docs": len(dev_docs),
            "dev_candidates": sum(len(d.offsets) for d in dev_docs),
            "dev_candidate_recall": candidate_oracle_recall(dev_docs),
            "weights": dict(zip(calibration.to_dict()["features"], [round(w, 4) for w in calibration.weights])),
            "bias": round(calibration.bias, 4),
        }
    )
    return result


def candidate_oracle_recall(docs: Sequence[DocCandidates]) -> float:
    """The share of gold targets that are candidates at all (the ceiling of recall)."""
    n_gold = sum(sum(d.gold.values()) for d in docs)
    found = sum(min(c, d.gold[off]) for d in docs for off, c in Counter(d.offsets).items())
    return round(100 * found / n_gold, 2) if n_gold else 0.0

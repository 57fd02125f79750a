"""Which lexicon candidates are targets: frame_identifier's target calibration.

The detector (a linear score on the contextual target vector) sees the sentence but not
how often a word evokes a frame at all: FrameNet's full text marks "'m" / "is" (be.v) as a
target once in 1,808 candidates, "come to" (come to.v) never in 13, "come" (come.v) 29 times
in 55. The calibration is a logistic regression over
- the detector's logit,
- the logit of the candidate's smoothed target rate in exhaustively annotated training
  text (`rates`: its lexical unit, or its lower-cased word when out of the lexicon),
- log(1 + how often that key was a candidate there), out-of-lexicon, multiword,
- the coarse POS of the candidate's head word (proper nouns: "House" of "White House"),
fitted on dev by `FrameIdentifier.fit_target_calibration` (`spacy-frames tune-detection
--train`), with one cut-off. Overlapping candidates (a multiword LU and its words) then compete by calibrated
score, best first (`resolve_overlaps`), not by length.

Its state (rates, weights) is fitted after training, on data the gradient never sees, as
the detector's cut-offs are; it is saved with the component ("target_calibration").

Fitting (`fit_target_calibration`):
1. Target rates: every candidate (overlapping: multiword LUs and their words) of the
   exhaustively annotated training docs, and whether it is a gold target.
2. Dev: every candidate with its detector probability (one pass of the pipeline).
3. The calibration and its cut-off are chosen by 5-fold cross-validation over dev
   documents: the reported dev P/R/F are of held-out folds, never of the documents a fold
   was fitted on. The chosen setting is then refitted on all of dev.
Counting follows the registered scorer: spans match by characters, over docs with at
least one gold target, each prediction matching one gold target.
"""

import math
from collections import Counter
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Span
from spacy.training import Example

from ..extensions import TARGETS_KEY, is_partial
from ..scoring.prf import pct, prf
from ..util import parse_skipped
from .base import set_runtime_settings

POS_FEATURES = ("NOUN", "PROPN", "VERB", "AUX", "ADJ", "ADV", "ADP", "NUM", "DET", "PRON", "SCONJ", "CCONJ")
FEATURE_NAMES = (
    "detector_logit",
    "rate_logit",
    "log_count",
    "out_of_lexicon",
    "multiword",
    *[f"pos_{p}" for p in POS_FEATURES],
    "pos_OTHER",
)


def candidate_key(span: Span, lexical_unit: Optional[str]) -> str:
    """The key of a candidate's target rate: its LU, else "OOV:" + its lower-cased text."""
    return lexical_unit if lexical_unit else "OOV:" + span.text.lower()


def _logit(p: float) -> float:
    p = min(max(float(p), 1e-6), 1.0 - 1e-6)
    return math.log(p / (1.0 - p))


class TargetCalibration:
    def __init__(self, smoothing: float = 1.0):
        self.smoothing = smoothing
        self.counts: Dict[str, List[int]] = {}  # key -> [candidates, targets]
        self.base_rate: Optional[float] = None
        self.weights: Optional[numpy.ndarray] = None
        self.bias = 0.0

    @property
    def is_fitted(self) -> bool:
        return self.weights is not None

    # -- rates ----------------------------------------------------------------------------
    def count(self, rows: Iterable[Tuple[str, bool]]) -> None:
        """(key, is_target) of every candidate of exhaustively annotated training docs."""
        counts: Dict[str, List[int]] = {}
        for key, is_target in rows:
            entry = counts.setdefault(key, [0, 0])
            entry[0] += 1
            entry[1] += int(bool(is_target))
        n = sum(c for c, _ in counts.values())
        if n == 0:
            raise ValueError("Target calibration: no candidates in the training docs to count target rates from.")
        self.counts = counts
        self.base_rate = sum(t for _, t in counts.values()) / n

    def rate(self, key: str) -> float:
        n, t = self.counts.get(key, (0, 0))
        return (t + self.smoothing * self.base_rate) / (n + self.smoothing)

    # -- features and scores --------------------------------------------------------------
    def features(
        self, keys: Sequence[str], probs: Sequence[float], spans: Sequence[Span], in_lexicon: Sequence[bool]
    ) -> numpy.ndarray:
        if self.base_rate is None:
            raise ValueError("Target calibration has no target rates: run `spacy-frames tune-detection --train`.")
        rows = []
        for key, p, span, known in zip(keys, probs, spans, in_lexicon):
            pos = span.root.pos_ if len(span) else ""
            row = [
                _logit(p),
                _logit(self.rate(key)),
                math.log1p(self.counts.get(key, (0, 0))[0]),
                float(not known),
                float(len(span) > 1),
            ]
            row += [float(pos == tag) for tag in POS_FEATURES]
            row.append(float(pos not in POS_FEATURES))
            rows.append(row)
        return numpy.asarray(rows, dtype="float64").reshape((-1, len(FEATURE_NAMES)))

    def score(self, X: numpy.ndarray) -> numpy.ndarray:
        if self.weights is None:
            raise ValueError("Target calibration is not fitted.")
        return 1.0 / (1.0 + numpy.exp(-(X @ self.weights + self.bias)))

    def fit(self, X: numpy.ndarray, y: Sequence[float], l2: float = 1.0, n_iter: int = 50) -> "TargetCalibration":
        self.weights, self.bias = fit_logistic(X, numpy.asarray(y, dtype="float64"), l2, n_iter)
        return self

    # -- serialization --------------------------------------------------------------------
    def to_dict(self) -> Dict:
        return {
            "smoothing": self.smoothing,
            "counts": self.counts,
            "base_rate": self.base_rate,
            "features": list(FEATURE_NAMES),
            "weights": None if self.weights is None else [float(w) for w in self.weights],
            "bias": float(self.bias),
        }

    def from_dict(self, data: Dict) -> "TargetCalibration":
        if data.get("weights") is not None and list(data.get("features", [])) != list(FEATURE_NAMES):
            raise ValueError(
                f"Target calibration was fitted on features {data.get('features')}, this version computes "
                f"{list(FEATURE_NAMES)}: run `spacy-frames tune-detection --train` again."
            )
        self.smoothing = data.get("smoothing", 1.0)
        self.counts = {key: list(value) for key, value in data.get("counts", {}).items()}
        self.base_rate = data.get("base_rate")
        self.weights = None if data.get("weights") is None else numpy.asarray(data["weights"], dtype="float64")
        self.bias = float(data.get("bias", 0.0))
        return self

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps(self.to_dict())

    def from_bytes(self, data: bytes) -> "TargetCalibration":
        return self.from_dict(srsly.msgpack_loads(data))

    def to_disk(self, path) -> None:
        srsly.write_msgpack(path, self.to_dict())

    def from_disk(self, path) -> "TargetCalibration":
        # pipelines saved before calibration existed have no file: stay unfitted
        return self.from_dict(srsly.read_msgpack(path)) if path.exists() else self


def fit_logistic(X: numpy.ndarray, y: numpy.ndarray, l2: float = 1.0, n_iter: int = 50) -> Tuple[numpy.ndarray, float]:
    """L2-regularised logistic regression by Newton's method (the bias is not penalised):
    a few thousand rows and 18 features, no dependency needed."""
    if len(X) == 0 or len(set(y.tolist())) < 2:
        raise ValueError("Target calibration needs candidates of both kinds (targets and non-targets) to fit.")
    A = numpy.hstack([X, numpy.ones((len(X), 1))])
    w = numpy.zeros(A.shape[1])
    penalty = numpy.full(A.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(n_iter):
        p = 1.0 / (1.0 + numpy.exp(-(A @ w)))
        grad = A.T @ (p - y) + penalty * w
        hess = (A * (p * (1 - p))[:, None]).T @ A + numpy.diag(penalty) + 1e-9 * numpy.eye(A.shape[1])
        step = numpy.linalg.solve(hess, grad)
        w -= step
        if numpy.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def resolve_overlaps(spans: Sequence[Span], scores: Sequence[float], keep: Sequence[bool]) -> List[bool]:
    """Of the kept candidates, the best-scoring first, each dropping the kept ones that
    overlap it (a multiword LU and its own words compete by score)."""
    kept = [False] * len(spans)
    used = set()
    for i in sorted(
        (i for i in range(len(spans)) if keep[i]), key=lambda i: (-scores[i], spans[i].start, -len(spans[i]))
    ):
        tokens = range(spans[i].start, spans[i].end)
        if any(t in used for t in tokens):
            continue
        used.update(tokens)
        kept[i] = True
    return kept


# -- fitting on a corpus ------------------------------------------------------------------------
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
    name: str = "frame_identifier",
) -> List[DocCandidates]:
    """The overlapping candidates of the docs that have gold targets (with_probs: and the
    detector's probability of each; with_vectors: and their target vectors) of the
    frame_identifier `name`. The parser is skipped unless `with_parser` (it only moves a
    few sentence boundaries, and it is slow)."""
    pipe = nlp.get_pipe(name)
    examples = [
        eg
        for eg in examples
        if eg.reference.spans.get(TARGETS_KEY) and not (exhaustive_only and is_partial(eg.reference))
    ]
    skipped = [
        n
        for n in nlp.pipe_names
        if (n in SKIPPED and not (with_parser and n == "parser"))
        or n == name
        or (not with_probs and n == "transformer")
    ]
    saved = pipe.cfg.get("overlapping_candidates", False)
    pipe.cfg["overlapping_candidates"] = True
    out: List[DocCandidates] = []
    try:
        with nlp.select_pipes(disable=skipped) if with_parser else parse_skipped(nlp, skipped):
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
    return {"target_p": pct(p), "target_r": pct(r), "target_f": pct(f)}


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


def fit_target_calibration(
    nlp: Language, dev: Sequence[Example], train: Sequence[Example], name: str = "frame_identifier"
) -> Dict:
    """Fit the target calibration of the frame_identifier `name` (rates from `train`,
    weights and cut-off on `dev`) in place, with the chosen cut-off and overlapping
    candidates set (cfg and nlp.config). Returns the cross-validated grid, the best setting
    and counts."""
    pipe = nlp.get_pipe(name)
    calibration = TargetCalibration()
    train_docs = collect_candidates(nlp, train, with_probs=False, exhaustive_only=True, name=name)
    if not train_docs:
        raise ValueError("tune-detection --train: the training corpus has no documents with gold targets.")
    count_rates(calibration, train_docs)
    dev_docs = collect_candidates(nlp, dev, with_probs=True, name=name)
    if not dev_docs:
        raise ValueError("tune-detection: the dev corpus has no documents with gold targets.")
    result = tune_calibration(calibration, dev_docs)
    pipe.target_calibration = calibration
    set_runtime_settings(nlp, name, {"threshold": result["best"]["threshold"], "overlapping_candidates": True})
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

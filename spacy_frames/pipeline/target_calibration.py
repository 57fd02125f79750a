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
fitted on dev by `tune-detection --train` (spacy_frames/scoring/detection.py), with one
cut-off. Overlapping candidates (a multiword LU and its words) then compete by calibrated
score, best first (`resolve_overlaps`), not by length.

Its state (rates, weights) is fitted after training, on data the gradient never sees, as
the detector's cut-offs are; it is saved with the component ("target_calibration").
"""

import math
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy.tokens import Span

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

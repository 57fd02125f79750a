"""A memory offset for the frames that have none.

frame_identifier scores a target against each frame's definition vector plus a memory
offset learned in stage 2. A frame that training never met (one added with `add_frame`,
one new in a swapped-in FrameNet release, one without training targets) has a zero
offset, so it competes from its definition alone against frames whose offsets moved them
towards their targets. `new_frame_memory` gives such a frame an offset derived from the
frames that have one:

- "zero": none (the definition vector alone);
- "mean": the mean offset of the frames that have one;
- "ridge@L": a linear map from definition vector to offset, fitted by ridge regression
  (penalty L) on the frames that have one;
- "knn@K": the offsets of the K frames with the nearest definitions, weighted by cosine.
"""

from typing import Tuple

import numpy

NEW_FRAME_MEMORY_KINDS = ("zero", "mean", "ridge", "knn")


def parse_rule(rule: str) -> Tuple[str, float]:
    """("ridge", 10.0) for "ridge@10"; raises a clear error for anything else."""
    kind, _, param = str(rule).partition("@")
    if kind not in NEW_FRAME_MEMORY_KINDS or (kind in ("ridge", "knn")) != bool(param):
        raise ValueError(f"new_frame_memory must be one of 'zero', 'mean', 'ridge@PENALTY', 'knn@K', got {rule!r}")
    try:
        value = float(param) if param else 0.0
    except ValueError:
        raise ValueError(f"new_frame_memory {rule!r}: {param!r} is not a number") from None
    if kind == "ridge" and value < 0 or kind == "knn" and (value < 1 or value != int(value)):
        raise ValueError(f"new_frame_memory {rule!r}: the ridge penalty must be >= 0, K a whole number >= 1")
    return kind, value


def predict_memory(base: numpy.ndarray, memory: numpy.ndarray, fresh: numpy.ndarray, rule: str) -> numpy.ndarray:
    """`memory` with the rows where `fresh` is true filled by `rule` from the other rows.

    base: (n_frames, width) L2-normalised definition vectors; memory: (n_frames, width)
    offsets; fresh: (n_frames,) bool, the frames to fill (their rows are ignored as input).
    """
    kind, value = parse_rule(rule)
    out = numpy.array(memory, dtype="float32", copy=True)
    fresh = numpy.asarray(fresh, dtype=bool)
    known = ~fresh
    if kind == "zero" or not fresh.any() or known.sum() < 2:
        return out
    known_base, known_memory = base[known].astype("float64"), memory[known].astype("float64")
    if kind == "mean":
        out[fresh] = known_memory.mean(0)
    elif kind == "ridge":
        gram = known_base.T @ known_base + value * numpy.eye(base.shape[1])
        weights = numpy.linalg.solve(gram, known_base.T @ known_memory)
        out[fresh] = base[fresh].astype("float64") @ weights
    else:
        k = min(int(value), int(known.sum()))
        sims = base[fresh].astype("float64") @ known_base.T
        nearest = numpy.argpartition(-sims, k - 1, axis=1)[:, :k]
        weights = numpy.maximum(numpy.take_along_axis(sims, nearest, 1), 1e-6)
        weights /= weights.sum(1, keepdims=True)
        out[fresh] = numpy.einsum("nk,nkd->nd", weights, known_memory[nearest])
    return out

"""Group-average dendrograms and the ways frame induction cuts them.

`average_linkage` returns a scipy-format linkage matrix; `_threshold_for_k`
(one-step / faiss calibration) and `decide_threshold` (two-step) turn a
dendrogram into a cut height, `_cut` applies one.
"""

from math import comb
from typing import Sequence

import numpy as np
from scipy.cluster.hierarchy import fcluster

EPS = 1e-6  # the reference adds 1e-6 to a merge height so that merge is included in the cut
_BLOCK_BYTES = 64 << 20  # working memory of one block of distance rows


def _matrix(X, name: str = "X") -> np.ndarray:
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array (n_instances, dim), got shape {X.shape}")
    if len(X) == 0:
        raise ValueError(f"{name} is empty (no instances)")
    return X


def _same_length(n: int, other: Sequence, name: str) -> None:
    if len(other) != n:
        raise ValueError(f"{name} has {len(other)} entries but X has {n} rows")


def condensed_euclidean(X: np.ndarray) -> np.ndarray:
    """Condensed Euclidean distance vector of the rows (as scipy's pdist), in float64.

    pdist is single-threaded and does not use BLAS (45 s at 20k x 384); here
    blocks of rows go through |x|^2 + |y|^2 - 2 x.y (a BLAS matrix product).
    That formula loses precision for near-identical rows, so pairs with a
    squared distance below 1e-6 of |x|^2 + |y|^2 are recomputed from x - y
    (duplicates get exactly 0, as with pdist).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = len(X)
    sq = np.einsum("ij,ij->i", X, X)
    out = np.empty(n * (n - 1) // 2, dtype=np.float64)
    rows_per_block = max(1, _BLOCK_BYTES // (8 * max(n, 1)))
    pos = 0
    for start in range(0, n - 1, rows_per_block):
        stop = min(n - 1, start + rows_per_block)
        # distances of rows start..stop-1 to every later row (upper triangle)
        d2 = X[start:stop] @ X[start + 1 :].T
        d2 *= -2.0
        d2 += sq[start:stop, None]
        d2 += sq[None, start + 1 :]
        r, c = np.nonzero(d2 < 1e-6 * (sq[start:stop, None] + sq[None, start + 1 :]))
        for lo in range(0, len(r), 4096):  # bounded memory even if many rows coincide
            rr, cc = r[lo : lo + 4096], c[lo : lo + 4096]
            diff = X[start + rr] - X[start + 1 + cc]
            d2[rr, cc] = np.einsum("ij,ij->i", diff, diff)
        np.maximum(d2, 0.0, out=d2)
        np.sqrt(d2, out=d2)
        for i in range(start, stop):
            row = d2[i - start, i - start :]  # row i, columns i+1..n-1
            out[pos : pos + len(row)] = row
            pos += len(row)
    return out


def average_linkage(X: np.ndarray) -> np.ndarray:
    """Group-average (UPGMA) linkage over Euclidean distances of the rows of X.

    scipy-format linkage matrix (n-1, 4); n == 1 gives an empty (0, 4) matrix.
    Memory: the condensed distances, 8 * n(n-1)/2 bytes (1.6 GB at n=20k).
    """
    X = _matrix(X)
    if len(X) < 2:
        return np.zeros((0, 4), dtype=np.float64)
    dist = condensed_euclidean(X)
    try:
        import fastcluster
    except ImportError:  # scipy is slower (and copies dist) but gives the same dendrogram
        from scipy.cluster.hierarchy import linkage

        return linkage(dist, method="average")
    wrap, methods = getattr(fastcluster, "linkage_wrap", None), getattr(fastcluster, "mthidx", {})
    if wrap is None or "average" not in methods:
        return fastcluster.linkage(dist, method="average", preserve_input=False)
    # fastcluster.linkage always copies its input (np.array(X)), doubling peak
    # memory; its C routine works in place on our (no longer needed) distances.
    Z = np.empty((len(X) - 1, 4), dtype=np.float64)
    wrap(len(X), dist, Z, methods["average"])
    return Z


def _cut(Z: np.ndarray, threshold: float) -> np.ndarray:
    """Flat clusters 0..k-1 from a linkage: merges at height <= threshold are kept."""
    if len(Z) == 0:
        return np.zeros(1, dtype=np.int64)
    return fcluster(Z, t=threshold, criterion="distance").astype(np.int64) - 1


def _threshold_for_k(Z: np.ndarray, k: int) -> float:
    """A cut height giving k clusters (heights are non-decreasing for average linkage).

    k clusters = the first n-k merges kept, the (n-k+1)-th not. Like the reference,
    the threshold is the last kept merge height + 1e-6, but never beyond the
    midpoint to the next merge. (The reference indexes `z[-n_frames + 1]`, which
    keeps one merge too many and yields n_frames - 1 clusters; we use `z[-k]`.)
    Ties at the cut height make exactly k impossible; then fewer clusters result.
    """
    n = len(Z) + 1
    k = int(min(max(k, 1), n))
    if n == 1:
        return 0.0
    heights = Z[:, 2]
    upper = heights[n - k] if k >= 2 else None  # first merge that must not happen
    if k == n:  # all singletons: cut below the first merge
        return float(upper / 2) if upper > 0 else 0.0
    lower = heights[n - k - 1]  # last merge that must happen (== z[-k])
    if upper is not None and upper > lower:
        return float(lower + min(EPS, (upper - lower) / 2))
    return float(lower + EPS)


def decide_threshold(Z: np.ndarray, pair_ratio: float) -> float:
    """Height of the first merge at which the share of same-cluster leaf pairs reaches pair_ratio.

    The reference `_decide_t` walks the merges keeping sum over clusters of
    C(size, 2). Merging clusters of sizes a and b adds C(a+b,2) - C(a,2) - C(b,2)
    = a*b pairs, so the running count is a cumulative sum of a*b.
    """
    n = len(Z) + 1
    if n < 2:
        raise ValueError("decide_threshold needs a linkage over at least 2 points")
    sizes = np.concatenate([np.ones(n, dtype=np.int64), Z[:, 3].astype(np.int64)])
    same_pairs = np.cumsum(sizes[Z[:, 0].astype(np.int64)] * sizes[Z[:, 1].astype(np.int64)])
    reached = np.flatnonzero(same_pairs / comb(n, 2) >= pair_ratio)
    # the last merge gives ratio 1.0, so only pair_ratio > 1 misses; cut at the top then
    return float(Z[reached[0], 2] if len(reached) else Z[-1, 2])

"""X-means (Pelleg & Moore 2000), following pyclustering's Python implementation.

Yamada et al. (2021) run pyclustering's `xmeans` (BIC splitting criterion,
squared Euclidean metric) per verb to find pseudo-LUs. pyclustering does not
work with numpy 2, so this is a re-implementation of its control flow:

1. start from `kmin` centers chosen by k-means++;
2. run k-means with the current centers;
3. try to split every cluster in two with 2-means (k-means++ init) on its own
   points; keep the two children when their BIC is higher than the parent's
   and fewer than `kmax` centers are allocated;
4. repeat 2-3 until no cluster was split (or `kmax` is reached).

Every k-means run is sklearn's KMeans (n_init=1, fixed random_state), so the
result is deterministic. Empty clusters (duplicated points) are dropped, as
pyclustering's k-means does.
"""

import math
import warnings
from typing import List, Tuple

import numpy as np

__all__ = ["xmeans", "bic"]


def bic(X: np.ndarray, labels: np.ndarray, centers: np.ndarray) -> float:
    """pyclustering's `__bayesian_information_criterion` for one candidate structure.

    Identity-covariance spherical Gaussians with a shared variance
    sigma^2 = SSE / (N - K) (SSE in squared Euclidean distance). Higher is
    better. Quirks kept on purpose so splits match pyclustering:
    - the penalty p/2 log N is subtracted once *per cluster*;
    - N <= K gives +inf (so splitting 2 distinct points always wins);
    - sigma^2 == 0 (all points on their centers) gives +inf.
    """
    n_points, dim = X.shape
    k = len(centers)
    if n_points - k <= 0:
        return math.inf
    sse = float(((X - centers[labels]) ** 2).sum())
    sigma_sq = sse / (n_points - k)
    p = (k - 1) + dim * k + 1
    # pyclustering issue #407: identical points give sigma 0, log -inf, L +inf
    if sigma_sq <= 0.0:
        return math.inf
    sigma_term = dim * 0.5 * math.log(sigma_sq)
    sizes = np.bincount(labels, minlength=k).astype(np.float64)
    log_n = math.log(n_points)
    loglik = (
        sizes * np.log(sizes)
        - sizes * log_n
        - sizes * 0.5 * math.log(2.0 * math.pi)
        - sizes * sigma_term
        - (sizes - k) * 0.5
    )
    return float((loglik - p * 0.5 * log_n).sum())


def _compact(labels: np.ndarray, centers: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Drop empty clusters and renumber labels 0..k-1 (order of the centers kept)."""
    used = np.unique(labels)
    if len(used) == len(centers):
        return labels, centers
    remap = np.full(len(centers), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    return remap[labels], centers[used]


def _kmeans(X: np.ndarray, init, n_clusters: int, random_state: int) -> Tuple[np.ndarray, np.ndarray]:
    """One sklearn k-means run; returns (labels, centers) without empty clusters."""
    from sklearn.cluster import KMeans  # lazy: sklearn import is slow

    with warnings.catch_warnings():
        # duplicated points: "Number of distinct clusters found smaller than n_clusters"
        warnings.simplefilter("ignore")
        km = KMeans(n_clusters=n_clusters, init=init, n_init=1, random_state=random_state).fit(X)
    return _compact(km.labels_.astype(np.int64), km.cluster_centers_)


def _try_split(X: np.ndarray, center: np.ndarray, random_state: int):
    """Children centers (2, d) if 2-means on X beats the parent by BIC, else None."""
    if len(X) < 2 or not np.any(X != X[0]):
        return None  # one point, or all identical: 2-means cannot find two clusters
    labels, centers = _kmeans(X, "k-means++", 2, random_state)
    if len(centers) < 2:
        return None
    parent = bic(X, np.zeros(len(X), dtype=np.int64), center[None, :])
    children = bic(X, labels, centers)
    return centers if parent < children else None


def _improve_structure(
    X: np.ndarray, labels: np.ndarray, centers: np.ndarray, kmax: int, random_state: int
) -> np.ndarray:
    """pyclustering's `__improve_structure`: split clusters in order while centers are free."""
    allocated: List[np.ndarray] = []
    free = kmax - len(centers)
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(len(centers) + 1))
    for c in range(len(centers)):
        # pyclustering still runs 2-means when no center is free, but discards it
        children = None
        if free > 0:
            members = order[bounds[c] : bounds[c + 1]]
            children = _try_split(X[members], centers[c], random_state)
        if children is not None:
            allocated.extend(children)
            free -= 1
        else:
            allocated.append(centers[c])
    return np.asarray(allocated)


def xmeans(X: np.ndarray, kmax: int, kmin: int = 1, random_state: int = 0) -> np.ndarray:
    """Cluster the rows of X with X-means; returns labels 0..k-1 (k <= kmax).

    `kmin` initial centers come from k-means++ (capped at the number of rows).
    n == 0 gives an empty array, n == 1 or kmax == 1 gives all zeros.
    """
    if kmax < 1 or kmin < 1:
        raise ValueError(f"kmax and kmin must be >= 1, got kmax={kmax}, kmin={kmin}")
    if kmin > kmax:
        raise ValueError(f"kmin ({kmin}) must not exceed kmax ({kmax})")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-d array (n_samples, n_features), got shape {X.shape}")
    n = len(X)
    if n < 2 or kmax == 1:
        return np.zeros(n, dtype=np.int64)
    from sklearn.cluster import kmeans_plusplus

    k0 = min(kmin, n)
    centers, _ = kmeans_plusplus(X, n_clusters=k0, random_state=random_state)
    labels, centers = _kmeans(X, centers, k0, random_state)
    while len(centers) <= kmax:
        allocated = _improve_structure(X, labels, centers, kmax, random_state)
        if len(allocated) == len(centers):
            # No split: the centers are already a converged k-means solution, so
            # pyclustering's final k-means run would return the same clustering.
            break
        labels, centers = _kmeans(X, allocated, len(allocated), random_state)
    return labels

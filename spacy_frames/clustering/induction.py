"""Frame induction by clustering target embeddings (Yamada, Sasano & Takeda 2021, 2023).

Methods, each with a calibration on dev data (gold frames known) and an
application on test data:

- one-step: group-average clustering of all instances, cut at the height that
  gives as many clusters as there are gold frames in dev;
- two-step: per lemma, X-means splits the instances into pseudo-LUs (pLUs);
  then group-average clustering of the pLU centroids, cut where the share of
  pLU pairs in the same cluster reaches the dev share of LU pairs sharing a frame;
- faiss: the scalable variant of one-step: faiss k-means pre-clusters millions
  of instances into groups, group-average clustering of the group centroids.

All labels returned are int64 cluster ids 0..k-1.
"""

from math import comb
from typing import Dict, Hashable, Sequence, Tuple

import numpy as np

from .hierarchy import _cut, _matrix, _same_length, _threshold_for_k, average_linkage, decide_threshold
from .metrics import _factorize
from .xmeans import xmeans

__all__ = [
    "METHODS",
    "average_linkage",
    "onestep_params",
    "onestep_cluster",
    "twostep_params",
    "twostep_cluster",
    "merge_pseudo_lus",
    "decide_threshold",
    "one_cluster_per_lemma",
    "all_in_one",
    "faiss_params",
    "faiss_cluster",
    "cluster",
    "calibrate",
    "calibrate_and_cluster",
    "centroids",
]

METHODS = ("two-step", "one-step", "faiss")


def onestep_params(X_dev: np.ndarray, frames_dev: Sequence[Hashable]) -> Dict[str, float]:
    """One-step calibration: the height at which the dev dendrogram has #gold-frames clusters."""
    X_dev = _matrix(X_dev, "X_dev")
    _same_length(len(X_dev), frames_dev, "frames_dev")
    _, n_frames = _factorize(frames_dev)
    return {"threshold": _threshold_for_k(average_linkage(X_dev), n_frames)}


def onestep_cluster(X: np.ndarray, threshold: float) -> np.ndarray:
    """One-step clustering: group-average linkage of all instances, cut at `threshold`."""
    return _cut(average_linkage(X), threshold)


def twostep_params(lemmas_dev: Sequence[Hashable], frames_dev: Sequence[Hashable]) -> Dict[str, float]:
    """Two-step calibration from the dev LUs (distinct (lemma, frame) pairs).

    kmax: the largest number of frames one lemma evokes in dev (X-means cap).
    pair_ratio: share of LU pairs that share a frame,
    sum_f C(#LUs of f, 2) / C(#LUs, 2); the second step cuts its dendrogram
    where the same share of pLU pairs is in one cluster.
    """
    if len(lemmas_dev) != len(frames_dev):
        raise ValueError(f"lemmas_dev and frames_dev differ in length: {len(lemmas_dev)} vs {len(frames_dev)}")
    if len(lemmas_dev) == 0:
        raise ValueError("cannot calibrate two-step clustering on empty dev data")
    lemma, _ = _factorize(lemmas_dev)
    frame, n_frames = _factorize(frames_dev)
    lus = np.unique(lemma * n_frames + frame)
    lu_lemma, lu_frame = lus // n_frames, lus % n_frames
    if len(lus) < 2:
        raise ValueError("two-step calibration needs at least 2 distinct (lemma, frame) LUs in dev")
    kmax = int(np.bincount(lu_lemma).max())
    same = sum(comb(int(c), 2) for c in np.bincount(lu_frame) if c >= 2)
    return {"kmax": kmax, "pair_ratio": same / comb(len(lus), 2)}


def _groups(codes: np.ndarray, n_codes: int):
    """Row indices per code (0..n_codes-1), via one stable sort."""
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_codes + 1))
    return [order[bounds[i] : bounds[i + 1]] for i in range(n_codes)]


def _means(X: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """Row means per label 0..k-1 (float64), via a sparse indicator product."""
    from scipy.sparse import csr_matrix

    n = len(labels)
    indicator = csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k, n))
    sums = np.asarray(indicator @ np.asarray(X, dtype=np.float64))
    return sums / np.bincount(labels, minlength=k)[:, None]


def twostep_cluster(
    X: np.ndarray, lemmas: Sequence[Hashable], params: Dict[str, float], random_state: int = 0
) -> Tuple[np.ndarray, np.ndarray]:
    """Two-step clustering; returns (frame cluster labels, pseudo-LU ids), both 0-based.

    Step 1: X-means (kmax = params["kmax"]) per lemma; each cluster is a pLU.
    Step 2: group-average linkage over pLU centroids (plain means), cut by
    `decide_threshold` at params["pair_ratio"].
    """
    X = _matrix(X)
    _same_length(len(X), lemmas, "lemmas")
    codes, n_lemmas = _factorize(lemmas)
    plu_ids = np.empty(len(X), dtype=np.int64)
    n_plu = 0
    for rows in _groups(codes, n_lemmas):  # lemmas in sorted order, as the reference
        local = xmeans(X[rows], int(params["kmax"]), random_state=random_state)
        plu_ids[rows] = local + n_plu
        n_plu += int(local.max()) + 1
    return merge_pseudo_lus(X, plu_ids, params), plu_ids


def merge_pseudo_lus(X: np.ndarray, plu_ids: np.ndarray, params: Dict[str, float]) -> np.ndarray:
    """Two-step clustering's second step on any grouping of the rows into pseudo-LUs
    (ids 0..n-1): group-average linkage of their centroids, cut by `decide_threshold`
    at params["pair_ratio"]; returns each row's frame cluster."""
    plu_ids = np.asarray(plu_ids, dtype=np.int64)
    n_plu = int(plu_ids.max()) + 1 if len(plu_ids) else 0
    if n_plu <= 1:
        return np.zeros(len(plu_ids), dtype=np.int64)
    Z = average_linkage(_means(X, plu_ids, n_plu))
    return _cut(Z, decide_threshold(Z, float(params["pair_ratio"])))[plu_ids]


def one_cluster_per_lemma(lemmas: Sequence[Hashable]) -> np.ndarray:
    """Baseline: every lemma is one frame cluster."""
    return _factorize(lemmas)[0]


def all_in_one(n: int) -> np.ndarray:
    """Baseline: every instance in a single cluster."""
    return np.zeros(int(n), dtype=np.int64)


def _faiss_groups(
    X: np.ndarray, n_groups: int, seed: int, niter: int = 20, max_points_per_centroid: int = 64
) -> Tuple[np.ndarray, np.ndarray]:
    """faiss k-means pre-clustering: (group of each row 0..g-1, group centroids (g, d)).

    Groups no row is assigned to are dropped, so every group has instances.
    k-means trains on a random subsample of max_points_per_centroid * k rows
    (faiss's own subsampling), then every row goes to its nearest centroid.
    """
    import faiss  # lazy: heavy import, optional at package import time

    Xf = np.ascontiguousarray(X, dtype=np.float32)
    k = int(min(n_groups, len(Xf)))
    if k < 2:
        return np.zeros(len(Xf), dtype=np.int64), Xf.mean(axis=0, keepdims=True)
    km = faiss.Kmeans(
        Xf.shape[1],
        k,
        niter=niter,
        seed=seed,
        verbose=False,
        max_points_per_centroid=max_points_per_centroid,
        min_points_per_centroid=1,
    )  # no warning for small n
    km.train(Xf)
    _, nearest = km.index.search(Xf, 1)
    used, groups = np.unique(nearest.ravel(), return_inverse=True)
    return groups.astype(np.int64), km.centroids[used]


def faiss_params(
    X_dev: np.ndarray, frames_dev: Sequence[Hashable], n_groups: int = 4096, seed: int = 0
) -> Dict[str, float]:
    """faiss calibration: the group-dendrogram height giving min(#gold frames, #groups) clusters."""
    X_dev = _matrix(X_dev, "X_dev")
    _same_length(len(X_dev), frames_dev, "frames_dev")
    if n_groups < 1:
        raise ValueError(f"n_groups must be >= 1, got {n_groups}")
    _, n_frames = _factorize(frames_dev)
    _, group_centroids = _faiss_groups(X_dev, n_groups, seed)
    if len(group_centroids) == 1:
        return {"threshold": 0.0, "n_groups": n_groups}
    Z = average_linkage(group_centroids)
    return {"threshold": _threshold_for_k(Z, min(n_frames, len(group_centroids))), "n_groups": n_groups}


def faiss_cluster(X: np.ndarray, params: Dict[str, float], seed: int = 0) -> np.ndarray:
    """faiss k-means groups, group-average linkage of the centroids cut at params["threshold"]."""
    X = _matrix(X)
    groups, group_centroids = _faiss_groups(X, int(params["n_groups"]), seed)
    if len(group_centroids) == 1:
        return np.zeros(len(X), dtype=np.int64)
    return _cut(average_linkage(group_centroids), float(params["threshold"]))[groups]


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown clustering method {method!r}; valid: {', '.join(METHODS)}")


def calibrate(
    method: str, X_dev: np.ndarray, lemmas_dev: Sequence[Hashable], frames_dev: Sequence[Hashable]
) -> Dict[str, float]:
    """Parameters of `method` from dev embeddings, lemmas and gold frames."""
    _check_method(method)
    if method == "one-step":
        return onestep_params(X_dev, frames_dev)
    if method == "two-step":
        _same_length(len(_matrix(X_dev, "X_dev")), lemmas_dev, "lemmas_dev")
        return twostep_params(lemmas_dev, frames_dev)
    return faiss_params(X_dev, frames_dev)


def cluster(method: str, X: np.ndarray, lemmas: Sequence[Hashable], params: Dict[str, float]) -> np.ndarray:
    """Frame cluster labels (0..k-1) for every row of X with `method` and its calibrated params."""
    _check_method(method)
    if method == "one-step":
        return onestep_cluster(X, float(params["threshold"]))
    if method == "two-step":
        return twostep_cluster(X, lemmas, params)[0]
    return faiss_cluster(X, params)


def centroids(X: np.ndarray, labels: Sequence[int]) -> Tuple[np.ndarray, np.ndarray]:
    """(cluster ids sorted, L2-normalised mean of each cluster as float32 (k, d)).

    For nearest-centroid assignment of new instances by inner product.
    """
    X = _matrix(X)
    _same_length(len(X), labels, "labels")
    ids, inverse = np.unique(np.asarray(labels), return_inverse=True)
    means = _means(X, inverse.ravel(), len(ids))
    norms = np.linalg.norm(means, axis=1, keepdims=True)
    means /= np.where(norms > 0, norms, 1.0)  # a zero mean stays zero
    return ids, means.astype(np.float32)


def calibrate_and_cluster(
    method: str, X_dev: np.ndarray, lemmas_dev: Sequence[Hashable], frames_dev: Sequence[Hashable], seed: int = 0
) -> Tuple[Dict[str, float], np.ndarray]:
    """`calibrate` on dev and the dev clustering it gives, computing the one-step
    dendrogram once (tuning alpha on dev needs both, for every alpha)."""
    if method == "one-step":
        X_dev = _matrix(X_dev, "X_dev")
        _same_length(len(X_dev), frames_dev, "frames_dev")
        _, n_frames = _factorize(frames_dev)
        Z = average_linkage(X_dev)
        threshold = _threshold_for_k(Z, n_frames)
        return {"threshold": threshold}, _cut(Z, threshold)
    params = calibrate(method, X_dev, lemmas_dev, frames_dev)
    if method == "two-step":
        return params, twostep_cluster(X_dev, lemmas_dev, params, random_state=seed)[0]
    return params, cluster(method, X_dev, lemmas_dev, params)


def make_senses(vectors: np.ndarray, ids: Sequence[str], lemmas: Sequence[str]) -> Dict[str, object]:
    """One row per (lemma, cluster id) pair of the instances: the L2-normalised mean of
    that lemma's instances in that cluster."""
    pairs = sorted(set(zip(lemmas, ids)))
    row = {pair: i for i, pair in enumerate(pairs)}
    _, means = centroids(vectors, [row[pair] for pair in zip(lemmas, ids)])
    return {"lemmas": [lemma for lemma, _ in pairs], "clusters": [c for _, c in pairs], "vectors": means}

"""X-means, one-step / two-step / faiss frame induction clustering, on small synthetic data."""

import math
from math import comb

import numpy as np
import pytest

from spacy_frames.clustering import (
    METHODS,
    all_in_one,
    average_linkage,
    calibrate,
    calibrate_and_cluster,
    centroids,
    cluster,
    cluster_scores,
    decide_threshold,
    faiss_cluster,
    faiss_params,
    one_cluster_per_lemma,
    onestep_cluster,
    onestep_params,
    twostep_cluster,
    twostep_params,
    xmeans,
)
from spacy_frames.clustering.hierarchy import condensed_euclidean
from spacy_frames.clustering.xmeans import bic


def blobs(n_per, centers, std=0.1, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.asarray(centers, dtype=float)
    X = np.vstack([c + std * rng.standard_normal((n_per, centers.shape[1])) for c in centers])
    return X, np.repeat(np.arange(len(centers)), n_per)


def n_clusters(labels):
    return len(np.unique(labels))


# -- X-means --------------------------------------------------------------------------------

THREE = [[0, 0], [5, 0], [0, 5]]


def test_bic_by_hand():
    # X = {0, 2}, one cluster at 1: N=2, K=1, d=1, sse=2, sigma^2 = 2/(N-K) = 2, p = 0 + 1 + 1 = 2
    # L = 2 log 2 - 2 log 2 - log(2 pi) - 2 * 0.5 log 2 - (2 - 1)/2;  BIC = L - p/2 log 2
    expected = -math.log(2 * math.pi) - math.log(2) - 0.5 - math.log(2)
    assert bic(np.array([[0.0], [2.0]]), np.array([0, 0]), np.array([[1.0]])) == pytest.approx(expected)
    # pyclustering's quirks: N <= K and zero variance give +inf
    assert bic(np.array([[0.0], [2.0]]), np.array([0, 1]), np.array([[0.0], [2.0]])) == math.inf
    assert bic(np.zeros((3, 2)), np.zeros(3, dtype=int), np.zeros((1, 2))) == math.inf


def test_xmeans_finds_three_blobs():
    X, gold = blobs(30, THREE)
    labels = xmeans(X, kmax=10)
    assert n_clusters(labels) == 3 and set(labels) == {0, 1, 2}
    assert cluster_scores(gold, labels)["bcf"] == pytest.approx(100.0)


def test_xmeans_one_blob_stays_one_cluster():
    X = np.random.default_rng(1).standard_normal((100, 16))
    assert n_clusters(xmeans(X, kmax=10)) == 1


def test_xmeans_kmax_caps_and_kmin_starts():
    X, _ = blobs(30, THREE)
    assert n_clusters(xmeans(X, kmax=2)) == 2
    assert n_clusters(xmeans(X, kmax=1)) == 1
    assert n_clusters(xmeans(X, kmax=3, kmin=3)) == 3


def test_xmeans_is_deterministic():
    X, _ = blobs(20, [[0, 0, 0], [1, 1, 1], [2, 0, 1], [0, 2, 2]], std=0.5)
    assert np.array_equal(xmeans(X, kmax=6, random_state=3), xmeans(X, kmax=6, random_state=3))


def test_xmeans_degenerate_inputs():
    assert xmeans(np.zeros((0, 2)), kmax=3).shape == (0,)
    assert xmeans(np.zeros((1, 2)), kmax=3).tolist() == [0]
    assert xmeans(np.ones((6, 3)), kmax=4).tolist() == [0] * 6  # all duplicates
    two_points = np.repeat([[0.0, 0.0], [1.0, 1.0]], 5, axis=0)
    labels = xmeans(two_points, kmax=4)
    assert n_clusters(labels) == 2 and len(set(labels[:5])) == 1
    with pytest.raises(ValueError, match="kmin"):
        xmeans(two_points, kmax=2, kmin=3)
    with pytest.raises(ValueError, match=">= 1"):
        xmeans(two_points, kmax=0)
    with pytest.raises(ValueError, match="2-d"):
        xmeans(np.zeros(4), kmax=2)


# -- linkage and one-step -------------------------------------------------------------------


def test_condensed_euclidean_matches_pdist(monkeypatch):
    from scipy.spatial.distance import pdist

    import spacy_frames.clustering.hierarchy as hierarchy

    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 7)).astype(np.float32)
    X[10] = X[3]  # an exact duplicate: distance exactly 0, as pdist
    X[20] = X[4] + 1e-7  # a near duplicate: recomputed from the difference
    monkeypatch.setattr(hierarchy, "_BLOCK_BYTES", 8 * 50 * 3)  # several blocks of 3 rows
    D, ref = condensed_euclidean(X), pdist(X.astype(np.float64))
    assert D.shape == ref.shape and np.allclose(D, ref, rtol=1e-9, atol=1e-12)
    assert D.min() == 0.0


def test_average_linkage_shapes():
    assert average_linkage(np.zeros((1, 3))).shape == (0, 4)
    X = np.random.default_rng(0).standard_normal((12, 5)).astype(np.float32)
    Z = average_linkage(X)
    assert Z.shape == (11, 4) and np.all(np.diff(Z[:, 2]) >= 0) and Z[-1, 3] == 12
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import pdist

    assert np.allclose(Z, linkage(pdist(X.astype(np.float64)), method="average"))
    with pytest.raises(ValueError, match="empty"):
        average_linkage(np.zeros((0, 3)))


@pytest.mark.parametrize("n_frames", [1, 2, 5, 17, 40])
def test_onestep_threshold_reproduces_gold_frame_count(n_frames):
    rng = np.random.default_rng(n_frames)
    X = rng.standard_normal((40, 8))
    frames = [f"F{i % n_frames}" for i in range(40)]
    params = onestep_params(X, frames)
    assert n_clusters(onestep_cluster(X, params["threshold"])) == n_frames


def test_onestep_recovers_blobs_on_new_data():
    X_dev, f_dev = blobs(15, THREE, seed=1)
    X, gold = blobs(20, THREE, seed=2)
    labels = cluster("one-step", X, None, calibrate("one-step", X_dev, None, f_dev))
    assert cluster_scores(gold, labels)["bcf"] == pytest.approx(100.0)
    assert onestep_cluster(X[:1], 0.5).tolist() == [0]


@pytest.mark.parametrize("method", ["one-step", "two-step", "faiss"])
def test_calibrate_and_cluster_equals_calibrate_then_cluster(method):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 6)).astype("float32")
    frames = [f"F{i % 4}" for i in range(30)]
    lemmas = [f"v{i % 6}" for i in range(30)]
    params, labels = calibrate_and_cluster(method, X, lemmas, frames)
    assert params == calibrate(method, X, lemmas, frames)
    assert labels.tolist() == cluster(method, X, lemmas, params).tolist()


# -- two-step -------------------------------------------------------------------------------


def test_twostep_params_by_hand():
    lemmas = ["run", "run", "run", "walk", "go", "go"]
    frames = ["Motion", "Motion", "Operate", "Motion", "Motion", "Leave"]
    # LUs: (run, Motion) (run, Operate) (walk, Motion) (go, Motion) (go, Leave): 5 -> C(5,2) = 10 pairs
    # sharing a frame: Motion has 3 LUs -> C(3,2) = 3 pairs; kmax: run and go evoke 2 frames
    assert twostep_params(lemmas, frames) == {"kmax": 2, "pair_ratio": pytest.approx(3 / 10)}
    with pytest.raises(ValueError, match="at least 2"):
        twostep_params(["run", "run"], ["Motion", "Motion"])
    with pytest.raises(ValueError, match="length"):
        twostep_params(["run"], [])


def _reference_decide_t(z, gth):
    """Literal port of the reference `_decide_t` loop, to compare against."""
    n_sides, n_points = 0, len(z) + 1
    for i in range(len(z)):
        for child in (z[i, 0], z[i, 1]):
            if n_points <= child:
                n_sides -= comb(int(z[int(child - n_points), 3]), 2)
        n_sides += comb(int(z[i, 3]), 2)
        if n_sides / comb(n_points, 2) >= gth:
            return z[i, 2]


def test_decide_threshold_by_hand():
    # 4 leaves, 6 pairs. Balanced: {0,1} (1 pair), {2,3} (2 pairs), root (6 pairs)
    Z = np.array([[0, 1, 0.5, 2], [2, 3, 1.0, 2], [4, 5, 3.0, 4]])
    assert decide_threshold(Z, 1 / 6) == 0.5
    assert decide_threshold(Z, 0.3) == 1.0
    assert decide_threshold(Z, 0.5) == 3.0
    # chain: {0,1} (1), + 2 -> C(3,2) = 3 pairs (0.5), + 3 -> 6
    chain = np.array([[0, 1, 0.5, 2], [2, 4, 1.0, 3], [3, 5, 2.0, 4]])
    assert decide_threshold(chain, 0.4) == 1.0 and decide_threshold(chain, 0.51) == 2.0
    rng = np.random.default_rng(0)
    Zr = average_linkage(rng.standard_normal((30, 4)))
    for ratio in (0.0, 0.05, 0.2, 0.5, 0.9, 1.0):
        assert decide_threshold(Zr, ratio) == _reference_decide_t(Zr, ratio)


def _two_lemmas_two_frames(n_per, seed):
    # frame centers far apart; each lemma's instances are shifted a little
    rng = np.random.default_rng(seed)
    frame_center = {"Motion": np.r_[4.0, 0, 0, 0], "Leave": np.r_[0, 4.0, 0, 0]}
    lemma_shift = {"run": np.r_[0, 0, 0.3, 0], "go": np.r_[0, 0, 0, 0.3]}
    X, lemmas, frames = [], [], []
    for lemma in ("run", "go"):
        for frame in ("Motion", "Leave"):
            X.append(frame_center[frame] + lemma_shift[lemma] + 0.1 * rng.standard_normal((n_per, 4)))
            lemmas += [lemma] * n_per
            frames += [frame] * n_per
    return np.vstack(X), lemmas, frames


def test_twostep_recovers_frames():
    X_dev, l_dev, f_dev = _two_lemmas_two_frames(10, seed=1)
    params = calibrate("two-step", X_dev, l_dev, f_dev)
    assert params == {"kmax": 2, "pair_ratio": pytest.approx(2 / 6)}
    X, lemmas, frames = _two_lemmas_two_frames(15, seed=2)
    labels, plu = twostep_cluster(X, lemmas, params)
    assert n_clusters(plu) == 4  # one pLU per (lemma, frame)
    assert cluster_scores(frames, labels)["bcf"] == pytest.approx(100.0)
    assert np.array_equal(cluster("two-step", X, lemmas, params), labels)


def test_twostep_small_lemmas_and_single_plu():
    X = np.array([[0.0, 0], [0, 0.1], [5, 5]])
    # X-means always splits 2 distinct points (children BIC is +inf when N <= K, as in
    # pyclustering), so lemma "a" has 2 pLUs; pair_ratio 0 keeps only the first merge
    labels, plu = twostep_cluster(X, ["a", "a", "b"], {"kmax": 3, "pair_ratio": 0.0})
    assert sorted(plu.tolist()) == [0, 1, 2] and plu[2] == 2
    assert labels.tolist() == [0, 0, 1]
    labels, plu = twostep_cluster(X[:1], ["a"], {"kmax": 3, "pair_ratio": 0.5})
    assert labels.tolist() == [0] and plu.tolist() == [0]
    with pytest.raises(ValueError, match="lemmas"):
        twostep_cluster(X, ["a"], {"kmax": 2, "pair_ratio": 0.5})


# -- baselines, faiss, dispatch, centroids ---------------------------------------------------


def test_baselines():
    assert one_cluster_per_lemma(["go", "run", "go"]).tolist() == [0, 1, 0]
    assert all_in_one(3).tolist() == [0, 0, 0]


def test_faiss_path_on_blobs():
    centers = np.random.default_rng(5).standard_normal((3, 16)) * 3
    X_dev, f_dev = blobs(40, centers, seed=1)
    params = faiss_params(X_dev, f_dev, n_groups=12)
    assert params["n_groups"] == 12
    X, gold = blobs(60, centers, seed=2)
    labels = faiss_cluster(X, params)
    assert labels.shape == (len(X),) and labels.min() == 0
    assert cluster_scores(gold, labels)["bcf"] == pytest.approx(100.0)
    # more groups than instances: one group per instance, still every instance labelled
    tiny = faiss_params(X_dev[::10], f_dev[::10], n_groups=4096)
    assert n_clusters(faiss_cluster(X_dev[::10], tiny)) == 3


def test_dispatch_errors():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="valid: two-step, one-step, faiss"):
        cluster("kmeans", X, None, {})
    with pytest.raises(ValueError, match="valid"):
        calibrate("kmeans", X, None, [1, 2, 3])
    with pytest.raises(ValueError, match="frames_dev"):
        onestep_params(X, [1, 2])
    with pytest.raises(ValueError, match="2-d"):
        onestep_cluster(np.zeros(3), 1.0)
    assert METHODS == ("two-step", "one-step", "faiss")


def test_centroids_are_normalised_means():
    X = np.array([[2.0, 0], [0, 2], [3, 4], [0, 0]])
    ids, C = centroids(X, [7, 7, 3, 9])
    assert ids.tolist() == [3, 7, 9] and C.dtype == np.float32
    assert np.allclose(C, [[0.6, 0.8], [math.sqrt(0.5), math.sqrt(0.5)], [0, 0]])


def test_merge_pseudo_lus_is_the_second_step():
    """merge_pseudo_lus on two-step's own pseudo-LUs gives two-step's clusters; on one
    pseudo-LU everything is one cluster."""
    from spacy_frames.clustering.induction import merge_pseudo_lus, twostep_cluster

    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(c, 0.05, (6, 4)) for c in (0.0, 1.0, 3.0)])
    lemmas = ["a"] * 6 + ["b"] * 6 + ["c"] * 6
    params = {"kmax": 2, "pair_ratio": 0.34}
    labels, plu = twostep_cluster(X, lemmas, params)
    assert np.array_equal(merge_pseudo_lus(X, plu, params), labels)
    assert not merge_pseudo_lus(X, np.zeros(len(X), dtype=np.int64), params).any()

"""Clustering scores (PU / iPU / PiF, B-cubed) against hand-computed examples."""

import numpy as np
import pytest

from spacy_frames.clustering import bcubed, cluster_scores, purity

# The brief's example: gold [a a a b b c], pred [1 1 2 2 2 3].
# Clusters: 1 = {a, a}, 2 = {a, b, b}, 3 = {c}.
# B-cubed precision per instance (share of its cluster with its gold class):
#   a in 1: 2/2 (x2) = 2, a in 2: 1/3, b in 2: 2/3 (x2) = 4/3, c in 3: 1/1
#   P = (2 + 1/3 + 4/3 + 1) / 6 = (14/3) / 6 = 7/9
# recall per instance (share of its gold class in its cluster):
#   a in 1: 2/3 (x2) = 4/3, a in 2: 1/3, b: 2/2 (x2) = 2, c: 1
#   R = (4/3 + 1/3 + 2 + 1) / 6 = 7/9, F = 7/9
# purity: cluster majorities 2 + 2 + 1 = 5 -> 5/6; inverse: a 2, b 2, c 1 -> 5/6
GOLD = ["a", "a", "a", "b", "b", "c"]
PRED = [1, 1, 2, 2, 2, 3]

# An asymmetric one: pred [1 1 2 2 2 2], clusters 1 = {a, a}, 2 = {a, b, b, c}.
#   P = (2*1 + 1/4 + 2*2/4 + 1/4) / 6 = 3.5 / 6 = 7/12
#   R = (2*2/3 + 1/3 + 2*1 + 1) / 6 = (14/3) / 6 = 7/9
#   F = 2 * 7/12 * 7/9 / (7/12 + 7/9) = (49/54) / (49/36) = 2/3
#   PU = (2 + 2) / 6 = 2/3, iPU = (2 + 2 + 1) / 6 = 5/6, PiF = (10/9) / (3/2) = 20/27
PRED2 = [1, 1, 2, 2, 2, 2]


def test_bcubed_by_hand():
    assert bcubed(GOLD, PRED) == pytest.approx((7 / 9, 7 / 9, 7 / 9))
    assert bcubed(GOLD, PRED2) == pytest.approx((7 / 12, 7 / 9, 2 / 3))


def test_purity_by_hand():
    assert purity(GOLD, PRED) == pytest.approx((5 / 6, 5 / 6, 5 / 6))
    assert purity(GOLD, PRED2) == pytest.approx((2 / 3, 5 / 6, 20 / 27))


def test_cluster_scores_are_percentages_with_counts():
    s = cluster_scores(GOLD, PRED2)
    assert (s["n_instances"], s["n_clusters"], s["n_gold"]) == (6, 2, 3)
    expected = {"pu": 200 / 3, "ipu": 500 / 6, "pif": 2000 / 27, "bcp": 700 / 12, "bcr": 700 / 9, "bcf": 200 / 3}
    for key, value in expected.items():
        assert s[key] == pytest.approx(value), key


def test_perfect_clustering_is_100_whatever_the_ids():
    s = cluster_scores(GOLD, ["x", "x", "x", ("t", 1), ("t", 1), None])
    for key in ("pu", "ipu", "pif", "bcp", "bcr", "bcf"):
        assert s[key] == pytest.approx(100.0)


def test_all_in_one_and_singleton_limits():
    # one cluster: recall 1, precision sum_i (n_i/n)^2 = (9 + 4 + 1) / 36
    assert bcubed(GOLD, [0] * 6) == pytest.approx((14 / 36, 1.0, 2 * (14 / 36) / (1 + 14 / 36)))
    assert purity(GOLD, [0] * 6)[:2] == pytest.approx((3 / 6, 1.0))
    # singletons: precision 1, recall sum_i n_i * (1/n_i) / n = 3 classes / 6
    assert bcubed(GOLD, range(6))[:2] == pytest.approx((1.0, 3 / 6))
    assert purity(GOLD, range(6))[:2] == pytest.approx((1.0, 3 / 6))


def test_labels_types_do_not_conflate():
    # 1 and "1" are different clusters: a stringifying np.asarray would merge them
    assert purity(["a", "b"], [1, "1"]) == pytest.approx((1.0, 1.0, 1.0))
    assert bcubed(np.array([0, 0, 1]), np.array([5.0, 5.0, 7.0])) == pytest.approx((1.0, 1.0, 1.0))


def test_large_input_is_vectorised():
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 500, 200_000)
    pred = gold // 2  # merges pairs of classes: recall 1, purity of inverse 1
    p, r, f = bcubed(gold, pred)
    assert r == pytest.approx(1.0) and 0.45 < p < 0.55
    assert purity(gold, pred)[1] == pytest.approx(1.0)


@pytest.mark.parametrize("fn", [bcubed, purity, cluster_scores])
def test_bad_input(fn):
    with pytest.raises(ValueError, match="same length"):
        fn(["a", "b"], [1])
    with pytest.raises(ValueError, match="empty"):
        fn([], [])

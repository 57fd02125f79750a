"""Instance-level clustering scores for semantic frame induction.

Every instance has one gold label (a frame) and one predicted cluster id; both
are given as equal-length sequences of hashables. The scores are the ones the
frame-induction literature reports (Yamada et al. 2021, 2023; SemEval-2019
Task 2): purity (PU), inverse purity (iPU), their harmonic mean (PiF), and
B-cubed precision / recall / F1 (Bagga & Baldwin 1998).

Everything goes through the gold x predicted contingency table, so the cost is
one sort of n integer codes (n up to ~1e6 is fine); there are no per-instance
Python loops except when the labels are exotic hashables (tuples, mixed types)
and need a dict to be factorised.
"""

from typing import Dict, Hashable, Sequence, Tuple

import numpy as np

from ..scoring.prf import f1

__all__ = ["bcubed", "purity", "cluster_scores", "contingency"]


def _factorize(values: Sequence[Hashable]) -> Tuple[np.ndarray, int]:
    """Integer codes 0..k-1 for `values`, and k.

    1-d numeric / string arrays go through np.unique (sorted order). Anything
    else (tuples, None, mixed types) falls back to a dict in first-seen order:
    np.asarray would turn tuples into a 2-d array and [1, "1"] into two "1"s.
    """
    arr = values if isinstance(values, np.ndarray) else None
    if arr is None:
        try:
            arr = np.asarray(values)
        except (ValueError, TypeError):  # ragged tuples etc.
            arr = None
        if arr is not None and arr.dtype.kind in "US" and not all(isinstance(v, (str, bytes)) for v in values):
            arr = None  # mixed types were stringified: would conflate 1 and "1"
    if arr is not None and arr.ndim == 1 and arr.dtype.kind in "biufUS":
        uniq, codes = np.unique(arr, return_inverse=True)
        return codes.astype(np.int64, copy=False).ravel(), len(uniq)
    index: Dict[Hashable, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int64, count=len(values))
    return codes, len(index)


def _check(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"gold and pred must have the same length, got {len(gold)} and {len(pred)}")
    if len(gold) == 0:
        raise ValueError("cannot score an empty clustering (no instances)")


def contingency(
    gold: Sequence[Hashable], pred: Sequence[Hashable]
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Sparse contingency table of (gold, pred).

    Returns (gold_idx, pred_idx, counts, n_gold, n_pred): `counts[m]` instances
    have gold class `gold_idx[m]` and cluster `pred_idx[m]`; only non-zero cells.
    """
    _check(gold, pred)
    g, n_gold = _factorize(gold)
    p, n_pred = _factorize(pred)
    # one int64 key per (gold, pred) cell: n_gold * n_pred <= n^2 fits easily
    cells, counts = np.unique(g * n_pred + p, return_counts=True)
    return cells // n_pred, cells % n_pred, counts, n_gold, n_pred


def _bcubed_from_table(gi, pj, c, n_gold, n_pred) -> Tuple[float, float, float]:
    n = c.sum()
    c = c.astype(np.float64)
    pred_size = np.bincount(pj, weights=c, minlength=n_pred)
    gold_size = np.bincount(gi, weights=c, minlength=n_gold)
    p = float((c * c / pred_size[pj]).sum() / n)
    r = float((c * c / gold_size[gi]).sum() / n)
    return p, r, f1(p, r)


def _purity_from_table(gi, pj, c, n_gold, n_pred) -> Tuple[float, float, float]:
    n = c.sum()
    best_per_cluster = np.zeros(n_pred, dtype=np.int64)
    np.maximum.at(best_per_cluster, pj, c)
    best_per_class = np.zeros(n_gold, dtype=np.int64)
    np.maximum.at(best_per_class, gi, c)
    pu = float(best_per_cluster.sum() / n)
    ipu = float(best_per_class.sum() / n)
    return pu, ipu, f1(pu, ipu)


def bcubed(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> Tuple[float, float, float]:
    """B-cubed (precision, recall, F1) as fractions in [0, 1].

    Per instance, precision is the share of its cluster that has its gold class
    and recall the share of its gold class that is in its cluster. An instance in
    cell (i, j) scores c_ij / |cluster j| and c_ij / |class i|, and c_ij
    instances share that cell, so P = sum c_ij^2 / |cluster j| / n (same for R).
    """
    return _bcubed_from_table(*contingency(gold, pred))


def purity(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> Tuple[float, float, float]:
    """(purity, inverse purity, their harmonic mean) as fractions in [0, 1].

    PU = sum over clusters of the size of its largest gold class / n;
    iPU = sum over gold classes of the size of its largest cluster / n.
    """
    return _purity_from_table(*contingency(gold, pred))


def cluster_scores(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> Dict[str, float]:
    """All scores as percentages (0-100), plus instance / cluster / class counts."""
    table = contingency(gold, pred)
    pu, ipu, pif = _purity_from_table(*table)
    bcp, bcr, bcf = _bcubed_from_table(*table)
    out: Dict[str, float] = {"n_instances": int(table[2].sum()), "n_clusters": int(table[4]), "n_gold": int(table[3])}
    for key, value in (("pu", pu), ("ipu", ipu), ("pif", pif), ("bcp", bcp), ("bcr", bcr), ("bcf", bcf)):
        out[key] = 100.0 * value
    return out

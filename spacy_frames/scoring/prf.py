"""Precision, recall and F1: the one helper every scorer uses."""

from typing import Optional, Tuple


def f1(p: float, r: float) -> float:
    """The harmonic mean of two rates (0 when both are 0)."""
    return 2 * p * r / (p + r) if p + r else 0.0


def prf(tp: float, n_pred: float, n_gold: float) -> Tuple[float, float, float]:
    """(precision, recall, F1) of `tp` correct among `n_pred` predicted and `n_gold` gold
    items; a rate with a zero denominator is 0."""
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return p, r, f1(p, r)


def pct(value: Optional[float]) -> Optional[float]:
    """A rate as a percentage to two decimals, as every metrics file writes it (None stays None)."""
    return None if value is None else round(100 * value, 2)

"""Semantic mid-tuning (Umair & Ferraro 2021): align a sentence (E1) with the linearised
semantic form of its own parse (E2).

- MidtuneTripletLoss: directly, with a Euclidean triplet loss on (sentence, own form,
  corrupted / foreign form) vectors;
- MidtunePairLoss: implicitly, as the classification "is this the form of this
  sentence", softmax cross-entropy on logits (n, 2) of a classifier over
  `pair_features(u, v)` (SBERT's (u, v, |u - v|, u * v)).
"""

from typing import Callable, Tuple

from spacy.util import registry
from thinc.api import get_array_module
from thinc.types import Floats2d, Ints1d

from .base import ComputedLoss, _cross_entropy

# inside the sqrt of distances: keeps the gradient (a - x) / d finite at d = 0
DIST_EPS = 1e-12
Triplet = Tuple[Floats2d, Floats2d, Floats2d]


class MidtuneTripletLoss(ComputedLoss):
    """L = mean_i max(0, ||a_i - p_i|| - ||a_i - n_i|| + margin).

    guesses: (anchor, positive, negative), each (n, d): the sentence, its own form, a
    negative form, row by row; truths: unused (None). Returns ((d_anchor, d_positive,
    d_negative), L). Mean over all n rows (inactive rows count as 0). Distances are
    sqrt(squared + eps) - sqrt(eps): exactly 0 for equal rows, and the gradient there
    is 0 instead of NaN.
    """

    def __init__(self, margin: float = 1.0):
        if margin < 0:
            raise ValueError(f"MidtuneTripletLoss margin must be >= 0, got {margin}")
        self.margin = margin

    def _compute(self, guesses: Triplet, truths=None) -> Tuple[Triplet, float]:
        anchor, positive, negative = guesses
        if not (anchor.shape == positive.shape == negative.shape) or anchor.ndim != 2:
            raise ValueError(
                f"MidtuneTripletLoss: anchor {anchor.shape}, positive {positive.shape}, negative {negative.shape}"
            )
        xp = get_array_module(anchor)
        n = anchor.shape[0]
        if n == 0:
            return (xp.zeros_like(anchor), xp.zeros_like(positive), xp.zeros_like(negative)), 0.0
        a, p, q = (x.astype("float64") for x in (anchor, positive, negative))
        diff_p, diff_n = a - p, a - q
        root_p = xp.sqrt((diff_p * diff_p).sum(axis=1) + DIST_EPS)
        root_n = xp.sqrt((diff_n * diff_n).sum(axis=1) + DIST_EPS)
        losses = root_p - root_n + self.margin
        active = losses > 0
        loss = float((losses * active).sum()) / n
        weight = (active / n)[:, None]
        d_pos = weight * diff_p / root_p[:, None]  # d||a - p|| / da
        d_neg = weight * diff_n / root_n[:, None]  # d||a - n|| / da
        grads = ((d_pos - d_neg).astype(anchor.dtype), (-d_pos).astype(positive.dtype), d_neg.astype(negative.dtype))
        return grads, loss


class MidtunePairLoss(ComputedLoss):
    """Mean softmax cross-entropy of "is this the form of this sentence".

    guesses: logits (n, C), C = 2 (0: foreign / corrupted form, 1: its own form);
    truths: (n,) int labels in [0, C). Returns (d_logits, loss).
    """

    def _compute(self, guesses: Floats2d, truths: Ints1d) -> Tuple[Floats2d, float]:
        xp = get_array_module(guesses)
        labels = xp.asarray(truths).reshape(-1).astype("int64")
        if guesses.ndim != 2 or labels.shape[0] != guesses.shape[0]:
            raise ValueError(f"MidtunePairLoss: logits {guesses.shape} for {labels.shape[0]} labels")
        if len(labels) == 0:
            return xp.zeros_like(guesses), 0.0
        if int(labels.min()) < 0 or int(labels.max()) >= guesses.shape[1]:
            raise ValueError(f"MidtunePairLoss: label out of range [0, {guesses.shape[1]})")
        d_logits, loss = _cross_entropy(xp, guesses.astype("float64"), labels)
        return d_logits.astype(guesses.dtype), loss


def pair_features(u: Floats2d, v: Floats2d) -> Tuple[Floats2d, Callable[[Floats2d], Tuple[Floats2d, Floats2d]]]:
    """concat(u, v, |u - v|, u * v), (n, 4d), of sentence vectors u and form vectors v
    (n, d), and its backprop: d_features -> (d_u, d_v). The subgradient of |x| at 0 is 0."""
    if u.shape != v.shape or u.ndim != 2:
        raise ValueError(f"pair_features: u {u.shape} and v {v.shape} differ")
    xp = get_array_module(u)
    diff = u - v
    features = xp.concatenate([u, v, xp.abs(diff), u * v], axis=1)
    sign = xp.sign(diff)
    d = u.shape[1]

    def backprop(d_features: Floats2d) -> Tuple[Floats2d, Floats2d]:
        d_u, d_v, d_abs, d_prod = (d_features[:, k * d : (k + 1) * d] for k in range(4))
        return d_u + d_abs * sign + d_prod * v, d_v - d_abs * sign + d_prod * u

    return features, backprop


@registry.losses("spacy-frames.MidtuneTripletLoss.v1")
def configure_midtune_triplet_loss(margin: float = 1.0) -> MidtuneTripletLoss:
    """Euclidean triplet loss on (sentence, own form, negative form) vectors."""
    return MidtuneTripletLoss(margin=margin)


@registry.losses("spacy-frames.MidtunePairLoss.v1")
def configure_midtune_pair_loss() -> MidtunePairLoss:
    """Softmax cross-entropy of the (sentence, form) pair classifier's logits."""
    return MidtunePairLoss()

"""Frame identification: InfoNCE over similarities, binary cross-entropy for target detection."""
from typing import Optional, Tuple, Union

from spacy.util import registry
from thinc.api import get_array_module
from thinc.types import Floats1d, Floats2d, Ints1d

from .base import ComputedLoss

# truths for a similarity matrix: the gold column of each row (-1: row ignored),
# optionally with a 0/1 mask of the columns that exist (candidate lists are padded)
ContrastiveTruths = Union[Ints1d, Tuple[Ints1d, Optional[Floats2d]]]


class InfoNCE(ComputedLoss):
    """Softmax cross-entropy over similarities divided by a temperature.

    guesses: (n_rows, n_columns) similarities, e.g. cosines of L2-normalised
    target and frame vectors. Each row's gold column is the positive, every other
    unmasked column a negative: in-batch learning passes the batch's frames as
    columns, in-candidate learning each target's own padded candidate list.
    The loss is averaged over the rows that have a gold column.
    """

    def __init__(self, temperature: float = 0.07):
        if temperature <= 0:
            raise ValueError(f"InfoNCE temperature must be > 0, got {temperature}")
        self.temperature = temperature

    def _compute(self, guesses: Floats2d, truths: ContrastiveTruths) -> Tuple[Floats2d, float]:
        xp = get_array_module(guesses)
        gold, mask = truths if isinstance(truths, tuple) else (truths, None)
        gold = xp.asarray(gold, dtype="i")
        if guesses.ndim != 2 or gold.shape[0] != guesses.shape[0]:
            raise ValueError(f"InfoNCE: {guesses.shape} scores for {gold.shape[0]} gold columns")
        if xp.any(gold >= guesses.shape[1]):
            raise ValueError("InfoNCE: gold column out of range")
        logits = guesses / self.temperature
        if mask is not None:
            logits = xp.where(mask > 0, logits, -1e9)
        logits = logits - logits.max(axis=1, keepdims=True)
        exp = xp.exp(logits)
        probs = exp / exp.sum(axis=1, keepdims=True)
        rows = xp.nonzero(gold >= 0)[0]
        n = max(len(rows), 1)
        onehot = xp.zeros_like(probs)
        onehot[rows, gold[rows]] = 1.0
        d_logits = (probs - onehot) / n
        d_logits[gold < 0] = 0.0
        loss = -float(xp.log(probs[rows, gold[rows]] + 1e-12).sum()) / n
        return (d_logits / self.temperature).astype(guesses.dtype), loss


class BinaryCrossEntropy(ComputedLoss):
    """Sigmoid cross-entropy on logits, averaged; `pos_weight` scales positives."""

    def __init__(self, pos_weight: float = 1.0):
        self.pos_weight = pos_weight

    def _compute(self, guesses: Floats1d, truths: Floats1d) -> Tuple[Floats1d, float]:
        xp = get_array_module(guesses)
        truths = xp.asarray(truths, dtype=guesses.dtype)
        weight = 1.0 + (self.pos_weight - 1.0) * truths
        n = max(guesses.size, 1)
        grad = (weight * (_sigmoid(xp, guesses) - truths) / n).astype(guesses.dtype)
        # log(1 + e^-|x|) formulation: stable for large |x|
        log_p = -xp.logaddexp(0, -guesses)
        log_not_p = -xp.logaddexp(0, guesses)
        loss = float(-(weight * (truths * log_p + (1 - truths) * log_not_p)).sum()) / n
        return grad, loss


def _sigmoid(xp, x):
    return 0.5 * (1.0 + xp.tanh(0.5 * x))  # = 1 / (1 + e^-x), without overflow


@registry.losses("spacy-frames.InfoNCE.v1")
def configure_info_nce(temperature: float = 0.07) -> InfoNCE:
    return InfoNCE(temperature=temperature)


@registry.losses("spacy-frames.BinaryCrossEntropy.v1")
def configure_binary_cross_entropy(pos_weight: float = 1.0) -> BinaryCrossEntropy:
    return BinaryCrossEntropy(pos_weight=pos_weight)

"""frame_elements' loss: per candidate row, softmax cross-entropy at a temperature over "no FE"
(column 0) and its frame's FEs (mask 0: padding); no-FE rows weigh `none_weight`."""

from typing import Optional, Tuple

from spacy.util import registry
from thinc.api import get_array_module
from thinc.types import Floats2d, Ints1d

from .base import ComputedLoss, _cross_entropy

NO_FE = 0  # the column of the learned "no FE" option


class FrameElementLoss(ComputedLoss):
    def __init__(self, temperature: float = 0.1, none_weight: float = 0.2):
        if temperature <= 0:
            raise ValueError(f"FrameElementLoss temperature must be > 0, got {temperature}")
        if none_weight < 0:
            raise ValueError(f"FrameElementLoss none_weight must be >= 0, got {none_weight}")
        self.temperature = temperature
        self.none_weight = none_weight

    def _compute(self, guesses: Floats2d, truths: Tuple[Ints1d, Optional[Floats2d]]) -> Tuple[Floats2d, float]:
        xp = get_array_module(guesses)
        gold, mask = truths
        gold = xp.asarray(gold, dtype="i")
        if guesses.ndim != 2 or gold.shape[0] != guesses.shape[0]:
            raise ValueError(f"FrameElementLoss: {guesses.shape} scores for {gold.shape[0]} gold columns")
        if len(gold) == 0:
            return xp.zeros_like(guesses), 0.0
        if xp.any(gold < 0) or xp.any(gold >= guesses.shape[1]):
            raise ValueError("FrameElementLoss: gold column out of range")
        logits = guesses / self.temperature
        if mask is not None:
            if xp.any(mask[xp.arange(len(gold)), gold] <= 0):
                raise ValueError("FrameElementLoss: a gold column is masked")
            logits = xp.where(mask > 0, logits, -1e9)
        d_logits, row_losses = _cross_entropy(xp, logits, gold, reduce=False)
        weights = xp.where(gold == NO_FE, self.none_weight, 1.0).astype(guesses.dtype)
        total = float(weights.sum())
        if total <= 0:
            return xp.zeros_like(guesses), 0.0
        d_logits *= (weights / total)[:, None]
        loss = float((weights * row_losses).sum()) / total
        return d_logits / self.temperature, loss


@registry.losses("spacy-frames.FrameElementLoss.v1")
def configure_frame_element_loss(temperature: float = 0.1, none_weight: float = 0.2) -> FrameElementLoss:
    return FrameElementLoss(temperature=temperature, none_weight=none_weight)

"""The research frame_elements' pruner loss. The span scorer's loss is the product's
(`spacy-frames.FrameElementLoss.v1`); the pruner (`span_pruner.py`, the model's `prune_k`)
learns to rank each target's gold FE spans first with this one."""

from typing import Tuple

from thinc.api import get_array_module
from thinc.types import Floats1d


def span_pruner_loss(scores, is_gold) -> Tuple[Floats1d, float]:
    """The span pruner's loss: binary cross-entropy of each row's prune score against
    whether its span is a gold FE of its target, the two classes weighted equally (a
    target has a few gold spans among hundreds): mean softplus(-s) over the gold rows plus
    mean softplus(s) over the others. Returns (d_scores, loss)."""
    xp = get_array_module(scores)
    is_gold = xp.asarray(is_gold, dtype=bool)
    if is_gold.shape != scores.shape:
        raise ValueError(f"span_pruner_loss: {scores.shape} scores for {is_gold.shape} gold flags")
    n_pos, n_neg = int(is_gold.sum()), int((~is_gold).sum())
    sign = xp.where(is_gold, -1.0, 1.0).astype(scores.dtype)  # softplus(sign * s)
    z = sign * scores
    losses = xp.logaddexp(0.0, z)
    sigmoid = 0.5 * (1.0 + xp.tanh(0.5 * z))  # = 1 / (1 + exp(-z)), without overflow
    weights = xp.where(is_gold, 1.0 / max(n_pos, 1), 1.0 / max(n_neg, 1)).astype(scores.dtype)
    return (weights * sign * sigmoid).astype(scores.dtype), float((weights * losses).sum())

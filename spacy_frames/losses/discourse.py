"""Hierarchy-aware supervised contrastive loss for discourse senses (Long & Webber 2022).

For an anchor i, the positives P(i) are the other instances of its sense (the leaf:
level 3 for asymmetric senses, level 2 for symmetric ones); which instances count as
negatives N(i) is the point of the paper: only the *sister* senses, those under the
same level-1 sense ("sisters"), rather than every other sense ("all") or only senses
under another level-1 sense ("other-level1"), the alternatives of its Figure 5.
Instances that are neither are left out of the anchor's denominator. With
s_ij = cos(z_i, z_j) / temperature and weights w+ (positives) and w- (negatives):

    L_i = -1/|P(i)| * sum_{p in P(i)} log( w+ e^{s_ip} / D_i ),
    D_i = sum_{p in P(i)} w+ e^{s_ip} + sum_{n in N(i)} w- e^{s_in}

averaged over the anchors that have a positive. guesses: (n, d) features (normalised
here); truths: (senses (n,), level-1 senses (n,)) as ints, a sense of -1 = ignored.
"""
from typing import Tuple

from spacy.util import registry
from thinc.api import get_array_module
from thinc.types import Floats2d, Ints1d

from .base import ComputedLoss, _l2_normalize, _l2_normalize_backprop

NEGATIVE_SETS = ("sisters", "all", "other-level1")


class HierarchicalContrastiveLoss(ComputedLoss):
    def __init__(self, temperature: float = 0.1, positive_weight: float = 1.6, negative_weight: float = 1.0, negatives: str = "sisters"):
        if temperature <= 0:
            raise ValueError(f"HierarchicalContrastiveLoss: temperature must be > 0, got {temperature}")
        if positive_weight <= 0 or negative_weight <= 0:
            raise ValueError("HierarchicalContrastiveLoss: weights must be > 0")
        if negatives not in NEGATIVE_SETS:
            raise ValueError(f"HierarchicalContrastiveLoss: negatives must be one of {NEGATIVE_SETS}, got {negatives!r}")
        self.temperature = temperature
        self.positive_weight = positive_weight
        self.negative_weight = negative_weight
        self.negatives = negatives

    def masks(self, senses, level1):
        """(positives, negatives) as 0/1 float matrices, diagonal excluded."""
        xp = get_array_module(senses)
        valid = senses >= 0
        pair_valid = valid[:, None] & valid[None, :] & ~xp.eye(len(senses), dtype=bool)
        same_sense = senses[:, None] == senses[None, :]
        same_l1 = level1[:, None] == level1[None, :]
        negative = {"sisters": ~same_sense & same_l1, "all": ~same_sense, "other-level1": ~same_l1}[self.negatives]
        return (same_sense & pair_valid).astype("float64"), (negative & pair_valid).astype("float64")

    def _compute(self, guesses: Floats2d, truths: Tuple[Ints1d, Ints1d]) -> Tuple[Floats2d, float]:
        xp = get_array_module(guesses)
        senses, level1 = (xp.asarray(t).reshape(-1) for t in truths)
        if guesses.ndim != 2 or senses.shape[0] != guesses.shape[0] or level1.shape[0] != guesses.shape[0]:
            raise ValueError(f"HierarchicalContrastiveLoss: {guesses.shape} features for {senses.shape[0]} labels")
        positive, negative = self.masks(senses, level1)
        n_pos = positive.sum(axis=1)
        anchors = n_pos > 0
        n_anchors = int(anchors.sum())
        if n_anchors == 0:
            return xp.zeros_like(guesses), 0.0
        unit, norms = _l2_normalize(xp, guesses.astype("float64"))
        sims = unit @ unit.T / self.temperature
        weights = self.positive_weight * positive + self.negative_weight * negative
        # stable: subtract each row's largest similarity over the pairs that count
        shift = xp.where(weights > 0, sims, -xp.inf).max(axis=1, keepdims=True)
        shift = xp.where(xp.isfinite(shift), shift, 0.0)
        exp = weights * xp.exp(sims - shift)
        denom = exp.sum(axis=1, keepdims=True)
        log_denom = xp.log(xp.maximum(denom, 1e-300)) + shift
        inv_pos = xp.where(anchors, 1.0 / xp.maximum(n_pos, 1.0), 0.0)[:, None]
        log_num = xp.log(self.positive_weight) + sims
        per_anchor = -((positive * (log_num - log_denom)).sum(axis=1, keepdims=True) * inv_pos)
        loss = float(per_anchor[anchors].sum()) / n_anchors
        # dL_i/ds_ij = -[j in P(i)] / |P(i)| + w_ij e^{s_ij} / D_i, for anchors only
        d_sims = (-positive * inv_pos + exp / xp.maximum(denom, 1e-300)) * anchors[:, None] / n_anchors
        d_unit = (d_sims + d_sims.T) @ unit / self.temperature
        return _l2_normalize_backprop(unit, norms, d_unit).astype(guesses.dtype), loss


@registry.losses("spacy-frames.HierarchicalContrastiveLoss.v1")
def configure_hierarchical_contrastive_loss(
    temperature: float = 0.1, positive_weight: float = 1.6, negative_weight: float = 1.0, negatives: str = "sisters"
) -> HierarchicalContrastiveLoss:
    """Supervised contrastive loss whose negatives are chosen by the sense hierarchy."""
    return HierarchicalContrastiveLoss(temperature, positive_weight, negative_weight, negatives)

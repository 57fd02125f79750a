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

from .base import ComputedLoss, _l2_normalize, _l2_normalize_backprop, _weighted_supcon

NEGATIVE_SETS = ("sisters", "all", "other-level1")


class HierarchicalContrastiveLoss(ComputedLoss):
    def __init__(
        self,
        temperature: float = 0.1,
        positive_weight: float = 1.6,
        negative_weight: float = 1.0,
        negatives: str = "sisters",
    ):
        if temperature <= 0:
            raise ValueError(f"HierarchicalContrastiveLoss: temperature must be > 0, got {temperature}")
        if positive_weight <= 0 or negative_weight <= 0:
            raise ValueError("HierarchicalContrastiveLoss: weights must be > 0")
        if negatives not in NEGATIVE_SETS:
            raise ValueError(
                f"HierarchicalContrastiveLoss: negatives must be one of {NEGATIVE_SETS}, got {negatives!r}"
            )
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
        unit, norms = _l2_normalize(xp, guesses.astype("float64"))
        sims = unit @ unit.T / self.temperature
        weights = self.positive_weight * positive + self.negative_weight * negative
        per_anchor, d_sims, anchors = _weighted_supcon(xp, sims, positive, weights)
        n_anchors = int(anchors.sum())
        if n_anchors == 0:
            return xp.zeros_like(guesses), 0.0
        loss = float(per_anchor[anchors].sum()) / n_anchors
        d_unit = (d_sims + d_sims.T) @ unit / (self.temperature * n_anchors)
        return _l2_normalize_backprop(unit, norms, d_unit).astype(guesses.dtype), loss


@registry.losses("spacy-frames.HierarchicalContrastiveLoss.v1")
def configure_hierarchical_contrastive_loss(
    temperature: float = 0.1, positive_weight: float = 1.6, negative_weight: float = 1.0, negatives: str = "sisters"
) -> HierarchicalContrastiveLoss:
    """Supervised contrastive loss whose negatives are chosen by the sense hierarchy."""
    return HierarchicalContrastiveLoss(temperature, positive_weight, negative_weight, negatives)

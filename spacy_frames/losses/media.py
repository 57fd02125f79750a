"""Label-aware contrastive loss for multi-label documents (HeroCon-style; mCPT,
Reiter-Haas et al. 2023, after Zheng et al. 2022).

Multi-label documents rarely share all labels, so positives and negatives are defined
per class: for a class c and an anchor i that has c, the positives P_c(i) are the other
documents with c, the negatives N_c(i) those without it. Pairs are weighted by how much
their whole label vectors agree: with H_ij the Hamming distance of the label vectors
over the number of classes, a positive counts 1 - H_ij (documents sharing more frames
are pulled together harder) and a negative H_ij (documents differing in more frames are
pushed apart harder). With s_ij = cos(z_i, z_j) / temperature:

    L_ci = -1/|P_c(i)| * sum_{p in P_c(i)} log( (1 - H_ip) e^{s_ip} / D_ci ),
    D_ci = sum_{p in P_c(i)} (1 - H_ip) e^{s_ip} + sum_{n in N_c(i)} H_in e^{s_in}

averaged over the (class, anchor) pairs with a positive. guesses: (n, d) features
(normalised here); truths: (n, C) 0/1 label matrix.
"""

from typing import Tuple

from spacy.util import registry
from thinc.api import get_array_module
from thinc.types import Floats2d

from .base import ComputedLoss, _l2_normalize, _l2_normalize_backprop, _weighted_supcon


class LabelAwareContrastiveLoss(ComputedLoss):
    def __init__(self, temperature: float = 0.1):
        if temperature <= 0:
            raise ValueError(f"LabelAwareContrastiveLoss: temperature must be > 0, got {temperature}")
        self.temperature = temperature

    def pair_weights(self, labels):
        """(1 - H, H): the agreement and the normalised Hamming distance of label vectors."""
        xp = get_array_module(labels)
        hamming = xp.abs(labels[:, None, :] - labels[None, :, :]).sum(axis=2) / labels.shape[1]
        return 1.0 - hamming, hamming

    def _compute(self, guesses: Floats2d, truths) -> Tuple[Floats2d, float]:
        xp = get_array_module(guesses)
        labels = (xp.asarray(truths) > 0.5).astype("float64")
        if guesses.ndim != 2 or labels.ndim != 2 or labels.shape[0] != guesses.shape[0]:
            raise ValueError(f"LabelAwareContrastiveLoss: {guesses.shape} features for labels of shape {labels.shape}")
        n = guesses.shape[0]
        agreement, hamming = self.pair_weights(labels)
        unit, norms = _l2_normalize(xp, guesses.astype("float64"))
        sims = unit @ unit.T / self.temperature
        off_diagonal = 1.0 - xp.eye(n)
        total, count = 0.0, 0
        d_sims = xp.zeros((n, n))
        for c in range(labels.shape[1]):
            has = labels[:, c]
            if has.sum() < 2:  # no anchor of this class has a positive
                continue
            positive = has[:, None] * has[None, :] * off_diagonal
            negative = has[:, None] * (1.0 - has)[None, :]
            weights = agreement * positive + hamming * negative
            per_anchor, d_c, anchors = _weighted_supcon(xp, sims, positive, weights)
            total += float(per_anchor[anchors].sum())
            count += int(anchors.sum())
            d_sims += d_c
        if count == 0:
            return xp.zeros_like(guesses), 0.0
        d_unit = (d_sims + d_sims.T) @ unit / (self.temperature * count)
        return _l2_normalize_backprop(unit, norms, d_unit).astype(guesses.dtype), total / count


@registry.losses("spacy-frames.LabelAwareContrastiveLoss.v1")
def configure_label_aware_contrastive_loss(temperature: float = 0.1) -> LabelAwareContrastiveLoss:
    """HeroCon-style contrastive loss over multi-label documents (losses/media.py)."""
    return LabelAwareContrastiveLoss(temperature)

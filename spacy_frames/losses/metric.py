"""Deep metric learning for frame induction (Yamada, Sasano & Takeda 2023), with
pytorch-metric-learning's definitions; truths are class labels (Ints1d):
- distance-based, guesses = embeddings (n, d): TripletLoss, ContrastiveLoss;
- classification-based, guesses = (embeddings (n, d), class_weights (C, d)),
  grad = (d_embeddings, d_class_weights): SoftmaxLoss, ArcFaceLoss, AdaCosLoss.
`needs_class_weights` says which of the two a loss's guesses are.
"""

import math
from typing import Optional, Tuple

from spacy.util import registry
from thinc.api import get_array_module
from thinc.types import Floats2d, Ints1d

from .base import ComputedLoss, _cross_entropy, _l2_normalize, _l2_normalize_backprop

# inside the sqrt of distances: keeps the gradient (x_i - x_j) / d_ij finite at d = 0
DIST_EPS = 1e-12
# cosines are clipped to [-1 + COS_CLIP, 1 - COS_CLIP] before arccos (finite derivative)
COS_CLIP = 1e-7
# guesses of the classification losses, and their gradients: (embeddings, class_weights)
EmbeddingsAndWeights = Tuple[Floats2d, Floats2d]


class TripletLoss(ComputedLoss):
    """relu(d(a, p) - d(a, n) + margin) over all valid triplets of the batch.

    guesses: (n, d) embeddings; truths: (n,) labels. Valid: label[a] == label[p],
    a != p, label[n] != label[a]. As pytorch-metric-learning's TripletMarginLoss
    with its AvgNonZeroReducer, the loss is the mean over the triplets whose loss
    is > 0 (0, with a zero gradient, when there are none).
    """

    needs_class_weights = False

    def __init__(self, margin: float = 0.1):
        self.margin = margin

    def _compute(self, guesses: Floats2d, truths: Ints1d) -> Tuple[Floats2d, float]:
        xp = get_array_module(guesses)
        labels = _check_labels(xp, guesses, truths, "TripletLoss")
        x = guesses.astype("float64")
        dist, root = _pairwise_distances(xp, x)
        same = labels[:, None] == labels[None, :]
        positive = same & ~xp.eye(len(labels), dtype=bool)
        # (a, p, n) tensors: n is a batch (~64), so n^3 is small
        valid = positive[:, :, None] & ~same[:, None, :]
        losses = dist[:, :, None] - dist[:, None, :] + self.margin
        active = valid & (losses > 0)
        count = int(active.sum())
        if count == 0:
            return xp.zeros_like(guesses), 0.0
        weights = active / count
        loss = float((losses * weights).sum())
        # each active triplet pulls d(a, p) up and d(a, n) down by 1/count
        d_dist = weights.sum(axis=2) - weights.sum(axis=1)
        return _distance_backprop(xp, x, root, d_dist).astype(guesses.dtype), loss


class ContrastiveLoss(ComputedLoss):
    """relu(d - pos_margin) on positive pairs plus relu(neg_margin - d) on negative ones.

    guesses: (n, d) embeddings; truths: (n,) labels. As pytorch-metric-learning's
    ContrastiveLoss: pairs are all ordered (i, j), i != j (each unordered pair
    twice, which leaves the means as they are); each part is averaged over its
    pairs with a loss > 0 (AvgNonZeroReducer), and the loss is their sum. A batch
    of a single class still has its positive part, as there.
    """

    needs_class_weights = False

    def __init__(self, pos_margin: float = 0.0, neg_margin: float = 1.0):
        self.pos_margin = pos_margin
        self.neg_margin = neg_margin

    def _compute(self, guesses: Floats2d, truths: Ints1d) -> Tuple[Floats2d, float]:
        xp = get_array_module(guesses)
        labels = _check_labels(xp, guesses, truths, "ContrastiveLoss")
        x = guesses.astype("float64")
        dist, root = _pairwise_distances(xp, x)
        same = labels[:, None] == labels[None, :]
        off_diagonal = ~xp.eye(len(labels), dtype=bool)
        pos_losses = xp.maximum(dist - self.pos_margin, 0.0) * (same & off_diagonal)
        neg_losses = xp.maximum(self.neg_margin - dist, 0.0) * ~same
        pos_active, neg_active = pos_losses > 0, neg_losses > 0
        n_pos, n_neg = max(int(pos_active.sum()), 1), max(int(neg_active.sum()), 1)
        loss = float(pos_losses.sum()) / n_pos + float(neg_losses.sum()) / n_neg
        d_dist = pos_active / n_pos - neg_active / n_neg
        return _distance_backprop(xp, x, root, d_dist).astype(guesses.dtype), loss


def _check_labels(xp, embeddings, truths, name: str):
    labels = xp.asarray(truths).reshape(-1)
    if embeddings.ndim != 2 or labels.shape[0] != embeddings.shape[0]:
        raise ValueError(f"{name}: {embeddings.shape} embeddings for {labels.shape[0]} labels")
    return labels


def _pairwise_distances(xp, x):
    """Euclidean distances (n, n) between rows, and sqrt(squared + eps) for the backprop.

    The sqrt(eps) offset is taken off again so that identical rows are at exactly
    0, as in pytorch-metric-learning (AvgNonZeroReducer must not count them).
    """
    sq_norms = (x * x).sum(axis=1)
    squared = xp.maximum(sq_norms[:, None] + sq_norms[None, :] - 2.0 * (x @ x.T), 0.0)
    root = xp.sqrt(squared + DIST_EPS)
    return root - math.sqrt(DIST_EPS), root


def _distance_backprop(xp, x, root, d_dist):
    """dL/dx from dL/d(dist): d(dist_ij)/dx_i = (x_i - x_j) / root_ij = -d(dist_ij)/dx_j."""
    sym = (d_dist + d_dist.T) / root
    return sym.sum(axis=1)[:, None] * x - sym @ x


class SoftmaxLoss(ComputedLoss):
    """Softmax cross-entropy on embeddings @ class_weights.T (a linear classifier, no bias).

    guesses: (embeddings (n, d), class_weights (C, d)); truths: (n,) labels in
    [0, C). Returns ((d_embeddings, d_class_weights), mean loss over the batch).
    """

    needs_class_weights = True

    def _compute(self, guesses: EmbeddingsAndWeights, truths: Ints1d) -> Tuple[EmbeddingsAndWeights, float]:
        embeddings, weights = guesses
        xp = get_array_module(embeddings)
        labels = _check_class_labels(xp, embeddings, weights, truths, "SoftmaxLoss")
        if len(labels) == 0:
            return (xp.zeros_like(embeddings), xp.zeros_like(weights)), 0.0
        e, w = embeddings.astype("float64"), weights.astype("float64")
        d_logits, loss = _cross_entropy(xp, e @ w.T, labels)
        return ((d_logits @ w).astype(embeddings.dtype), (d_logits.T @ e).astype(weights.dtype)), loss


class ArcFaceLoss(ComputedLoss):
    """Additive angular margin (Deng et al. 2019) as in pytorch-metric-learning's ArcFaceLoss.

    Embeddings and class weights are L2-normalised (the gradient goes through
    both normalisations); the gold class's logit is cos(theta + margin), the
    others cos(theta), all times `scale`, then softmax cross-entropy averaged
    over the batch. `margin` is in degrees, as in pytorch-metric-learning.
    guesses, truths and output as SoftmaxLoss.
    """

    needs_class_weights = True

    def __init__(self, margin: float = 2.865, scale: float = 64.0):
        self.margin = margin
        self.scale = scale

    def _compute(self, guesses: EmbeddingsAndWeights, truths: Ints1d) -> Tuple[EmbeddingsAndWeights, float]:
        embeddings, weights = guesses
        xp = get_array_module(embeddings)
        labels = _check_class_labels(xp, embeddings, weights, truths, "ArcFaceLoss")
        if len(labels) == 0:
            return (xp.zeros_like(embeddings), xp.zeros_like(weights)), 0.0
        e, e_norm = _l2_normalize(xp, embeddings.astype("float64"))
        w, w_norm = _l2_normalize(xp, weights.astype("float64"))
        cos = e @ w.T
        rows = xp.arange(len(labels))
        gold = cos[rows, labels]
        clipped = xp.clip(gold, -1.0 + COS_CLIP, 1.0 - COS_CLIP)
        angle = xp.arccos(clipped) + math.radians(self.margin)
        logits = cos.copy()
        logits[rows, labels] = xp.cos(angle)
        d_logits, loss = _cross_entropy(xp, self.scale * logits, labels)
        d_cos = self.scale * d_logits
        # d cos(arccos(c) + m) / dc = sin(arccos(c) + m) / sqrt(1 - c^2); 0 where clipped
        inside = (gold > -1.0 + COS_CLIP) & (gold < 1.0 - COS_CLIP)
        d_cos[rows, labels] *= inside * xp.sin(angle) / xp.sqrt(1.0 - clipped**2)
        d_e = _l2_normalize_backprop(e, e_norm, d_cos @ w)
        d_w = _l2_normalize_backprop(w, w_norm, d_cos.T @ e)
        return (d_e.astype(embeddings.dtype), d_w.astype(weights.dtype)), loss


class AdaCosLoss(ComputedLoss):
    """Cosine logits with an adaptive scale (Zhang et al. 2019, dynamic AdaCos), no margin.

    The scale starts at `init_scale`, or sqrt(2) * log(C - 1) with C taken from
    the class weights of the first call. With `update_scale`, each training call
    (`__call__`, `get_grad`; not `get_loss`, which only evaluates) first updates it
    from the batch, as in the paper:
        B_avg = mean_i sum_{j != y_i} exp(scale * cos_ij)
        scale = log(B_avg) / cos(min(pi / 4, median_i theta_{i, y_i}))
    then computes the loss with it; the scale is a constant for the gradient.
    The current scale is `self.scale`. guesses, truths and output as SoftmaxLoss.
    """

    needs_class_weights = True

    def __init__(self, init_scale: Optional[float] = None, update_scale: bool = True):
        if init_scale is not None and init_scale <= 0:
            raise ValueError(f"AdaCosLoss init_scale must be > 0, got {init_scale}")
        self.scale = init_scale
        self.update_scale = update_scale

    def get_loss(self, guesses: EmbeddingsAndWeights, truths: Ints1d) -> float:
        # evaluation: the scale is not updated
        return self._compute(guesses, truths, train=False)[1]

    def _compute(
        self, guesses: EmbeddingsAndWeights, truths: Ints1d, train: bool = True
    ) -> Tuple[EmbeddingsAndWeights, float]:
        embeddings, weights = guesses
        xp = get_array_module(embeddings)
        labels = _check_class_labels(xp, embeddings, weights, truths, "AdaCosLoss")
        if self.scale is None:
            n_classes = weights.shape[0]
            if n_classes < 3:  # sqrt(2) log(C - 1) would be <= 0
                raise ValueError(f"AdaCosLoss: {n_classes} classes; give init_scale when C < 3")
            self.scale = math.sqrt(2.0) * math.log(n_classes - 1)
        if len(labels) == 0:
            return (xp.zeros_like(embeddings), xp.zeros_like(weights)), 0.0
        e, e_norm = _l2_normalize(xp, embeddings.astype("float64"))
        w, w_norm = _l2_normalize(xp, weights.astype("float64"))
        cos = e @ w.T
        if train and self.update_scale:
            self._update_scale(xp, cos, labels)
        d_logits, loss = _cross_entropy(xp, self.scale * cos, labels)
        d_cos = self.scale * d_logits
        d_e = _l2_normalize_backprop(e, e_norm, d_cos @ w)
        d_w = _l2_normalize_backprop(w, w_norm, d_cos.T @ e)
        return (d_e.astype(embeddings.dtype), d_w.astype(weights.dtype)), loss

    def _update_scale(self, xp, cos, labels) -> None:
        if cos.shape[1] < 2:  # no non-gold class to average over
            return
        rows = xp.arange(len(labels))
        scaled = self.scale * cos
        scaled[rows, labels] = -xp.inf  # B_avg sums over the non-gold classes only
        # log(B_avg) as a logsumexp: exp(scale * cos) may overflow for a large scale
        top = float(scaled.max())
        log_b_avg = top + math.log(float(xp.exp(scaled - top).sum())) - math.log(len(labels))
        gold = xp.clip(cos[rows, labels], -1.0 + COS_CLIP, 1.0 - COS_CLIP)
        theta_med = float(xp.median(xp.arccos(gold)))
        scale = log_b_avg / math.cos(min(math.pi / 4, theta_med))
        if math.isfinite(scale) and scale > 0:  # a scale <= 0 would flip the objective
            self.scale = scale


def _check_class_labels(xp, embeddings, weights, truths, name: str):
    labels = xp.asarray(truths).reshape(-1).astype("int64")
    if embeddings.ndim != 2 or weights.ndim != 2 or embeddings.shape[1] != weights.shape[1]:
        raise ValueError(f"{name}: embeddings {embeddings.shape} and class weights {weights.shape} do not match")
    if labels.shape[0] != embeddings.shape[0]:
        raise ValueError(f"{name}: {embeddings.shape[0]} embeddings for {labels.shape[0]} labels")
    if len(labels) and (int(labels.min()) < 0 or int(labels.max()) >= weights.shape[0]):
        raise ValueError(f"{name}: label out of range [0, {weights.shape[0]})")
    return labels


@registry.losses("spacy-frames.TripletLoss.v1")
def configure_triplet_loss(margin: float = 0.2) -> TripletLoss:
    """Triplet margin loss on embeddings and labels, mean over the non-zero triplets."""
    return TripletLoss(margin=margin)


@registry.losses("spacy-frames.ContrastiveLoss.v1")
def configure_contrastive_loss(pos_margin: float = 0.0, neg_margin: float = 1.0) -> ContrastiveLoss:
    """Contrastive pair loss on embeddings and labels (pytorch-metric-learning's)."""
    return ContrastiveLoss(pos_margin=pos_margin, neg_margin=neg_margin)


@registry.losses("spacy-frames.SoftmaxLoss.v1")
def configure_softmax_loss() -> SoftmaxLoss:
    """Softmax cross-entropy of a bias-free linear classifier over the class weights."""
    return SoftmaxLoss()


@registry.losses("spacy-frames.ArcFaceLoss.v1")
def configure_arcface_loss(margin: float = 2.865, scale: float = 64.0) -> ArcFaceLoss:
    """ArcFace: cosine logits with an additive angular margin (degrees) on the gold class."""
    return ArcFaceLoss(margin=margin, scale=scale)


@registry.losses("spacy-frames.AdaCosLoss.v1")
def configure_adacos_loss(init_scale: Optional[float] = None, update_scale: bool = True) -> AdaCosLoss:
    """AdaCos: cosine logits with a scale adapted to each training batch."""
    return AdaCosLoss(init_scale=init_scale, update_scale=update_scale)

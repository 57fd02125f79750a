"""The base of every loss here, and array helpers the losses share."""

from thinc.loss import Loss


class ComputedLoss(Loss):
    """A thinc Loss whose gradient and value come from one `_compute` pass."""

    def __call__(self, guesses, truths):
        return self._compute(guesses, truths)

    def get_grad(self, guesses, truths):
        return self._compute(guesses, truths)[0]

    def get_loss(self, guesses, truths):
        return self._compute(guesses, truths)[1]

    def _compute(self, guesses, truths):
        raise NotImplementedError


def _cross_entropy(xp, logits, labels, reduce: bool = True):
    """Mean softmax cross-entropy and its gradient w.r.t. the logits (stable log-softmax).
    reduce=False: the per-row gradients and losses instead (not divided by n)."""
    rows = xp.arange(len(labels))
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
    d_logits = xp.exp(log_probs)
    d_logits[rows, labels] -= 1.0
    if not reduce:
        return d_logits, -log_probs[rows, labels]
    n = len(labels)
    return d_logits / n, -float(log_probs[rows, labels].sum()) / n


def _l2_normalize(xp, x):
    # floor as torch.nn.functional.normalize: a zero row stays zero instead of NaN
    norms = xp.maximum(xp.sqrt((x * x).sum(axis=1, keepdims=True)), 1e-12)
    return x / norms, norms


def _l2_normalize_backprop(unit, norms, d_unit):
    """Gradient through x / |x|: the part of d_unit orthogonal to the unit vector, over |x|."""
    return (d_unit - unit * (unit * d_unit).sum(axis=1, keepdims=True)) / norms


def _weighted_supcon(xp, sims, positive, weights):
    """Weighted supervised contrastive terms shared by the hierarchy-aware (discourse) and
    label-aware (media frames) losses. sims: (n, n) similarities over the temperature;
    positive: 0/1 (n, n); weights: (n, n) >= 0, > 0 on every positive, 0 for the pairs
    that do not count. Per anchor i with positives P(i):

        L_i = -1/|P(i)| * sum_{p in P(i)} log( w_ip e^{s_ip} / sum_j w_ij e^{s_ij} )

    Returns (L (n,), dL_i/ds_ij (n, n), anchors): anchors without positives get L = 0
    and no gradient."""
    n_pos = positive.sum(axis=1)
    anchors = n_pos > 0
    # stable: subtract each row's largest similarity over the pairs that count
    shift = xp.where(weights > 0, sims, -xp.inf).max(axis=1, keepdims=True)
    shift = xp.where(xp.isfinite(shift), shift, 0.0)
    exp = weights * xp.exp(sims - shift)
    denom = exp.sum(axis=1, keepdims=True)
    log_denom = xp.log(xp.maximum(denom, 1e-300)) + shift
    inv_pos = xp.where(anchors, 1.0 / xp.maximum(n_pos, 1.0), 0.0)[:, None]
    log_num = xp.log(xp.where(positive > 0, weights, 1.0)) + sims
    per_anchor = -(positive * (log_num - log_denom)).sum(axis=1) * inv_pos[:, 0]
    # dL_i/ds_ij = -[j in P(i)] / |P(i)| + w_ij e^{s_ij} / D_i
    d_sims = (-positive * inv_pos + exp / xp.maximum(denom, 1e-300)) * anchors[:, None]
    return per_anchor, d_sims, anchors

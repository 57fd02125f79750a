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

"""Shared thinc layers (no torch)."""
from thinc.api import Model
from thinc.types import Floats2d, Ragged
from spacy.util import registry


@registry.layers("spacy-frames.reduce_max_or_zero.v1")
def reduce_max_or_zero() -> Model[Ragged, Floats2d]:
    """reduce_max over each sequence; an empty sequence gives a zero vector.

    A token can have no wordpieces (e.g. a lone control character the transformer
    tokenizer drops), and thinc's reduce_max refuses empty sequences.
    """
    return Model("reduce_max_or_zero", reduce_max_or_zero_forward)


def reduce_max_or_zero_forward(model: Model, Xr: Ragged, is_train: bool):
    ops = model.ops
    lengths = ops.asarray1i(Xr.lengths)
    width = Xr.data.shape[1]
    nonzero = lengths > 0
    Y = ops.alloc2f(len(lengths), width)
    if not ops.xp.any(nonzero):
        return Y, lambda dY: Ragged(ops.alloc2f(*Xr.data.shape), lengths)
    sub_lengths = lengths[nonzero]
    Y_sub, which = ops.reduce_max(ops.as_contig(Xr.data), sub_lengths)
    Y[nonzero] = Y_sub

    def backprop(dY: Floats2d) -> Ragged:
        dX = ops.backprop_reduce_max(ops.as_contig(dY[nonzero]), which, sub_lengths)
        return Ragged(dX, lengths)

    return Y, backprop

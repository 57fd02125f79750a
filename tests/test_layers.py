import numpy
from thinc.api import NumpyOps
from thinc.types import Ragged

from spacy_frames.ml.layers import reduce_max_or_zero


def test_reduce_max_or_zero_handles_empty_sequences():
    model = reduce_max_or_zero()
    model.initialize()
    data = numpy.array([[1, 5], [3, 2], [7, 0]], dtype="f")
    X = Ragged(data, NumpyOps().asarray1i([2, 0, 1]))
    Y, backprop = model(X, is_train=True)
    numpy.testing.assert_array_equal(Y, [[3, 5], [0, 0], [7, 0]])
    dX = backprop(numpy.ones((3, 2), dtype="f"))
    numpy.testing.assert_array_equal(dX.data, [[0, 1], [1, 0], [1, 1]])
    assert list(dX.lengths) == [2, 0, 1]

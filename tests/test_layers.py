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


def _fixed_tok2vec(vecs):
    from thinc.api import Model

    def forward(model, docs, is_train):
        def backprop(d_vecs):
            model.attrs["grad"] = d_vecs
            return docs

        return vecs, backprop

    return Model("fixed_vectors", forward, dims={"nO": vecs[0].shape[1]})


def test_span_arrays_pool_as_the_token_lists_do_forward_and_back():
    # (n, 2) [start, end) arrays take the prefix-sum path for the mean: the same numbers
    # (and gradients) as the per-span token lists, for both reductions
    import pytest

    from spacy_frames.ml.layers import build_span_pooler

    rng = numpy.random.default_rng(0)
    vecs = [rng.normal(size=(7, 5)).astype("f"), rng.normal(size=(4, 5)).astype("f")]
    arrays = [numpy.array([[0, 3], [2, 7], [5, 6]]), numpy.array([[1, 4]])]
    ranges = [[range(0, 3), range(2, 7), range(5, 6)], [range(1, 4)]]
    for reduction in ("mean", "max"):
        tok2vec = _fixed_tok2vec(vecs)
        pooler = build_span_pooler(tok2vec, reduction)
        pooler.set_dim("nO", 5)
        d_out = rng.normal(size=(4, 5)).astype("f")
        by_array, bp = pooler(([None, None], arrays), is_train=True)
        bp(d_out)
        grads_array = tok2vec.attrs["grad"]
        by_list, bp = pooler(([None, None], ranges), is_train=True)
        bp(d_out)
        numpy.testing.assert_allclose(by_array, by_list, atol=1e-6)
        for a, b in zip(grads_array, tok2vec.attrs["grad"]):
            numpy.testing.assert_allclose(a, b, atol=1e-6)
        if reduction == "mean":
            assert by_array[1] == pytest.approx(vecs[0][2:7].mean(axis=0), abs=1e-6)


def test_consecutive_chunks_bound_items_and_sizes():
    from spacy_frames.pipeline.base import consecutive_chunks

    assert consecutive_chunks([1] * 5, 2) == [range(0, 2), range(2, 4), range(4, 5)]
    assert consecutive_chunks([3, 0, 5, 1, 1, 100, 2], 10, 6) == [
        range(0, 2),
        range(2, 4),
        range(4, 5),
        range(5, 6),
        range(6, 7),
    ]
    # padded: items times the largest size, as a batch padded to its longest sequence
    assert consecutive_chunks([1, 2, 2, 3, 9], 10, 6, padded=True) == [range(0, 3), range(3, 4), range(4, 5)]
    assert consecutive_chunks([], 3) == []

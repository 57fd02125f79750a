from functools import partial

import numpy
import pytest
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
    from spacy_frames.util import consecutive_chunks

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


def _numeric_grad(loss, array, eps=1e-2):
    """Central differences of the scalar `loss()` in each element of `array` (changed in place)."""
    grad = numpy.zeros(array.shape, dtype="float64")
    for index in numpy.ndindex(array.shape):
        saved = array[index]
        array[index] = saved + eps
        up = loss()
        array[index] = saved - eps
        down = loss()
        array[index] = saved
        grad[index] = (up - down) / (2 * eps)
    return grad


def _mixed_loss(ops, first, second, alpha, weights):
    from spacy_frames.ml.layers import mix_normalized

    return float((weights * mix_normalized(ops, first, second, alpha)[0]).sum())


def test_mix_normalized_backprop_matches_numeric_gradients():
    from spacy_frames.ml.layers import mix_normalized

    ops = NumpyOps()
    rng = numpy.random.default_rng(0)
    first, second = rng.normal(size=(3, 4)).astype("f"), rng.normal(size=(3, 4)).astype("f")
    weights = rng.normal(size=(3, 4)).astype("f")  # the loss: sum(weights * output)
    for alpha in (0.0, 0.3):
        out, backprop = mix_normalized(ops, first, second, alpha)
        numpy.testing.assert_allclose(numpy.linalg.norm(out, axis=1), 1.0, rtol=1e-5)
        d_first, d_second = backprop(weights)
        loss = partial(_mixed_loss, ops, first, second, alpha, weights)
        numpy.testing.assert_allclose(d_first, _numeric_grad(loss, first), atol=2e-3)
        if alpha == 0:
            assert d_second is None
        else:
            numpy.testing.assert_allclose(d_second, _numeric_grad(loss, second), atol=2e-3)


def test_frame_inducer_model_backprops_to_token_vectors_and_class_weights():
    """The model's output (mixed normalised target vectors, class weights W): its backprop
    carries d_vectors to the token vectors and d_W (the rows in use) to W's gradient."""
    import spacy
    from spacy.tokens import Span

    from spacy_frames.extensions import install_extensions
    from spacy_frames.ml.frame_inducer import CLASS_WEIGHTS, build_frame_inducer

    install_extensions()
    nlp = spacy.blank("en")
    docs = [nlp("she gave him a book"), nlp("he bought it")]
    targets = [[Span(docs[0], 1, 2), Span(docs[0], 3, 5)], [Span(docs[1], 1, 3)]]
    rng = numpy.random.default_rng(0)
    vecs = [rng.normal(size=(len(doc), 4)).astype("f") for doc in docs]
    tok2vec = _fixed_tok2vec(vecs)
    model = build_frame_inducer(tok2vec)
    model.initialize(X=(docs, targets, 0.0))
    class_weights = model.get_ref(CLASS_WEIGHTS)
    class_weights.set_param("W", rng.normal(size=(5, 4)).astype("f"))
    r_vectors, r_weights = rng.normal(size=(3, 4)).astype("f"), rng.normal(size=(2, 4)).astype("f")

    def loss():
        vectors, weights = model.predict((docs, targets, 0.0))
        return float((r_vectors * vectors).sum() + (r_weights * weights[:2]).sum())

    (vectors, weights), backprop = model.begin_update((docs, targets, 0.0))
    numpy.testing.assert_allclose(numpy.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    backprop((r_vectors, r_weights))
    for doc_vecs, d_vecs in zip(vecs, tok2vec.attrs["grad"]):
        numpy.testing.assert_allclose(d_vecs, _numeric_grad(loss, doc_vecs), atol=2e-3)
    W = class_weights.get_param("W")
    numpy.testing.assert_allclose(class_weights.get_grad("W"), _numeric_grad(loss, W), atol=2e-3)
    assert not class_weights.get_grad("W")[2:].any()  # rows of classes not in use: no gradient
    # without class weights (the metric losses) the model gives None and takes None
    (_, weights), backprop = build_frame_inducer(_fixed_tok2vec(vecs)).begin_update((docs, targets, 0.0))
    assert weights is None
    backprop((r_vectors, None))


def test_frame_identifier_cached_frames_backprop_to_the_memory():
    """Cached frame vectors: base[rows] + memory[rows], normalised; the backprop gives the
    memory (the model's FRAME_MEMORY parameter) its gradient only when it is learned."""
    import spacy
    from thinc.api import Model

    from spacy_frames.extensions import install_extensions
    from spacy_frames.ml.frame_identifier import FRAME_MEMORY, CachedFrames, build_frame_identifier

    install_extensions()
    docs = [spacy.blank("en")("she gave him a book")]
    rng = numpy.random.default_rng(0)
    vecs = [rng.normal(size=(5, 4)).astype("f")]
    unused_encoder = Model("frame_encoder", lambda model, X, is_train: None, dims={"nO": 4})
    model = build_frame_identifier(_fixed_tok2vec(vecs), unused_encoder)
    model.get_ref("detector").initialize(X=model.ops.alloc2f(1, 4))
    base = rng.normal(size=(3, 4)).astype("f")
    memory = rng.normal(size=(3, 4)).astype("f") * 0.1
    model.set_param(FRAME_MEMORY, memory)
    rows = [2, 0, 2]  # a frame twice: its gradients add up
    r_frames = rng.normal(size=(3, 4)).astype("f")
    targets = [[[1]]]

    def loss():
        return float((r_frames * model.predict((docs, targets, CachedFrames(base, rows, True)))[2]).sum())

    (target_vecs, logits, frame_vecs), backprop = model.begin_update((docs, targets, CachedFrames(base, rows, True)))
    backprop((numpy.zeros_like(target_vecs), None, r_frames))
    numpy.testing.assert_allclose(
        model.get_grad(FRAME_MEMORY), _numeric_grad(loss, model.get_param(FRAME_MEMORY)), atol=2e-3
    )
    assert not model.get_grad(FRAME_MEMORY)[1].any()  # a frame not scored: no gradient
    before = model.get_grad(FRAME_MEMORY).copy()
    _, backprop = model.begin_update((docs, targets, CachedFrames(base, rows, False)))
    backprop((numpy.zeros_like(target_vecs), None, r_frames))
    numpy.testing.assert_array_equal(model.get_grad(FRAME_MEMORY), before)  # not learned: untouched


def test_argument_cross_attention_backprop_matches_numeric_gradients():
    from spacy_frames.ml.layers import build_argument_cross_attention

    rng = numpy.random.default_rng(0)
    flat = rng.normal(size=(9, 4)).astype("float32")
    # two pairs, and a pair with an empty argument (zero features, no gradient)
    bounds_a = numpy.asarray([[0, 3], [5, 6], [2, 2]])
    bounds_b = numpy.asarray([[3, 7], [6, 9], [4, 6]])
    model = build_argument_cross_attention()
    model.initialize(X=(flat, bounds_a, bounds_b))
    model.set_param("W", model.get_param("W") + 0.3 * rng.normal(size=(4, 4)).astype("float32"))
    out, backprop = model((flat, bounds_a, bounds_b), is_train=True)
    assert out.shape == (3, 8) and not out[2].any()
    probe = rng.normal(size=out.shape).astype("float32")
    d_flat = backprop(probe)
    d_W = model.get_grad("W").copy()

    def loss(x, w):
        model.set_param("W", w)
        return float((model.predict((x, bounds_a, bounds_b)) * probe).sum())

    W = model.get_param("W").copy()
    eps = 1e-2
    for i, j in [(0, 0), (3, 2), (6, 1), (8, 3)]:
        plus, minus = flat.copy(), flat.copy()
        plus[i, j] += eps
        minus[i, j] -= eps
        assert d_flat[i, j] == pytest.approx((loss(plus, W) - loss(minus, W)) / (2 * eps), rel=2e-2, abs=2e-3)
    for i, j in [(0, 1), (2, 3)]:
        plus, minus = W.copy(), W.copy()
        plus[i, j] += eps
        minus[i, j] -= eps
        assert d_W[i, j] == pytest.approx((loss(flat, plus) - loss(flat, minus)) / (2 * eps), rel=2e-2, abs=2e-3)
    # the pair with an empty argument sends no gradient
    model.set_param("W", W)
    _, backprop = model((flat, bounds_a, bounds_b), is_train=True)
    only_empty = numpy.zeros_like(probe)
    only_empty[2] = 1.0
    assert not backprop(only_empty).any()

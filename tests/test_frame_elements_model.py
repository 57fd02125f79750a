"""frame_elements' model (spacy-frames.FrameElementScorer.v3): it learns a toy set, every
parameter group moves, its gradients are right, prediction gives the training forward's
numbers, and bad input gives a clear error; and the candidate features it reads."""

import numpy
import pytest
import spacy
from fe_toy import toy_tok2vec
from syntax_toy import tiny_syntax_nlp
from thinc.api import Adam, fix_random_seed, set_dropout_rate

from spacy_frames.losses.frame_elements import FrameElementLoss
from spacy_frames.ml.fe_features import position_one_hots, syntax_one_hots
from spacy_frames.ml.fe_options import option_groups, set_fe_vectors
from spacy_frames.ml.frame_elements import FECandidates, build_frame_element_scorer, option_mask


def candidates(docs, rows, target_options):
    """FECandidates of per-doc rows whose targets' rows follow each other."""
    rows = [numpy.asarray(r, dtype="int64").reshape(-1, 4) for r in rows]
    sizes = [int(n) for r in rows if len(r) for n in numpy.unique(r[:, 0] * 1000 + r[:, 1], return_counts=True)[1]]
    return FECandidates(docs, rows, numpy.asarray(sizes, dtype="int64"), [numpy.asarray(o) for o in target_options])


def toy():
    nlp = spacy.blank("en")
    docs = [nlp("The bank gave a loan to the farmer ."), nlp("She bought it .")]
    rows = [[(2, 3, 0, 2), (2, 3, 3, 5), (2, 3, 5, 8), (2, 3, 8, 9)], [(1, 2, 0, 1), (1, 2, 2, 3)]]
    X = candidates(docs, rows, [[0, 1, 2, 3], [0, 4, 5]])
    gold = numpy.array([1, 2, 3, 0, 1, 2])
    return X, gold


def scorer(seed=0, width=8, n_fes=5, dropout=0.0):
    fix_random_seed(seed)  # the layers' initial weights, whichever tests ran before
    model = build_frame_element_scorer(
        toy_tok2vec(), hidden_width=16, token_width=12, query_width=width, dropout=dropout
    )
    set_fe_vectors(model.get_ref("options"), numpy.random.default_rng(seed).normal(size=(n_fes, width)))
    return model


def initialized(**kwargs):
    X, _ = toy()
    model = scorer(**kwargs)
    model.initialize(X=X)
    return model


def train(model, X, gold, steps):
    loss, optimizer = FrameElementLoss(temperature=0.1, none_weight=0.2), Adam(0.01)
    for _ in range(steps):
        scores, backprop = model.begin_update(X)
        grad, _ = loss(scores, (gold, option_mask(model.ops, X, scores.shape[1])))
        backprop(grad)
        model.finish_update(optimizer)
    scores = model.predict(X)
    mask = option_mask(model.ops, X, scores.shape[1])
    return bool((numpy.where(mask > 0, scores, -9).argmax(axis=1) == gold).all())


def parameters(model):
    return {(node.id, name): node.get_param(name).copy() for node in model.walk() for name in node.param_names}


def test_overfits_a_toy_set_and_every_parameter_group_moves():
    X, gold = toy()
    model = scorer()
    model.initialize(X=X)
    before = parameters(model)
    assert train(model, X, gold, 60)
    after = parameters(model)
    assert before.keys() == after.keys() and len(before) > 10
    frozen = [key for key in before if numpy.array_equal(before[key], after[key])]
    assert not frozen, frozen


def assert_finite_differences(model, checks, seed, step=1e-2, abs_tol=2e-2, rel=0.1):
    """Each (node, param name, index) of `checks`: the analytic gradient of a weighted sum
    of the toy set's scores against the central finite difference."""
    X, _ = toy()
    weights = numpy.random.default_rng(seed).normal(size=(6, 4)).astype("f")

    def objective():
        scores, backprop = model.begin_update(X)
        return float((scores * weights).sum()), backprop

    _, backprop = objective()
    backprop(weights * option_mask(model.ops, X, 4))
    for node, name, index in checks:
        analytic = float(node.get_grad(name)[index])
        param = node.get_param(name)
        param[index] += step
        up, _ = objective()
        param[index] -= 2 * step
        down, _ = objective()
        param[index] += step
        assert analytic == pytest.approx((up - down) / (2 * step), abs=abs_tol, rel=rel), (name, index)


def test_gradients_of_the_option_side_match_finite_differences():
    model = initialized()
    options = model.get_ref("options")
    checks = [(options, "fe_map", (1, 2)), (options, "no_fe", (3,)), (options, "fe_vectors", (0, 1))]
    assert_finite_differences(model, checks, seed=1, step=1e-3, abs_tol=5e-3, rel=None)


def test_gradients_of_the_span_side_match_finite_differences():
    """Through the span layer, the span-target product, the projection and the pooled token vectors."""
    model = initialized()
    relu = model.get_ref("span_vectors").get_ref("hidden")
    projection = model.layers[0].layers[1]
    embedding = next(n for n in model.get_ref("tok2vec").walk() if n.has_param("E"))
    checks = [
        (relu, "W", (3, 5)),
        (relu, "W", (7, 40)),
        (relu, "W", (2, 50)),
        (relu, "W", (5, 59)),
        (projection, "W", (4, 9)),
        (embedding, "E", (11, 2)),
    ]
    assert_finite_differences(model, checks, seed=2)


def test_fe_vectors_get_a_gradient_where_the_batch_names_them_and_none_elsewhere():
    X, _ = toy()
    model = scorer(n_fes=7)  # FEs 6 and 7: in no option
    model.initialize(X=X)
    scores, backprop = model.begin_update(X)
    backprop(numpy.ones_like(scores) * option_mask(model.ops, X, scores.shape[1]))
    grad = model.get_ref("options").get_grad("fe_vectors")
    assert grad[:5].any() and not grad[5:].any()


def test_prediction_gives_the_training_forward_numbers(monkeypatch):
    """predict() projects the tokens before pooling them and projects the span layer's
    blocks once per distinct span, target and feature row instead of building the
    (rows, 5 x width) features, a few rows at a time (here 3, so the toy's rows take several
    steps): the numbers of the training forward (its dropout set to 0)."""
    import spacy_frames.ml.frame_elements as fe_module

    monkeypatch.setattr(fe_module, "PREDICT_CHUNK", 3)
    X, _ = toy()
    model = scorer(dropout=0.1)
    model.initialize(X=X)
    fast = model.predict(X)
    set_dropout_rate(model, 0.0)
    slow, _ = model.begin_update(X)
    numpy.testing.assert_allclose(fast, slow, rtol=1e-4, atol=1e-5)
    # and on parsed docs, where the syntax features vary
    nlp = tiny_syntax_nlp()
    docs = [nlp("The bank that we trust gave a small loan to the farmer ."), nlp("He bought seeds in May .")]
    rows = [[(5, 6, s, e) for s in range(0, 12) for e in range(s + 1, min(s + 4, 13)) if e <= 5 or s >= 6]]
    rows.append([(1, 2, 0, 1), (1, 2, 2, 3), (1, 2, 3, 5), (1, 2, 1, 2)])
    X = candidates(docs, rows, [[0, 1, 2, 3, 4], [0, 2, 5]])
    numpy.testing.assert_allclose(model.predict(X), model.begin_update(X)[0], rtol=1e-4, atol=1e-5)


def test_bad_input_gives_clear_errors():
    X, _ = toy()
    model = scorer()
    with pytest.raises(ValueError, match="FE table is empty"):
        build_frame_element_scorer(toy_tok2vec(), query_width=8).initialize(X=X)
    model.initialize(X=X)
    with pytest.raises(ValueError, match="option lists"):
        model.predict(X._replace(options=X.options[:-1]))
    with pytest.raises(ValueError, match="option lists"):
        model.predict(X._replace(target_sizes=numpy.array([4, 1])))
    with pytest.raises(ValueError, match="no-FE option"):
        model.predict(X._replace(options=[numpy.array([1, 2]), numpy.array([0, 4])]))
    with pytest.raises(ValueError, match="not in the FE table"):
        model.predict(X._replace(options=[numpy.array([0, 9]), numpy.array([0, 4])]))
    with pytest.raises(ValueError, match="width"):
        set_fe_vectors(model.get_ref("options"), numpy.zeros((3, 4)))
    with pytest.raises(ValueError, match="hidden_width"):
        build_frame_element_scorer(toy_tok2vec(), hidden_width=0)
    empty = FECandidates(X.docs, [numpy.zeros((0, 4), dtype="int64")] * 2, numpy.zeros(0, dtype="int64"), [])
    assert model.predict(empty).shape[0] == 0


def president():
    nlp = spacy.blank("en")
    docs = [nlp("The president resigned .")]
    rows = [[(1, 2, 0, 1), (1, 2, 1, 2), (1, 2, 2, 3), (1, 2, 0, 2), (1, 2, 3, 4)]]
    return candidates(docs, rows, [[0, 1, 2]]), numpy.array([0, 1, 0, 0, 0])


def test_an_fe_on_its_own_target_is_learned():
    X, gold = president()
    model = scorer()
    model.initialize(X=X)
    assert position_one_hots(X.rows[0], on_target=True)[:, -1].tolist() == [0, 1, 0, 0, 0]
    assert train(model, X, gold, 40)


def test_option_groups_merge_equal_options_into_contiguous_blocks_in_row_order():
    """Targets with equal options are one group; groups follow their first row and rows are
    in order within each, whatever the option arrays' addresses: the backprop sums in the
    same order, so a seed gives the same model."""
    nlp = spacy.blank("en")
    results = []
    for _ in range(5):  # fresh arrays each time
        options = [[0, 1, 2], [0, 3], [0, 1, 2], [0, 3], [0, 1, 2]]
        X = FECandidates(
            [nlp("a")], [numpy.zeros((9, 4))], numpy.array([2, 1, 3, 0, 3]), [numpy.array(o) for o in options]
        )
        plan, order = option_groups(X)
        results.append(([(opts.tolist(), span) for opts, span in plan], order.tolist()))
    assert all(r == results[0] for r in results)
    assert results[0] == ([([0, 1, 2], (0, 8)), ([0, 3], (8, 9))], [0, 1, 3, 4, 5, 6, 7, 8, 2])


def test_option_scores_are_each_rows_cosine_with_its_options():
    model = initialized()
    X, _ = toy()
    options_layer = model.get_ref("options")
    vectors = numpy.random.default_rng(0).normal(size=(6, 8)).astype("f")
    vectors /= numpy.linalg.norm(vectors, axis=1, keepdims=True)
    from spacy_frames.ml.frame_elements import SpanVectors

    scores = options_layer.predict(SpanVectors(vectors, X))
    table = numpy.concatenate(
        [
            options_layer.get_param("no_fe")[None],
            options_layer.get_param("fe_vectors") @ options_layer.get_param("fe_map"),
        ]
    )
    table /= numpy.linalg.norm(table, axis=1, keepdims=True)
    row_options = [X.options[0]] * 4 + [X.options[1]] * 2
    for row, opts in enumerate(row_options):
        numpy.testing.assert_allclose(scores[row, : len(opts)], table[opts] @ vectors[row], rtol=1e-5, atol=1e-6)
        assert not scores[row, len(opts) :].any()
    assert option_mask(model.ops, X, 4).tolist()[4] == [1.0, 1.0, 1.0, 0.0]


def test_syntax_features_read_the_parse():
    from spacy_frames.ml.fe_features import DEP_INDEX, N_SYNTAX

    nlp = tiny_syntax_nlp()
    doc = nlp("The bank gave a loan to the farmer.")
    feats = syntax_one_hots([doc], [[(2, 3, 0, 2), (2, 3, 6, 8), (2, 3, 3, 5)]])
    assert feats.shape == (3, N_SYNTAX)
    n_dep = N_SYNTAX - 5
    assert feats[0, DEP_INDEX["nsubj"]] == 1.0 and feats[0, n_dep] == 1.0  # "The bank": nsubj, child of "gave"
    assert feats[1, DEP_INDEX["pobj"]] == 1.0 and feats[1, n_dep + 1] == 1.0  # "the farmer": through "to"
    assert feats[2, DEP_INDEX["dobj"]] == 1.0 and feats[2, n_dep + 4] == 1.0  # "a loan": a whole subtree
    assert not syntax_one_hots([spacy.blank("en")("The bank gave")], [[(2, 3, 0, 2)]]).any()


def test_batch_syntax_features_are_each_docs_own():
    """Docs stacked (a parsed doc, one without a parse, one without rows, another parsed):
    each doc's rows get what that doc alone gives; a label outside DEP_LABELS is the last column."""
    from spacy.strings import get_string_id

    from spacy_frames.ml.fe_features import DEP_LABELS, _dep_columns

    nlp = tiny_syntax_nlp()
    first, second = nlp("The bank gave a loan to the farmer."), nlp("She said that he left early.")
    blank = spacy.blank("en")("The bank gave")
    rows = [[(2, 3, 0, 2), (2, 3, 6, 8), (2, 3, 3, 5)], [(2, 3, 0, 2)], [], [(1, 2, 0, 1), (1, 2, 2, 6), (4, 5, 3, 4)]]
    docs = [first, blank, nlp("Hello"), second]
    stacked = syntax_one_hots(docs, rows)
    alone = numpy.concatenate([syntax_one_hots([doc], [r]) for doc, r in zip(docs, rows)])
    assert numpy.array_equal(stacked, alone) and stacked[:3].any() and stacked[4:].any() and not stacked[3].any()
    hashes = numpy.asarray([get_string_id("nsubj"), get_string_id("no_such_label"), 0], dtype="uint64")
    assert _dep_columns(hashes).tolist() == [DEP_LABELS.index("nsubj"), len(DEP_LABELS), len(DEP_LABELS)]


def test_position_features_mark_side_gap_and_length():
    feats = position_one_hots([(5, 6, 0, 2), (5, 6, 6, 7)])
    assert feats.shape[0] == 2 and feats.sum(axis=1).tolist() == [2.0, 2.0]
    assert feats[0].argmax() != feats[1].argmax()  # before vs right after the target


def test_span_roots_and_subtree_edges_match_the_parse():
    from spacy_frames.ml.fe_features import span_roots
    from spacy_frames.suggesters.frame_elements import subtree_edges

    nlp = tiny_syntax_nlp()
    doc = nlp("The bank that we trust gave a small loan to the farmer. He bought seeds with it in May.")
    heads = numpy.array([t.head.i for t in doc])
    left, right = subtree_edges(heads)
    assert left.tolist() == [t.left_edge.i for t in doc] and right.tolist() == [t.right_edge.i + 1 for t in doc]
    spans = [(a, b) for a in range(len(doc)) for b in range(a + 1, min(len(doc), a + 6) + 1)]
    starts, ends = numpy.array([a for a, _ in spans]), numpy.array([b for _, b in spans])
    # the root of a span: its first token whose head lies outside it (spaCy's Span.root
    # picks among those by depth; ours keeps the first, as the features were trained with)
    expected = [next((i for i in range(a, b) if heads[i] == i or not a <= heads[i] < b), a) for a, b in spans]
    assert span_roots(heads, starts, ends).tolist() == expected

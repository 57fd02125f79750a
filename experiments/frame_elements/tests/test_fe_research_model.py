"""The research frame_elements' scorer model (frames_lab.fe_research): the options the
product does not ship (the pruner, target-conditioned tokens and their attention layer,
frame-aware queries, the endpoint and syntax toggles) learn a toy set, their gradients are
right and the prediction path gives the training path's numbers."""

import numpy
import pytest
import spacy
from fe_toy import toy_tok2vec
from frames_lab.fe_research.model import build_frame_element_scorer, set_fe_vectors
from spacy.util import registry
from thinc.api import Adam, fix_random_seed, set_dropout_rate


def fe_loss():
    return registry.losses.get("spacy-frames.FrameElementLoss.v1")(temperature=0.1, none_weight=0.2)


def toy():
    nlp = spacy.blank("en")
    docs = [nlp("The bank gave a loan to the farmer ."), nlp("She bought it .")]
    rows = [[(2, 3, 0, 2), (2, 3, 3, 5), (2, 3, 5, 8), (2, 3, 8, 9)], [(1, 2, 0, 1), (1, 2, 2, 3)]]
    options = [[0, 1, 2, 3]] * 4 + [[0, 4, 5]] * 2
    gold = numpy.array([1, 2, 3, 0, 1, 2])
    return docs, rows, options, gold


def scorer(seed=0, width=8, **kwargs):
    fix_random_seed(seed)  # the layers' initial weights, whichever tests ran before
    model = build_frame_element_scorer(toy_tok2vec(), hidden_width=16, dropout=0.0, **kwargs)
    set_fe_vectors(model, numpy.random.default_rng(seed).normal(size=(5, width)))
    return model


def fits_the_toy_set(model, steps=60):
    """Train `model` on the toy set; whether every row's best option is its gold one."""
    docs, rows, options, gold = toy()
    loss, optimizer = fe_loss(), Adam(0.01)
    for _ in range(steps):
        (scores, mask, _), backprop = model.begin_update((docs, rows, options))
        grad, _ = loss(scores, (gold, mask))
        backprop((grad, mask))
        model.finish_update(optimizer)
    (scores, mask, _), _ = model.begin_update((docs, rows, options))
    return bool((numpy.where(mask > 0, scores, -9).argmax(axis=1) == gold).all())


def test_overfits_a_toy_set_and_every_parameter_group_moves():
    docs, rows, options, gold = toy()
    model = scorer()
    model.initialize(X=(docs, rows, options))
    before = {name: model.get_param(name).copy() for name in ("fe_map", "no_fe", "fe_vectors")}
    assert fits_the_toy_set(model)
    assert not numpy.allclose(before["fe_map"], model.get_param("fe_map"))
    assert not numpy.allclose(before["no_fe"], model.get_param("no_fe"))
    assert numpy.array_equal(before["fe_vectors"], model.get_param("fe_vectors"))  # the definitions stay frozen


def assert_finite_differences(model, checks, seed, step=1e-2, abs_tol=2e-2, rel=0.1):
    """Each (node, param name, index) of `checks`: the analytic gradient of a weighted sum
    of the toy set's scores against the central finite difference."""
    docs, rows, options, _ = toy()
    weights = numpy.random.default_rng(seed).normal(size=(6, 4)).astype("f")

    def objective():
        (scores, mask, _), backprop = model.begin_update((docs, rows, options))
        return float((scores * weights).sum()), backprop, mask

    _, backprop, mask = objective()
    backprop((weights * mask, mask))
    for node, name, index in checks:
        analytic = float(node.get_grad(name)[index])
        param = node.get_param(name)
        param[index] += step
        up, _, _ = objective()
        param[index] -= 2 * step
        down, _, _ = objective()
        param[index] += step
        assert analytic == pytest.approx((up - down) / (2 * step), abs=abs_tol, rel=rel), (name, index)


def initialized(**kwargs):
    docs, rows, options, _ = toy()
    model = scorer(**kwargs)
    model.initialize(X=(docs, rows, options))
    return model


def embedding_table(model):
    return next(n for n in model.layers[0].get_ref("tok2vec").walk() if n.has_param("E"))


def test_gradients_of_the_option_side_match_finite_differences():
    model = initialized()
    assert_finite_differences(
        model, [(model, "fe_map", (1, 2)), (model, "no_fe", (3,))], seed=1, step=1e-3, abs_tol=5e-3, rel=None
    )


@pytest.mark.parametrize("token_width", [0, 12])
def test_gradients_of_the_span_side_match_finite_differences(token_width):
    """Through the span MLP, the span-target product, the projection and the pooled token vectors."""
    model = initialized(token_width=token_width)
    mlp_in = max((n for n in model.layers[1].walk() if n.has_param("W")), key=lambda n: n.get_param("W").shape[1])
    checks = [
        (mlp_in, "W", (3, 5)),
        (mlp_in, "W", (7, 40)),
        (mlp_in, "W", (2, 50)),
        (mlp_in, "W", (5, 59)),
        (embedding_table(model), "E", (11, 2)),
    ]
    assert_finite_differences(model, checks, seed=2)


def test_fe_vectors_get_a_gradient_where_the_batch_names_them_and_none_elsewhere():
    """learn_fe_vectors: the FE table's rows that the batch's options name get the
    finite-difference gradient; the rows no option names are not computed and get none."""
    docs, rows, options, _ = toy()
    model = scorer(learn_fe_vectors=True)
    set_fe_vectors(model, numpy.random.default_rng(0).normal(size=(7, 8)))  # FEs 6 and 7: in no option
    model.initialize(X=(docs, rows, options))
    checks = [(model, "fe_vectors", (0, 1)), (model, "fe_vectors", (4, 3))]
    assert_finite_differences(model, checks, seed=4, step=1e-3, abs_tol=5e-3, rel=None)
    assert model.get_grad("fe_vectors")[:5].any() and not model.get_grad("fe_vectors")[5:].any()


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"endpoints": False},
        {"token_width": 6},
        {"syntax": False, "endpoints": False},
        {"target_tokens": 5},
        {"prune_k": 1, "on_target": True, "target_tokens": 5},
        {"target_tokens": 5, "target_context": True},
        {"prune_k": 2, "token_width": 6},
        {"prune_k": 3, "token_width": 6, "on_target": True},
        {"prune_k": 2, "token_width": 6, "endpoints": False, "syntax": False},
        {"prune_k": 2, "token_width": 6, "syntax": False, "pos": True},
    ],
)
def test_prediction_path_gives_the_training_path_numbers(kwargs, monkeypatch):
    """predict() projects the tokens before pooling them, projects the pooled blocks once
    per distinct span instead of building the (rows, 5 * width) features, and runs the
    rows a few at a time (here 3, so the toy's rows take several steps): the numbers of
    the training path (its dropout set to 0)."""
    import frames_lab.fe_research.model as fe_module

    monkeypatch.setattr(fe_module, "PREDICT_CHUNK", 3)
    monkeypatch.setattr(fe_module.span_pruner, "TARGET_BLOCK", 1)  # the toy's two targets in two blocks
    pruned_calls = []
    pruned = fe_module.pruned_row_features
    monkeypatch.setattr(fe_module, "pruned_row_features", lambda *a: pruned_calls.append(1) or pruned(*a))
    docs, rows, options, _ = toy()
    model = build_frame_element_scorer(
        toy_tok2vec(),
        hidden_width=16,
        dropout=0.1,
        **kwargs,
    )
    set_fe_vectors(model, numpy.random.default_rng(0).normal(size=(5, 8)))
    model.initialize(X=(docs, rows, options))
    assert fe_module._first_layer(model.layers[1]) is not None
    fast, fast_mask, fast_prune = model.predict((docs, rows, options))
    set_dropout_rate(model, 0.0)
    (slow, slow_mask, slow_prune), _ = model.begin_update((docs, rows, options))
    assert numpy.array_equal(fast_mask, slow_mask)
    numpy.testing.assert_allclose(fast, slow, rtol=1e-4, atol=1e-5)
    numpy.testing.assert_allclose(fast_prune, slow_prune, rtol=1e-4, atol=1e-5)
    # with a pruner on projected vectors, both paths prune from the tokens
    from_tokens = bool(kwargs.get("prune_k") and kwargs.get("token_width") and not kwargs.get("target_tokens"))
    assert len(pruned_calls) == 2 * from_tokens
    if kwargs.get("prune_k"):  # pruning left some rows out, and the scores tell them apart
        assert 0 < (fast_mask[:, 0] > 0).sum() < len(fast_mask) and numpy.ptp(fast_prune) > 1e-3


def test_target_token_features_learn_and_their_gradients_match_finite_differences():
    """The target-conditioned token layer (target_tokens.py): its parameters move when the
    toy set is learned, and its backprop (to tt_W, tt_rel, tt_b and the token vectors
    through the pooling) matches finite differences."""
    model = initialized(target_tokens=6)
    checks = [
        (model, "tt_W", (1, 3)),
        (model, "tt_W", (4, 40)),
        (model, "tt_rel", (9, 2)),
        (model, "tt_b", (5,)),
        (embedding_table(model), "E", (11, 2)),
    ]
    assert_finite_differences(model, checks, seed=3)
    before = model.get_param("tt_W").copy()
    assert fits_the_toy_set(model)
    assert not numpy.allclose(before, model.get_param("tt_W"))


def test_target_token_pairs_cover_each_targets_window():
    from frames_lab.fe_research.target_tokens import N_REL, doc_pairs, rel_buckets

    rows = numpy.array([[2, 3, 0, 2], [2, 3, 3, 5], [2, 3, 5, 8], [6, 7, 3, 5]])
    token, pair_ts, pair_te, start, end, group, position = doc_pairs(rows)
    # target 2-3: tokens 0..7; target 6-7: tokens 3..4; each row's span is its own pairs
    assert token.tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 3, 4] and pair_ts.tolist() == [2] * 8 + [6] * 2
    assert group.tolist() == [0] * 8 + [1] * 2 and position.tolist() == list(range(8)) + [0, 1]
    for (ts, _te, ss, se), a, b in zip(rows, start, end):
        assert token[a:b].tolist() == list(range(ss, se)) and set(pair_ts[a:b]) == {ts}
    rel = rel_buckets(numpy.array([0, 1, 2, 3, 40]), numpy.array([2] * 5), numpy.array([3] * 5))
    assert (
        rel.tolist()[2] == N_REL // 2 and rel[1] == N_REL // 2 - 1 and rel[3] == N_REL // 2 + 1 and rel[4] == N_REL - 1
    )


def test_top_k_per_group_keeps_the_best_of_each_target_and_the_forced_rows():
    from frames_lab.fe_research.span_pruner import top_k_per_group

    groups = numpy.array([0, 0, 0, 1, 1, 0])
    scores = numpy.array([0.1, 0.9, 0.5, 0.2, 0.2, 0.7])
    assert top_k_per_group(groups, scores, 2).tolist() == [False, True, False, True, True, True]
    forced = numpy.array([True, False, False, False, False, False])
    assert top_k_per_group(groups, scores, 1, forced).tolist() == [True, True, False, True, False, False]
    assert top_k_per_group(numpy.zeros(0, dtype=int), numpy.zeros(0), 3).tolist() == []


def test_top_k_per_group_orders_like_a_sort_by_group_score_and_row():
    """Negative scores, ties (-0.0 and 0.0 among them, as floats compare) and groups in any
    order: the rows a sort by (group, score descending, row) puts first in each group."""
    from frames_lab.fe_research.span_pruner import top_k_per_group

    rng = numpy.random.default_rng(0)
    for _ in range(200):
        groups = rng.integers(0, 6, int(rng.integers(1, 40)))
        scores = numpy.round(rng.normal(size=len(groups)), int(rng.integers(0, 2))).astype("float32")
        scores[rng.random(len(scores)) < 0.15] = -0.0
        scores[rng.random(len(scores)) < 0.15] = 0.0
        k = int(rng.integers(1, 6))
        order = sorted(range(len(groups)), key=lambda i: (groups[i], -float(scores[i]), i))
        expected = numpy.zeros(len(groups), dtype=bool)
        for rank, i in enumerate(order):
            expected[i] = sum(groups[j] == groups[i] for j in order[:rank]) < k
        assert top_k_per_group(groups, scores, k).tolist() == expected.tolist()


def test_pruning_scores_only_the_kept_rows_and_the_pruner_learns_the_gold_spans():
    from frames_lab.fe_research.losses import span_pruner_loss

    docs, rows, options, gold = toy()
    model = initialized(prune_k=2)
    (scores, mask, prune), _ = model.begin_update((docs, rows, options, gold != 0))
    kept = mask[:, 0] > 0
    assert kept[gold != 0].all()  # forced rows are scored
    assert not scores[~kept].any()
    (scores, mask, prune) = model.predict((docs, rows, options))
    assert (mask[:, 0] > 0).sum() == 4 and prune.shape == (6,)  # two rows of each of the two targets
    optimizer = Adam(0.05)
    for _ in range(40):
        (scores, mask, prune), backprop = model.begin_update((docs, rows, options, gold != 0))
        d_prune, _ = span_pruner_loss(prune, gold != 0)
        backprop((numpy.zeros_like(scores), None, d_prune))
        model.finish_update(optimizer)
    (_, _, prune) = model.predict((docs, rows, options))
    assert prune[gold != 0].min() > prune[gold == 0].max()


def test_gradients_of_the_pruner_match_finite_differences():
    docs, rows, options, _ = toy()
    model = initialized(prune_k=3, token_width=6)
    weights = numpy.random.default_rng(3).normal(size=6).astype("f")

    def objective():
        (scores, _, prune), backprop = model.begin_update((docs, rows, options))
        return float((prune * weights).sum()), backprop, scores

    value, backprop, scores = objective()
    backprop((numpy.zeros_like(scores), None, weights))
    project = model.layers[2]
    checks = [(model, "prune_W", (0, 1)), (model, "prune_W", (3, 2)), (model, "prune_v", (4,))]
    checks += [(model, "prune_b", (0,)), (project, "W", (2, 7)), (embedding_table(model), "E", (11, 2))]
    for node, name, index in checks:
        analytic = float(node.get_grad(name)[index])
        param = node.get_param(name)
        param[index] += 1e-2
        bumped, _, _ = objective()
        param[index] -= 1e-2
        assert analytic == pytest.approx((bumped - value) / 1e-2, abs=2e-2, rel=0.1), (name, index)


def test_target_context_attends_within_each_window_and_its_gradients_are_right():
    """The per-target attention layer: every parameter's gradient against finite
    differences, and a token's feature as seen from one target moves when another token of
    that target's window changes (context), which target_tokens alone never does."""
    docs, rows, options, _ = toy()
    model = initialized(target_tokens=4, target_context=True)
    with pytest.raises(ValueError, match="target_context needs target_tokens"):
        scorer(target_context=True)
    checks = [(model, name, (1, 2)) for name in ("tt_Wq", "tt_Wk", "tt_Wv")] + [(model, "tt_W", (0, 3))]
    assert_finite_differences(model, checks, seed=4, step=1e-2, abs_tol=2e-2, rel=0.1)

    from frames_lab.fe_research import target_tokens

    arr = numpy.asarray(rows[0])
    # one target ("gave", token 2), its window tokens 0..8; pooled row i: token i
    plan = target_tokens.batch_pairs([target_tokens.doc_pairs(arr)], [numpy.arange(9)], [numpy.full(9, 2)])
    assert plan.group.tolist() == [0] * 9 and plan.position.tolist() == list(range(9))
    pooled = numpy.random.default_rng(0).normal(size=(9, model.get_ref("tok2vec").get_dim("nO"))).astype("f")
    feats, _ = target_tokens.forward(model, pooled, plan, False)
    pooled[8] += 1.0  # the last token (".") changes
    moved, _ = target_tokens.forward(model, pooled, plan, False)
    assert not numpy.allclose(feats[0], moved[0])  # row 0's span (tokens 0-1) reads it through attention
    plain = initialized(target_tokens=4)
    pooled[8] -= 1.0
    feats, _ = target_tokens.forward(plain, pooled, plan, False)
    pooled[8] += 1.0
    assert numpy.allclose(feats[0], target_tokens.forward(plain, pooled, plan, False)[0][0])  # no context


def test_frame_queries_tell_one_span_apart_under_two_frames():
    """The same span with the same FE options under two frames, gold a different FE in
    each: only frame-aware queries can fit both; their gradients are right."""
    nlp = spacy.blank("en")
    docs = [nlp("The bank gave a loan ."), nlp("The bank gave a loan .")]
    rows = [[(2, 3, 0, 2), (2, 3, 3, 5)], [(2, 3, 0, 2), (2, 3, 3, 5)]]
    options = [[0, 1, 2]] * 4
    gold = numpy.array([1, 0, 2, 0])
    frames = (numpy.array([0, 0, 1, 1]), numpy.random.default_rng(5).normal(size=(2, 8)).astype("f"))

    def fits(model, steps=80):
        loss, optimizer = fe_loss(), Adam(0.02)
        X = (docs, rows, options, None, frames)
        for _ in range(steps):
            (scores, mask, _), backprop = model.begin_update(X)
            grad, _ = loss(scores, (gold, mask))
            backprop((grad, mask, None))
            model.finish_update(optimizer)
        (scores, mask, _) = model.predict(X)
        return bool((numpy.where(mask > 0, scores, -9).argmax(axis=1) == gold).all())

    plain = scorer()
    plain.initialize(X=(docs, rows, options))
    aware = scorer(frame_queries=True)
    aware.initialize(X=(docs, rows, options))
    assert not fits(plain) and fits(aware)
    with pytest.raises(ValueError, match="frame_queries needs each row's frame"):
        aware.predict((docs, rows, options))

    model = scorer(frame_queries=True)
    model.initialize(X=(docs, rows, options))
    model.set_param("frame_query", numpy.random.default_rng(6).normal(0, 0.3, (8, 8)).astype("f"))
    weights = numpy.random.default_rng(7).normal(size=(4, 3)).astype("f")

    def objective():
        (scores, _, _), backprop = model.begin_update((docs, rows, options, None, frames))
        return float((scores * weights).sum()), backprop

    value, backprop = objective()
    backprop((weights, None, None))
    for name, index in [("frame_query", (1, 2)), ("frame_no_fe", (3, 4)), ("no_fe", (2,)), ("fe_map", (0, 5))]:
        analytic = float(model.get_grad(name)[index])
        param = model.get_param(name)
        param[index] += 1e-3
        bumped, _ = objective()
        param[index] -= 1e-3
        assert analytic == pytest.approx((bumped - value) / 1e-3, abs=5e-3, rel=0.05), (name, index)


def test_option_groups_merge_equal_options_into_contiguous_blocks():
    from frames_lab.fe_research.options import option_groups

    first, same, other = [0, 1, 2], [0, 1, 2], [0, 3]
    options = [first, first, other, same, other, first]
    kept = numpy.array([0, 1, 2, 3, 5])  # row 4 pruned
    plan, order = option_groups(options, kept, numpy.zeros(6, dtype="int64"))
    assert sorted(order.tolist()) == list(range(len(kept)))
    blocks = {tuple(opts.tolist()): sorted(kept[order[a:b]].tolist()) for opts, _, (a, b) in plan}
    assert blocks == {(0, 1, 2): [0, 1, 3, 5], (0, 3): [2]}
    # with frame-aware queries the same options under two frames are two groups
    plan, _ = option_groups(options, kept, numpy.array([0, 1, 0, 0, 0, 0]))
    assert sorted((tuple(opts.tolist()), frame) for opts, frame, _ in plan) == [
        ((0, 1, 2), 0),
        ((0, 1, 2), 1),
        ((0, 3), 0),
    ]
    with pytest.raises(ValueError, match="no-FE option"):
        option_groups([[1, 2]], numpy.array([0]), numpy.zeros(1, dtype="int64"))


def test_option_scores_are_each_kept_rows_cosine_with_its_options():
    from frames_lab.fe_research.model import fe_table_node, option_scores

    options_node = fe_table_node(initialized())
    first, other = [0, 1, 2, 3], [0, 4]
    options = [first, other, first, [0, 4], first]
    kept = numpy.array([0, 1, 3, 4])  # row 2 pruned
    spans = numpy.random.default_rng(0).normal(size=(len(kept), options_node.get_dim("nD"))).astype("f")
    spans /= numpy.linalg.norm(spans, axis=1, keepdims=True)
    (scores, mask), _ = option_scores(options_node, spans, options, kept, None, 4)
    table = numpy.concatenate(
        [options_node.get_param("no_fe")[None], options_node.get_param("fe_vectors") @ options_node.get_param("fe_map")]
    )
    table /= numpy.linalg.norm(table, axis=1, keepdims=True)
    for k, row in enumerate(kept):
        n = len(options[row])
        numpy.testing.assert_allclose(scores[row, :n], table[options[row]] @ spans[k], rtol=1e-5, atol=1e-6)
        assert mask[row].tolist() == [1.0] * n + [0.0] * (4 - n)
    assert not mask[2].any() and not scores[2].any()


def test_the_pruner_from_tokens_equals_the_pruner_on_pooled_spans(monkeypatch):
    """span_pruner.forward_from_tokens (prefix sums over the tokens, the span-target product
    in blocks of targets) gives forward's scores on the mean-pooled spans, and the same
    gradients to the tokens and to every parameter."""
    from frames_lab.fe_research import span_pruner
    from thinc.api import Model

    monkeypatch.setattr(span_pruner, "TARGET_BLOCK", 2)  # three targets: two blocks
    rng = numpy.random.default_rng(3)
    n_tokens, width, n_feats = 14, 5, 3
    tokens = rng.normal(size=(n_tokens, width)).astype("f")
    rows = numpy.array(
        [(t0, t1, s0, s1) for t0, t1 in ((2, 3), (6, 8), (11, 12)) for s0 in range(n_tokens) for s1 in (s0 + 1, s0 + 3)]
    )
    rows = rows[rows[:, 3] <= n_tokens]
    groups = numpy.unique(rows[:, 0], return_inverse=True)[1].reshape(-1)
    feats = rng.normal(size=(len(rows), n_feats)).astype("f")
    d_scores = rng.normal(size=len(rows)).astype("f")
    for endpoints in (True, False):
        model = Model("pruner", lambda *a: None, attrs={"endpoints": endpoints})
        span_pruner.init_params(model, width, 4 if endpoints else 2, n_feats)
        model.set_param("prune_v", rng.normal(size=n_feats).astype("f"))
        # the reference: forward on the pooled distinct spans, the gradient spread over their tokens
        groups_of = [rows[:, 2:], rows[:, :2]] + (
            [numpy.c_[rows[:, 2], rows[:, 2] + 1], numpy.c_[rows[:, 3] - 1, rows[:, 3]]] if endpoints else []
        )
        spans, inverse = numpy.unique(numpy.concatenate(groups_of), axis=0, return_inverse=True)
        pooled = numpy.stack([tokens[a:b].mean(axis=0) for a, b in spans]).astype("f")
        idx = list(inverse.reshape(len(groups_of), len(rows)))
        expected, bp = span_pruner.forward(model, pooled, idx, feats)
        d_pooled = numpy.zeros_like(pooled)
        bp(d_scores, d_pooled)
        d_expected = numpy.zeros_like(tokens)
        for (a, b), d in zip(spans, d_pooled):
            d_expected[a:b] += d / (b - a)
        grads = {name: model.get_grad(name).copy() for name in ("prune_W", "prune_v", "prune_b")}
        for name in grads:
            model.set_grad(name, numpy.zeros_like(grads[name]))
        scores, bp_tokens = span_pruner.forward_from_tokens(model, tokens, rows, groups, feats, is_train=True)
        numpy.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-5)
        numpy.testing.assert_allclose(
            span_pruner.forward_from_tokens(model, tokens, rows, groups, feats, is_train=False)[0],
            expected,
            rtol=1e-5,
            atol=1e-5,
        )
        d_tokens = numpy.zeros_like(tokens)
        bp_tokens(d_scores, d_tokens)
        numpy.testing.assert_allclose(d_tokens, d_expected, rtol=1e-4, atol=1e-5)
        for name, grad in grads.items():
            numpy.testing.assert_allclose(model.get_grad(name), grad, rtol=1e-4, atol=1e-4)


def test_distinct_spans_are_numpy_unique_of_the_span_codes():
    """The table over (start, length) and, for a table too large, the sort it falls back on
    give numpy.unique's distinct spans and inverse."""
    from frames_lab.fe_research.features import distinct_spans

    rng = numpy.random.default_rng(0)
    for n, longest in ((40, 5), (5000, 3000), (1, 1)):
        starts = rng.integers(0, n, 300)
        ends = starts + rng.integers(0, longest, 300)
        codes, inverse = numpy.unique(starts * (ends.max() + 1) + ends, return_inverse=True)
        span_starts, span_ends, index = distinct_spans(starts, ends)
        assert span_starts.tolist() == (codes // (ends.max() + 1)).tolist()
        assert span_ends.tolist() == (codes % (ends.max() + 1)).tolist()
        assert index.tolist() == inverse.reshape(-1).tolist()
    assert [len(a) for a in distinct_spans(numpy.zeros(0), numpy.zeros(0))] == [0, 0, 0]


def test_pos_one_hots_read_the_spans_edges_and_neighbours():
    from frames_lab.fe_research.features import N_POS, UPOS, pos_one_hots

    nlp = spacy.blank("en")
    doc = nlp("She gave a loan .")
    for token, pos in zip(doc, "PRON VERB DET NOUN PUNCT".split()):
        token.pos_ = pos
    untagged = nlp("no tags")
    rows = [[(1, 2, 2, 4), (1, 2, 0, 1)], [(0, 1, 1, 2)]]
    feats = pos_one_hots([doc, untagged], rows).dense()
    assert feats.shape == (3, N_POS)
    width = len(UPOS) + 1

    def columns(row):
        return [(int(c) // width, UPOS[int(c) % width]) for c in numpy.flatnonzero(row)]

    # "a loan": first DET, last NOUN, before it VERB, after it PUNCT; "She": nothing before it
    assert columns(feats[0]) == [(0, "DET"), (1, "NOUN"), (2, "VERB"), (3, "PUNCT")]
    assert columns(feats[1]) == [(0, "PRON"), (1, "PRON"), (3, "VERB")]
    assert not feats[2].any()  # a doc without tags

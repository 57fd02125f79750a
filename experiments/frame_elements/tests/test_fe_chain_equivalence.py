"""The product's frame_elements model (spacy-frames.FrameElementScorer.v3, a chain of three
layers) is the research model (frames-lab.FrameElementScorer.v1) at the settings
en_frames_trf ships: with the same parameters, the same scores, the same gradients of every
parameter (the shared token encoder's included) and the same predictions."""

import numpy
import pytest
from fe_toy import toy_tok2vec
from frames_lab.fe_research import model as research
from syntax_toy import tiny_syntax_nlp
from thinc.api import fix_random_seed

from spacy_frames.ml.fe_options import set_fe_vectors
from spacy_frames.ml.frame_elements import FECandidates, build_frame_element_scorer, option_mask

# per target: its rows (target start, end, span start, end) and its options
BATCH = [
    ("The bank gave a loan to the farmer .", [((2, 3), [(0, 2), (3, 5), (5, 8), (8, 9), (2, 3)], [0, 1, 2, 3])]),
    ("She bought it .", [((1, 2), [(0, 1), (2, 3)], [0, 4, 5])]),
    (
        "They said he left early and she bought it .",
        [
            ((1, 2), [(0, 1), (2, 5)], [0, 4, 5]),
            ((3, 4), [(2, 3), (4, 5)], [0, 1, 6]),
            ((8, 9), [(7, 8), (9, 10)], [0, 4, 5]),
        ],
    ),
]


def both_models():
    nlp = tiny_syntax_nlp()  # parsed docs: the syntax features vary
    docs, rows, sizes, options = [], [], [], []
    for text, targets in BATCH:
        docs.append(nlp(text))
        rows.append(numpy.array([(t[0], t[1], s, e) for t, spans, _ in targets for s, e in spans]))
        sizes += [len(spans) for _, spans, _ in targets]
        options += [numpy.array(opts) for _, _, opts in targets]
    X = FECandidates(docs, rows, numpy.array(sizes), options)
    row_options = [list(opts) for opts, n in zip(options, sizes) for _ in range(n)]
    fix_random_seed(0)
    tok2vec = toy_tok2vec()
    old = research.build_frame_element_scorer(
        tok2vec, hidden_width=16, dropout=0.0, learn_fe_vectors=True, token_width=12, on_target=True
    )
    fe_vectors = numpy.random.default_rng(0).normal(size=(6, 8)).astype("f")
    research.set_fe_vectors(old, fe_vectors)
    old.initialize(X=(docs, rows, row_options))
    new = build_frame_element_scorer(tok2vec, hidden_width=16, token_width=12, query_width=8, dropout=0.0)
    set_fe_vectors(new.get_ref("options"), fe_vectors)
    new.initialize(X=X)
    # the research model's layers: [pooler, span MLP, projection]; the FE table is its own
    _, old_mlp, old_projection = old.layers
    weighted = [node for node in old_mlp.walk() if node.has_param("W")]
    new_weighted = [node for node in new.get_ref("span_vectors").walk() if node.has_param("W")]
    for a, b in [*zip(weighted, new_weighted), (old_projection, new.layers[0].layers[1])]:
        for name in ("W", "b"):
            b.set_param(name, a.get_param(name).copy())
    for name in ("fe_map", "no_fe"):
        new.get_ref("options").set_param(name, old.get_param(name).copy())
    return old, new, (docs, rows, row_options), X


def gradients(model, tables):
    """Every parameter's gradient: the FE table's by name, the others in walk order."""
    out = {}
    for node in model.walk():
        for name in node.param_names:
            if node.has_grad(name):
                key = name if node in tables else f"{node.name}.{name}"
                out.setdefault(key, []).append(node.get_grad(name).copy())
    return out


@pytest.mark.slow
def test_the_product_chain_gives_the_research_models_numbers_at_the_shipped_settings():
    old, new, old_input, X = both_models()
    (old_scores, old_mask, _), old_backprop = old.begin_update(old_input)
    new_scores, new_backprop = new.begin_update(X)
    mask = option_mask(new.ops, X, new_scores.shape[1])
    numpy.testing.assert_array_equal(old_mask, mask)
    numpy.testing.assert_allclose(old_scores, new_scores, atol=1e-6)
    d_scores = numpy.random.default_rng(1).normal(size=new_scores.shape).astype("f") * mask
    old_backprop((d_scores, None, None))
    old_grads = gradients(old, {old})
    for node in old.walk():  # the token encoder is shared: its gradients start again from zero
        for name in node.param_names:
            if node.has_grad(name):
                node.set_grad(name, node.ops.alloc(node.get_grad(name).shape))
    new_backprop(d_scores)
    new_grads = gradients(new, {new.get_ref("options")})
    assert set(old_grads) == set(new_grads) and {"fe_vectors", "fe_map", "no_fe"} <= set(new_grads)
    for key, arrays in old_grads.items():
        for a, b in zip(sorted(arrays, key=numpy.shape), sorted(new_grads[key], key=numpy.shape)):
            numpy.testing.assert_allclose(a, b, atol=1e-5, err_msg=key)
    numpy.testing.assert_allclose(old.predict(old_input)[0], new.predict(X), atol=1e-5)

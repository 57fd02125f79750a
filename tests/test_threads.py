"""spacy-frames.numpy_blas.v1: thinc's CPU layers multiply through numpy's BLAS."""

import numpy
import spacy
from spacy.training import Example
from spacy.util import registry
from thinc.api import NumpyOps, Ops


def tagged_pipeline():
    nlp = spacy.blank("en")
    tagger = nlp.add_pipe("tagger")
    words, tags = ["I", "like", "green", "eggs"], ["N", "V", "J", "N"]
    examples = [Example.from_dict(nlp.make_doc(" ".join(words)), {"words": words, "tags": tags})]
    for tag in set(tags):
        tagger.add_label(tag)
    nlp.initialize(lambda: examples)
    return nlp


def test_numpy_blas_keeps_the_numbers_and_switches_only_cpu_numpy_ops():
    nlp = tagged_pipeline()
    texts = ["I like green eggs", "green eggs I like a lot"]
    scores_before = nlp.get_pipe("tagger").model.predict([nlp(t) for t in texts])
    other = Ops()  # a layer on other ops (a GPU's, in use) keeps them
    nlp.get_pipe("tagger").model.layers[-1].ops = other
    callback = registry.callbacks.get("spacy-frames.numpy_blas.v1")()
    assert callback(nlp) is nlp
    nodes = list(nlp.get_pipe("tagger").model.walk())
    assert any(isinstance(node.ops, NumpyOps) for node in nodes)
    assert all(node.ops is other or (isinstance(node.ops, NumpyOps) and not node.ops.use_blis) for node in nodes)
    nlp.get_pipe("tagger").model.layers[-1].ops = nodes[0].ops
    scores_after = nlp.get_pipe("tagger").model.predict([nlp(t) for t in texts])
    assert len(scores_after) == len(texts)
    for a, b in zip(scores_before, scores_after):
        numpy.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_numpy_blas_in_a_config_survives_saving(tmp_path):
    nlp = tagged_pipeline()
    config = nlp.config.copy()
    config["nlp"]["after_pipeline_creation"] = {"@callbacks": "spacy-frames.numpy_blas.v1"}
    rebuilt = spacy.util.load_model_from_config(config, auto_fill=True)
    rebuilt.get_pipe("tagger").from_bytes(nlp.get_pipe("tagger").to_bytes())
    rebuilt.to_disk(tmp_path / "tagged")
    loaded = spacy.load(tmp_path / "tagged")
    assert all(not node.ops.use_blis for node in loaded.get_pipe("tagger").model.walk())
    assert [t.tag_ for t in loaded("I like green eggs")] == [t.tag_ for t in nlp("I like green eggs")]

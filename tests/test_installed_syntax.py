"""installed_syntax: an installed spaCy pipeline's tags, lemmas, sentences and parse (here the
tiny syntax pipeline the tests build, by path, in en_core_web_sm's place)."""

import pytest
import spacy
from syntax_toy import tiny_syntax_nlp, tiny_syntax_path

from spacy_frames.ml.threads import thinc_models

TEXTS = ["She gave him a book. Then he read it over the weekend.", "The bank gave a loan to the farmer."]
ANNOTATIONS = ("tag_", "pos_", "lemma_", "dep_", "is_sent_start")


def annotations(doc):
    return [(*(getattr(t, a) for a in ANNOTATIONS), t.head.i) for t in doc]


def syntax_nlp(**config):
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "installed_syntax", name="syntax", config={"package": str(tiny_syntax_path()), "version": None, **config}
    )
    return nlp


def test_gives_the_installed_pipelines_annotations():
    nlp = syntax_nlp()
    nlp.initialize()
    reference = tiny_syntax_nlp()
    for text in TEXTS:
        assert annotations(nlp(text)) == annotations(reference(text))
    assert [annotations(d) for d in nlp.pipe(TEXTS, batch_size=1)] == [annotations(nlp(t)) for t in TEXTS]


def test_saves_no_weights_and_loads_the_package_again(tmp_path):
    nlp = syntax_nlp()
    nlp.to_disk(tmp_path / "p")
    assert not any((tmp_path / "p" / "syntax").iterdir())
    loaded = spacy.load(tmp_path / "p")
    assert [annotations(loaded(t)) for t in TEXTS] == [annotations(nlp(t)) for t in TEXTS]


def test_empty_long_and_n_process_docs():
    nlp = syntax_nlp()
    assert len(nlp("")) == 0
    long_doc = nlp(" ".join([TEXTS[1]] * 400))
    assert len(list(long_doc.sents)) >= 2 and long_doc.has_annotation("DEP")
    assert [annotations(d) for d in nlp.pipe(TEXTS, n_process=2)] == [annotations(nlp(t)) for t in TEXTS]


def test_a_missing_package_says_how_to_install_it():
    with pytest.raises(OSError, match="python -m spacy download no_such_pipeline_sm"):
        syntax_nlp(package="no_such_pipeline_sm")


def test_bad_components_and_other_versions():
    with pytest.raises(ValueError, match="has no component \\['ner'\\]"):
        syntax_nlp(components=["tok2vec", "ner"])
    with pytest.warns(UserWarning, match="trained with >=9.0"):
        syntax_nlp(version=">=9.0")
    # only the components asked for run: without the parser no dependency parse
    doc = syntax_nlp(components=["tok2vec", "tagger", "attribute_ruler", "lemmatizer"])(TEXTS[1])
    assert doc.has_annotation("TAG") and not doc.has_annotation("DEP")


def test_numpy_blas_reaches_the_installed_pipelines_layers(tmp_path):
    """en_frames_trf's `spacy-frames.numpy_blas.v1` switches the installed pipeline's thinc
    layers too (its tok2vec is the largest of them), in a built and in a loaded pipeline,
    and the annotations stay the same."""
    nlp = syntax_nlp()
    before = [annotations(nlp(t)) for t in TEXTS]
    inner = list(thinc_models(nlp.get_pipe("syntax")))
    assert inner and any(node.ops.use_blis for model in inner for node in model.walk())
    config = nlp.config.copy()
    config["nlp"]["after_pipeline_creation"] = {"@callbacks": "spacy-frames.numpy_blas.v1"}
    spacy.util.load_model_from_config(config, auto_fill=True).to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    inner = list(thinc_models(loaded.get_pipe("syntax")))
    assert inner and all(not node.ops.use_blis for model in inner for node in model.walk())
    assert [annotations(loaded(t)) for t in TEXTS] == before

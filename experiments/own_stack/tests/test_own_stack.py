"""The study's tagger and senter heads (configs/tagger_senter_head.cfg) on the tiny shared
transformer: they overfit a toy FrameNet-style corpus, split a document without a
trailing period, give lemmas through the attribute_ruler and rule lemmatizer, and
round-trip."""

from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_frames.extensions import install_extensions

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "tagger_senter_head.cfg"
DOCUMENTS = [
    [("The dog barked .", "DT NN VBD ."), ("It ran away .", "PRP VBD RB ."), ("We laughed", "PRP VBD")],
    [("Rain fell .", "NN VBD ."), ("She has been working .", "PRP VBZ VBN VBG ."), ("It is late", "PRP VBZ JJ")],
]


def write_documents(path: Path, vocab) -> Path:
    install_extensions()
    docs = []
    for d, document in enumerate(DOCUMENTS):
        for s, (words, tags) in enumerate(document):
            doc = Doc(vocab, words=words.split(), tags=tags.split())
            doc.user_data["framenet"] = {"doc": f"doc{d}.xml", "sentence_id": 10 * d + s}
            docs.append(doc)
    DocBin(attrs=["ORTH", "TAG"], docs=docs, store_user_data=True).to_disk(path)
    return path


def toy_overrides(transformer_dir: Path, corpus: Path) -> dict:
    """The study config on the tiny transformer and the toy documents (train and dev)."""
    return {
        "paths.transformer": str(transformer_dir),
        "paths.train": str(corpus),
        "paths.dev": str(corpus),
        "paths.exemplars": None,
        "variables.max_exemplars": 0,
    }


def initialized(config_path: Path, overrides: dict):
    """The pipeline of a study config, initialized on its training corpus (not trained)."""
    config = spacy.util.load_config(config_path, overrides=overrides, interpolate=True)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize(lambda: spacy.util.registry.resolve(config["corpora"])["train"](nlp))
    return nlp


@pytest.fixture(scope="module")
def trained_heads(transformer_dir, tmp_path_factory):
    from spacy.cli.train import train

    out = tmp_path_factory.mktemp("own_stack")
    corpus = write_documents(out / "train.spacy", spacy.blank("en").vocab)
    overrides = {
        **toy_overrides(transformer_dir, corpus),
        "training.max_steps": 120,
        "training.eval_frequency": 40,
        "training.optimizer.learn_rate.warmup_steps": 5,
        "training.optimizer.learn_rate.initial_rate": 0.01,
    }
    config = spacy.util.load_config(CONFIG, overrides=overrides)
    config.to_disk(out / "config.cfg")
    train(out / "config.cfg", out / "model")
    return out / "model" / "model-last"


def test_heads_overfit_the_toy_documents_and_split_without_a_trailing_period(trained_heads):
    nlp = spacy.load(trained_heads)
    doc = nlp("The dog barked . It ran away . We laughed")
    assert [t.tag_ for t in doc] == "DT NN VBD . PRP VBD RB . PRP VBD".split()
    assert [s.text for s in doc.sents] == ["The dog barked .", "It ran away .", "We laughed"]
    late = nlp("Rain fell . She has been working . It is late")
    assert [(t.pos_, t.lemma_) for t in late[4:7]] == [("AUX", "have"), ("AUX", "be"), ("VERB", "work")]
    assert [t.lemma_ for t in late if t.text == "is"] == ["be"]


def test_heads_round_trip_and_pipe_equals_call(trained_heads, tmp_path):
    nlp = spacy.load(trained_heads)
    texts = ["The dog barked . It ran away .", "", "Rain fell . " * 80]
    view = [[(t.tag_, t.pos_, t.lemma_, t.is_sent_start) for t in nlp(text)] for text in texts]
    assert [[(t.tag_, t.pos_, t.lemma_, t.is_sent_start) for t in doc] for doc in nlp.pipe(texts)] == view
    nlp.to_disk(tmp_path / "copy")
    again = spacy.load(tmp_path / "copy")
    assert [[(t.tag_, t.pos_, t.lemma_, t.is_sent_start) for t in again(text)] for text in texts] == view
    assert again.pipe_names == ["transformer", "tagger", "senter", "attribute_ruler", "lemmatizer"]


def test_the_sentencizer_in_the_senters_place_splits_without_a_trailing_period(transformer_dir, tmp_path):
    """train-tagger-head's pipeline: the same config with the rule-based sentencizer."""
    pipeline = ["transformer", "tagger", "sentencizer", "attribute_ruler", "lemmatizer"]
    corpus = write_documents(tmp_path / "train.spacy", spacy.blank("en").vocab)
    nlp = initialized(CONFIG, {**toy_overrides(transformer_dir, corpus), "nlp.pipeline": pipeline})
    assert nlp.pipe_names == pipeline
    doc = nlp("Rain fell . She has been working ! Is it late ? We laughed")
    assert [s.text for s in doc.sents] == ["Rain fell .", "She has been working !", "Is it late ?", "We laughed"]


def test_sentence_starts_that_no_punctuation_marks_are_counted():
    from evaluate_sentences import starts_after_no_punct
    from spacy.training import Example

    vocab = spacy.blank("en").vocab
    words = "Headline Here The dog barked . It ran".split()
    starts = [True, False, True, False, False, False, True, False]
    reference = Doc(vocab, words=words, sent_starts=starts)
    assert starts_after_no_punct([Example(Doc(vocab, words=words), reference)]) == 1


@pytest.mark.parametrize("project_to", [0, 16])
def test_the_window_head_config_listens_through_a_window_layer(transformer_dir, tmp_path, project_to):
    """train-tagger-window's config: the listener, (a projection,) a maxout window, the tagger."""
    from window_head_config import PIPELINE
    from window_head_config import main as window_config

    window_config(CONFIG, tmp_path / "window.cfg", width=64, project_to=project_to)
    corpus = write_documents(tmp_path / "train.spacy", spacy.blank("en").vocab)
    nlp = initialized(tmp_path / "window.cfg", toy_overrides(transformer_dir, corpus))
    assert nlp.pipe_names == PIPELINE
    names = [node.name for node in nlp.get_pipe("tagger").model.walk()]
    assert "transformer-listener" in names and any("maxout" in name for name in names)
    assert ("linear" in names) == bool(project_to)
    doc = nlp("The dog barked . We laughed")
    assert all(t.tag_ for t in doc) and [s.text for s in doc.sents] == ["The dog barked .", "We laughed"]


def test_assemble_own_stack_puts_the_heads_on_the_pipelines_transformer(trained_heads, transformer_dir, tmp_path):
    """assemble-own-stack: the pipeline's tagger, attribute_ruler and lemmatizer replaced by
    the heads' (listening to the pipeline's own transformer), the sentencizer first."""
    from assemble_own_stack import assemble

    corpus = write_documents(tmp_path / "train.spacy", spacy.blank("en").vocab)
    pipeline = ["transformer", "tagger", "attribute_ruler", "lemmatizer"]
    base = initialized(CONFIG, {**toy_overrides(transformer_dir, corpus), "nlp.pipeline": pipeline})
    base.to_disk(tmp_path / "base")  # its tagger untrained
    assemble(tmp_path / "base", trained_heads, tmp_path / "own")
    own, heads = spacy.load(tmp_path / "own"), spacy.load(trained_heads)
    assert own.pipe_names == ["sentencizer", *pipeline]
    text = "Rain fell . She has been working . It is late"
    doc = own(text)
    assert [(t.tag_, t.lemma_) for t in doc] == [(t.tag_, t.lemma_) for t in heads(text)]
    assert [s.text for s in doc.sents] == ["Rain fell .", "She has been working .", "It is late"]


def test_assemble_own_stack_refuses_heads_of_another_transformer(trained_heads, transformer_dir, tmp_path):
    import torch
    from assemble_own_stack import assemble

    corpus = write_documents(tmp_path / "train.spacy", spacy.blank("en").vocab)
    base = initialized(CONFIG, {**toy_overrides(transformer_dir, corpus), "nlp.pipeline": ["transformer", "tagger"]})
    shim = next(s for node in base.get_pipe("transformer").model.walk() for s in node.shims)
    with torch.no_grad():
        next(shim._model.parameters()).add_(1.0)
    base.to_disk(tmp_path / "base")
    with pytest.raises(ValueError, match="another transformer"):
        assemble(tmp_path / "base", trained_heads, tmp_path / "own")
    assert not (tmp_path / "own").exists()

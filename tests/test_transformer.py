"""The shared transformer pipeline (configs/test twin on a tiny random BERT)."""

import shutil

import numpy
import pytest
import spacy
from conftest import TEST_CONFIG_DIR
from spacy.util import make_tempdir

from spacy_frames.ml.transformer import EncoderNotFoundError, check_encoder


def test_transformer_pipeline_runs(transformer_nlp):
    doc = transformer_nlp("The committee decided to postpone the vote.")
    trf = doc._.trf_data
    assert trf.model_output.last_hidden_state.shape[-1] == 64
    assert len(trf.align) == len(doc)


def test_empty_and_long_docs(transformer_nlp):
    empty = transformer_nlp("")
    assert len(empty) == 0
    text = " ".join(["The committee decided to postpone the vote ."] * 300)  # 2,400 words
    doc = transformer_nlp(text)
    # strided windows cover every token of a document far longer than the model's 128 positions
    assert len(doc._.trf_data.align) == len(doc) == 2400
    assert all(len(doc._.trf_data.align[i].data) > 0 for i in range(len(doc)) if doc[i].text.isalpha())


def test_windows_longer_than_the_positions_are_cut(transformer_nlp):
    """Regression: the tiny BERT's tokenizer has no model_max_length (1e30) and 128
    positions; a 32-token window of punctuation or URL pieces is hundreds of wordpieces
    and crashed in the position embeddings until spacy-frames.TransformerModel.v1 capped it."""
    positions = transformer_nlp.get_pipe("transformer").model.transformer.config.max_position_embeddings
    for text in ["!?" * 400, "See https://example.com/" + "a/b-c_" * 600 + " now."]:
        doc = transformer_nlp(text)
        assert len(doc._.trf_data.align) == len(doc)
        assert doc._.trf_data.wordpieces.input_ids.shape[1] <= positions


def token_vectors(doc):
    """Mean wordpiece vector per token (independent of padding within a batch)."""
    trf = doc._.trf_data
    hidden = trf.model_output.last_hidden_state
    flat = hidden.reshape(-1, hidden.shape[-1])
    return numpy.array([flat[trf.align[i].data.flatten()].mean(0) for i in range(len(doc))])


def test_pipe_equals_call(transformer_nlp):
    texts = ["She gave him a book.", "Prices rose sharply.", ""]
    piped = list(transformer_nlp.pipe(texts, batch_size=2))
    for text, doc in zip(texts, piped):
        single = transformer_nlp(text)
        assert [t.text for t in doc] == [t.text for t in single]
        if len(doc):
            numpy.testing.assert_allclose(token_vectors(doc), token_vectors(single), atol=1e-4)


def test_saved_pipeline_loads_without_encoder_asset(tiny_bert, tmp_path):
    """A trained/packaged pipeline carries its weights: the encoder asset may be gone."""
    encoder = tmp_path / "encoder"
    shutil.copytree(tiny_bert, encoder)
    config = spacy.util.load_config(TEST_CONFIG_DIR / "transformer.cfg", overrides={"paths.encoder": str(encoder)})
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    expected = nlp("Prices rose sharply.")._.trf_data.model_output.last_hidden_state
    with make_tempdir() as d:
        nlp.to_disk(d)
        shutil.rmtree(encoder)
        reloaded = spacy.load(d)
    got = reloaded("Prices rose sharply.")._.trf_data.model_output.last_hidden_state
    assert got.shape == expected.shape
    assert abs(got - expected).max() < 1e-5


def test_wrong_encoder_path_fails_clearly_at_initialize(tmp_path):
    config = spacy.util.load_config(
        TEST_CONFIG_DIR / "transformer.cfg", overrides={"paths.encoder": str(tmp_path / "no-such-encoder")}
    )
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    with pytest.raises(EncoderNotFoundError, match="no-such-encoder' does not exist.*project run assets"):
        nlp.initialize()


def test_check_encoder(tiny_bert, tmp_path, monkeypatch):
    assert check_encoder(str(tiny_bert)) == str(tiny_bert)
    incomplete = tmp_path / "incomplete"
    incomplete.mkdir()
    (incomplete / "config.json").write_text("{}")
    with pytest.raises(EncoderNotFoundError, match="incomplete: missing tokenizer files.*weights"):
        check_encoder(str(incomplete))
    with pytest.raises(EncoderNotFoundError, match="is a file"):
        check_encoder(str(incomplete / "config.json"))
    with pytest.raises(EncoderNotFoundError, match="empty"):
        check_encoder("")
    with pytest.raises(EncoderNotFoundError, match="does not exist"):
        check_encoder("assets/encoders/not-fetched")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    # hub ids pass through for users who have a hub, unless the hub is switched off
    assert check_encoder("sentence-transformers/all-MiniLM-L6-v2") == "sentence-transformers/all-MiniLM-L6-v2"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EncoderNotFoundError):
        check_encoder("sentence-transformers/all-MiniLM-L6-v2")


def test_text_encoder_loads_on_the_device_of_the_current_ops(tiny_bert, monkeypatch):
    """Regression (found on a GPU): the definition encoder's weights load on the CPU at
    initialize, after thinc's shim placed the (then empty) module; they must follow the
    device the current ops name, or the encoder hands numpy arrays to GPU layers. `meta`
    stands in for a GPU device here."""
    import thinc.util
    import torch

    from spacy_frames.ml.frame_identifier import build_definition_encoder

    monkeypatch.setattr(thinc.util, "get_torch_default_device", lambda: torch.device("meta"))
    encoder = build_definition_encoder(str(tiny_bert))
    encoder.initialize()
    module = encoder.layers[0].shims[0]._model
    assert {p.device.type for p in module.parameters()} == {"meta"}

"""Integration: the real all-MiniLM-L6-v2 asset in the production transformer config."""

import pytest
import spacy
from conftest import MINILM_DIR, ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (MINILM_DIR / "config.json").exists(), reason="MiniLM asset not fetched"),
]


@pytest.mark.slow
def test_minilm_transformer_pipeline():
    config = spacy.util.load_config(ROOT / "configs" / "transformer.cfg", overrides={"paths.encoder": str(MINILM_DIR)})
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    doc = nlp("The committee decided to postpone the vote after protesters blocked the entrance.")
    hidden = doc._.trf_data.model_output.last_hidden_state
    assert hidden.shape[-1] == 384
    # a 20,000-word document goes through the strided windows without error
    long_doc = nlp(" ".join(["Protesters blocked the entrance ."] * 4000))
    assert len(long_doc._.trf_data.align) == len(long_doc) == 20000

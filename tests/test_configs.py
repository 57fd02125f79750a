"""The shipped configs parse, and their test twins keep the same structure."""

import pytest
from conftest import ROOT, TEST_CONFIG_DIR
from spacy.util import load_config

CONFIGS = sorted((ROOT / "configs").glob("*.cfg"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_and_twin(path):
    config = load_config(path, interpolate=True)
    twin = load_config(TEST_CONFIG_DIR / path.name, interpolate=True)
    if "nlp" not in config:  # not a pipeline config (midtune.cfg): same sections and settings
        assert set(config) == set(twin) and all(set(config[k]) == set(twin[k]) for k in config)
        return
    assert config["nlp"]["pipeline"] == twin["nlp"]["pipeline"]
    assert set(config["components"]) == set(twin["components"])
    training = config["training"]
    if training.get("max_steps"):
        # the last step is evaluated, so model-best can be the final model (stage 2 starts from it)
        assert training["max_steps"] % training["eval_frequency"] == 0

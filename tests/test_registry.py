"""Every registered name resolves through its entry point, without user imports."""

import subprocess
import sys

import pytest
from test_imports import entry_points


@pytest.mark.slow
def test_entry_points_resolve_in_fresh_process():
    groups = {}
    for ep in entry_points():
        groups.setdefault(ep.group, []).append(ep.name)
    assert "spacy_architectures" in groups and "spacy_misc" in groups
    checks = []
    for group, names in groups.items():
        if group == "spacy_factories":
            checks += [f"assert spacy.Language.has_factory({n!r}), {n!r}" for n in names]
            continue
        namespace = group.split("_", 1)[1]  # spacy_misc -> misc, thinc_losses -> losses
        checks += [f"assert callable(registry.{namespace}.get({n!r})), {n!r}" for n in names]
    code = "import spacy\nspacy.blank('en')\nfrom spacy.util import registry\n" + "\n".join(checks)
    # a fresh process: nothing of spacy_frames imported by hand
    subprocess.run([sys.executable, "-c", code], check=True)


def test_transformer_architecture_in_config():
    from conftest import TEST_CONFIG_DIR
    from spacy.util import load_config, registry

    config = load_config(TEST_CONFIG_DIR / "transformer.cfg")
    assert config["components"]["transformer"]["model"]["@architectures"] == "spacy-frames.TransformerModel.v1"
    assert registry.architectures.get("spacy-frames.TransformerModel.v1")

"""The shipped configs parse, and their test twins are the same recipes, small: every
component block of a twin has the shipped block's keys and values, except sizes."""

import pytest
from conftest import ROOT, TEST_CONFIG_DIR
from spacy.util import load_config

CONFIGS = sorted((ROOT / "configs").glob("*.cfg"))

# The settings a twin may give another value than the shipped config, named by their last
# key wherever they sit in a block: sizes that make the tests train in seconds on CPU with
# the tiny random BERT (tests/conftest.py). Everything else is the shipped recipe.
SIZE_KEYS = {
    # widths of the trained heads (MediaFramer's hidden layer and USE projection,
    # FrameInducer's projection)
    "hidden_width",
    "use_projection",
    "projection_width",
    # frame_elements' widths: the pooled vectors' projection and the span and FE query vectors
    "token_width",
    "query_width",
    # the shared transformer's strided windows, in tokens: the tiny BERT reads at most 128
    # wordpieces, MiniLM 512
    "window",
    "stride",
    # midtune.cfg's [midtune] block: steps, sentences a batch, and sentences held out (of
    # the 8 toy parses, not 500)
    "max_steps",
    "batch_size",
    "held_out",
}


def blocks(config):
    """A config's recipe blocks by name: `[components.X]` and `[initialize.components.X]`,
    each with everything under it; a config without a pipeline (midtune.cfg): its sections
    but [paths]."""
    if "nlp" not in config:
        return {name: block for name, block in config.items() if name != "paths"}
    found = {f"components.{name}": block for name, block in config["components"].items()}
    initialize = config.get("initialize", {}).get("components", {})
    found.update({f"initialize.components.{name}": block for name, block in initialize.items()})
    return found


def settings(block, prefix=()):
    """(key path, value) of every setting in a block, its sub-blocks and inline tables."""
    for key, value in block.items():
        if isinstance(value, dict):
            yield from settings(value, (*prefix, key))
        else:
            yield (*prefix, key), value


def twin_differences(shipped_path, twin_path):
    """Where the twin's recipe blocks differ from the shipped ones, size keys aside, as
    "<block>.<key>: shipped <value>, twin <value>" lines. Configs are read uninterpolated and
    no registry is resolved, so `${paths.encoder}` matches `${paths.encoder}` whatever the
    path (every `${...}` in these blocks names a path). A sourced block (`source = ${paths.X}`,
    `replace_listeners`) is compared as written, where it comes from and how it is taken: its
    recipe is that of the config that trained it, compared there."""
    shipped = blocks(load_config(shipped_path, interpolate=False))
    twin = blocks(load_config(twin_path, interpolate=False))
    missing = "(missing)"
    lines = [
        f"[{name}]: only in the {'twin' if name in twin else 'shipped config'}"
        for name in sorted(set(shipped) ^ set(twin))
    ]
    for name in sorted(set(shipped) & set(twin)):
        if ("source" in shipped[name]) != ("source" in twin[name]):
            lines.append(f"[{name}]: sourced in the {'twin' if 'source' in twin[name] else 'shipped config'} only")
            continue
        ours, theirs = dict(settings(shipped[name])), dict(settings(twin[name]))
        for key in sorted(set(ours) | set(theirs)):
            a, b = ours.get(key, missing), theirs.get(key, missing)
            if a != b and not (key[-1] in SIZE_KEYS and missing not in (a, b)):
                lines.append(f"{name}.{'.'.join(key)}: shipped {a!r}, twin {b!r}")
    return lines


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


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_twin_components_are_the_shipped_recipe(path):
    differences = twin_differences(path, TEST_CONFIG_DIR / path.name)
    assert not differences, "\n".join(differences)


def test_twin_differences_name_every_recipe_change_but_sizes(tmp_path):
    shipped = ROOT / "configs" / "media_head.cfg"
    text = shipped.read_text()
    assert twin_differences(shipped, shipped) == []
    sizes = text.replace("hidden_width = 256", "hidden_width = 8")
    recipe = sizes.replace("threshold = 0.5", "threshold = 0.4").replace("dropout = 0.5\n", "")
    defined = recipe.replace("source = ${paths.transformer}", 'factory = "transformer"')
    (tmp_path / "media_head.cfg").write_text(defined)
    assert defined != recipe != sizes != text
    assert twin_differences(shipped, tmp_path / "media_head.cfg") == [
        "components.media_framer.model.dropout: shipped 0.5, twin '(missing)'",
        "components.media_framer.threshold: shipped 0.5, twin 0.4",
        "[components.transformer]: sourced in the shipped config only",
    ]

"""The frame_elements study's parse screen and suggester recall: every setting names
config keys that the study's research config (configs/frame_elements.cfg) or its
registered functions take, and the recall script counts the FEs on their own target."""

import inspect
import json
from pathlib import Path

import pytest
from syntax_toy import tiny_syntax_path

STUDY = Path(__file__).resolve().parents[1]  # experiments/frame_elements (configs/)


def test_every_screen_setting_is_a_valid_override():
    import fe_parse_screen
    import spacy
    from spacy.util import registry

    config = spacy.util.load_config(STUDY / "configs" / "frame_elements.cfg", interpolate=False)
    assert fe_parse_screen.CONFIG == STUDY / "configs" / "frame_elements.cfg"
    takes = {
        "components.frame_elements.model": registry.architectures.get("frames-lab.FrameElementScorer.v1"),
        "components.frame_elements.suggester": registry.misc.get("frames-lab.fe_candidate_suggester.v1"),
        "corpora.train": registry.readers.get("spacy-frames.FrameNetCorpus.v1"),
    }
    for name, setting in fe_parse_screen.SETTINGS.items():
        # a setting that names another registered function ("...suggester.@misc") is checked
        # against that function's parameters
        functions = dict(takes)
        for key, value in setting.items():
            block, _, leaf = key.rpartition(".")
            if leaf.startswith("@"):
                functions[block] = registry.get(leaf[1:], value)
        for key in setting:
            block, _, leaf = key.rpartition(".")
            if block in functions:
                assert leaf.startswith("@") or leaf in inspect.signature(functions[block]).parameters, f"{name}: {key}"
                continue
            node = config
            for part in key.split("."):
                assert part in node, f"{name}: {key} is not in configs/frame_elements.cfg"
                node = node[part]
    # equal steps except the two slope runs
    steps = {name: s["training.max_steps"] for name, s in fe_parse_screen.SETTINGS.items()}
    assert {n for n, v in steps.items() if v != 600} == {"baseline-300", "baseline-1200"}


def test_every_screen_setting_builds_the_research_component():
    """The research config with each setting's frame_elements overrides builds the
    component: what `spacy train` builds before it trains."""
    import fe_parse_screen
    import spacy

    for name, setting in fe_parse_screen.SETTINGS.items():
        overrides = {k: v for k, v in setting.items() if k.startswith(f"{fe_parse_screen.FE}.")}
        config = spacy.util.load_config(fe_parse_screen.CONFIG, overrides=overrides)
        block = dict(config["components"]["frame_elements"])
        assert block.pop("factory") == "frame_elements_research", name
        pipe = spacy.blank("en").add_pipe("frame_elements_research", name="frame_elements", config=block)
        for key, value in overrides.items():
            *path, leaf = key.split(".")[2:]
            if path == ["model"]:
                assert pipe.model.attrs.get(leaf, value) == value, (name, key)
            elif path == ["suggester"] and not leaf.startswith("@"):
                assert pipe.suggester.keywords[leaf] == value, (name, key)
            elif not path:
                assert pipe.cfg[leaf] == value, (name, key)


def test_every_product_head_builds_its_component_without_a_parser(tmp_path):
    """configs/fe_head_shipped.cfg is the shipped frame_elements block (head_lr_scale aside),
    and each product head's config, with its overrides, builds its component; the
    parse-free heads leave the parser out of the components, the pipeline and the frozen and
    annotating components, so `spacy train` never builds it."""
    import fe_parse_screen
    import spacy

    shipped = spacy.util.load_config(STUDY.parents[1] / "configs" / "frames_stage2_fe.cfg", interpolate=False)
    head = spacy.util.load_config(fe_parse_screen.SHIPPED_CONFIG, interpolate=False)
    expected = {**shipped["components"]["frame_elements"], "head_lr_scale": 1.0}
    assert head["components"]["frame_elements"] == expected
    for name, setting in fe_parse_screen.PRODUCT_HEADS.items():
        path = fe_parse_screen.head_config(name, tmp_path / name)
        overrides = {k: v for k, v in setting.items() if k not in fe_parse_screen.HEAD_KEYS}
        config = spacy.util.load_config(path, overrides=overrides)
        assert config["training"]["max_steps"] == 600, name
        named = config["nlp"]["pipeline"] + config["training"]["frozen_components"]
        named += config["training"]["annotating_components"] + list(config["components"])
        assert ("parser" in named) == setting.get("parser", True), name
        block = dict(config["components"]["frame_elements"])
        factory = block.pop("factory")
        assert factory == ("frame_elements_bio" if name == "token-tagger" else "frame_elements"), name
        block.pop("model")  # its listener needs the sourced transformer
        pipe = spacy.blank("en").add_pipe(factory, name="frame_elements", config=block)
        assert pipe.cfg["head_lr_scale"] == 1.0


@pytest.mark.slow
def test_suggester_recall_counts_the_fes_on_their_target(tmp_path):
    import fe_suggester_recall
    import spacy
    from spacy.tokens import DocBin
    from typer.testing import CliRunner

    from spacy_frames.extensions import FE_KEY, install_extensions, make_fe_span

    install_extensions()
    nlp = spacy.blank("en")
    doc = nlp("The new president resigned today .")
    target = doc.char_span(8, 17, label="Leadership")
    doc.spans["targets"] = [target]
    doc.spans[FE_KEY] = [make_fe_span(target, 2, 3, "Leader"), make_fe_span(target, 1, 2, "Descriptor")]
    (tmp_path / "c").mkdir()
    DocBin(docs=[doc], store_user_data=True).to_disk(tmp_path / "c" / "dev.spacy")
    out = tmp_path / "recall.json"
    result = CliRunner().invoke(
        fe_suggester_recall.app,
        [str(tmp_path / "c" / "dev.spacy"), "-o", str(out), "--parser", str(tiny_syntax_path())],
    )
    assert result.exit_code == 0, result.output
    found = json.loads(out.read_text())["corpora"]["c/dev.spacy"]
    assert found["gold_fes"] == 2 and found["gold_fes_on_target"] == 1
    by_setting = found["by_setting"]
    assert by_setting["4,30,True,0"]["recall"] == 50.0 and by_setting["4,30,True,0"]["on_target_recall"] == 0.0
    assert by_setting["4,30,True,0,target"]["recall"] == 100.0

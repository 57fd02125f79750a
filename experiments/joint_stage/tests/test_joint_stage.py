"""The joint-stage study's composed configs: the data schedule and discourse_sense as a
listener of the shared transformer, with the steps grown for the discourse words."""

import inspect

import pytest


@pytest.fixture
def fixed_words(monkeypatch):
    import joint_stage_experiment

    counts = {"spacy-frames.FrameNetCorpus.v1": 480_000, "spacy-frames.DiscourseCorpus.v1": 120_000}
    monkeypatch.setattr(joint_stage_experiment, "corpus_words", lambda reader: counts[reader["@readers"]])
    return joint_stage_experiment


def test_full_text_setting_changes_only_the_schedule(fixed_words):
    from spacy.util import load_config

    config, extent = fixed_words.composed_config(fixed_words.SETTINGS["full-text-x3"])
    shipped = load_config(fixed_words.STAGE2, interpolate=False)
    assert extent == {}
    assert config["corpora"]["train"]["full_text_repeats"] == 3
    assert config["nlp"]["pipeline"] == shipped["nlp"]["pipeline"]
    # the schedules are compared at 1,200 steps, the shipped stage trains 1,800
    assert config["training"]["max_steps"] == 1200 and config["training"]["eval_frequency"] == 300
    assert config["training"]["optimizer"]["learn_rate"]["warmup_steps"] == 60
    assert shipped["training"]["max_steps"] == 1800
    assert config["components"] == shipped["components"]


def test_steps_setting_changes_only_the_steps(fixed_words):
    from spacy.util import load_config

    config, extent = fixed_words.composed_config(fixed_words.SETTINGS["full-text-x3-steps1800"])
    shipped = load_config(fixed_words.STAGE2, interpolate=False)
    assert extent == {} and config["corpora"]["train"]["full_text_repeats"] == 3
    training = config["training"]
    # four evaluations, the last at the last step; the learning rate decays over the new steps
    assert training["max_steps"] == 1800 and training["eval_frequency"] == 450
    assert training["optimizer"]["learn_rate"]["warmup_steps"] == 90
    assert (
        training["optimizer"]["learn_rate"]["total_steps"]
        == shipped["training"]["optimizer"]["learn_rate"]["total_steps"]
    )
    # at 1,800 steps the setting is the shipped stage
    assert training == shipped["training"] and config["components"] == shipped["components"]
    assert config["system"]["seed"] == shipped["system"]["seed"] == 0
    reseeded, _ = fixed_words.composed_config(fixed_words.SETTINGS["full-text-x3-steps1800-seed1"])
    assert reseeded["system"]["seed"] == 1 and reseeded["training"] == config["training"]


def test_enumerate_setting_changes_only_the_candidates(fixed_words):
    from spacy.util import load_config

    config, extent = fixed_words.composed_config(fixed_words.SETTINGS["enumerate-prune-steps1800"])
    shipped = load_config(fixed_words.STAGE2, interpolate=False)
    assert extent == {} and config["training"] == shipped["training"]
    fe, shipped_fe = config["components"]["frame_elements"], shipped["components"]["frame_elements"]
    assert fe["suggester"]["max_ngram"] == 20 and fe["suggester"]["ngram_gap"] is None
    assert fe["model"]["prune_k"] == 40 and "prune_k" not in shipped_fe["model"]
    # the composed config is a valid one: it is written with the overrides
    text = config.to_str()
    assert "prune_k = 40" in text and "ngram_gap = null" in text
    for section in ("suggester", "model"):
        fe[section] = {k: v for k, v in fe[section].items() if k not in ("max_ngram", "ngram_gap", "prune_k")}
        shipped_fe[section] = {k: v for k, v in shipped_fe[section].items() if k not in ("max_ngram", "ngram_gap")}
    assert config["components"] == shipped["components"]


def test_the_stage_is_the_research_frame_elements_and_every_setting_builds_it(fixed_words):
    """The runs train the research frame_elements (frames_lab.fe_research): each frames
    setting's composed frame_elements block builds that component as configured."""
    import spacy

    assert fixed_words.STAGE2 == fixed_words.STUDY.parent / "frame_elements" / "configs" / "frames_stage2_fe.cfg"
    for name, setting in fixed_words.SETTINGS.items():
        config, _ = fixed_words.composed_config(setting)
        block = dict(config["components"]["frame_elements"])
        assert block.pop("factory") == "frame_elements_research", name
        assert block["model"]["@architectures"] == "frames-lab.FrameElementScorer.v1"
        pipe = spacy.blank("en").add_pipe("frame_elements_research", name="frame_elements", config=block)
        assert pipe.model.attrs["prune_k"] == setting.get("overrides", {}).get(
            "components.frame_elements.model.prune_k", 0
        )


def test_discourse_setting_adds_a_listener_and_mixed_batches(fixed_words):
    from spacy.util import registry
    from thinc.api import Config

    config, extent = fixed_words.composed_config(fixed_words.SETTINGS["full-text-x3+discourse"])
    assert config["nlp"]["pipeline"][-1] == "discourse_sense"
    component = config["components"]["discourse_sense"]
    assert component["separator"] == ""
    assert component["model"]["tok2vec"]["upstream"] == "transformer"
    assert component["model"]["tok2vec"]["grad_factor"] == 1.0
    train = config["corpora"]["train"]
    assert train["@readers"] == "spacy-frames.MixedCorpus.v1"
    assert train["repeats"] == {"discourse": 4}
    reader = registry.readers.get(train["corpora"]["discourse"]["@readers"])
    assert set(train["corpora"]["discourse"]) - {"@readers"} <= set(inspect.signature(reader).parameters)
    # 1,200 steps of 400 words cover the 480k FrameNet words once: GDTB's 120k words four
    # times on top, twice the steps
    assert extent["max_steps"] == config["training"]["max_steps"] == 2400
    assert extent["discourse_repeats"] == 4 and extent["discourse_epochs_seen"] == 4.0
    assert config["training"]["eval_frequency"] == 600
    assert all(config["training"]["score_weights"][k] is None for k in ("disc_l2_acc", "disc_l2_macro_f1"))
    # the composed config survives being written and read
    assert Config().from_str(config.to_str(), interpolate=False) == config


def test_report_table_has_a_row_per_run(fixed_words):
    shipped = {
        "fe_gold_frames_tuned": {"fe_os_f": 63.87},
        "checkpoint": {"frame_overall": 87.93, "frame_acc": 90.78},
        "discourse": {
            "gdtb_dev": {"l2": {"acc": 47.5, "macro_f1": 23.4}},
            "gdtb_test": {"l2": {"acc": 48.0, "macro_f1": 19.8}},
        },
        "timing": {"frames_stage2": {"minutes": 19.6}, "discourse_own_copy": {"minutes": 15.6}},
    }
    run = {
        "fe_gold_frames_tuned": {"fe_os_f": 65.0, "candidate_recall": 97.2, "kept_recall": 90.1},
        "fe_fn17_dev": {"fe_os_f": 64.5},
        "checkpoint": {"frame_overall": 88.0},
        "timing": {"minutes": 21.0},
    }
    own_copy = {"discourse": shipped.pop("discourse"), "timing": {"minutes": 15.6}}
    summary = fixed_words.summarize({"full-text-x1": shipped, "full-text-x3": run, "own-copy": own_copy})
    assert summary["table"][2] == "| full-text-x1 | 63.87 | – | – | 87.93 | 90.78 | – | – | 19.6+15.6 |"
    assert summary["table"][3] == "| full-text-x3 | 65.0 | 64.5 | 97.2 / 90.1 | 88.0 | – | – | – | 21.0 |"
    assert summary["table"][4] == "| own-copy | – | – | – | – | – | 47.5 / 23.4 | 48.0 / 19.8 | 15.6 |"

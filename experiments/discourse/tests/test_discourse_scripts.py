"""The discourse study's settings: every one names config keys that exist."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]  # the product (configs/)


def test_discourse_experiment_settings_are_valid_overrides():
    """Every setting of the ablation script names config keys that exist."""
    import discourse_experiment
    import spacy
    from frames_lab.runs import setting_args

    config = spacy.util.load_config(ROOT / "configs" / "discourse.cfg", interpolate=False)
    for name, setting in discourse_experiment.SETTINGS.items():
        for key in setting:
            node = config
            for part in key.split("."):
                assert part in node, f"{name}: {key} is not in configs/discourse.cfg"
                node = node[part]
    assert setting_args({"a.b": [1.0, 0.0]}) == ["--a.b", "[1.0, 0.0]"]
    # the ablations share one length; `packaged` keeps the config's (the main job's)
    ablations = {k: v for k, v in discourse_experiment.SETTINGS.items() if not k.startswith("packaged")}
    assert {s["training.max_steps"] for s in ablations.values()} == {600}
    # the main job's two candidates train at the same compute: 2 epochs with copies, 4 without;
    # the config is the CE one
    config = spacy.util.load_config(ROOT / "configs" / "discourse.cfg", interpolate=True)
    assert (
        discourse_experiment.SETTINGS["packaged-ce"]["training.max_steps"]
        == 2 * discourse_experiment.SETTINGS["packaged"]["training.max_steps"]
    )
    assert config["training"]["max_steps"] == discourse_experiment.SETTINGS["packaged-ce"]["training.max_steps"]
    assert (
        config["components"]["discourse_sense"]["contrastive_weight"] == 0.0
        and not config["corpora"]["train"]["augment"]
    )
    assert (
        config["components"]["discourse_sense"]["separator"]
        == config["corpora"]["train"]["separator"]
        == config["corpora"]["dev"]["separator"]
    )

"""project.yml: every workflow step is a command, and the main job trains every component."""

import srsly
from conftest import ROOT


def test_workflows_name_existing_commands_and_train_covers_the_pipeline():
    project = srsly.read_yaml(ROOT / "project.yml")
    commands = {command["name"] for command in project["commands"]}
    for name, steps in project["workflows"].items():
        missing = [step for step in steps if step not in commands]
        assert not missing, f"workflow {name} names unknown commands {missing}"
    train = project["workflows"]["train"]
    assert {
        "train-frames-stage1",
        "train-frames-stage2",
        "train-inducer",
        "fit-inducer-centroids",
        "assemble-frames-trf",
    } <= set(train)
    # the main job trains and assembles exactly what `train` does, then packages it
    main = project["workflows"]["all"]
    assert [step for step in main if step in train] == train
    assert main.index("assemble-frames-trf") < main.index("package")
    assert project["vars"]["pipeline"] == "training/frames_trf"


def test_weasel_loads_the_project_with_its_variables():
    """Variables are substituted into commands as JSON: a value with quotes breaks it."""
    from weasel.util import load_project_config

    config = load_project_config(ROOT)
    assert isinstance(config["commands"], list)
    assert all(isinstance(command, dict) for command in config["commands"])

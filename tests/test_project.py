"""project.yml: every workflow step is a command, and the main job trains every component."""

import pytest
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


STUDIES = sorted(path.parent for path in (ROOT / "experiments").glob("*/project.yml"))


def script_files(command):
    """The .py files a command's script lines run (relative to its project's folder)."""
    return [word for line in command["script"] for word in line.split() if word.endswith(".py")]


def test_the_root_project_is_the_product_and_its_scripts_exist():
    from weasel.util import load_project_config

    config = load_project_config(ROOT)
    assert len(config["commands"]) <= 29
    for command in config["commands"]:
        for path in script_files(command):
            assert (ROOT / path).exists(), f"{command['name']}: {path}"
    # the product runs no study: nothing under experiments/
    assert not any("experiments/" in line for command in config["commands"] for line in command["script"])


@pytest.mark.parametrize("study", STUDIES, ids=lambda path: path.name)
def test_every_study_project_loads_and_its_scripts_exist(study):
    """Each study is a weasel project of its own (run from its folder): it loads, its
    workflows name its commands, and the script files its commands run exist."""
    from weasel.util import load_project_config

    config = load_project_config(study)
    commands = {command["name"] for command in config["commands"]}
    for name, steps in config.get("workflows", {}).items():
        assert set(steps) <= commands, f"{study.name}: workflow {name} names unknown commands"
    for command in config["commands"]:
        for path in script_files(command):
            assert (study / path).resolve().exists(), f"{study.name} {command['name']}: {path}"


def test_the_studies_are_the_experiments():
    assert {path.name for path in STUDIES} >= {"frame_identification", "frame_induction", "discourse", "media_framing"}

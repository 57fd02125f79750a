"""`spacy-frames train-media`: a media_framer recipe's stages, thresholds, scores and run file,
in a project directory; the commands recorded, and once run for real on toy articles."""

import json
import shutil
from pathlib import Path

import pytest
import spacy
import srsly
from conftest import TEST_CONFIG_DIR
from media_toy import toy_articles
from spacy.tokens import DocBin
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.corpora.media_frames import article_doc
from spacy_frames.recipes import media

RUN_FILE = Path("metrics/media_framer/runs/headboth-multi-en-a0@test-en.json")


def corpus_langs(paths):
    return {Path(p).name.split("_")[0] for p in paths if str(p).endswith(".spacy")}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project directory as the working directory, every command the recipe runs
    recorded instead (spacy train leaves a model-last, evaluate-media a scores file)."""
    for path in ("corpus/media_frames", "training/frames_final"):
        (tmp_path / path).mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    commands = []

    def recorder(cmd, log, cwd=None):
        assert Path(cwd) == tmp_path.resolve()
        commands.append(cmd)
        if cmd[2:4] == ["spacy", "train"]:
            (Path(cmd[cmd.index("--output") + 1]) / "model-last").mkdir(parents=True, exist_ok=True)
        if "media-cache-body" in cmd:
            Path(cmd[cmd.index("-o") + 1]).parent.mkdir(parents=True, exist_ok=True)
            srsly.write_msgpack(cmd[cmd.index("-o") + 1], {})
        if "evaluate-media" in cmd:
            score = {"micro_f1": 0.5, "macro_f1": 0.25, "per_frame_f1": {}, "n": 3}
            srsly.write_json(cmd[cmd.index("-o") + 1], {"all": score, **{lang: score for lang in corpus_langs(cmd)}})
        return 1.0

    monkeypatch.setattr(media, "run_logged", recorder)
    return tmp_path, commands


def test_train_media_runs_the_packaged_recipe_and_writes_its_run_file(project):
    root, commands = project
    args = ["train-media", "headboth-multi-en-a0", "--test-langs", "en", "--configs", "cfgs", "--export", "final"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "headboth-multi-en-a0@test-en: test all micro 0.500, en micro 0.500" in result.output
    first, second = [c for c in commands if c[2:4] == ["spacy", "train"]]
    # phase one on every language, then English from phase one's model; both over frame_identifier's
    # transformer and USE, without the contrastive term
    assert first[4] == second[4] == "cfgs/media_both.cfg"
    assert corpus_langs(json.loads(first[first.index("--paths.train") + 1])) == set(media.LANGS)
    assert corpus_langs(json.loads(second[second.index("--paths.train") + 1])) == {"en"}
    assert "--paths.media_init" not in first
    assert (
        root / second[second.index("--paths.media_init") + 1] == Path(first[first.index("--output") + 1]) / "model-last"
    )
    for cmd in (first, second):
        assert cmd[cmd.index("--paths.transformer") + 1] == media.FRAMES
        assert cmd[cmd.index("--components.media_framer.contrastive_weight") + 1] == "0.0"
        assert corpus_langs(json.loads(cmd[cmd.index("--paths.dev") + 1])) == {"en"}
    (tune,) = [c for c in commands if "media-thresholds" in c]
    assert corpus_langs(tune) == {"en"}
    test = [c for c in commands if "evaluate-media" in c][-1]
    assert [Path(p).name for p in test if p.endswith(".spacy")] == ["en_test.spacy"]
    run = srsly.read_json(root / RUN_FILE)
    assert run["model"] == "training/media/headboth-multi-en-a0@test-en/stage1_head/model-last"
    assert run["test_corpus"] == ["corpus/media_frames/en_test.spacy"] and set(run["scores"]["test"]) == {"all", "en"}
    assert run["stages"] == media.RECIPES["headboth-multi-en-a0"]["stages"] and run["dev_langs"] == ["en"]
    assert (root / "final").is_dir()
    # a run whose file exists is skipped unless --force
    n = len(commands)
    assert CliRunner().invoke(app, args).exit_code == 0 and len(commands) == n
    assert CliRunner().invoke(app, [*args, "--force"]).exit_code == 0
    # trained again, over the body vectors cached the first time
    assert len([c for c in commands[n:] if c[2:4] == ["spacy", "train"]]) == 2
    assert not [c for c in commands[n:] if "media-cache-body" in c]


@pytest.mark.parametrize(
    "args,message",
    [
        (["own-en"], "Unknown recipe 'own-en'"),
        (["headboth-multi-en-a0", "--test-langs", "xx"], "the setting tests on en,fr,ge,it,po"),
    ],
)
def test_train_media_rejects_unknown_recipes_and_languages(project, args, message):
    result = CliRunner().invoke(app, ["train-media", *args])
    assert result.exit_code == 1 and message in result.output
    assert not project[1]


@pytest.mark.slow
def test_train_media_trains_the_packaged_recipe_on_toy_articles(transformer_dir, tmp_path, monkeypatch):
    """The recipe run for real (tiny twin configs, the tiny BERT as frame_identifier's
    transformer): a threshold-tuned pipeline that frames English articles."""
    shutil.copytree(transformer_dir, tmp_path / "training" / "frames_final")
    corpus = tmp_path / "corpus" / "media_frames"
    corpus.mkdir(parents=True)
    nlp = spacy.blank("en")
    for lang in media.LANGS:
        for split in ("train", "dev", "test"):
            docs = [article_doc(nlp, article) for article in toy_articles(lang)]
            DocBin(docs=docs, store_user_data=True).to_disk(corpus / f"{lang}_{split}.spacy")
    monkeypatch.chdir(tmp_path)
    args = ["train-media", "headboth-multi-en-a0", "--test-langs", "en", "--configs", str(TEST_CONFIG_DIR)]
    result = CliRunner().invoke(app, [*args, "--export", "training/media_final"])
    assert result.exit_code == 0, result.output
    run = srsly.read_json(tmp_path / RUN_FILE)
    assert set(run["scores"]["test"]) == {"all", "en"} and run["threshold_tuning"] is not None
    assert {"stage0 head en-fr-ge-it-po", "stage1 head en", "thresholds"} <= set(run["timings_s"])
    framed = spacy.load(tmp_path / "training" / "media_final")
    assert set(framed(toy_articles()[0].text).cats) == set(framed.get_pipe("media_framer").labels)

"""scripts/package_meta.py: the packaged meta.json's scores, their sources and the data licenses."""

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
SCRIPT = ROOT / "scripts" / "package_meta.py"
BASE_META = {
    "lang": "en",
    "name": "frames_trf",
    "version": "0.1.0",
    "description": "frames",
    "license": "MIT",
    "spacy_version": ">=3.8.0,<3.9.0",
    "pipeline": ["transformer", "frame_identifier"],
}


@pytest.fixture(scope="module")
def package_meta():
    spec = importlib.util.spec_from_file_location("package_meta", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_metrics(package_meta, root: Path) -> None:
    for path in {score.path for score in package_meta.SCORES}:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, root / path)


def test_meta_from_the_committed_metrics(package_meta):
    from spacy.schemas import ModelMetaSchema, validate

    meta = package_meta.build_meta(BASE_META)
    assert {s.key for s in package_meta.SCORES} == set(meta["performance"]) == set(meta["performance_sources"])
    for key, value in meta["performance"].items():
        assert isinstance(value, float) and 0.0 <= value <= 1.0, key
        source = meta["performance_sources"][key]
        assert (
            (ROOT / source["file"]).exists()
            and source["evaluated_on"]
            and source["command"].startswith("spacy project run")
        )
    # the value is the metrics file's number on spaCy's 0-1 scale
    frames = json.loads((ROOT / "metrics/frame_identifier.json").read_text())
    assert meta["performance"]["frame_acc"] == round(frames["fn15_gold_targets"]["frame_acc"] / 100, 4)
    assert all(source["license"] and source["name"] and source["url"] for source in meta["sources"])
    assert validate(ModelMetaSchema, meta) == []
    assert meta["name"] == BASE_META["name"] and meta["pipeline"] == BASE_META["pipeline"]  # the base is kept


def test_missing_metrics_file_is_an_error_naming_it(package_meta, tmp_path):
    copy_metrics(package_meta, tmp_path)
    (tmp_path / package_meta.ELEMENTS).unlink()
    with pytest.raises(package_meta.MissingScore, match="frame_elements.json"):
        package_meta.build_meta(BASE_META, root=tmp_path)
    meta = package_meta.build_meta(BASE_META, root=tmp_path, allow_missing=True)
    assert meta["performance"]["fe_f"] is None and meta["performance"]["frame_acc"] is not None


def test_missing_key_is_an_error_naming_it(package_meta, tmp_path):
    copy_metrics(package_meta, tmp_path)
    (tmp_path / package_meta.FRAMES).write_text(json.dumps({"fn15_gold_targets": {}}))
    with pytest.raises(package_meta.MissingScore, match="fn15_gold_targets.frame_acc"):
        package_meta.build_meta(BASE_META, root=tmp_path)


def test_command_line_writes_the_meta_and_fails_cleanly(tmp_path):
    base = tmp_path / "meta.json"
    base.write_text(json.dumps(BASE_META))
    out = tmp_path / "packages" / "meta.json"
    ok = subprocess.run([sys.executable, str(SCRIPT), str(base), str(out)], capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(out.read_text())["performance"]["fe_f"] > 0
    missing = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "nope.json"), str(out)], capture_output=True, text=True
    )
    assert missing.returncode != 0 and "assemble" in missing.stderr


def test_media_scores_come_from_the_given_run_english_test(package_meta, tmp_path):
    """media_framer's scores are the English test of the main job's run of vars.media_setting
    (`--media-run`), whichever languages that run also scored."""
    copy_metrics(package_meta, tmp_path)
    run = tmp_path / "metrics" / "media_framer" / "runs" / "other@test-en.json"
    run.write_text(
        json.dumps(
            {
                "scores": {
                    "test": {"all": {"micro_f1": 0.5, "macro_f1": 0.4}, "en": {"micro_f1": 0.71, "macro_f1": 0.45}}
                }
            }
        )
    )
    meta = package_meta.build_meta(BASE_META, root=tmp_path, media_run="metrics/media_framer/runs/other@test-en.json")
    assert meta["performance"]["media_micro_f1"] == 0.71 and meta["performance"]["media_macro_f1"] == 0.45
    assert meta["performance_sources"]["media_micro_f1"]["file"] == "metrics/media_framer/runs/other@test-en.json"
    with pytest.raises(package_meta.MissingScore, match="nope.json"):
        package_meta.build_meta(BASE_META, root=tmp_path, media_run="metrics/media_framer/runs/nope.json")

import pytest
import srsly
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.tools.assets import AssetError, checksum, fetch_assets, project_mirror


@pytest.fixture
def project(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "corpus" / "dir").mkdir(parents=True)
    (mirror / "corpus" / "file.txt").write_text("hello")
    (mirror / "corpus" / "dir" / "a.txt").write_text("a")
    (mirror / "corpus" / "dir" / "b.txt").write_text("b")
    root = tmp_path / "project"
    root.mkdir()
    assets = [
        {
            "dest": "assets/file.txt",
            "url": "https://example.org/file.txt",
            "mirror": "corpus/file.txt",
            "checksum": checksum(mirror / "corpus" / "file.txt"),
        },
        {
            "dest": "assets/dir",
            "url": "https://example.org/dir",
            "mirror": "corpus/dir",
            "checksum": checksum(mirror / "corpus" / "dir"),
        },
        {"dest": "assets/optional.txt", "url": "https://example.org/o", "mirror": "corpus/file.txt", "extra": True},
    ]
    srsly.write_yaml(root / "project.yml", {"title": "t", "assets": assets})
    return root, mirror


def test_fetch_from_mirror_and_verify(project):
    root, mirror = project
    rows = fetch_assets(root / "project.yml", mirror)
    assert [r["asset"] for r in rows] == ["assets/file.txt", "assets/dir"]  # extra skipped
    assert (root / "assets" / "file.txt").read_text() == "hello"
    assert sorted(p.name for p in (root / "assets" / "dir").iterdir()) == ["a.txt", "b.txt"]
    again = fetch_assets(root / "project.yml", mirror)
    assert {r["status"] for r in again} == {"present"}
    assert len(fetch_assets(root / "project.yml", mirror, extra=True)) == 3


def test_checksum_mismatch_writes_nothing(project):
    root, mirror = project
    (mirror / "corpus" / "file.txt").write_text("tampered")
    with pytest.raises(AssetError, match="Checksum mismatch for assets/file.txt"):
        fetch_assets(root / "project.yml", mirror, only=["file.txt"])
    assert not (root / "assets" / "file.txt").exists()
    assert not [p for p in (root / "assets").iterdir() if p.name.startswith(".fetch")]


def test_corrupt_local_copy_is_refetched(project):
    root, mirror = project
    fetch_assets(root / "project.yml", mirror, only=["file.txt"])
    (root / "assets" / "file.txt").write_text("corrupt")
    fetch_assets(root / "project.yml", mirror, only=["file.txt"])
    assert (root / "assets" / "file.txt").read_text() == "hello"


def test_missing_mirror_and_missing_file_say_what_to_do(project, tmp_path):
    root, mirror = project
    with pytest.raises(AssetError, match="Mirror directory .* does not exist.*assets_mirror"):
        fetch_assets(root / "project.yml", tmp_path / "nowhere")
    (mirror / "corpus" / "file.txt").unlink()
    with pytest.raises(AssetError, match=r"not in the mirror .*https://example.org/file.txt"):
        fetch_assets(root / "project.yml", mirror, only=["file.txt"])
    with pytest.raises(AssetError, match="No asset matches"):
        fetch_assets(root / "project.yml", mirror, only=["nonexistent"])


def test_cli_reports_errors_with_exit_code(project, tmp_path):
    root, mirror = project
    runner = CliRunner()
    ok = runner.invoke(app, ["fetch-assets", str(root / "project.yml"), "--mirror", str(mirror)])
    assert ok.exit_code == 0, ok.output
    assert "assets/dir" in ok.output
    bad = runner.invoke(app, ["fetch-assets", str(root / "project.yml"), "--mirror", str(tmp_path / "x")])
    assert bad.exit_code == 1
    assert "does not exist" in bad.output


def test_project_yml_assets_are_well_formed():
    from conftest import ROOT

    assets = srsly.read_yaml(ROOT / "project.yml")["assets"]
    for asset in assets:
        assert asset.get("url", "").startswith("https://"), asset["dest"]
        assert len(asset.get("checksum", "")) == 32, asset["dest"]
        assert asset.get("mirror") or asset.get("pip"), asset["dest"]


def test_cli_defaults_to_the_project_mirror(project, tmp_path):
    root, mirror = project
    srsly.write_yaml(
        root / "project.yml", {**srsly.read_yaml(root / "project.yml"), "vars": {"assets_mirror": "../mirror"}}
    )
    runner = CliRunner()
    ok = runner.invoke(app, ["fetch-assets", str(root / "project.yml"), "--only", "file.txt"])
    assert ok.exit_code == 0, ok.output
    assert f"Mirror: {mirror.resolve()}" in ok.output
    assert (root / "assets" / "file.txt").read_text() == "hello"
    # a mirror directory that is not there means upstream (None), as an unset one does
    srsly.write_yaml(
        root / "project.yml", {**srsly.read_yaml(root / "project.yml"), "vars": {"assets_mirror": "../gone"}}
    )
    assert project_mirror(root / "project.yml") is None
    srsly.write_yaml(root / "project.yml", {**srsly.read_yaml(root / "project.yml"), "vars": {}})
    assert project_mirror(root / "project.yml") is None
    with pytest.raises(AssetError, match="No project file"):
        project_mirror(tmp_path / "missing.yml")

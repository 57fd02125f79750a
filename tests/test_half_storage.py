"""Float16 storage of the components' own encoder weights (tools/half_storage.py)."""

import shutil

import pytest
import spacy
from typer.testing import CliRunner

from spacy_frames.__main__ import app
from spacy_frames.tools.half_storage import half_storage, torch_modules

TEXT = "Prices rose sharply. So demand outpaced the supply of grain. The committee decided to postpone the vote."


def _dir_bytes(path):
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def own_copy_discourse_frames_trf(tiny_frames_trf, trained_frames, trained_fe, trained_discourse, trained_media_head):
    """The tiny pipeline with the measured alternative discourse_sense: its own encoder copy
    (configs/test/discourse.cfg), moved into the component by replace_listeners."""
    from conftest import assemble_frames_trf

    return assemble_frames_trf(
        tiny_frames_trf.parent / "frames_trf_own_discourse",
        trained_frames,
        trained_fe,
        tiny_frames_trf.parent / "inducer",
        trained_discourse,
        trained_media_head,
        **{"components.discourse_sense.replace_listeners": ["model.tok2vec"]},
    )


@pytest.mark.slow
def test_half_storage_halves_the_files_and_loads_back_as_float32(own_copy_discourse_frames_trf, tmp_path):
    import torch

    copy = shutil.copytree(own_copy_discourse_frames_trf, tmp_path / "frames_trf")
    original = spacy.load(copy)
    expected = original(TEXT)
    sizes = {name: _dir_bytes(copy / name) for name in ("frame_identifier", "discourse_sense", "transformer")}
    result = half_storage(copy, ["frame_identifier", "discourse_sense"])
    assert set(result["components"]) == {"frame_identifier", "discourse_sense"}
    for name in ("frame_identifier", "discourse_sense"):
        info = result["components"][name]
        assert info["float16_mib_after"] == pytest.approx(info["float32_mib_before"] / 2, abs=0.1)
        weights = sum(m.numel() * 2 for module in torch_modules(original.get_pipe(name)) for m in module.parameters())
        assert sizes[name] - _dir_bytes(copy / name) > 0.9 * weights
    assert _dir_bytes(copy / "transformer") == sizes["transformer"]
    reloaded = spacy.load(copy)
    for name in ("frame_identifier", "discourse_sense"):
        dtypes = {p.dtype for module in torch_modules(reloaded.get_pipe(name)) for p in module.parameters()}
        assert dtypes == {torch.float32}
    doc = reloaded(TEXT)
    assert [(s.start, s.end, s.label_) for s in doc._.frames] == [(s.start, s.end, s.label_) for s in expected._.frames]
    assert [r["sense"] for r in doc._.discourse_relations] == [r["sense"] for r in expected._.discourse_relations]
    for got, want in zip(doc._.discourse_relations, expected._.discourse_relations):
        assert got["score"] == pytest.approx(want["score"], abs=0.02)
    # the definition encoder, re-run for a new frame, gives nearly the same vector
    definition = "A Donor gives a Theme to a Recipient."
    before = original.get_pipe("frame_identifier").model.get_ref("frame_encoder").predict([definition])
    after = reloaded.get_pipe("frame_identifier").model.get_ref("frame_encoder").predict([definition])
    assert after == pytest.approx(before, abs=0.02)


@pytest.mark.slow
def test_half_storage_refuses_bad_requests_and_leaves_the_directory_alone(tiny_frames_trf, tmp_path):
    copy = shutil.copytree(tiny_frames_trf, tmp_path / "frames_trf")
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    with pytest.raises(ValueError, match="no component 'frame_finder'"):
        half_storage(copy, ["frame_finder"])
    with pytest.raises(ValueError, match="'frame_elements' saves no torch weights"):
        half_storage(copy, ["frame_elements"])
    with pytest.raises(ValueError, match="'discourse_sense' saves no torch weights"):
        half_storage(copy, ["discourse_sense"])  # the shipped head listens to the shared transformer
    with pytest.raises(ValueError, match="at least one component"):
        half_storage(copy, [])
    result = CliRunner().invoke(app, ["half-storage", str(copy), "--component", "frame_inducer"])
    assert result.exit_code == 1 and "saves no torch weights" in result.output
    assert {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()} == before

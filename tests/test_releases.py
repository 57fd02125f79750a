"""Frame inventories a pipeline carries by release name: stored inside frame_identifier,
switched with `spacy_frames.set_inventory(nlp, name)`, saved with the pipeline, and
switching away and back gives the same frames as before."""

import numpy
import pytest
import spacy
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.inventory.frames import FrameInventory
from spacy_frames.pipeline.inventory_ops import set_inventory
from spacy_frames.pipeline.releases import StoredRelease, StoredReleases


def next_release(old: FrameInventory) -> FrameInventory:
    """A toy "next release" (with the toy FEs): Giving renamed (same ID), Commerce_buy
    gone, and a new frame, Shopping, that takes buy.v."""
    from fe_toy import toy_fe_inventory

    fes = toy_fe_inventory()
    frames = {
        name: {**info, "frame_elements": fes.frames[name]["frame_elements"]}
        for name, info in old.frames.items()
        if name != "Commerce_buy"
    }
    frames["Giving_and_receiving"] = frames.pop("Giving")
    frames["Shopping"] = {
        "id": 500,
        "definition": "A Shopper buys Goods in a shop.",
        "lexical_units": ["buy.v", "shop.v"],
        "frame_elements": [{"name": "Buyer", "core_type": "Core", "definition": "Who shops."}],
    }
    relations = {"Inheritance": [["Transfer", "Giving_and_receiving"]]}
    return FrameInventory(frames=frames, relations=relations, source="toy next")


def frames_of(nlp, vocab):
    from frames_toy import toy_docs

    docs = [nlp(doc) for doc in toy_docs(vocab, with_annotation=True)]  # preset (gold) targets
    return [[(s.start, s.end, s.label_) for s in doc.spans["frames"]] for doc in docs]


@pytest.fixture
def released(trained_frames):
    """The toy pipeline carrying its own inventory (with its trained memory) as "toy" and
    the next release as "next", with "toy" active."""
    nlp = spacy.load(trained_frames)
    fi = nlp.get_pipe("frame_identifier")
    # a memory that is not the default's zeros, so that losing it would show
    rows = numpy.random.default_rng(0).normal(size=fi.index.base.shape).astype("float32")
    fi._set_memory(rows)
    fi._memory_to_index()
    fi.store_release("toy")
    fi.store_release("next", next_release(fi.inventory))
    return nlp


def test_switching_releases_and_back_gives_the_same_frames(released, tmp_path):
    nlp, fi = released, released.get_pipe("frame_identifier")
    before, memory, base = frames_of(nlp, nlp.vocab), fi.index.residual.copy(), fi.index.base.copy()
    assert fi.release == "toy" and fi.releases.names == ["next", "toy"]
    set_inventory(nlp, "next")
    assert fi.release == "next" and nlp.meta["frame_inventory"]["release"] == "next"
    assert nlp.meta["frame_inventory"]["source"] == "toy next" and nlp.meta["frame_inventory"]["frames"] == 6
    under_next = [label for doc in frames_of(nlp, nlp.vocab) for _, _, label in doc]
    # a frame gone from the release is never predicted; the new frame is ranked from its
    # definition and takes its lexical unit's target ("bought")
    assert "Commerce_buy" not in under_next and "Giving" not in under_next
    assert "Shopping" in under_next and "Giving_and_receiving" in under_next
    # saved and loaded: the active release and both stored ones come back
    nlp.to_disk(tmp_path / "next")
    loaded = spacy.load(tmp_path / "next")
    loaded_fi = loaded.get_pipe("frame_identifier")
    assert loaded_fi.release == "next" and loaded_fi.releases.names == ["next", "toy"]
    assert loaded_fi.inventory.source == "toy next"
    set_inventory(loaded, "toy")
    assert loaded_fi.release == "toy" and numpy.array_equal(loaded_fi.index.residual, memory)
    assert numpy.array_equal(loaded_fi.index.base, base)  # stored, not encoded again
    assert frames_of(loaded, loaded.vocab) == before
    # and through to_bytes
    again = spacy.load(tmp_path / "next")
    again.get_pipe("frame_identifier").from_bytes(loaded.get_pipe("frame_identifier").to_bytes())
    assert again.get_pipe("frame_identifier").release == "toy"
    assert frames_of(again, again.vocab) == before


def test_a_stored_release_is_not_changed_by_edits_of_the_active_one(released):
    fi = released.get_pipe("frame_identifier")
    import spacy_frames

    spacy_frames.add_frame(released, "Cooking", "A Cook prepares Food.", lexical_units=["cook.v"])
    assert "Cooking" in fi.inventory and "Cooking" not in fi.releases["toy"].inventory
    set_inventory(released, "toy")
    assert "Cooking" not in fi.inventory


def test_a_hand_made_inventory_or_a_path_is_no_release(released, tmp_path):
    fi = released.get_pipe("frame_identifier")
    inventory = next_release(fi.inventory)
    inventory.to_disk(tmp_path / "frames.json")
    set_inventory(released, tmp_path / "frames.json")
    assert fi.release is None and fi.inventory.source == "toy next"
    assert released.meta["frame_inventory"]["release"] is None
    set_inventory(released, inventory)
    assert fi.release is None


def test_an_unknown_release_is_refused_with_what_the_pipeline_carries(released):
    fi = released.get_pipe("frame_identifier")
    with pytest.raises(ValueError, match=r"carries \['next', 'toy'\]"):
        set_inventory(released, "framenet16")
    assert fi.release == "toy"  # nothing changed
    with pytest.raises(ValueError, match="plain name"):
        fi.store_release("../x")


def test_stored_releases_serialize_without_a_pipeline(tmp_path):
    inventory = FrameInventory(frames={"A": {"id": 1, "definition": "a."}}, source="s")
    releases = StoredReleases()
    releases.add("one", StoredRelease(inventory, ["A"], numpy.zeros((1, 3)), numpy.ones((1, 3), dtype="float32")))
    releases.add("two", StoredRelease(inventory))
    releases.active = "one"
    for loaded in (
        StoredReleases().from_bytes(releases.to_bytes()),
        (releases.to_disk(tmp_path / "r"), StoredReleases().from_disk(tmp_path / "r"))[1],
    ):
        assert loaded.active == "one" and loaded.names == ["one", "two"]
        assert numpy.array_equal(loaded["one"].memory_rows()["A"], numpy.ones(3, dtype="float32"))
        assert loaded["two"].memory is None and loaded["two"].inventory.to_dict() == inventory.to_dict()
    # a pipeline saved without releases loads with none
    assert StoredReleases().from_disk(tmp_path / "absent").names == []


@pytest.mark.slow
def test_cli_stores_the_releases_and_chooses_the_default(trained_frames, tmp_path):
    nlp = spacy.load(trained_frames)
    before = frames_of(nlp, nlp.vocab)
    next_release(nlp.get_pipe("frame_identifier").inventory).to_disk(tmp_path / "next.json")
    result = CliRunner().invoke(
        app,
        [
            "releases",
            str(trained_frames),
            "--current",
            "toy",
            "--add",
            f"next={tmp_path / 'next.json'}",
            "--use",
            "next",
            "--output",
            str(tmp_path / "out"),
        ],
    )
    assert result.exit_code == 0, result.output
    loaded = spacy.load(tmp_path / "out")
    assert loaded.meta["frame_inventory"]["release"] == "next"
    assert loaded.meta["frame_inventory"]["releases"] == ["next", "toy"]
    set_inventory(loaded, "toy")
    assert frames_of(loaded, loaded.vocab) == before
    bad = CliRunner().invoke(app, ["releases", str(trained_frames), "--add", "next", "-o", str(tmp_path / "bad")])
    assert bad.exit_code == 1 and "NAME=frames.json" in bad.output and not (tmp_path / "bad").exists()


@pytest.mark.slow
def test_the_assembled_pipeline_keeps_its_releases_through_half_storage(tiny_frames_trf, tmp_path):
    """As the main job builds en_frames_trf: the trained inventory stored with its frame
    vectors, the next release made active, the definition encoder then stored in float16;
    switching back to the trained release gives exactly the frames of the pipeline as
    assembled (its definition vectors are stored, not encoded again by the rounded encoder)."""
    from fe_toy import toy_fe_inventory

    from spacy_frames.tools.half_storage import half_storage

    nlp = spacy.load(tiny_frames_trf)
    set_inventory(nlp, toy_fe_inventory())  # the toy frames with their FEs, as FrameNet's have
    nlp.to_disk(tmp_path / "assembled")
    before = frames_of(nlp, nlp.vocab)
    next_release(nlp.get_pipe("frame_identifier").inventory).to_disk(tmp_path / "next.json")
    out = tmp_path / "frames_trf"
    args = ["releases", str(tmp_path / "assembled"), "--current", "toy", "--add", f"next={tmp_path / 'next.json'}"]
    result = CliRunner().invoke(app, [*args, "--use", "next", "--output", str(out)])
    assert result.exit_code == 0, result.output
    half_storage(out, ["frame_identifier"])
    loaded = spacy.load(out)
    fi = loaded.get_pipe("frame_identifier")
    assert fi.release == "next" and len(fi.inventory) == 6 and "Shopping" in fi.labels
    set_inventory(loaded, "toy")
    assert frames_of(loaded, loaded.vocab) == before

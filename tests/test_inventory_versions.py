"""Moving between FrameNet releases: frames follow their IDs (renamed frames keep their
learned memory, a new frame reusing an old name starts fresh), gold frames renamed."""

import numpy
import pytest
import spacy
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example

from spacy_frames.extensions import install_extensions
from spacy_frames.inventory.frames import FrameInventory, carried_frames, renamed_frames
from spacy_frames.scoring.frames_eval import relabel


def inventory(frames):
    return FrameInventory(
        frames={name: {"id": i, "definition": f"{name} def.", "lexical_units": []} for name, i in frames.items()},
        relations={},
        source="test",
    )


OLD = inventory({"Becoming": 1, "Giving": 2, "Permitting": 3, "Arriving": 4})
NEW = inventory({"Transition_to_state": 1, "Giving": 2, "Arriving": 4, "Becoming": 9, "Cooking": 10})


def test_frames_follow_their_ids_between_releases():
    assert carried_frames(OLD, NEW) == {"Transition_to_state": "Becoming", "Giving": "Giving", "Arriving": "Arriving"}
    assert renamed_frames(OLD, NEW) == {
        "Becoming": "Transition_to_state",
        "Giving": "Giving",
        "Permitting": None,
        "Arriving": "Arriving",
    }


def test_unrelated_numbering_falls_back_to_names():
    toy = inventory({"Giving": 7, "Arriving": 8, "Becoming": 1})
    assert carried_frames(toy, NEW) == {"Giving": "Giving", "Arriving": "Arriving", "Becoming": "Becoming"}


def test_relabel_renames_gold_frames_and_drops_gone_ones():
    install_extensions()
    vocab = spacy.blank("en").vocab
    ref = Doc(vocab, words="It became legal and they permitted it".split())
    ref.spans["targets"] = SpanGroup(
        ref, name="targets", spans=[Span(ref, 1, 2, label="Becoming"), Span(ref, 5, 6, label="Permitting")]
    )
    ref[1:2]._.lexical_unit = "become.v"
    examples, dropped = relabel([Example(ref.copy(), ref)], renamed_frames(OLD, NEW))
    assert dropped == 1 and [s.label_ for s in examples[0].reference.spans["targets"]] == ["Transition_to_state"]
    assert examples[0].reference.spans["targets"][0]._.lexical_unit == "become.v"


def test_reader_trains_old_annotation_against_the_new_inventory(tmp_path):
    """frames_from / frames_to: gold frames (targets and the frame in each FE span's link)
    renamed by frame ID; a gone frame's target and FEs removed and the doc marked partial."""
    from spacy.tokens import DocBin

    from spacy_frames.corpora.readers import create_framenet_reader
    from spacy_frames.extensions import is_partial, make_fe_span

    install_extensions()
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words="It became legal and they permitted it".split())
    became, permitted = Span(doc, 1, 2, label="Becoming"), Span(doc, 5, 6, label="Permitting")
    doc.spans["targets"] = SpanGroup(doc, name="targets", spans=[became, permitted])
    doc[1:2]._.lexical_unit = "become.v"
    doc.spans["frame_elements"] = SpanGroup(
        doc,
        name="frame_elements",
        spans=[
            make_fe_span(became, 0, 1, "Entity"),
            make_fe_span(became, 2, 3, "Final_quality"),
            make_fe_span(permitted, 4, 5, "Authority"),
        ],
    )
    DocBin(store_user_data=True, docs=[doc]).to_disk(tmp_path / "train.spacy")
    OLD.to_disk(tmp_path / "old.json")
    NEW.to_disk(tmp_path / "new.json")
    reader = create_framenet_reader(
        str(tmp_path / "train.spacy"), frames_from=str(tmp_path / "old.json"), frames_to=str(tmp_path / "new.json")
    )
    (eg,) = list(reader(nlp))
    ref = eg.reference
    (target,) = ref.spans["targets"]
    assert (target.label_, target._.lexical_unit) == ("Transition_to_state", "become.v")
    assert [(fe.label_, fe.text) for fe in target._.frame_elements] == [("Entity", "It"), ("Final_quality", "legal")]
    assert len(ref.spans["frame_elements"]) == 2 and is_partial(ref)
    assert [s.label_ for s in eg.predicted.spans["targets"]] == ["Transition_to_state"]
    try:
        create_framenet_reader(str(tmp_path / "train.spacy"), frames_from=str(tmp_path / "old.json"))
    except ValueError as err:
        assert "frames_to" in str(err)
    else:
        raise AssertionError("one inventory without the other must be refused")


def test_set_inventory_carries_the_memory_by_id(trained_frames):
    nlp = spacy.load(trained_frames)
    fi = nlp.get_pipe("frame_identifier")
    names = list(fi.index.names)
    memory = numpy.arange(len(names) * fi.index.base.shape[1], dtype="float32").reshape(len(names), -1)
    fi._set_memory(memory)
    fi._memory_to_index()
    old = fi.inventory
    # the next release: frame 0 renamed, and its old name reused by a new frame
    frames = {name: dict(info) for name, info in old.frames.items()}
    first = names[0]
    frames["Renamed_" + first] = frames.pop(first)
    frames[first] = {"id": 10_000, "definition": "A new frame with an old name.", "lexical_units": []}
    new = FrameInventory(frames=frames, relations={}, source="next")
    fi.cfg["new_frame_memory"] = "zero"  # the default ("mean") fills the new frame's row
    fi.set_inventory(new)
    rows = dict(zip(fi.index.names, fi.index.residual))
    assert numpy.array_equal(rows["Renamed_" + first], memory[0])
    assert not rows[first].any()
    assert numpy.array_equal(rows[names[1]], memory[1])


@pytest.mark.slow
def test_a_pipeline_of_another_release_is_scored_under_its_own_names(trained_frames, toy_corpus, tmp_path):
    """evaluate_frame_identifier on FN1.5-labelled data: a pipeline whose inventory renames
    a frame (same ID) is scored with the gold frames under its names."""
    from frames_toy import toy_framenet15_dir, toy_inventory

    from spacy_frames.scoring.frames_eval import evaluate_frame_identifier

    old = toy_inventory()
    frames = {("Giving_renamed" if name == "Giving" else name): dict(info) for name, info in old.frames.items()}
    renamed = FrameInventory(frames=frames, relations={}, source="toy 2")
    nlp = spacy.load(trained_frames)
    nlp.get_pipe("frame_identifier").set_inventory(renamed)
    nlp.to_disk(tmp_path / "renamed")
    fn15_dir = toy_framenet15_dir(toy_corpus, tmp_path / "fn15")
    before = evaluate_frame_identifier(str(trained_frames), fn15_dir, baseline=False)
    after = evaluate_frame_identifier(str(tmp_path / "renamed"), fn15_dir, baseline=False)
    assert after["inventory"] == {"frames": len(renamed), "source": "toy 2", "fn15_targets_of_gone_frames": 0}
    assert "fn15_targets_of_gone_frames" not in before["inventory"]
    # the gold frames are counted under the pipeline's names (a renamed frame's definition
    # text carries its name, so its vector, and the scores, may move a little)
    per_type = after["fn15_gold_targets"]["frame_per_type"]
    assert "Giving_renamed" in per_type and "Giving" not in per_type
    assert after["fn15_gold_targets"]["targets"] == before["fn15_gold_targets"]["targets"]
    assert per_type["Giving_renamed"]["n"] == before["fn15_gold_targets"]["frame_per_type"]["Giving"]["n"]


def test_lexical_units_match_across_the_releases_spellings():
    """FN1.5 and FN1.7 spell some LUs differently; an exact name still wins."""
    from spacy_frames.inventory.frames import lu_spelling_key

    assert lu_spelling_key("aid_((act)).n") == lu_spelling_key("aid [act].n") == "aid act.n"
    assert lu_spelling_key("lead_(to).v") == lu_spelling_key("lead (to).v") == "lead to.v"
    assert lu_spelling_key("find_out.v") == lu_spelling_key("find out.v")
    fn17 = FrameInventory(
        frames={
            "Assistance": {"id": 1, "definition": "d", "lexical_units": ["aid [act].n", "aid.v"]},
            "Artifact": {"id": 2, "definition": "d", "lexical_units": ["aid [entity].n"]},
            "Mass_motion": {"id": 3, "definition": "d", "lexical_units": ["aid.n"]},
        },
        relations={},
        source="test",
    )
    assert fn17.frames_for_lu("aid_((act)).n") == ["Assistance"]
    assert fn17.frames_for_lu("aid_((entity)).n") == ["Artifact"]
    assert fn17.frames_for_lu("aid.n") == ["Mass_motion"]
    assert fn17.frames_for_lu("aid.a") == [] and fn17.frames_for_lu("") == []

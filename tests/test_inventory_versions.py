"""Moving between FrameNet releases: frames follow their IDs (renamed frames keep their
learned memory, a new frame reusing an old name starts fresh), gold frames renamed."""
import numpy
import spacy
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example

from spacy_frames.extensions import install_extensions
from spacy_frames.inventory.frames import FrameInventory, carried_frames, renamed_frames
from spacy_frames.scoring.frames_eval import relabel


def inventory(frames):
    return FrameInventory(frames={name: {"id": i, "definition": f"{name} def.", "lexical_units": []} for name, i in frames.items()},
                          relations={}, source="test")


OLD = inventory({"Becoming": 1, "Giving": 2, "Permitting": 3, "Arriving": 4})
NEW = inventory({"Transition_to_state": 1, "Giving": 2, "Arriving": 4, "Becoming": 9, "Cooking": 10})


def test_frames_follow_their_ids_between_releases():
    assert carried_frames(OLD, NEW) == {"Transition_to_state": "Becoming", "Giving": "Giving", "Arriving": "Arriving"}
    assert renamed_frames(OLD, NEW) == {"Becoming": "Transition_to_state", "Giving": "Giving", "Permitting": None, "Arriving": "Arriving"}


def test_unrelated_numbering_falls_back_to_names():
    toy = inventory({"Giving": 7, "Arriving": 8, "Becoming": 1})
    assert carried_frames(toy, NEW) == {"Giving": "Giving", "Arriving": "Arriving", "Becoming": "Becoming"}


def test_relabel_renames_gold_frames_and_drops_gone_ones():
    install_extensions()
    vocab = spacy.blank("en").vocab
    ref = Doc(vocab, words="It became legal and they permitted it".split())
    ref.spans["targets"] = SpanGroup(ref, name="targets", spans=[Span(ref, 1, 2, label="Becoming"), Span(ref, 5, 6, label="Permitting")])
    ref[1:2]._.lexical_unit = "become.v"
    examples, dropped = relabel([Example(ref.copy(), ref)], renamed_frames(OLD, NEW))
    assert dropped == 1 and [s.label_ for s in examples[0].reference.spans["targets"]] == ["Transition_to_state"]
    assert examples[0].reference.spans["targets"][0]._.lexical_unit == "become.v"


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

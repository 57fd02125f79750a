"""The JSON Schema of `spacy-frames annotate`'s records: shipped, valid, and every record
of a run on the tiny full pipeline follows it."""

import copy
import json

import jsonschema
import pytest
import spacy
from frames_toy import SENTENCES

from spacy_frames.extensions import install_extensions
from spacy_frames.tools.annotate_corpus import annotate_corpus
from spacy_frames.tools.hostile import KINDS, hostile_documents
from spacy_frames.tools.records import RECORD_SCHEMA, record_schema

TOY_TEXTS = [
    "The committee decided to postpone the vote after protesters blocked the entrance.",
    "She gave him a book about frames and he read it over the weekend.",
    "Prices rose sharply. So demand outpaced the supply of grain.",
    "They walked to the station, bought tickets and boarded the train to Berlin.",
] + [" ".join(words) for words, *_ in SENTENCES]
HOSTILE_TEXTS = ["", "   ", "\n\t \n", " ".join(["The vote was postponed again."] * 400)]

RECORD = {
    "schema": RECORD_SCHEMA,
    "id": "1",
    "text": "She gave him a gift .",
    "frames": [
        {
            "start": 4,
            "end": 8,
            "text": "gave",
            "frame": "Giving",
            "lexical_unit": "give.v",
            "score": 0.91,
            "ranking": [["Giving", 0.91], ["Commerce_buy", None]],
            "induced_frame": "F0001",
            "induced_frame_label": None,
            "frame_elements": [{"start": 0, "end": 3, "text": "She", "label": "Donor"}],
        }
    ],
    "discourse_relations": [
        {"arg1": [0, 8], "arg2": [9, 21], "sense": "Expansion.Conjunction", "level1": "Expansion", "score": 0.5}
    ],
    "media_frames": ["Political"],
    "cats": {"Political": 0.83, "Economic": None},
}


def validator():
    return jsonschema.Draft202012Validator(record_schema())


def test_the_shipped_schema_is_a_versioned_draft_2020_12_schema():
    schema = record_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] and schema["version"] == "1"
    assert schema["properties"]["schema"]["const"] == RECORD_SCHEMA
    record_schema()["title"] = "changed"  # a copy: callers cannot change the shipped one
    assert record_schema()["title"] != "changed"


def test_a_full_record_validates():
    validator().validate(RECORD)


@pytest.mark.parametrize(
    "path,value",
    [
        (("frames", 0, "start"), "4"),
        (("frames", 0, "ranking", 0), ["Giving"]),
        (("frames", 0, "frame_elements", 0, "label"), 3),
        (("discourse_relations", 0, "arg1"), [0]),
        (("media_frames",), "Political"),
        (("cats", "Political"), "high"),
        (("schema",), "spacy-frames/record/v0"),
        (("text",), None),
    ],
)
def test_a_wrong_type_fails(path, value):
    record = copy.deepcopy(RECORD)
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        validator().validate(record)


@pytest.mark.parametrize(
    "path",
    [("schema",), ("id",), ("frames",), ("cats",), ("frames", 0, "frame"), ("frames", 0, "frame_elements", 0, "end")],
)
def test_a_missing_required_key_fails(path):
    record = copy.deepcopy(RECORD)
    target = record
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    with pytest.raises(jsonschema.ValidationError):
        validator().validate(record)


@pytest.mark.slow
def test_every_record_of_an_annotate_run_validates(tiny_frames_trf, tmp_path):
    install_extensions()
    nlp = spacy.load(tiny_frames_trf)
    hostile = [doc.text for doc in hostile_documents(len(KINDS), seed=0, huge_words=300)]
    texts = TOY_TEXTS + HOSTILE_TEXTS + hostile
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    out = tmp_path / "out.jsonl"
    annotate_corpus(nlp, str(source), out, batch_size=4, progress=False)
    records = [json.loads(line) for line in out.read_text(encoding="utf8").split("\n") if line]
    assert len(records) == len(texts)
    check = validator()
    for record in records:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in check.iter_errors(record)]
        assert not errors, (record["id"], errors[:3])
        assert record["schema"] == RECORD_SCHEMA
    assert any(f["frame_elements"] for r in records for f in r["frames"])
    assert any(r["discourse_relations"] for r in records) and any(r["cats"] for r in records)

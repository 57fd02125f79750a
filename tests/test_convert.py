"""`spacy-frames convert`: FrameNet XML (zip or directory), open-sesame CoNLL and annotate
records (JSONL, corrected by hand) into DocBins the FrameNet reader trains on."""

import json
import re

import pytest
import spacy
import srsly
from framenet_paths import FIXTURES, FN17_CONLL, FN17_FRAMES, FN17_LEXICON, SPLITS
from spacy.tokens import DocBin
from test_conll_export import parsed_doc
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.corpora.convert import convert_records
from spacy_frames.corpora.docbins import docs_from
from spacy_frames.corpora.readers import create_framenet_reader
from spacy_frames.extensions import FE_KEY, TARGETS_KEY
from spacy_frames.tools.records import record_line


def run(*args):
    result = CliRunner().invoke(app, ["convert", *map(str, args)])
    return result.exit_code, result.output


def gold_view(path):
    """(target offsets, frame, lexical unit, [(FE offsets, label)]) per doc of a DocBin."""
    nlp = spacy.blank("en")
    return [
        [
            (t.start_char, t.end_char, t.label_, t._.lexical_unit)
            + (sorted((fe.start_char, fe.end_char, fe.label_) for fe in t._.frame_elements),)
            for t in doc.spans[TARGETS_KEY]
        ]
        for doc in docs_from(DocBin().from_disk(path), nlp.vocab)
    ]


def examples(path):
    nlp = spacy.blank("en")
    return list(create_framenet_reader(str(path))(nlp))


@pytest.mark.parametrize("source", ["zip", "directory"])
def test_a_framenet_release_converts_from_a_zip_or_a_directory(fn15_zip, tmp_path, source):
    release = fn15_zip if source == "zip" else FIXTURES / "fndata-1.5"
    code, output = run("framenet", release, tmp_path / "out", "--splits", SPLITS, "--summary", tmp_path / "s.json")
    assert code == 0, output
    assert {p.name for p in (tmp_path / "out").iterdir()} == {
        "train.spacy",
        "dev.spacy",
        "test.spacy",
        "exemplars.spacy",
        "frames.json",
    }
    assert srsly.read_json(tmp_path / "s.json")["framenet"]["train"]["targets"] > 0
    egs = examples(tmp_path / "out" / "train.spacy")
    assert egs and any(len(eg.reference.spans[FE_KEY]) for eg in egs)
    # without a split, all of the full text goes to fulltext.spacy
    code, output = run("framenet", release, tmp_path / "all")
    assert code == 0, output
    assert (tmp_path / "all" / "fulltext.spacy").exists()
    assert len(examples(tmp_path / "all" / "fulltext.spacy")) == sum(
        len(examples(tmp_path / "out" / f"{split}.spacy")) for split in ("train", "dev", "test")
    )


def test_the_zip_and_the_directory_give_the_same_corpus(fn15_zip, tmp_path):
    assert run("framenet", fn15_zip, tmp_path / "z", "--splits", SPLITS)[0] == 0
    assert run("framenet", FIXTURES / "fndata-1.5", tmp_path / "d", "--splits", SPLITS)[0] == 0
    for name in ("train.spacy", "dev.spacy", "test.spacy", "exemplars.spacy"):
        assert gold_view(tmp_path / "z" / name) == gold_view(tmp_path / "d" / name)


def test_fn17_and_open_sesame_conll_convert(tmp_path):
    code, output = run(
        "fn17", FN17_FRAMES, FN17_LEXICON, FN17_CONLL, tmp_path / "fn17", "--summary", tmp_path / "s.json"
    )
    assert code == 0, output
    assert srsly.read_json(tmp_path / "s.json")["framenet17"]["dev"]["targets"] == 4
    code, output = run("conll", FN17_CONLL, tmp_path / "dev.spacy")
    assert code == 0, output
    assert "4 targets" in output
    assert gold_view(tmp_path / "dev.spacy") == gold_view(tmp_path / "fn17" / "dev.spacy")
    assert examples(tmp_path / "dev.spacy")


def write_records(path, docs):
    path.write_text("".join(record_line(doc, str(i)) for i, doc in enumerate(docs)), encoding="utf8")


def test_annotate_records_convert_and_carry_a_hand_correction(tmp_path):
    source = tmp_path / "records.jsonl"
    write_records(source, [parsed_doc(), parsed_doc()])
    code, output = run("jsonl", source, tmp_path / "records.spacy")
    assert code == 0, output
    assert "2 docs, 4 targets, 6 frame elements" in output
    view = gold_view(tmp_path / "records.spacy")
    assert view[0] == [
        (4, 8, "Giving", "give.v", [(0, 3, "Donor"), (13, 19, "Theme")]),
        (27, 39, "Taking", None, [(22, 26, "Agent")]),
    ]
    # a person corrects one FE label of the second record
    lines = source.read_text(encoding="utf8").splitlines()
    record = json.loads(lines[1])
    record["frames"][0]["frame_elements"][1]["label"] = "Gift"
    lines[1] = json.dumps(record)
    source.write_text("\n".join(lines) + "\n", encoding="utf8")
    convert_records(source, tmp_path / "corrected.spacy")
    corrected = gold_view(tmp_path / "corrected.spacy")
    assert corrected[0] == view[0]
    assert corrected[1][0][4] == [(0, 3, "Donor"), (13, 19, "Gift")]
    egs = examples(tmp_path / "corrected.spacy")
    assert sorted(fe.label_ for fe in egs[1].reference.spans[FE_KEY]) == ["Agent", "Donor", "Gift"]


@pytest.mark.parametrize(
    "kind,content,message",
    [
        ("jsonl", '{"text": "ok", "frames": []}\n{broken\n', r"bad\.jsonl, line 2: invalid JSON"),
        ("jsonl", '{"text": "ok"}\n\n[1, 2]\n', r"bad\.jsonl, line 3: not an annotate record"),
        (
            "jsonl",
            '{"text": "She gave", "frames": [{"start": 4, "end": 80, "frame": "Giving"}]}\n',
            r"bad\.jsonl, line 1: frame 0 offsets \[4, 80\) are outside the text",
        ),
        (
            "jsonl",
            '{"text": "She gave", "frames": [{"start": 4, "end": 8, "frame": "Giving", "frame_elements": [{"start": 0, "end": 3}]}]}\n',
            r"bad\.jsonl, line 1: frame element 0 of frame 0 has no 'label'",
        ),
        ("conll", "0\tShe\t_\t_\tO\n1\tgave\tgive.v\tGiving\n", r"bad\.conll, line 2: expected 5 as the lines"),
        ("conll", "She gave him a gift\n", r"bad\.conll, line 1: expected 5 or 15"),
    ],
)
def test_bad_input_names_the_file_and_line(tmp_path, kind, content, message):
    bad = tmp_path / f"bad.{kind}"
    bad.write_text(content, encoding="utf8")
    code, output = run(kind, bad, tmp_path / "out.spacy")
    assert code == 1
    assert re.search(message, " ".join(output.split())), output


def test_missing_files_and_wrong_formats_are_clear(tmp_path):
    missing = tmp_path / "nowhere.jsonl"
    for args in (
        ("jsonl", missing, tmp_path / "o.spacy"),
        ("conll", tmp_path / "nowhere.conll", tmp_path / "o.spacy"),
        ("framenet", tmp_path / "nowhere.zip", tmp_path / "o"),
    ):
        code, output = run(*args)
        assert code == 1 and "nowhere" in output and "not found" in output, output
    not_a_zip = tmp_path / "release.zip"
    not_a_zip.write_text("hello")
    code, output = run("framenet", not_a_zip, tmp_path / "o")
    assert code == 1 and "not a FrameNet release" in output
    (tmp_path / "records.jsonl").write_text('{"text": "ok"}\n')
    code, output = run("jsonl", tmp_path / "records.jsonl", tmp_path / "o.json")
    assert code == 1 and "must be a .spacy file" in output

"""`annotate --format conll`: open-sesame's CoNLL, read back by the package's own reader
and scored by the open-sesame measure as the docs themselves are."""

import itertools
import json

import pytest
import spacy
from fe_toy import gold_frames_doc, toy_fe_docs, toy_fe_inventory
from spacy.tokens import Doc, DocBin, Span, SpanGroup
from spacy.training import Example
from spacy.vocab import Vocab

from spacy_frames.corpora.convert import convert_conll
from spacy_frames.corpora.docbins import docs_from
from spacy_frames.corpora.framenet_sentences import iter_open_sesame_sentences, sentence_to_doc
from spacy_frames.extensions import FE_KEY, install_extensions, make_fe_span
from spacy_frames.scoring.frame_elements import score_frame_elements_open_sesame
from spacy_frames.tools.annotate_corpus import annotate_corpus
from spacy_frames.tools.conll import doc_to_conll, n_sentences

FN17_DEV = "fn1.7.dev.syntaxnet.conll"


def parsed_doc() -> Doc:
    """A doc as the pipeline leaves it: two sentences, frames with FEs, one discontinuous."""
    install_extensions()
    words = ["She", "gave", "him", "a", "gift", ".", "They", "picked", "it", "up", "\n"]
    sent_starts = [True] + [False] * 5 + [True] + [False] * 4
    doc = Doc(Vocab(), words=words, sent_starts=sent_starts)
    give = Span(doc, 1, 2, label="Giving")
    give._.lexical_unit = "give.v"
    pick = Span(doc, 7, 10, label="Taking")
    pick._.target_parts = [[7, 8], [9, 10]]
    doc.spans["frames"] = [give, pick]
    fes = [make_fe_span(give, 0, 1, "Donor"), make_fe_span(give, 3, 5, "Theme"), make_fe_span(pick, 6, 7, "Agent")]
    doc.spans[FE_KEY] = SpanGroup(doc, name=FE_KEY, spans=fes)
    return doc


def open_sesame_row(line: str):
    """The fields open-sesame's reader (sesame/conll09.py, CoNLL09Element) takes from a
    line: ID, FORM, PLEMMA, PPOS, SENT#, LU, FRAME and ROLE (a BIOS tag)."""
    row = line.split("\t")
    assert len(row) == 15 and int(row[0]) >= 1 and int(row[6]) >= 0 and row[14][0] in "BIOS"
    return (int(row[0]), row[1], row[3], row[5], int(row[6]), row[12], row[13], row[14])


def test_blocks_have_the_columns_open_sesame_reads():
    text = doc_to_conll(parsed_doc())
    blocks = [block.split("\n") for block in text.strip("\n").split("\n\n")]
    assert text.endswith("\n\n") and len(blocks) == 2
    assert [open_sesame_row(line) for line in blocks[0]] == [
        (1, "She", "she", "_", 0, "_", "_", "S-Donor"),
        (2, "gave", "gave", "_", 0, "give.v", "Giving", "O"),
        (3, "him", "him", "_", 0, "_", "_", "O"),
        (4, "a", "a", "_", 0, "_", "_", "B-Theme"),
        (5, "gift", "gift", "_", 0, "_", "_", "I-Theme"),
        (6, ".", ".", "_", 0, "_", "_", "O"),
    ]
    # the second sentence only, no whitespace token; the LU falls back to the words
    assert [open_sesame_row(line) for line in blocks[1]] == [
        (1, "They", "they", "_", 1, "_", "_", "S-Agent"),
        (2, "picked", "picked", "_", 1, "picked it up", "Taking", "O"),
        (3, "it", "it", "_", 1, "_", "_", "O"),
        (4, "up", "up", "_", 1, "picked it up", "Taking", "O"),
    ]
    assert doc_to_conll(Doc(Vocab(), words=["Nothing", "here"])) == ""


def test_the_export_reads_back_with_the_reader_of_the_fn17_dev_file(tmp_path):
    path = tmp_path / "out.conll"
    path.write_text(doc_to_conll(parsed_doc()))
    sentences = list(iter_open_sesame_sentences(path))
    assert [s.text for s in sentences] == ["She gave him a gift .", "They picked it up"]
    give, pick = sentences[0].targets[0], sentences[1].targets[0]
    assert (give.frame, give.lu, give.pieces) == ("Giving", "give.v", [(4, 8)])
    assert [(e.name, e.start, e.end) for e in give.elements] == [("Donor", 0, 3), ("Theme", 13, 19)]
    assert pick.pieces == [(5, 11), (15, 17)]


def test_the_shipped_dev_file_round_trips_through_the_export(tmp_path):
    from framenet_paths import FN17_CONLL  # the fixture's slice of fn1.7.dev.syntaxnet.conll

    vocab = Vocab()
    docs = [sentence_to_doc(vocab, s) for s in iter_open_sesame_sentences(FN17_CONLL)]
    for doc in docs:
        doc.spans["frames"] = list(doc.spans["targets"])
    out = tmp_path / "again.conll"
    out.write_text("".join(doc_to_conll(doc) for doc in docs))

    def content(path):
        return [
            (
                s.text,
                sorted((t.frame, t.lu, t.pieces, [(e.name, e.start, e.end) for e in t.elements]) for t in s.targets),
            )
            for s in iter_open_sesame_sentences(path)
        ]

    # the same sentences, targets, frames and FEs (the export writes a sentence's targets
    # in document order, in open-sesame's 15 columns)
    assert content(out) == content(FN17_CONLL)


def _export_and_score(nlp, tmp_path, refs):
    """The parse of `refs` (frame_elements on gold frames) scored directly, and read back
    from its CoNLL export."""
    inventory = toy_fe_inventory()
    docs = [nlp(gold_frames_doc(nlp, ref)) for ref in refs]
    path = tmp_path / "parse.conll"
    path.write_text("".join(doc_to_conll(doc) for doc in docs))
    read = [sentence_to_doc(nlp.vocab, s) for s in iter_open_sesame_sentences(path)]
    assert [doc.text for doc in read] == [ref.text.rstrip() for ref in refs]  # the toy docs end in a space
    direct = score_frame_elements_open_sesame([Example(d, r) for d, r in zip(docs, refs)], inventory=inventory)
    via = score_frame_elements_open_sesame([Example(d, r) for d, r in zip(read, refs)], inventory=inventory)
    return docs, read, direct, via


@pytest.mark.slow
def test_the_open_sesame_score_of_the_export_equals_the_direct_one(trained_fe, tmp_path):
    nlp = spacy.load(trained_fe, disable=["frame_identifier"])
    refs = toy_fe_docs(nlp.vocab)
    docs, read, direct, via = _export_and_score(nlp, tmp_path, refs)
    assert direct["fe_os_f"] is not None and via == direct
    # a worse parse too: drop every other predicted FE
    for doc in docs:
        doc.spans[FE_KEY] = SpanGroup(doc, name=FE_KEY, spans=list(doc.spans[FE_KEY])[::2])
    path = tmp_path / "worse.conll"
    path.write_text("".join(doc_to_conll(doc) for doc in docs))
    read = [sentence_to_doc(nlp.vocab, s) for s in iter_open_sesame_sentences(path)]
    worse = [Example(d, r) for d, r in zip(docs, refs)]
    inventory = toy_fe_inventory()
    assert score_frame_elements_open_sesame(
        [Example(d, r) for d, r in zip(read, refs)], inventory=inventory
    ) == score_frame_elements_open_sesame(worse, inventory=inventory)
    # export -> convert -> the same targets, frames and FEs as the docs exported
    convert_conll(path, tmp_path / "parse.spacy")
    back = docs_from(DocBin().from_disk(tmp_path / "parse.spacy"), nlp.vocab)
    view = [
        [(f.start_char, f.end_char, f.label_, [(e.start_char, e.end_char, e.label_) for e in f._.frame_elements])]
        for doc in docs
        for f in doc._.frames
    ]
    back_view = [
        [(t.start_char, t.end_char, t.label_, [(e.start_char, e.end_char, e.label_) for e in t._.frame_elements])]
        for doc in back
        for t in doc.spans["targets"]
    ]
    assert back_view == view


@pytest.mark.slow
def test_annotate_writes_conll(trained_fe, tmp_path):
    nlp = spacy.load(trained_fe)
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"text": doc.text}) + "\n" for doc in toy_fe_docs(nlp.vocab)))
    out = tmp_path / "out.txt"
    annotate_corpus(nlp, str(source), out, progress=False, output_format="conll")
    docs = list(nlp.pipe(doc.text for doc in toy_fe_docs(nlp.vocab)))
    firsts = [0, *itertools.accumulate(n_sentences(doc) for doc in docs)]
    expected = "".join(doc_to_conll(doc, n) for doc, n in zip(docs, firsts))
    assert out.read_text() == expected
    # the sentence column runs over the file: a sentence repeated in the next doc reads back as two
    sentence_ids = [line.split("\t")[6] for line in expected.split("\n") if line]
    assert sentence_ids == sorted(sentence_ids, key=int) and len(set(sentence_ids)) > 1
    assert expected and all(len(line.split("\t")) == 15 for line in expected.split("\n") if line)
    with pytest.raises(ValueError, match="resume"):
        annotate_corpus(nlp, str(source), out, progress=False, output_format="conll", resume=True)


@pytest.mark.slow
def test_one_text_prints_as_conll_or_a_record(trained_fe):
    from typer.testing import CliRunner

    from spacy_frames.cli import app

    text = toy_fe_docs(spacy.blank("en").vocab)[0].text
    runner = CliRunner()
    conll = runner.invoke(app, ["annotate", str(trained_fe), text, "--format", "conll"])
    assert conll.exit_code == 0, conll.output
    nlp = spacy.load(trained_fe)
    assert "\t" in conll.output and conll.output == doc_to_conll(nlp(text)).rstrip("\n") + "\n"
    record = runner.invoke(app, ["annotate", str(trained_fe), text, "--format", "jsonl"])
    assert record.exit_code == 0 and json.loads(record.output)["text"] == text
    bad = runner.invoke(app, ["annotate", str(trained_fe), text, "--format", "spacy"])
    assert bad.exit_code == 1 and "needs an OUTPUT" in bad.output


def test_a_sentence_repeated_in_the_next_doc_reads_back_as_two(tmp_path):
    """Two docs of the same words: numbered on from the first, the reader keeps them apart."""
    nlp = spacy.blank("en")
    install_extensions()
    docs = []
    for _ in range(2):
        doc = nlp("Kim gave Lee a book .")
        doc.spans["frames"] = [Span(doc, 1, 2, label="Giving")]
        docs.append(doc)
    path = tmp_path / "two.conll"
    path.write_text(doc_to_conll(docs[0], 0) + doc_to_conll(docs[1], n_sentences(docs[0])))
    assert len(list(iter_open_sesame_sentences(path))) == 2
    path.write_text(doc_to_conll(docs[0]) + doc_to_conll(docs[1]))
    assert len(list(iter_open_sesame_sentences(path))) == 1  # numbered alike: one sentence


@pytest.mark.slow
def test_the_check_formats_script_on_the_tiny_pipeline(tiny_frames_trf, trained_fe, toy_fe_corpus, tmp_path):
    """scripts/check_formats.py (the check-formats command): every annotate record valid;
    the CoNLL export of --frame-parser read back scores what its docs score; the export
    converts back to the same sentences."""
    import subprocess
    import sys
    from pathlib import Path

    import srsly

    script = Path(__file__).parents[1] / "scripts" / "check_formats.py"
    output = tmp_path / "formats.json"
    args = [tiny_frames_trf, toy_fe_corpus / "dev.spacy", output, "--frame-parser", trained_fe]
    done = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    report = srsly.read_json(output)
    assert report["frame_parser"] == str(trained_fe)
    assert report["records"]["invalid_records"] == 0 and report["records"]["records"] == report["records"]["texts"]
    conll = report["conll"]
    assert conll["sentences_exported"] > 0 and conll["fe_os_f_read_from_conll"] == conll["fe_os_f_direct"]
    assert conll["converted_sentences_equal"] == conll["converted_sentences"] == conll["sentences_exported"]

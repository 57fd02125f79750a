"""`spacy-frames annotate MODEL INPUT OUTPUT`: corpus formats, records, resume, bad input,
n_process and Dask, on the tiny assembled en_frames_trf."""

import json

import pytest
import spacy
from spacy.tokens import DocBin
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.extensions import install_extensions
from spacy_frames.tools.annotate_corpus import JsonlOutput, annotate_corpus, skipped_path
from spacy_frames.tools.corpus_io import BadInputError, read_documents

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:.*has no cluster centroids")]

TEXTS = [
    "The committee decided to postpone the vote after protesters blocked the entrance.",
    "",
    "She gave him a book about frames and he read it over the weekend.",
    "   ",
    "Prices rose sharply. So demand outpaced the supply of grain.",
    "They walked to the station, bought tickets and boarded the train to Berlin.",
    "Your contribution to Goodwill will mean more than you may know.",
    "In contrast, the new law reduced taxes for small businesses.",
]


@pytest.fixture(scope="module")
def nlp(tiny_frames_trf):
    install_extensions()
    return spacy.load(tiny_frames_trf)


def write_txt(path, texts=TEXTS):
    path.write_text("".join(text + "\n" for text in texts), encoding="utf-8")
    return path


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- reading -------------------------------------------------------------------------


def test_readers_give_ids_texts_and_places(tmp_path):
    docs = list(read_documents(str(write_txt(tmp_path / "c.txt", ["a b", "", "c"]))))
    assert [(d.id, d.text, d.error) for d in docs] == [("1", "a b", None), ("2", "", None), ("3", "c", None)]
    assert docs[2].source.endswith("c.txt:3")
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "b.txt").write_text("second")
    (folder / "a.txt").write_text("first\nstill first")
    (folder / "notes.md").write_text("not a document")
    assert [(d.id, d.text) for d in read_documents(str(folder))] == [
        ("a.txt", "first\nstill first"),
        ("b.txt", "second"),
    ]
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_bytes(
        b'{"id": "x1", "body": "one"}\n\n{"body": "two"}\n{"body": 3}\n{broken\n{"other": 1}\n[1]\n{"body": "\xff"}\n'
    )
    docs = list(read_documents(str(jsonl), text_key="body"))
    assert [(d.id, d.text) for d in docs[:2]] == [("x1", "one"), ("3", "two")]
    errors = [d.error for d in docs[2:]]
    assert "not a string" in errors[0] and "invalid JSON" in errors[1] and "no 'body' field" in errors[2]
    assert "JSON object" in errors[3] and "undecodable" in errors[4]
    assert [d.source.rsplit(":", 1)[1] for d in docs[2:]] == ["4", "5", "6", "7", "8"]
    tsv = tmp_path / "c.tsv"
    tsv.write_bytes(b'doc\tcontent\nd1\thello there\nd2\tbad \xfe byte\nd3\t"quoted\ttab"\n')
    docs = list(read_documents(str(tsv), column="content", id_column="doc"))
    assert [(d.id, d.text, d.error is None) for d in docs] == [
        ("d1", "hello there", True),
        ("2", None, False),
        ("d3", "quoted\ttab", True),
    ]
    with pytest.raises(ValueError, match="no column 'text'"):
        list(read_documents(str(tsv)))
    with pytest.raises(ValueError, match="Unknown input format .xml"):
        read_documents(str(_touch(tmp_path / "c.xml")))
    with pytest.raises(FileNotFoundError, match="Input not found"):
        read_documents(str(tmp_path / "missing.jsonl"))


def _touch(path):
    path.write_text("")
    return path


# --- records -------------------------------------------------------------------------


@pytest.mark.slow
def test_records_hold_every_component_with_character_offsets(nlp, tmp_path):
    out = tmp_path / "out.jsonl"
    summary = annotate_corpus(nlp, str(write_txt(tmp_path / "in.txt")), out, batch_size=3, progress=False)
    assert summary.documents == len(TEXTS)
    rows = records(out)
    assert [r["id"] for r in rows] == [str(i) for i in range(1, len(TEXTS) + 1)]
    assert [r["text"] for r in rows] == TEXTS
    for row in rows:
        assert set(row) == {"schema", "id", "text", "frames", "discourse_relations", "media_frames", "cats"}
        for frame in row["frames"]:
            assert row["text"][frame["start"] : frame["end"]] == frame["text"]
            assert {
                "frame",
                "lexical_unit",
                "score",
                "ranking",
                "induced_frame",
                "induced_frame_label",
                "frame_elements",
            } <= set(frame)
            for fe in frame["frame_elements"]:
                assert row["text"][fe["start"] : fe["end"]] == fe["text"] and fe["label"]
        for relation in row["discourse_relations"]:
            assert relation["sense"] and len(relation["arg1"]) == 2
    assert any(r["frames"] for r in rows) and any(f["frame_elements"] for r in rows for f in r["frames"])
    # an empty or whitespace-only document is a record with empty annotations
    for empty in (rows[1], rows[3]):
        assert empty["frames"] == [] and empty["discourse_relations"] == []
    # the record is what the pipeline says about the document on its own
    doc = nlp(TEXTS[0])
    assert [(f["start"], f["end"], f["frame"]) for f in rows[0]["frames"]] == [
        (s.start_char, s.end_char, s.label_) for s in doc._.frames
    ]
    assert [[fe["label"] for fe in f["frame_elements"]] for f in rows[0]["frames"]] == [
        [fe.label_ for fe in s._.frame_elements] for s in doc._.frames
    ]


def test_docbin_output_keeps_the_extensions(nlp, tmp_path):
    out = tmp_path / "out.spacy"
    annotate_corpus(nlp, str(write_txt(tmp_path / "in.txt")), out, progress=False)
    docs = list(DocBin().from_disk(out).get_docs(nlp.vocab))
    assert [d.text for d in docs] == TEXTS and [d.user_data["annotate_id"] for d in docs][:2] == ["1", "2"]
    fresh = nlp(TEXTS[0])
    assert [(s.label_, [fe.label_ for fe in s._.frame_elements], s._.lexical_unit) for s in docs[0]._.frames] == [
        (s.label_, [fe.label_ for fe in s._.frame_elements], s._.lexical_unit) for s in fresh._.frames
    ]


# --- long runs: resume, interruption, processes, Dask ------------------------------------


def test_resume_after_an_interruption_gives_the_uninterrupted_file(nlp, tmp_path, monkeypatch):
    source = write_txt(tmp_path / "in.txt")
    full = tmp_path / "full.jsonl"
    annotate_corpus(nlp, str(source), full, batch_size=2, progress=False)
    # interrupted (Ctrl-C) after three records: a valid file with those three
    out = tmp_path / "out.jsonl"
    original_write, calls = JsonlOutput.write, []

    def interrupt_after_three(self, doc, doc_id, line=None):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(doc_id)
        original_write(self, doc, doc_id, line)

    monkeypatch.setattr(JsonlOutput, "write", interrupt_after_three)
    with pytest.raises(KeyboardInterrupt):
        annotate_corpus(nlp, str(source), out, batch_size=2, progress=False)
    monkeypatch.setattr(JsonlOutput, "write", original_write)
    assert len(records(out)) == 3
    # a half-written last line (killed mid-write) is cut back, never duplicated
    with out.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "4", "text": "half')
    summary = annotate_corpus(nlp, str(source), out, batch_size=2, resume=True, progress=False)
    assert summary.resumed_after == 3 and summary.documents == len(TEXTS) - 3
    assert out.read_bytes() == full.read_bytes()
    # resuming a finished file adds nothing
    assert annotate_corpus(nlp, str(source), out, resume=True, progress=False).documents == 0
    assert out.read_bytes() == full.read_bytes()


def test_two_processes_give_the_same_file(nlp, tmp_path):
    source = write_txt(tmp_path / "in.txt", TEXTS * 2)
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    annotate_corpus(nlp, str(source), one, batch_size=4, progress=False)
    annotate_corpus(nlp, str(source), two, batch_size=4, n_process=2, progress=False)
    assert one.read_bytes() == two.read_bytes()


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_file(nlp, tiny_frames_trf, tmp_path):
    pytest.importorskip("distributed")
    source = write_txt(tmp_path / "in.txt", TEXTS * 2)
    single, on_dask = tmp_path / "single.jsonl", tmp_path / "dask.jsonl"
    annotate_corpus(nlp, str(source), single, batch_size=2, progress=False)
    summary = annotate_corpus(
        None, str(source), on_dask, batch_size=2, progress=False, dask="local:2", model=str(tiny_frames_trf)
    )
    assert summary.documents == 2 * len(TEXTS)
    assert single.read_bytes() == on_dask.read_bytes()
    with pytest.raises(ValueError, match="writes .jsonl"):
        annotate_corpus(
            None, str(source), tmp_path / "x.spacy", dask="local:2", model=str(tiny_frames_trf), progress=False
        )


# --- bad input -----------------------------------------------------------------------


def bad_jsonl(path):
    path.write_bytes(
        b'{"text": "Prices rose sharply."}\n{"text": "They boarded the train."}\n{"txt": "wrong key"}\n'
        b'{"text": "She gave him a book."}\n{oops\n{"text": "The vote was postponed."}\n'
    )
    return path


def test_bad_input_stops_after_writing_what_came_before_or_is_skipped(nlp, tmp_path):
    source = bad_jsonl(tmp_path / "in.jsonl")
    out = tmp_path / "out.jsonl"
    with pytest.raises(BadInputError, match=r"in.jsonl:3: no 'text' field") as err:
        annotate_corpus(nlp, str(source), out, batch_size=4, progress=False)
    assert "--skip-bad" in str(err.value)
    assert [r["text"] for r in records(out)] == ["Prices rose sharply.", "They boarded the train."]
    summary = annotate_corpus(nlp, str(source), out, batch_size=4, skip_bad=True, progress=False)
    assert [r["id"] for r in records(out)] == ["1", "2", "4", "6"]
    skipped = [json.loads(line) for line in skipped_path(out).read_text().splitlines()]
    assert [(s["id"], s["index"]) for s in skipped] == [("3", 2), ("5", 4)] and "invalid JSON" in skipped[1]["reason"]
    assert len(summary.skipped) == 2


@pytest.mark.slow
def test_cli_annotates_a_csv_corpus_and_reports_errors(tiny_frames_trf, tmp_path):
    runner = CliRunner()
    source = tmp_path / "in.csv"
    source.write_text('id,body\na,"Prices rose sharply, and demand grew."\nb,\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = runner.invoke(
        app,
        [
            "annotate",
            str(tiny_frames_trf),
            str(source),
            str(out),
            "--column",
            "body",
            "--id-column",
            "id",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in records(out)] == ["a", "b"] and "2 records written" in result.output
    result = runner.invoke(app, ["annotate", str(tiny_frames_trf), str(source), str(out), "--no-progress"])
    assert result.exit_code == 1 and "no column 'text' (--column)" in result.output
    result = runner.invoke(app, ["annotate", str(tiny_frames_trf), str(source), str(tmp_path / "out.xml")])
    assert result.exit_code == 1 and "expected .jsonl or .spacy" in result.output
    result = runner.invoke(app, ["annotate", str(tiny_frames_trf), str(source)])
    assert result.exit_code == 1 and "give an OUTPUT" in result.output
    bad = bad_jsonl(tmp_path / "bad.jsonl")
    result = runner.invoke(
        app,
        [
            "annotate",
            str(tiny_frames_trf),
            str(bad),
            str(out),
            "--skip-bad",
            "--no-progress",
            "--exclude",
            "media_framer",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "2 unreadable documents skipped" in result.output and all(r["cats"] == {} for r in records(out))
    result = runner.invoke(
        app, ["annotate", str(tiny_frames_trf), "-", str(out), "--no-progress"], input="One line.\nTwo lines.\n"
    )
    assert result.exit_code == 0, result.output
    assert [r["text"] for r in records(out)] == ["One line.", "Two lines."]


@pytest.mark.slow
def test_pipeline_benchmark_times_every_component(tiny_frames_trf):
    from spacy_frames.tools.pipeline_benchmark import directory_size_mib, measure, model_directory

    run = measure(str(tiny_frames_trf), TEXTS * 2, n_threads=1, batch_size=4, n_process=1, warmup=["Warm up."])
    parts = measure(str(tiny_frames_trf), TEXTS * 2, 1, 4, 1, warmup=["Warm up."], components=True)
    nlp = spacy.load(tiny_frames_trf)
    assert list(parts["component_seconds"]) == ["tokenizer", *nlp.pipe_names] and "words" not in parts
    assert run["words"] == sum(len(nlp.make_doc(t)) for t in TEXTS * 2) and run["words_per_second"] > 0
    assert run["load_seconds"] > 0 and run["peak_rss_mib"] > 0 and "component_seconds" not in run
    assert model_directory(str(tiny_frames_trf)) == tiny_frames_trf and directory_size_mib(tiny_frames_trf) > 0


def test_benchmark_warms_up_on_texts_it_does_not_time(tmp_path):
    # a cache keyed by text (media_framer's USE vectors) must not have seen a timed text
    from spacy.tokens import DocBin

    from spacy_frames.tools.pipeline_benchmark import timed_and_warmup

    nlp = spacy.blank("en")
    path = tmp_path / "docs.spacy"
    DocBin(docs=[nlp(f"Sentence number {i} has six words.") for i in range(50)]).to_disk(path)
    timed, warmup = timed_and_warmup(path, 140, documents=False)
    assert sum(len(nlp.make_doc(t)) for t in timed) >= 140 and warmup
    assert not set(timed) & set(warmup)
    timed, warmup = timed_and_warmup(path, 10_000, documents=False)
    assert len(timed) == 50 and warmup == []


@pytest.mark.slow
def test_pipeline_benchmark_two_processes_inside_a_fresh_process(tiny_frames_trf):
    # benchmark-pipeline measures nlp.pipe(n_process=2) from inside a spawned worker
    from spacy_frames.tools.pipeline_benchmark import measure_in_fresh_process

    run = measure_in_fresh_process(str(tiny_frames_trf), TEXTS * 2, 2, 4, 2)
    assert run["n_process"] == 2 and run["torch_threads_per_process"] == 1
    assert run["words"] == sum(len(spacy.blank("en").make_doc(t)) for t in TEXTS * 2)


def test_pipeline_benchmark_on_whole_documents(tiny_frames_trf, transformer_dir, tmp_path):
    """FrameNet sentences joined by their document, an article as it is; the full pipeline
    and the bare transformer on the same documents."""
    from spacy_frames.tools.benchmark import load_texts
    from spacy_frames.tools.pipeline_benchmark import benchmark_documents

    nlp = spacy.blank("en")
    docs = [nlp(text) for text in ("One here .", "Two here .", "Three there .", "A whole article . Of two sentences .")]
    for doc, name in zip(docs, ("a.xml", "a.xml", "b.xml", None)):
        if name:
            doc.user_data["framenet"] = {"doc": name}
    DocBin(docs=docs, store_user_data=True).to_disk(tmp_path / "test.spacy")
    assert load_texts(tmp_path / "test.spacy", 100, documents=True) == [
        "One here . Two here .",
        "Three there .",
        "A whole article . Of two sentences .",
    ]
    assert len(load_texts(tmp_path / "test.spacy", 100)) == 4
    # a folder of raw documents (GDTB's): one file each, in name order, up to n_words
    (tmp_path / "raw").mkdir()
    for name, text in (("b_doc", "Second doc here ."), ("a_doc", "First doc . Two sentences ."), (".hidden", "x")):
        (tmp_path / "raw" / name).write_text(text, encoding="utf8")
    assert load_texts(tmp_path / "raw", 100, documents=True) == ["First doc . Two sentences .", "Second doc here ."]
    assert load_texts(tmp_path / "raw", 3, documents=True) == ["First doc . Two sentences ."]
    result = benchmark_documents(
        str(tiny_frames_trf),
        str(transformer_dir),
        tmp_path / "test.spacy",
        n_words=100,
        n_threads=1,
        batch_size=4,
        repeats=2,
    )
    assert result["documents"] == 3 and result["words"] == sum(len(d) for d in docs)
    runs = result["words_per_second_runs"]
    assert len(runs["full"]) == len(runs["bare_transformer"]) == 2
    assert result["words_per_second"]["full"] in runs["full"]
    assert result["full_over_bare"] > 0 and set(result["component_share"]) >= {"transformer", "discourse_sense"}


def test_benchmark_repeats_must_be_positive():
    from spacy_frames.tools.pipeline_benchmark import median_runs

    with pytest.raises(ValueError, match="repeats must be at least 1, got 0"):
        median_runs("full", "bare", ["a text"], [], n_threads=1, batch_size=1, repeats=0)

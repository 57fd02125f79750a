"""Robustness (issue 24): the hostile-document generator, a small robustness run with
n_process=2, windows longer than the encoder takes, damaged model directories, and every
extension through DocBin / to_bytes, on the tiny assembled en_frames_trf."""

import json
import shutil

import pytest
import spacy
import srsly
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.extensions import install_extensions
from spacy_frames.pipeline.base import ModelDataError
from spacy_frames.tools.hostile import CONTROL, HUGE_EVERY, KINDS, LONG_TOKEN_CHARS, hostile_documents
from spacy_frames.tools.records import doc_to_record

pytestmark = pytest.mark.filterwarnings("ignore:.*has no cluster centroids")

# frame_identifier, frame_elements, frame_inducer, discourse_sense, media_framer
OUR_COMPONENTS = ["frame_identifier", "frame_elements", "frame_inducer", "discourse_sense", "media_framer"]
TEXTS = [
    "The committee decided to postpone the vote after protesters blocked the entrance. Prices rose sharply because demand outpaced the supply of grain.",
    "She gave him a book about frames and he read it over the weekend. In contrast, the new law reduced taxes for small businesses.",
    "They walked to the station, bought tickets and boarded the train to Berlin.",
    "",
]


@pytest.fixture(scope="module")
def nlp(tiny_frames_trf):
    install_extensions()
    return spacy.load(tiny_frames_trf)


# --- the generator -------------------------------------------------------------------


@pytest.mark.slow
def test_hostile_documents_are_seeded_and_cover_every_kind():
    n = 2 * HUGE_EVERY + 10
    docs = list(hostile_documents(n, seed=3, huge_words=50))
    assert docs == list(hostile_documents(n, seed=3, huge_words=50))
    assert [d.text for d in docs] != [d.text for d in hostile_documents(n, seed=4, huge_words=50)]
    # every kind first, in order; then drawn kinds, the huge one once per HUGE_EVERY
    assert [d.kind for d in docs[: len(KINDS)]] == list(KINDS)
    assert {d.kind for d in docs[len(KINDS) :]} == set(KINDS)
    assert [i for i, d in enumerate(docs) if d.kind == "huge"] == [
        list(KINDS).index("huge") + k * HUGE_EVERY for k in range(3)
    ]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d.kind, []).append(d.text)
        d.text.encode("utf8")  # no lone surrogates: every document can be serialised and sent to a worker
    assert all(len(text.split()) == 50 for text in by_kind["huge"])
    assert set(by_kind["empty"]) == {""} and all(text and not text.strip() for text in by_kind["whitespace"])
    assert all(len(text.split()) == 1 for text in by_kind["one_word"])
    assert any("\ufffd" in text for text in by_kind["undecodable"])
    assert all(max(len(token) for token in text.split()) >= LONG_TOKEN_CHARS for text in by_kind["long_token"])
    assert all(
        any("\u4e00" <= c <= "\u9fff" or "\u3040" <= c <= "\u30ff" or "\uac00" <= c <= "\ud7a3" for c in t)
        for t in by_kind["cjk"]
    )
    assert all(any("\u0600" <= c <= "\u06ff" for c in text) for text in by_kind["arabic"])
    assert any(piece in text for text in by_kind["control"] for piece in CONTROL if piece.strip())
    markup = by_kind["markup"]
    assert any("<html>" in t for t in markup) and any(t.startswith("<?xml") for t in markup)
    assert any(t.startswith("# ") for t in markup) and any(
        isinstance(json.loads(t), dict) for t in markup if t.startswith("{")
    )
    # the huge document at its real size
    huge = next(d for d in hostile_documents(len(KINDS), seed=0) if d.kind == "huge")
    assert len(huge.text.split()) == 20000


# --- a robustness run ------------------------------------------------------------------


@pytest.mark.slow
def test_robustness_run_without_crashes_and_n_process_identical(nlp):
    from spacy_frames.tools.robustness import robustness

    result = robustness(nlp, n_docs=60, seed=1, batch_size=8, n_check=40, huge_words=400, progress=False)
    assert result["crashes"] == 0, result["crash_log"]
    assert result["documents"] == 60 and set(result["kinds"]) == set(KINDS)
    assert all(counts["documents"] >= 1 and counts["crashes"] == 0 for counts in result["kinds"].values())
    assert result["words"] == sum(counts["words"] for counts in result["kinds"].values())
    assert result["kinds"]["huge"]["words"] >= 400 and result["words_per_second"] > 0
    assert result["peak_rss_mib"] >= result["rss_mib"]["after_load"] > 0
    check = result["n_process_check"]
    assert result["n_process_identical"] is True and check["documents"] == 40 and check["different"] == []
    assert check["peak_rss_workers_mib"] > 0


@pytest.mark.slow
def test_a_crash_is_recorded_and_the_run_goes_on(nlp, monkeypatch):
    from spacy_frames.tools import robustness as module

    component = nlp.get_pipe("discourse_sense")
    predict = type(component).predict

    def has_han(text):
        return any("\u4e00" <= c <= "\u9fff" for c in text)

    def fail_on_han(self, docs):
        if any(has_han(doc.text) for doc in docs):
            raise RuntimeError("boom")
        return predict(self, docs)

    monkeypatch.setattr(type(component), "predict", fail_on_han)
    documents = list(hostile_documents(40, seed=2, huge_words=20))
    run = module.run_documents(nlp, documents, batch_size=8, progress=False)
    bad = [i for i, d in enumerate(documents) if has_han(d.text)]
    assert bad and run["crashes"] == len(bad) and run["documents"] == 40
    assert [c["index"] for c in run["crash_log"]] == bad and {c["error"] for c in run["crash_log"]} == {"RuntimeError"}
    assert all(c["kind"] == documents[c["index"]].kind and c["message"] == "boom" for c in run["crash_log"])
    assert sum(counts["crashes"] for counts in run["kinds"].values()) == len(bad)


@pytest.mark.slow
def test_cli_robustness_writes_the_metrics(tiny_frames_trf, tmp_path):
    out = tmp_path / "metrics" / "robustness.json"
    result = CliRunner().invoke(
        app,
        [
            "robustness",
            str(tiny_frames_trf),
            "--n-docs",
            "20",
            "--huge-words",
            "100",
            "--n-check",
            "10",
            "--output",
            str(out),
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    metrics = srsly.read_json(out)
    assert metrics["documents"] == 20 and metrics["crashes"] == 0 and metrics["n_process_identical"] is True
    assert {"words", "words_per_second", "peak_rss_mib", "kinds", "seed"} <= set(metrics)
    assert "0 crashes" in result.output


# --- regression: windows longer than the encoder's positions ----------------------------


def test_long_windows_are_cut_to_the_encoder_positions(tiny_frames_trf):
    """The tiny BERT's tokenizer was saved without model_max_length (1e30) and has 128
    positions: a window of punctuation or a long URL (hundreds of wordpieces) crashed the
    shared transformer and the components' own copies in their position embeddings."""
    from spacy_frames.ml.transformer import _is_transformer_model

    nlp = spacy.load(tiny_frames_trf)
    # the packaged components are heads on the shared transformer; one with its own copy,
    # as `replace_listeners` makes it
    nlp.replace_listeners("transformer", "media_framer", ["model.tok2vec"])
    texts = ["!?" * 400, "See https://example.com/" + "a/b-c_" * 600 + " now.", "Prices rose. " + "( ) " * 300]
    docs = list(nlp.pipe(texts))
    assert [doc.text for doc in docs] == texts
    models = [
        node
        for _, pipe in nlp.pipeline
        if getattr(pipe, "model", None) is not None
        for node in pipe.model.walk()
        if _is_transformer_model(node)
    ]
    assert len(models) >= 2  # the shared transformer and the replaced listeners' copies
    for node in models:
        hf_model = node.layers[0].shims[0]._hfmodel
        assert hf_model.tokenizer.model_max_length <= hf_model.transformer.config.max_position_embeddings


def test_usable_positions():
    from transformers import BertConfig, RobertaConfig

    from spacy_frames.ml.transformer import usable_positions

    assert usable_positions(BertConfig(max_position_embeddings=128)) == 128
    assert usable_positions(RobertaConfig(max_position_embeddings=514, pad_token_id=1)) == 512


# --- damaged model directories -------------------------------------------------------------


def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage(path):
    path.write_text("{not json")


@pytest.fixture
def damaged_dir(tiny_frames_trf, tmp_path):
    """`damage(relative path, how)`: a copy of the tiny pipeline with that file broken."""

    def damage(rel, how):
        root = shutil.copytree(tiny_frames_trf, tmp_path / "frames_trf")
        if how == "delete":
            (root / rel).unlink()
        else:
            how(root / rel)
        return root

    return damage


@pytest.mark.parametrize(
    "rel,how",
    [
        *[(f"{name}/model", _truncate) for name in OUR_COMPONENTS],
        ("transformer/model", _truncate),  # the shared transformer: our architecture's loader
        ("frame_identifier/model", "delete"),
        ("media_framer/cfg", _garbage),
        ("frame_elements/fe_table", _truncate),
        ("frame_inducer/clusters", _garbage),
    ],
)
@pytest.mark.slow
def test_spacy_load_names_our_damaged_file(damaged_dir, rel, how):
    root = damaged_dir(rel, how)
    with pytest.raises(ModelDataError, match="reinstall the package or retrain it") as err:
        spacy.load(root)
    assert str(root / rel) in str(err.value)
    assert ("missing" in str(err.value)) == (how == "delete")


@pytest.mark.parametrize(
    "rel,how",
    [
        ("meta.json", _garbage),
        ("meta.json", "delete"),
        ("config.cfg", _truncate),
        ("transformer/model", _truncate),
        ("tokenizer", _truncate),
    ],
)
@pytest.mark.slow
def test_files_spacy_reads_are_named_by_load_pipeline_and_the_cli(damaged_dir, rel, how, tmp_path):
    """spaCy core and spacy-transformers read these themselves (srsly's or msgpack's bare
    message, no file name): load_pipeline and our CLI name the file."""
    from spacy_frames.tools.model_check import load_pipeline

    root = damaged_dir(rel, how)
    with pytest.raises(ModelDataError, match="reinstall the package or retrain it") as err:
        load_pipeline(root)
    assert str(root / rel) in str(err.value)
    result = CliRunner().invoke(
        app, ["robustness", str(root), "--n-docs", "2", "--output", str(tmp_path / "r.json"), "--no-progress"]
    )
    assert result.exit_code == 1 and rel in result.output and "reinstall" in result.output
    assert not (tmp_path / "r.json").exists()


def test_truncated_component_bytes_name_the_component(tiny_frames_trf):
    nlp = spacy.load(tiny_frames_trf, exclude=[name for name in OUR_COMPONENTS if name != "media_framer"])
    data = nlp.get_pipe("media_framer").to_bytes()
    with pytest.raises(ModelDataError, match="media_framer.*reinstall"):
        nlp.get_pipe("media_framer").from_bytes(data[: len(data) // 2])


# --- every extension through DocBin and to_bytes ---------------------------------------


def extension_values(doc):
    """doc_to_record plus every span group (spans, ids, attrs) and every Span._ value of
    every span in it, and every Doc._ value: what a user can read back."""
    groups = {}
    for key, group in doc.spans.items():
        groups[key] = {
            "attrs": dict(group.attrs),
            "spans": [
                [span.start_char, span.end_char, span.label_, span.id_]
                + [_plain(getattr(span._, name)) for name in sorted(span._._extensions)]
                for span in group
            ],
        }
    doc_values = {name: _plain(getattr(doc._, name)) for name in sorted(doc._._extensions) if name != "trf_data"}
    return {"record": doc_to_record(doc, "x"), "groups": groups, "doc": doc_values}


def _plain(value):
    if hasattr(value, "start_char") and hasattr(value, "label_"):  # a Span (frame_elements, frames)
        return [value.start_char, value.end_char, value.label_]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def test_every_extension_survives_docbin_and_to_bytes(nlp):
    docs = list(nlp.pipe(TEXTS))
    before = [extension_values(doc) for doc in docs]
    records = [value["record"] for value in before]
    # every component left something to compare
    frames = [frame for record in records for frame in record["frames"]]
    assert frames and any(f["lexical_unit"] for f in frames) and any(f["ranking"] for f in frames)
    assert any(f["frame_elements"] for f in frames) and any(f["induced_frame"] for f in frames)
    assert any(r["discourse_relations"] for r in records) and all(r["cats"] for r in records)
    assert any(group["spans"] for value in before for group in value["groups"].values())

    doc_bin = DocBin(store_user_data=True, docs=docs)
    restored = list(DocBin(store_user_data=True).from_bytes(doc_bin.to_bytes()).get_docs(nlp.vocab))
    assert [extension_values(doc) for doc in restored] == before
    restored = [Doc(nlp.vocab).from_bytes(doc.to_bytes()) for doc in docs]
    assert [extension_values(doc) for doc in restored] == before
    # media_frames is derived from cats and thresholds: the same list either way
    assert [doc._.media_frames for doc in restored] == [doc._.media_frames for doc in docs]


def test_a_config_cut_inside_a_function_name_is_named_and_a_missing_plugin_is_not(tmp_path):
    """A config.cfg cut inside a quoted registered name leaves the name's opening quote:
    load_pipeline names the file; an unknown name without it (a plugin not installed) keeps
    spaCy's own error."""
    from catalogue import RegistryError

    from spacy_frames.tools.model_check import load_pipeline

    nlp = spacy.blank("en")
    nlp.add_pipe("tagger")
    nlp.initialize(lambda: [Example.from_dict(nlp.make_doc("a b"), {"tags": ["X", "Y"]})])
    nlp.to_disk(tmp_path / "p")
    config = tmp_path / "p" / "config.cfg"
    text = config.read_text()
    cut = text.index('"spacy.Tagger.v2"') + len('"spacy.Tagg')
    config.write_text(text[:cut])
    with pytest.raises(ModelDataError, match="reinstall the package or retrain it") as err:
        load_pipeline(tmp_path / "p")
    assert str(config) in str(err.value)
    config.write_text(text.replace('"spacy.Tagger.v2"', '"some_plugin.Tagger.v1"'))
    with pytest.raises(RegistryError, match="some_plugin.Tagger.v1"):
        load_pipeline(tmp_path / "p")

"""The research frame_elements component (frames_lab.fe_research, factory
frame_elements_research) end to end on the tiny BERT: the study's configs name only lab
code and build, `spacy train` of the tiny twin with every research option, definition
queries and label vectors started from the definitions, negative sampling, the pruner's
prediction pieces, the lab's `tune` (phrases and clauses, the pruner's recall) and the
joint stage 2."""

import subprocess
import sys
import warnings
from pathlib import Path

import numpy
import pytest
import spacy
import srsly
from fe_toy import FES, gold_frames_doc, toy_fe_docs, toy_fe_inventory
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.util import make_tempdir
from syntax_toy import tiny_syntax_path

import spacy_frames

CONFIGS = Path(__file__).resolve().parents[1] / "configs"  # the study's research configs
TEST_CONFIGS = CONFIGS / "test"  # their tiny twins
FACTORY = "frame_elements_research"


def head_config(trained_frames, toy_fe_corpus, **overrides):
    """configs/test/frame_elements.cfg: the research head on the toy frame parser's frozen
    transformer, with the pruner, target tokens and context and frame-aware queries."""
    paths = {
        "paths.frames": str(trained_frames),
        "paths.tagger": str(tiny_syntax_path()),
        "paths.train": str(toy_fe_corpus / "train.spacy"),
        "paths.dev": str(toy_fe_corpus / "dev.spacy"),
        "paths.fe_frames": str(toy_fe_corpus / "frames.json"),
    }
    return spacy.util.load_config(TEST_CONFIGS / "frame_elements.cfg", overrides={**paths, **overrides})


def train_tiny(config, output: Path, max_steps: int, eval_frequency: int) -> Path:
    """`spacy train` of a tiny twin config; returns model-last."""
    from spacy.cli.train import train

    output.mkdir(parents=True, exist_ok=True)
    config.to_disk(output / "config.cfg")
    overrides = {"training.max_steps": max_steps, "training.eval_frequency": eval_frequency}
    train(output / "config.cfg", output, overrides=overrides)
    return output / "model-last"


@pytest.fixture(scope="module")
def trained_research(trained_frames, toy_fe_corpus, tmp_path_factory):
    """The research head trained on the toy FEs with `spacy train` (tiny twin config)."""
    return train_tiny(head_config(trained_frames, toy_fe_corpus), tmp_path_factory.mktemp("fe_research"), 60, 20)


@pytest.fixture(scope="module")
def fe_nlp(trained_research):
    nlp = spacy.load(trained_research)
    assert "frame_identifier" in nlp.disabled
    return nlp


def fe_view(doc):
    return [[(fe.start, fe.end, fe.label_) for fe in frame._.frame_elements] for frame in doc._.frames]


@pytest.mark.slow
def test_the_lab_names_resolve_through_their_entry_points_in_a_fresh_process():
    """`spacy train` finds the research component without --code: every entry point of
    experiments/pyproject.toml resolves by its registered name, nothing imported first."""
    from importlib.metadata import distribution

    groups = {"spacy_factories": "factories", "spacy_architectures": "architectures", "spacy_misc": "misc"}
    names = [(groups[ep.group], ep.name) for ep in distribution("frames-lab").entry_points if ep.group in groups]
    assert {name for _, name in names} >= {FACTORY, "frames-lab.FrameElementScorer.v1"}
    code = (
        "import sys, spacy\nfrom spacy.language import Language\nfrom spacy.util import registry\n"
        "spacy.blank('en')  # a pipeline being built reads the factories' entry points\n"
        "for r, n in zip(sys.argv[1::2], sys.argv[2::2]):\n"
        "    assert Language.has_factory(n) if r == 'factories' else registry.get(r, n), n\n"
    )
    args = [part for pair in names for part in pair]
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]


# the product's head (fe_head_shipped.cfg) is held to the shipped block in test_fe_parse_screen.py
RESEARCH_CONFIGS = sorted(p for p in CONFIGS.glob("**/*.cfg") if p.name != "fe_head_shipped.cfg")


@pytest.mark.parametrize("path", RESEARCH_CONFIGS, ids=lambda p: str(p.relative_to(CONFIGS)))
def test_the_study_configs_name_lab_code_and_build(path):
    """Each research config (and tiny twin) names the lab's factory, architecture and
    suggester, and its frame_elements block builds the component as configured."""
    config = spacy.util.load_config(path)
    block = dict(config["components"]["frame_elements"])
    assert block.pop("factory") == FACTORY
    assert block["model"]["@architectures"] == "frames-lab.FrameElementScorer.v1"
    assert block["suggester"]["@misc"].startswith("frames-lab.fe_candidate_suggester.")
    pipe = spacy.blank("en").add_pipe(FACTORY, name="frame_elements", config=block)
    assert all(pipe.cfg[key] == value for key, value in block.items() if key in pipe.cfg)
    assert pipe.model.name == "frame_element_scorer"


def test_the_factory_default_is_the_lab_stage2_recipe():
    """The factory's defaults are configs/frames_stage2_fe.cfg's frame_elements (the
    transformer listener aside)."""
    stage2 = spacy.util.load_config(CONFIGS / "frames_stage2_fe.cfg", interpolate=False)["components"]
    nlp = spacy.blank("en")
    nlp.add_pipe(FACTORY, name="frame_elements")
    default = nlp.config["components"]["frame_elements"]

    def flat(block, prefix=""):
        for key, value in block.items():
            if isinstance(value, dict):
                yield from flat(value, f"{prefix}{key}.")
            else:
                yield f"{prefix}{key}", value

    defaults = dict(flat(default))
    differ = {
        key: (value, defaults.get(key))
        for key, value in flat(stage2["frame_elements"])
        if not key.startswith("model.tok2vec") and defaults.get(key) != value
    }
    assert not differ


def test_spacy_train_overfits_the_toy_set_with_every_research_option(fe_nlp):
    nlp = fe_nlp
    pipe = nlp.get_pipe("frame_elements")
    assert nlp.get_pipe_meta("frame_elements").factory == FACTORY and pipe.cfg["fe_queries"] == "definitions"
    attrs = pipe.model.attrs
    assert attrs["prune_k"] == 8 and attrs["target_tokens"] == 8 and attrs["target_context"] and attrs["frame_queries"]
    refs = toy_fe_docs(nlp.vocab)
    for ref, fes in zip(refs, FES):
        doc = nlp(gold_frames_doc(nlp, ref))
        expected = [sorted(fes.get(i, [])) for i in range(len(ref.spans["targets"]))]
        assert [sorted(view) for view in fe_view(doc)] == expected, ref.text
        for frame in doc._.frames:  # FE spans in document order, never overlapping each other
            spans = [(f.start, f.end) for f in frame._.frame_elements]
            assert spans == sorted(spans) and all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    scores = nlp.evaluate([Example(gold_frames_doc(nlp, ref), ref) for ref in refs])
    assert scores["fe_f"] == 1.0


@pytest.mark.slow
def test_pipe_processes_and_serialization_round_trip(fe_nlp):
    nlp = fe_nlp
    refs = toy_fe_docs(nlp.vocab)
    expected = [fe_view(nlp(gold_frames_doc(nlp, ref))) for ref in refs]
    for n_process in (1, 2):
        docs = nlp.pipe([gold_frames_doc(nlp, ref) for ref in refs], batch_size=2, n_process=n_process)
        assert [fe_view(doc) for doc in docs] == expected
    out = list(nlp.pipe([gold_frames_doc(nlp, ref) for ref in refs]))
    restored = list(DocBin(docs=out, store_user_data=True).get_docs(nlp.vocab))
    restored += [Doc(nlp.vocab).from_bytes(doc.to_bytes()) for doc in out]
    assert [fe_view(doc) for doc in restored] == expected + expected
    with make_tempdir() as d:
        nlp.to_disk(d)
        loaded = spacy.load(d)
    assert [fe_view(loaded(gold_frames_doc(loaded, ref))) for ref in refs] == expected
    pipe, fresh = nlp.get_pipe("frame_elements"), loaded.get_pipe("frame_elements")
    fresh.from_bytes(pipe.to_bytes())
    assert fresh.fe_table == pipe.fe_table and fresh.model.attrs == pipe.model.attrs


@pytest.mark.slow
def test_definition_queries_take_new_frames_and_inventories_without_retraining(trained_research):
    """fe_queries = "definitions": a frame added at run time gets its FE definitions encoded
    into the FE table; another inventory rebuilds the table from its definitions."""
    nlp = spacy.load(trained_research)
    pipe = nlp.get_pipe("frame_elements")
    n = len(pipe.fe_table)
    fes = [
        {"name": "Cook", "core_type": "Core", "definition": "The one who cooks."},
        {"name": "Food", "core_type": "Core", "definition": "What is cooked."},
    ]
    spacy_frames.add_frame(
        nlp, "Cooking", "A Cook prepares Food by applying heat.", lexical_units=["cook.v"], frame_elements=fes
    )
    assert pipe.fe_table[n:] == [("Cooking", "Cook"), ("Cooking", "Food")]
    assert pipe.model.get_param("fe_vectors").shape[0] == n + 2
    expected = nlp.get_pipe("frame_identifier").encode_texts(["Cooking: Cook (core): The one who cooks."])[0]
    numpy.testing.assert_allclose(pipe.model.get_param("fe_vectors")[n], expected, atol=1e-5)
    doc = nlp.make_doc("She cooked the rice .")
    doc.spans["frames"] = [doc.char_span(4, 10, label="Cooking")]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert all(fe.label_ in ("Cook", "Food") for fe in nlp(doc)._.frames[0]._.frame_elements)
    inventory = toy_fe_inventory()
    spacy_frames.set_inventory(nlp, inventory)
    assert len(pipe.fe_table) == inventory.n_frame_elements and pipe.inventory is inventory


@pytest.mark.slow
def test_label_queries_started_from_the_definitions(trained_frames, toy_fe_corpus, tmp_path):
    """fe_queries = "labels" (one learned vector per FE name); with label_init =
    "definitions" a name never trained starts as its encoded definition."""
    overrides = {
        "components.frame_elements.fe_queries": "labels",
        "components.frame_elements.model.learn_fe_vectors": True,
    }
    model = train_tiny(head_config(trained_frames, toy_fe_corpus, **overrides), tmp_path / "labels", 60, 30)
    nlp = spacy.load(model)
    pipe = nlp.get_pipe("frame_elements")
    names = {fe["name"] for info in toy_fe_inventory().frames.values() for fe in info["frame_elements"]}
    assert {fe for _, fe in pipe.fe_table} == names and len(pipe.fe_table) == len(names)  # one row per FE name
    ref = toy_fe_docs(nlp.vocab)[1]
    assert fe_view(nlp(gold_frames_doc(nlp, ref))) == [sorted(FES[1][0])]
    with pytest.raises(ValueError, match="learn_fe_vectors"):  # the default model learns them
        spacy.blank("en").add_pipe(FACTORY, config={"fe_queries": "definitions"})
    pipe.cfg["label_init"] = "definitions"
    cook = {"name": "Cook", "core_type": "Core", "definition": "The one who cooks."}
    spacy_frames.add_frame(
        nlp, "Cooking", "A Cook prepares food.", frame_elements=[cook, {"name": "Donor", "core_type": "Core"}]
    )
    row = [name for _, name in pipe.fe_table].index("Cook")
    expected = nlp.get_pipe("frame_identifier").encode_texts(["Cooking: Cook (core): The one who cooks."])[0]
    numpy.testing.assert_allclose(pipe.model.get_param("fe_vectors")[row], expected, atol=1e-5)
    assert len(pipe.fe_table) == len(names) + 1  # Donor was known: kept, not duplicated


def test_negative_sampling_keeps_every_fe_row():
    pipe = spacy.blank("en").add_pipe(FACTORY, config={"negative_fraction": 0.25})
    rows = [[(0, 1, i, i + 1) for i in range(2, 40)], [(0, 1, i, i + 1) for i in range(2, 30)]]
    options = [[0, 1, 2]] * 66
    gold = numpy.zeros(66, dtype="i")
    gold[[3, 40, 65]] = [1, 2, 1]
    kept_rows, kept_options, kept_gold, keep = pipe._sample_negatives(rows, options, gold)
    assert int(keep.sum()) == len(kept_gold)
    assert sum(len(r) for r in kept_rows) == len(kept_options) == len(kept_gold) < 40
    assert sorted(kept_gold[kept_gold != 0].tolist()) == [1, 1, 2] and (0, 1, 5, 6) in kept_rows[0]
    with pytest.raises(ValueError, match="negative_fraction"):
        spacy.blank("en").add_pipe(FACTORY, config={"negative_fraction": 0.0})


def test_prediction_pieces_count_the_rows_the_span_scorer_scores(monkeypatch):
    """A long doc's rows go to the model in pieces cut between targets: at most `limit`
    scored rows (with a pruner, at most `keep` of a target's) and MAX_CANDIDATE_ROWS rows."""
    import frames_lab.fe_research.component as fe_pipe

    # three targets with 5, 3 and 4 candidate rows
    rows = numpy.array([(t, t + 1, s, s + 1) for t, n in ((0, 5), (10, 3), (20, 4)) for s in range(n)])

    def sizes(pieces):
        return [len(p) for p in pieces]

    assert sizes(fe_pipe._pieces_between_targets(rows, 8)) == [8, 4]
    assert sizes(fe_pipe._pieces_between_targets(rows, 4)) == [5, 3, 4]  # a target over the limit alone
    assert sizes(fe_pipe._pieces_between_targets(rows, 6, keep=2)) == [12]  # 2 + 2 + 2 scored
    assert sizes(fe_pipe._pieces_between_targets(rows, 5, keep=2)) == [8, 4]
    assert fe_pipe._n_scored(rows, 2) == 6 and fe_pipe._n_scored(rows, 0) == 12
    monkeypatch.setattr(fe_pipe, "MAX_CANDIDATE_ROWS", 7)
    assert sizes(fe_pipe._pieces_between_targets(rows, 6, keep=2)) == [5, 7]
    assert numpy.array_equal(numpy.concatenate(fe_pipe._pieces_between_targets(rows, 6, keep=2)), rows)


def run_tune(*args):
    """`python -m frames_lab.fe_research tune ...` in a fresh process (the studies' command:
    the lab's names come from the entry points)."""
    return subprocess.run(
        [sys.executable, "-m", "frames_lab.fe_research", "tune", *map(str, args)], capture_output=True, text=True
    )


@pytest.mark.slow
def test_tune_saves_the_choice_with_the_pruners_recall(trained_research, toy_fe_corpus, tmp_path):
    out, saved = tmp_path / "sweep.json", tmp_path / "tuned"
    args = [trained_research, "--corpus", toy_fe_corpus / "dev.spacy", "-o", out, "--output-model", saved]
    result = run_tune(*args, "--max-pieces", 1, "--max-pieces", 2)
    assert result.returncode == 0, result.stderr[-2000:]
    sweep = srsly.read_json(out)
    assert sweep["best"]["criterion"] == "fe_os_f" and sweep["before"]["threshold"] == 0.0
    assert sweep["best"]["fe_os_f"] == max(row["fe_os_f"] for row in sweep["grid"])
    assert {row["decoding"] for row in sweep["grid"]} == {"exact", "greedy"}
    assert {row["max_pieces"] for row in sweep["grid"]} == {1, 2}
    rows = {row["ngram_gap"]: row["candidate_rows"] for row in sweep["grid"]}
    assert set(rows) == {None, 2, 0} and rows[0] < rows[None]
    # the suggester's recall of the gold FEs (on the target included: "gift"), before and
    # after pruning (prune_k 8)
    by_gap = {row["ngram_gap"]: row for row in sweep["grid"]}
    assert by_gap[None]["candidate_recall"] == 100.0 and by_gap[0]["candidate_recall"] >= by_gap[0]["kept_recall"]
    nlp = spacy.load(saved)
    pipe, block = nlp.get_pipe("frame_elements"), nlp.config["components"]["frame_elements"]
    assert nlp.get_pipe_meta("frame_elements").factory == FACTORY and "frame_identifier" in nlp.pipe_names
    assert pipe.cfg["threshold"] == block["threshold"] == sweep["best"]["threshold"]
    assert pipe.cfg["decoding"] == sweep["best"]["decoding"] and pipe.cfg["max_pieces"] == sweep["best"]["max_pieces"]
    assert block["suggester"]["ngram_gap"] == pipe.suggester.keywords["ngram_gap"] == sweep["best"]["ngram_gap"]
    bad = run_tune(
        trained_research, "--corpus", toy_fe_corpus / "dev.spacy", "-o", tmp_path / "x.json", "--ngram-gap", "near"
    )
    assert bad.returncode != 0 and "--ngram-gap" in bad.stderr and not (tmp_path / "x.json").exists()


@pytest.mark.slow
def test_tune_compares_phrase_and_clause_candidates(trained_research, toy_fe_corpus, tmp_path):
    from frames_lab.fe_research.cli import app
    from typer.testing import CliRunner

    out, saved = tmp_path / "sweep.json", tmp_path / "tuned"
    args = ["tune", str(trained_research), "--corpus", str(toy_fe_corpus / "dev.spacy"), "-o", str(out)]
    args += ["--output-model", str(saved), "--ngram-gap", "0", "--phrases-clauses", "off", "--phrases-clauses", "on"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    sweep = srsly.read_json(out)
    rows = {row["phrases_clauses"]: row["candidate_rows"] for row in sweep["grid"]}
    assert set(rows) == {False, True} and rows[True] > rows[False]
    assert sweep["before"]["phrases_clauses"] is False  # the trained pipeline's suggester is v1
    nlp = spacy.load(saved)
    block = nlp.config["components"]["frame_elements"]["suggester"]
    suggester = nlp.get_pipe("frame_elements").suggester
    if sweep["best"]["phrases_clauses"]:
        assert block["@misc"] == "frames-lab.fe_candidate_suggester.v2" and block["phrases"] and block["clauses"]
        assert suggester.keywords["phrases"] and suggester.keywords["clauses"]
    else:
        assert block["@misc"] == "frames-lab.fe_candidate_suggester.v1" and "phrases" not in block
        assert not suggester.keywords["phrases"]
    bad = CliRunner().invoke(app, [*args[:6], "--phrases-clauses", "maybe"])
    assert bad.exit_code != 0 and "phrases-clauses" in bad.output


def test_tune_refuses_a_frame_elements_of_another_factory(toy_fe_corpus, tmp_path):
    from frames_lab.fe_research.cli import app
    from typer.testing import CliRunner

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer", name="frame_elements")
    nlp.to_disk(tmp_path / "other")
    args = ["tune", str(tmp_path / "other"), "--corpus", str(toy_fe_corpus / "dev.spacy"), "-o", str(tmp_path / "x")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1 and "factory 'sentencizer'" in result.output


@pytest.mark.slow
def test_the_products_evaluate_command_scores_a_research_pipeline(trained_research, toy_fe_corpus, tmp_path):
    """The studies score their research pipelines with `spacy_frames evaluate-frame-elements`."""
    import shutil

    fn15, fn17 = tmp_path / "fn15", tmp_path / "fn17"
    shutil.copytree(toy_fe_corpus, fn15)
    shutil.copytree(toy_fe_corpus, fn17)  # the "1.7" inventory: the same frames, swapped in
    out = tmp_path / "fe.json"
    cmd = [sys.executable, "-m", "spacy_frames", "evaluate-frame-elements", str(trained_research), "-o", str(out)]
    result = subprocess.run([*cmd, "--fn15", str(fn15), "--fn17", str(fn17)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    scores = srsly.read_json(out)
    n_gold = sum(len(s) for fes in FES for s in fes.values())
    assert scores["fn15_dev"]["fe_f"] == 100.0 and scores["fn15_dev"]["gold_fes"] == n_gold
    assert scores["fn17_dev"]["fe_f"] == 100.0


@pytest.mark.slow
def test_joint_stage2_trains_both_listeners_on_one_transformer(tiny_bert, trained_frames, toy_fe_corpus, tmp_path):
    """configs/test/frames_stage2_fe.cfg: frame_identifier's stage 2 and the research
    frame_elements on one transformer, which both update."""
    overrides = {
        "paths.encoder": str(tiny_bert),
        "paths.stage1": str(trained_frames),
        "paths.tagger": str(tiny_syntax_path()),
        "paths.train": str(toy_fe_corpus / "train.spacy"),
        "paths.dev": str(toy_fe_corpus / "dev.spacy"),
        "paths.frames": str(toy_fe_corpus / "frames.json"),
    }
    config = spacy.util.load_config(TEST_CONFIGS / "frames_stage2_fe.cfg", overrides=overrides)
    nlp = spacy.load(train_tiny(config, tmp_path, 40, 20))

    def weights(pipeline):
        module = pipeline.get_pipe("transformer").model.layers[0].shims[0]._model
        return {name: tensor.detach().numpy().copy() for name, tensor in module.state_dict().items()}

    before, after = weights(spacy.load(trained_frames)), weights(nlp)
    assert any(not (before[k] == after[k]).all() for k in before)
    assert nlp.get_pipe_meta("frame_elements").factory == FACTORY
    ref = toy_fe_docs(nlp.vocab)[1]
    doc = nlp.make_doc(ref.text)
    doc.spans["targets"] = [doc.char_span(t.start_char, t.end_char) for t in ref.spans["targets"]]
    doc = nlp(doc)
    assert doc._.frames and isinstance(doc._.frames[0]._.frame_elements, list)

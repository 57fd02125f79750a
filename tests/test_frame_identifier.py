"""frame_identifier on a tiny random BERT and toy FrameNet-style data."""

import numpy
import pytest
import spacy
from conftest import frames_config
from frames_toy import SENTENCES, toy_docs, toy_inventory
from spacy.tokens import Doc, DocBin, SpanGroup
from spacy.training import Example
from spacy.util import make_tempdir
from thinc.api import Adam

from spacy_frames.extensions import install_extensions
from spacy_frames.scoring.frames import score_frame_identification
from spacy_frames.suggesters.frames import detection_examples

# sourced from en_core_web_sm: frozen, they only annotate lemma + POS
TAGGING = ["tok2vec", "tagger", "attribute_ruler", "lemmatizer"]


def assemble(tiny_bert, toy_corpus, transformer_dir, stage=1, **overrides):
    config = frames_config(tiny_bert, toy_corpus, stage, **{"paths.transformer": str(transformer_dir)}, **overrides)
    return spacy.util.load_model_from_config(config, auto_fill=True)


def initialized(tiny_bert, toy_corpus, transformer_dir, stage=1, **overrides):
    """Initialize as `spacy train` does (sourced components stay as they are)."""
    from spacy.training.initialize import init_nlp

    config = frames_config(tiny_bert, toy_corpus, stage, **{"paths.transformer": str(transformer_dir)}, **overrides)
    return init_nlp(config)


def update(nlp, examples, optimizer, losses):
    return nlp.update(examples, sgd=optimizer, losses=losses, exclude=TAGGING, annotates=TAGGING)


def examples_for(nlp):
    """Gold-target examples: the predicted docs carry the gold targets (labels stripped)."""
    from spacy_frames.corpora.readers import copy_targets

    examples = []
    for reference in toy_docs(nlp.vocab):
        predicted = Doc(nlp.vocab, words=[t.text for t in reference], spaces=[bool(t.whitespace_) for t in reference])
        copy_targets(reference, predicted)
        examples.append(Example(predicted, reference))
    return examples


def gold_target_doc(nlp, reference):
    doc = nlp.make_doc(reference.text)
    from spacy_frames.corpora.readers import copy_targets

    copy_targets(reference, doc)
    return doc


@pytest.mark.slow
def test_add_pipe_initialize_and_labels(tiny_bert, toy_corpus, transformer_dir):
    nlp = assemble(tiny_bert, toy_corpus, transformer_dir)
    fi = nlp.get_pipe("frame_identifier")
    with pytest.raises(ValueError, match="has no frames"):
        fi.predict([nlp.make_doc("She gave him a gift .")])
    nlp = initialized(tiny_bert, toy_corpus, transformer_dir)
    fi = nlp.get_pipe("frame_identifier")
    assert fi.labels == tuple(sorted(toy_inventory().names))
    assert fi.inventory.siblings("Giving") == ["Commerce_buy"]


def test_default_config_add_pipe_offline():
    nlp = spacy.blank("en")
    fi = nlp.add_pipe("frame_identifier")
    assert fi.cfg["objective"] == "in_batch" and fi.cfg["top_k"] == 5
    with pytest.raises(ValueError, match="objective must be one of"):
        spacy.blank("en").add_pipe("frame_identifier", config={"objective": "nonsense"})


def test_unknown_frame_and_empty_corpus_fail_clearly(tiny_bert, toy_corpus, transformer_dir):
    nlp = assemble(tiny_bert, toy_corpus, transformer_dir)
    examples = examples_for(nlp)
    bad = examples[0].reference
    bad.spans["targets"] = SpanGroup(bad, name="targets", spans=[bad.char_span(4, 8, label="No_such_frame")])
    fi = nlp.get_pipe("frame_identifier")
    with pytest.raises(ValueError, match=r"missing from the frame inventory: \['No_such_frame'\]"):
        fi.initialize(lambda: examples, nlp=nlp, frames=toy_inventory)
    with pytest.raises(ValueError, match="training corpus is empty"):
        fi.initialize(lambda: [], nlp=nlp, frames=toy_inventory)


@pytest.mark.slow
def test_overfitting_and_roundtrips(tiny_bert, toy_corpus, transformer_dir):
    from thinc.api import fix_random_seed

    fix_random_seed(0)
    nlp = initialized(tiny_bert, toy_corpus, transformer_dir)
    examples = examples_for(nlp)
    optimizer = Adam(0.002)
    for _ in range(60):
        losses = {}
        update(nlp, examples, optimizer, losses)
    assert losses["frame_identifier"] < 0.5
    fi = nlp.get_pipe("frame_identifier")
    fi.cfg["lexicon_filter"] = False  # ranking over all frames: the model itself must have learned
    docs = [nlp(gold_target_doc(nlp, eg.reference)) for eg in examples]
    for doc, (_, _, _, targets) in zip(docs, SENTENCES):
        assert [s.label_ for s in doc._.frames] == [frame for _, _, frame, _ in targets]
        for span in doc._.frames:
            assert span._.frame == span.label_
            assert span._.frame_ranking[0][0] == span.label_ and len(span._.frame_ranking) == 5
            assert isinstance(span._.frame_ranking[0][1], float)
    scores = nlp.evaluate([Example(gold_target_doc(nlp, eg.reference), eg.reference) for eg in examples])
    assert scores["frame_r1"] == 1.0 and scores["frame_acc"] == 1.0

    expected = [[(s.start, s.end, s.label_, s._.frame_ranking) for s in d._.frames] for d in docs]

    def predictions(pipeline):
        out = [pipeline(gold_target_doc(pipeline, eg.reference)) for eg in examples]
        return [[(s.start, s.end, s.label_, s._.frame_ranking) for s in d._.frames] for d in out]

    # to_disk / from_disk: the frame encoder comes back without the encoder asset
    with make_tempdir() as d:
        nlp.to_disk(d)
        reloaded = spacy.load(d)
        assert _close(predictions(reloaded), expected)
    # to_bytes / from_bytes
    fresh = assemble(tiny_bert, toy_corpus, transformer_dir)
    fresh.from_bytes(nlp.to_bytes())
    assert _close(predictions(fresh), expected)
    # exclude works for every key
    data = nlp.get_pipe("frame_identifier").to_bytes(exclude=["frame_index", "vocab"])
    assert fresh.get_pipe("frame_identifier").from_bytes(data, exclude=["frame_index", "vocab"])


def _close(got, expected):
    for doc_got, doc_exp in zip(got, expected):
        for (s1, e1, l1, r1), (s2, e2, l2, r2) in zip(doc_got, doc_exp):
            if (s1, e1, l1) != (s2, e2, l2) or [n for n, _ in r1] != [n for n, _ in r2]:
                return False
            if not numpy.allclose([v for _, v in r1], [v for _, v in r2], atol=1e-3):
                return False
    return len(got) == len(expected)


@pytest.fixture(scope="module")
def trained_nlp(trained_frames):
    return spacy.load(trained_frames)


def test_spacy_train_and_pipe_equals_call(trained_nlp):
    nlp = trained_nlp
    texts = ["She gave him a gift .", "They bought a car .", "", "Prices rose sharply ."]
    piped = list(nlp.pipe(texts, batch_size=2))
    for text, doc in zip(texts, piped):
        single = nlp(text)
        assert [(s.start, s.end, s.label_) for s in doc._.frames] == [
            (s.start, s.end, s.label_) for s in single._.frames
        ]
    # raw text: the lexicon (en_core_web_sm lemma + POS) proposes the targets
    doc = nlp("She gave him a gift .")
    assert {s.text for s in doc._.frames} <= {"gave", "gift", "She", "him"}
    assert all(s._.lexical_unit in (None, "give.v", "gift.n") for s in doc._.frames)


@pytest.mark.parametrize("n_process", [1, 2])
def test_n_process_and_serialized_extensions(trained_nlp, n_process):
    nlp = trained_nlp
    texts = ["She gave him a gift .", "They bought a car .", "We walked home and he ran ."]
    docs = [gold_target_doc(nlp, d) for d in toy_docs(nlp.vocab)[:3]]
    expected = [
        [(s.start, s.end, s.label_, s._.frame_ranking) for s in nlp(gold_target_doc(nlp, d))._.frames]
        for d in toy_docs(nlp.vocab)[:3]
    ]
    got = [
        [(s.start, s.end, s.label_, s._.frame_ranking) for s in d._.frames] for d in nlp.pipe(docs, n_process=n_process)
    ]
    assert _close(got, expected)
    assert list(nlp.pipe(texts, n_process=n_process))  # raw text through workers too
    # DocBin and to_bytes keep the spans and their extension values
    out = list(nlp.pipe([gold_target_doc(nlp, d) for d in toy_docs(nlp.vocab)[:2]]))
    install_extensions()
    restored = list(DocBin(docs=out, store_user_data=True).get_docs(nlp.vocab))
    restored.append(Doc(nlp.vocab).from_bytes(out[0].to_bytes()))
    for doc, orig in zip(restored, out + [out[0]]):
        assert [(s.label_, s._.frame_ranking, s._.lexical_unit) for s in doc._.frames] == [
            (s.label_, s._.frame_ranking, s._.lexical_unit) for s in orig._.frames
        ]


def test_empty_long_foreign_and_odd_targets(trained_nlp):
    nlp = trained_nlp
    assert nlp("")._.frames == []
    long_doc = nlp(" ".join(["She gave him a gift ."] * 800))  # 4,800 words through strided windows
    assert len(long_doc._.frames) >= 800
    nlp("Der Ausschuss hat die Abstimmung verschoben. 委员会推迟了投票。")  # no crash; any output is fine
    doc = nlp.make_doc("She gave him a gift .")
    install_extensions()
    # overlapping preset targets are both labelled; an empty span is ignored
    doc.spans["targets"] = [doc[1:2], doc[1:3], doc[2:2]]
    doc = nlp(doc)
    assert [(s.start, s.end) for s in doc._.frames] == [(1, 2), (1, 3)]
    assert doc._.frames[0]._.lexical_unit in ("give.v", None)


def test_add_frame_at_run_time(trained_frames):
    nlp = spacy.load(trained_frames)
    fi = nlp.get_pipe("frame_identifier")
    n = len(fi.index.names)
    fi.add_frame(
        "Cooking", "A Cook prepares Food by applying heat.", lexical_units=["cook.v", "bake.v"], parents=["Transfer"]
    )
    assert len(fi.index.names) == n + 1 and "Cooking" in fi.labels
    assert fi.inventory.frames_for_lu("bake.v") == ["Cooking"]
    doc = nlp.make_doc("They baked bread .")
    doc.spans["targets"] = [doc[1:2]]
    doc[1:2]._.lexical_unit = "bake.v"
    doc = nlp(doc)
    assert doc._.frames[0].label_ == "Cooking"  # the lexicon filter: the new LU's only frame
    # the new frame is indexed and ranked with the others: in the full ranking, with the
    # score the lexicon filter chose it by
    fi.cfg["top_k"] = len(fi.index.names)
    again = nlp.make_doc("They baked bread .")
    again.spans["targets"] = [again[1:2]]
    again[1:2]._.lexical_unit = "bake.v"
    again = nlp(again)
    ranking = dict((name, score) for name, score in again._.frames[0]._.frame_ranking)
    assert set(ranking) == set(fi.index.names)
    assert ranking["Cooking"] == pytest.approx(again.spans["frames"].attrs["scores"][0], abs=1e-3)
    with pytest.raises(ValueError, match="Cooking"):
        fi.add_frame("Cooking", "again")
    with make_tempdir() as d:
        nlp.to_disk(d)
        assert "Cooking" in spacy.load(d).get_pipe("frame_identifier").labels


@pytest.mark.slow
def test_stage2_in_candidate_from_stage1(tiny_bert, toy_corpus, transformer_dir, trained_frames):
    # the paper's setting (configs/frames_stage2.cfg): sampled candidates, tau 1, no memory
    paper = {
        "components.frame_identifier.n_negatives": 3,
        "components.frame_identifier.loss.temperature": 1.0,
        "components.frame_identifier.frame_memory": False,
    }
    nlp = initialized(tiny_bert, toy_corpus, transformer_dir, stage=2, **{"paths.stage1": str(trained_frames)}, **paper)
    examples = examples_for(nlp)
    optimizer = Adam(0.001)
    fi = nlp.get_pipe("frame_identifier")
    assert fi.cfg["objective"] == "in_candidate" and fi.index.is_ready(fi.inventory.names)
    columns, candidates = fi._columns(["Giving"], ["give.v"])
    # gold first, then the gold frame's Inheritance sibling, then random frames: 3 negatives
    assert candidates.shape == (1, 4)
    assert columns[candidates[0, 0]] == "Giving" and columns[candidates[0, 1]] == "Commerce_buy"
    assert len(set(candidates[0])) == 4
    before = fi.index.matrix.copy()
    losses = {}
    update(nlp, examples, optimizer, losses)
    assert losses["frame_identifier"] > 0
    numpy.testing.assert_array_equal(fi.index.matrix, before)  # frame encoder frozen: cache stays valid
    with pytest.raises(FileNotFoundError, match="Train the previous stage first"):
        fi.initialize(lambda: examples, nlp=nlp, init_from=str(toy_corpus))


def test_scorer_counts():
    nlp = spacy.blank("en")
    install_extensions()
    reference = toy_docs(nlp.vocab)[0]  # gave/Giving, gift/Giving
    predicted = nlp.make_doc(reference.text)
    group = SpanGroup(predicted, name="frames", attrs={"n_candidates": [2, 1]})
    a = predicted.char_span(4, 8, label="Giving")
    b = predicted.char_span(0, 3, label="Self_motion")  # not a gold target
    a._.frame_ranking = [["Giving", 0.9], ["Transfer", 0.5]]
    b._.frame_ranking = [["Self_motion", 0.9]]
    group.extend([a, b])
    predicted.spans["frames"] = group
    scores = score_frame_identification([Example(predicted, reference)])
    assert scores["frame_acc"] == 0.5 and scores["frame_r1"] == 0.5
    assert scores["target_p"] == 0.5 and scores["target_r"] == 0.5
    assert scores["frame_acc_ambiguous"] == 1.0
    assert scores["frame_overall"] == pytest.approx(0.5)
    per_type = scores["frame_per_type"]
    assert set(per_type) == {"Giving", "Self_motion"}
    assert per_type["Giving"] == pytest.approx({"p": 1.0, "r": 0.5, "f": 2 / 3, "n": 2})
    assert per_type["Self_motion"] == {"p": 0.0, "r": 0.0, "f": 0.0, "n": 0}


@pytest.mark.slow
def test_stage2_all_frames_with_frame_memory(tiny_bert, toy_corpus, transformer_dir, trained_frames):
    nlp = initialized(tiny_bert, toy_corpus, transformer_dir, stage=2, **{"paths.stage1": str(trained_frames)})
    fi = nlp.get_pipe("frame_identifier")
    columns, candidates = fi._columns(["Giving"], ["give.v"])
    assert columns == list(fi.inventory.names) and candidates is None  # every frame is a negative
    assert fi.index.residual is None
    base = fi.index.base.copy()
    losses = {}
    update(nlp, examples_for(nlp), Adam(0.001), losses)
    assert fi.index.residual is not None and numpy.abs(fi.index.residual).max() > 0
    numpy.testing.assert_array_equal(fi.index.base, base)  # definitions untouched: only the memory learns
    with make_tempdir() as d:
        nlp.to_disk(d)
        reloaded = spacy.load(d).get_pipe("frame_identifier")
        numpy.testing.assert_allclose(reloaded.index.matrix, fi.index.matrix, atol=1e-6)
    # with new_frame_memory "zero", a frame added later starts from its definition alone
    fi.cfg["new_frame_memory"] = "zero"
    fi.add_frame("Cooking", "A Cook prepares Food by applying heat.", lexical_units=["cook.v"])
    assert not fi.index.residual[-1].any()
    # another inventory (say FN1.7): frames are re-encoded, learned offsets kept by name
    giving = fi.index.residual[fi.index.rows(["Giving"])[0]].copy()
    inventory = toy_inventory()
    inventory.add_frame("Reading", "A Reader reads a Text.", lexical_units=["read.v"])
    fi.set_inventory(inventory)
    assert "Reading" in fi.index.names and "Cooking" not in fi.index.names
    numpy.testing.assert_array_equal(fi.index.residual[fi.index.rows(["Giving"])[0]], giving)
    assert not fi.index.residual[fi.index.rows(["Reading"])[0]].any()
    # new_frame_memory: a frame without memory gets one derived from the frames that have one
    known = [n for n in fi.index.names if n != "Reading"]
    fi.cfg["new_frame_memory"] = "mean"
    fi.set_inventory(inventory)
    numpy.testing.assert_allclose(
        fi.index.residual[fi.index.rows(["Reading"])[0]], fi.index.residual[fi.index.rows(known)].mean(0), atol=1e-6
    )
    numpy.testing.assert_array_equal(fi.index.residual[fi.index.rows(["Giving"])[0]], giving)
    fi.add_frame("Cooking", "A Cook prepares Food by applying heat.", lexical_units=["cook.v"])
    assert fi.index.residual[-1].any() and fi.cfg["new_frame_memory"] == "mean"
    with make_tempdir() as d:  # the rule and the filled memory are saved with the component
        nlp.to_disk(d)
        reloaded = spacy.load(d).get_pipe("frame_identifier")
        assert reloaded.cfg["new_frame_memory"] == "mean"
        numpy.testing.assert_allclose(reloaded.index.matrix, fi.index.matrix, atol=1e-6)
    with pytest.raises(ValueError, match="new_frame_memory must be one of"):
        spacy.blank("en").add_pipe("frame_identifier", config={"new_frame_memory": "nearest"})


def test_scorer_duplicate_gold_targets_match_once():
    nlp = spacy.blank("en")
    install_extensions()
    reference = nlp.make_doc("She gave him a gift .")
    reference.spans["targets"] = [
        reference.char_span(4, 8, label="Giving"),
        reference.char_span(4, 8, label="Transfer"),
    ]
    predicted = nlp.make_doc(reference.text)
    span = predicted.char_span(4, 8, label="Giving")
    span._.frame_ranking = [["Giving", 0.9], ["Transfer", 0.8]]
    predicted.spans["frames"] = [span]
    scores = score_frame_identification([Example(predicted, reference)])
    assert scores["target_p"] == 1.0 and scores["target_r"] == 0.5
    assert scores["frame_acc"] == 0.5


def test_evaluate_frames_command(trained_frames, toy_corpus, tmp_path):
    import shutil

    import srsly
    from frames_toy import toy_framenet15_dir
    from typer.testing import CliRunner

    from spacy_frames.cli import app

    fn15 = toy_framenet15_dir(toy_corpus, tmp_path / "framenet15")
    fn17 = tmp_path / "framenet17"
    fn17.mkdir()
    shutil.copy(fn15 / "dev.spacy", fn17 / "dev.spacy")
    inventory = toy_inventory()
    inventory.add_frame("Reading", "A Reader reads a Text.", lexical_units=["read.v"])
    inventory.to_disk(fn17 / "frames.json")
    out = tmp_path / "metrics.json"
    result = CliRunner().invoke(
        app, ["evaluate-frames", str(trained_frames), "-o", str(out), "--fn15", str(fn15), "--fn17", str(fn17)]
    )
    assert result.exit_code == 0, result.output
    metrics = srsly.read_json(out)
    gold = metrics["fn15_gold_targets"]
    assert gold["targets"] == 8 and 0 <= gold["frame_acc"] <= 100 and gold["frame_r1"] is not None
    assert metrics["lookup_baseline"]["frame_acc"] == 100.0  # train == test in the toy corpus
    assert metrics["fn17_dev"]["targets"] == 8
    assert metrics["fn17_dev_new_frame_or_lu"] is None  # no toy target is new in "1.7"
    assert set(metrics["fn15_target_detection"]) == {"target_p", "target_r", "target_f", "frame_acc"}
    per_type = gold["frame_per_type"]
    assert sum(s["n"] for s in per_type.values()) == 8
    assert all(0 <= s["f"] <= 100 for s in per_type.values())


def test_detection_examples_skip_partial_docs(trained_nlp):
    fi = trained_nlp.get_pipe("frame_identifier")
    docs = [trained_nlp("She gave him a gift ."), trained_nlp("She gave him a gift .")]
    golds = [[docs[0][1:2]], [docs[1][1:2]]]
    spans, labels = detection_examples(docs, golds, [False, True], fi.candidates)
    assert labels[0] == 1.0 and 0.0 in labels[: len(spans[0])]  # exhaustive doc: other candidates are negatives
    assert len(spans[1]) == 1 and labels[-1] == 1.0  # partial doc (exemplar): only its gold target


def test_target_probs_recorded_and_serialized(trained_nlp):
    doc = trained_nlp("The teacher gave the student a book and handed over a gift.")
    group = doc.spans["frames"]
    probs = group.attrs["target_probs"]
    assert len(probs) == len(group) == len(group.attrs["scores"]) == len(group.attrs["n_candidates"])
    assert all(0.0 <= p <= 1.0 for p in probs)
    cut = trained_nlp.get_pipe("frame_identifier").cfg["threshold"]
    assert all(p >= cut for p, s in zip(probs, group) if s._.lexical_unit is not None)
    restored = list(DocBin(docs=[doc], store_user_data=True).get_docs(trained_nlp.vocab))[0]
    assert restored.spans["frames"].attrs["target_probs"] == probs


def test_tune_detection_saves_chosen_cutoffs(trained_frames, toy_corpus, tmp_path):
    import srsly
    from typer.testing import CliRunner

    from spacy_frames.cli import app

    out, saved = tmp_path / "detection.json", tmp_path / "tuned"
    result = CliRunner().invoke(
        app,
        [
            "tune-detection",
            str(trained_frames),
            "-o",
            str(out),
            "--corpus",
            str(toy_corpus / "dev.spacy"),
            "--output-model",
            str(saved),
        ],
    )
    assert result.exit_code == 0, result.output
    metrics = srsly.read_json(out)
    grid = metrics["grid"]
    assert metrics["targets"] == 8 and len(grid) == 19 * 8
    assert metrics["best"]["target_f"] == max(row["target_f"] for row in grid)
    # a lower cut-off never finds fewer targets
    recall = {(round(r["threshold"], 2), round(r["oov_threshold"], 2)): r["target_r"] for r in grid}
    assert recall[(0.05, 0.5)] >= recall[(0.95, 1.01)]
    tuned = spacy.load(saved)
    fi = tuned.get_pipe("frame_identifier")
    chosen = (metrics["best"]["threshold"], metrics["best"]["oov_threshold"])
    assert (fi.cfg["threshold"], fi.cfg["oov_threshold"]) == pytest.approx(chosen)
    config = tuned.config["components"]["frame_identifier"]
    assert (config["threshold"], config["oov_threshold"]) == pytest.approx(chosen)


def test_tune_detection_rejects_pipeline_without_component(transformer_dir, toy_corpus, tmp_path):
    from typer.testing import CliRunner

    from spacy_frames.cli import app

    result = CliRunner().invoke(
        app,
        [
            "tune-detection",
            str(transformer_dir),
            "-o",
            str(tmp_path / "x.json"),
            "--corpus",
            str(toy_corpus / "dev.spacy"),
            "--output-model",
            str(tmp_path / "m"),
        ],
    )
    assert result.exit_code == 1
    assert "has no frame_identifier" in result.output
    assert not (tmp_path / "m").exists() and not (tmp_path / "x.json").exists()


def test_shared_frame_encoder_is_the_transformer_and_stepped_once(tiny_bert, toy_corpus, transformer_dir):
    import torch

    nlp = initialized(
        tiny_bert, toy_corpus, transformer_dir, **{"components.frame_identifier.share_frame_encoder": True}
    )
    fi = nlp.get_pipe("frame_identifier")
    trf_module = nlp.get_pipe("transformer").model.layers[0].shims[0]._model
    def_module = fi.model.get_ref("frame_encoder").layers[0].shims[0]._model
    assert def_module.encoder is trf_module
    examples = examples_for(nlp)
    optimizer = Adam(0.001)
    before = {n: p.detach().clone() for n, p in trf_module.named_parameters()}
    for _ in range(3):
        losses = {}
        update(nlp, examples, optimizer, losses)
    assert numpy.isfinite(losses["frame_identifier"])
    changed = [n for n, p in trf_module.named_parameters() if not torch.equal(p, before[n])]
    assert changed  # the transformer learned from both encoders' gradients
    # only the transformer component's shim keeps optimizer state for the shared weights
    def_shim_id = fi.model.get_ref("frame_encoder").layers[0].shims[0].id
    assert not any(key[0] == def_shim_id and key[1].startswith("encoder.") for key in optimizer.mom1)
    doc = nlp(gold_target_doc(nlp, examples[0].reference))
    assert len(doc._.frames) == len(examples[0].reference.spans["targets"])


def test_shared_frame_encoder_needs_a_transformer_listener(tiny_bert, toy_corpus, transformer_dir):
    nlp = initialized(tiny_bert, toy_corpus, transformer_dir)
    fi = nlp.get_pipe("frame_identifier")
    with pytest.raises(ValueError, match="no transformer in the pipeline listens"):
        fi._share_frame_encoder(spacy.blank("en"))


@pytest.mark.slow
def test_stage2_against_another_release(tiny_bert, toy_corpus, transformer_dir, trained_frames, tmp_path):
    """Stage 2 from an FN1.5-style stage 1 against a later release (a frame renamed, one
    added): the given inventory replaces stage 1's, its definitions encoded by the loaded
    frame encoder, and the corpus reader renames the gold frames by frame ID."""
    from frames_toy import toy_inventory

    from spacy_frames.inventory.frames import FrameInventory

    old = toy_inventory()
    frames = {("Giving_renamed" if name == "Giving" else name): dict(info) for name, info in old.frames.items()}
    frames["Cooking"] = {"id": 99, "definition": "A Cook prepares Food.", "lexical_units": ["cook.v"]}
    relations = {"Inheritance": [["Transfer", "Giving_renamed"], ["Transfer", "Commerce_buy"]]}
    FrameInventory(frames=frames, relations=relations, source="toy 2").to_disk(tmp_path / "new.json")
    overrides = {"paths.stage1": str(trained_frames), "paths.frames": str(tmp_path / "new.json")}
    for split in ("train", "dev"):
        overrides[f"corpora.{split}.frames_from"] = str(toy_corpus / "frames.json")
        overrides[f"corpora.{split}.frames_to"] = str(tmp_path / "new.json")
    nlp = initialized(tiny_bert, toy_corpus, transformer_dir, stage=2, **overrides)
    fi = nlp.get_pipe("frame_identifier")
    assert "Giving_renamed" in fi.labels and "Cooking" in fi.labels and "Giving" not in fi.labels
    assert fi.index.is_ready(fi.inventory.names)
    stage1 = spacy.load(trained_frames).get_pipe("frame_identifier")
    row = fi.index.names.index("Commerce_buy")
    numpy.testing.assert_allclose(
        fi.index.base[row], stage1.index.base[stage1.index.names.index("Commerce_buy")], atol=1e-5
    )
    # without the renaming the corpus's old names are refused, naming them
    with pytest.raises(ValueError, match="Giving"):
        initialized(
            tiny_bert,
            toy_corpus,
            transformer_dir,
            stage=2,
            **{k: v for k, v in overrides.items() if "corpora" not in k},
        )

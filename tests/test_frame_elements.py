"""frame_elements: the component end to end on the tiny BERT (spacy train, the public API
on gold and predicted frames, serialization, pipe / n_process, bad input)."""

import warnings

import numpy
import pytest
import spacy
from fe_toy import FES, fe_corpus_with_target_fe, gold_frames_doc, toy_fe_docs, toy_fe_inventory
from spacy.tokens import Doc, DocBin, Span, SpanGroup
from spacy.training import Example
from spacy.util import make_tempdir
from thinc.api import ConfigValidationError

import spacy_frames
from spacy_frames.extensions import FE_KEY, install_extensions, make_fe_span
from spacy_frames.scoring.frame_elements import score_frame_elements


def fe_view(doc):
    return [[(fe.start, fe.end, fe.label_) for fe in frame._.frame_elements] for frame in doc._.frames]


def load_on_gold_frames(path):
    """The trained frame parser with frame_identifier off: frame_elements labels the frames
    a test puts in doc.spans["frames"]."""
    return spacy.load(path, disable=["frame_identifier"])


@pytest.fixture(scope="module")
def fe_nlp(trained_fe):
    return load_on_gold_frames(trained_fe)


def test_spacy_train_overfits_the_toy_set_on_gold_frames(fe_nlp):
    nlp = fe_nlp
    refs = toy_fe_docs(nlp.vocab)
    for ref, fes in zip(refs, FES):
        doc = nlp(gold_frames_doc(nlp, ref))
        expected = [sorted(fes.get(i, [])) for i in range(len(ref.spans["targets"]))]
        got = [sorted(view) for view in fe_view(doc)]
        assert got == expected, ref.text
        for frame in doc._.frames:  # the public API: FE spans in document order, never overlapping
            fes_ = frame._.frame_elements  # each other; one may be the target itself ("gift" is the Theme)
            assert [(f.start, f.end) for f in fes_] == sorted((f.start, f.end) for f in fes_)
            assert all(a.end <= b.start for a, b in zip(fes_, fes_[1:]))
            assert all(
                f.end <= frame.start or f.start >= frame.end or (f.start, f.end) == (frame.start, frame.end)
                for f in fes_
            )
            assert all(
                f._.fe_frame == frame.label_ and f._.fe_target == [frame.start_char, frame.end_char] for f in fes_
            )
    scores = nlp.evaluate([Example(gold_frames_doc(nlp, ref), ref) for ref in refs])
    assert scores["fe_f"] == 1.0 and scores["fe_per_type"]["Donor"]["n"] == 2


def test_pipe_equals_call_n_process_and_serialized_spans(fe_nlp):
    nlp = fe_nlp
    refs = toy_fe_docs(nlp.vocab)
    expected = [fe_view(nlp(gold_frames_doc(nlp, ref))) for ref in refs]
    for n_process in (1, 2):
        got = [
            fe_view(doc)
            for doc in nlp.pipe([gold_frames_doc(nlp, ref) for ref in refs], batch_size=2, n_process=n_process)
        ]
        assert got == expected
    out = list(nlp.pipe([gold_frames_doc(nlp, ref) for ref in refs]))
    restored = list(DocBin(docs=out, store_user_data=True).get_docs(nlp.vocab))
    restored += [Doc(nlp.vocab).from_bytes(doc.to_bytes()) for doc in out]
    assert [fe_view(doc) for doc in restored] == expected + expected


@pytest.mark.slow
def test_serialization_round_trips(fe_nlp):
    nlp = fe_nlp
    ref = toy_fe_docs(nlp.vocab)[0]
    expected = fe_view(nlp(gold_frames_doc(nlp, ref)))
    with make_tempdir() as d:
        nlp.to_disk(d)
        loaded = load_on_gold_frames(d)
    assert fe_view(loaded(gold_frames_doc(loaded, ref))) == expected
    pipe = nlp.get_pipe("frame_elements")
    fresh = loaded.get_pipe("frame_elements")
    fresh.from_bytes(pipe.to_bytes())
    assert fresh.fe_names == pipe.fe_names and fresh.inventory.names == pipe.inventory.names
    assert fe_view(loaded(gold_frames_doc(loaded, ref))) == expected


def test_frame_identifier_frames_are_labelled_in_the_full_pipeline(fe_nlp):
    nlp = fe_nlp
    nlp.enable_pipe("frame_identifier")
    try:
        ref = toy_fe_docs(nlp.vocab)[0]
        doc = nlp.make_doc(ref.text)
        doc.spans["targets"] = [doc.char_span(t.start_char, t.end_char) for t in ref.spans["targets"]]
        doc = nlp(doc)
        assert doc._.frames and all(isinstance(f._.frame_elements, list) for f in doc._.frames)
        assert set(doc.spans[FE_KEY]) == {fe for f in doc._.frames for fe in f._.frame_elements}
    finally:
        nlp.disable_pipe("frame_identifier")


@pytest.mark.slow
def test_empty_long_unknown_and_overlapping_frames(fe_nlp):
    nlp = fe_nlp
    assert nlp("")._.frames == [] and list(nlp("").spans[FE_KEY]) == []
    long_doc = nlp.make_doc(" ".join(["She gave him a gift ."] * 3400))  # 20,400 words
    long_doc.spans["frames"] = SpanGroup(
        long_doc,
        name="frames",
        spans=[Span(long_doc, i + 1, i + 2, label="Giving") for i in range(0, len(long_doc), 6)],
    )
    long_doc = nlp(long_doc)
    assert len(long_doc._.frames) == 3400 and sum(len(f._.frame_elements) for f in long_doc._.frames) > 0
    doc = nlp.make_doc("She gave him a gift .")
    doc.spans["frames"] = [
        doc.char_span(4, 8, label="No_such_frame"),
        doc.char_span(4, 8, label="Giving"),
        doc.char_span(4, 12, label="Giving"),
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        doc = nlp(doc)
        nlp(doc)
    assert len([w for w in caught if "No_such_frame" in str(w.message)]) == 1  # one warning per frame
    unknown, giving, overlapping = list(doc.spans["frames"])
    assert unknown._.frame_elements == []
    # overlapping targets: each labelled, with FEs of its own
    assert giving._.frame_elements and overlapping._.frame_elements
    assert all(fe._.fe_target == [overlapping.start_char, overlapping.end_char] for fe in overlapping._.frame_elements)
    assert all(fe._.fe_target == [giving.start_char, giving.end_char] for fe in giving._.frame_elements)
    assert [s.label_ for s in doc.spans["frames"]] == ["No_such_frame", "Giving", "Giving"]  # frames untouched
    # a target without candidates (an empty span), last in the batch: no FEs, the others' intact
    doc = nlp.make_doc("She gave him a gift .")
    doc.spans["frames"] = [Span(doc, 1, 2, label="Giving"), Span(doc, 6, 6, label="Giving")]
    giving, empty = list(nlp(doc).spans["frames"])
    assert giving._.frame_elements and empty._.frame_elements == []


@pytest.mark.slow
def test_add_frame_and_set_inventory_without_retraining(fe_nlp, trained_fe):
    nlp = load_on_gold_frames(trained_fe)
    pipe = nlp.get_pipe("frame_elements")
    n = len(pipe.fe_names)
    spacy_frames.add_frame(
        nlp,
        "Cooking",
        "A Cook prepares Food by applying heat.",
        lexical_units=["cook.v"],
        frame_elements=[
            {"name": "Cook", "core_type": "Core", "definition": "The one who cooks."},
            {"name": "Food", "core_type": "Core", "definition": "What is cooked."},
        ],
    )
    assert len(pipe.fe_names) == n + 2 and pipe.model.get_ref("options").get_param("fe_vectors").shape[0] == n + 2
    assert "Cooking" in nlp.get_pipe("frame_identifier").labels
    doc = nlp.make_doc("She cooked the rice .")
    doc.spans["frames"] = [doc.char_span(4, 10, label="Cooking")]
    doc = nlp(doc)
    assert all(fe.label_ in ("Cook", "Food") for fe in doc._.frames[0]._.frame_elements)
    with pytest.raises(ValueError, match="already known"):
        spacy_frames.add_frame(nlp, "Cooking", "again")
    assert len(pipe.fe_names) == n + 2
    with make_tempdir() as d:
        nlp.to_disk(d)
        assert "Food" in spacy.load(d).get_pipe("frame_elements").fe_names
    # a frame with no FE definitions: no FEs, no warning
    spacy_frames.add_frame(nlp, "Bare_frame", "A frame FrameNet gives no FEs.", lexical_units=["bare.a"])
    doc = nlp.make_doc("She cooked the rice .")
    doc.spans["frames"] = [doc.char_span(4, 10, label="Bare_frame")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nlp(doc)._.frames[0]._.frame_elements == []
    inventory = toy_fe_inventory()
    spacy_frames.set_inventory(nlp, inventory)
    # the table keeps every FE name it has learned or been given, and has the new inventory's
    assert set(pipe.fe_names) == {fe for f in inventory.names for fe in inventory.fe_names(f)} | {"Cook", "Food"}
    assert "Cooking" not in pipe.inventory
    assert pipe.inventory is inventory and nlp.get_pipe("frame_identifier").inventory is inventory


COOKING = dict(
    lexical_units=["cook.v"],
    frame_elements=[
        {"name": "Cook", "core_type": "Core", "definition": "The one who cooks."},
        {"name": "Food", "core_type": "Core", "definition": "What is cooked."},
    ],
)


def _cooking_view(nlp):
    doc = nlp.make_doc("She cooked the rice .")
    doc.spans["frames"] = [doc.char_span(4, 10, label="Cooking")]
    return fe_view(nlp(doc))


@pytest.mark.slow
def test_one_inventory_add_frame_through_any_door_gives_the_same_pipeline(trained_fe):
    """frame_elements reads frame_identifier's inventory (linked by name on load, although
    frame_identifier is disabled here) and saves no copy; a frame added to
    frame_identifier or through spacy_frames.add_frame gives the same inventory, FE table
    and frame elements, and frame_elements has no door of its own."""
    results = []
    for door in ("frame_identifier", "spacy_frames"):
        nlp = load_on_gold_frames(trained_fe)
        identifier, pipe = nlp.get_pipe("frame_identifier"), nlp.get_pipe("frame_elements")
        assert pipe.inventory is identifier.inventory and not hasattr(pipe, "add_frame")
        if door == "spacy_frames":
            spacy_frames.add_frame(nlp, "Cooking", "A Cook prepares Food by applying heat.", **COOKING)
        else:
            nlp.get_pipe(door).add_frame("Cooking", "A Cook prepares Food by applying heat.", **COOKING)
        assert pipe.inventory is identifier.inventory and "Cook" in pipe.fe_names
        results.append(
            (
                identifier.inventory.to_dict(),
                list(pipe.fe_names),
                pipe.model.ops.to_numpy(pipe.model.get_ref("options").get_param("fe_vectors")),
                identifier.index.names,
                _cooking_view(nlp),
            )
        )
    first = results[0]
    for other in results[1:]:
        assert other[0] == first[0] and other[1] == first[1] and other[3] == first[3] and other[4] == first[4]
        numpy.testing.assert_array_equal(other[2], first[2])
    with make_tempdir() as d:
        nlp.to_disk(d)
        assert not (d / "frame_elements" / "frames").exists()  # no copy of the inventory
        loaded = load_on_gold_frames(d)
        assert loaded.get_pipe("frame_elements").inventory is loaded.get_pipe("frame_identifier").inventory
        assert _cooking_view(loaded) == first[4]


def test_a_saved_inventory_copy_is_not_read(fe_nlp, tmp_path):
    """A pipeline saved with a frame_elements copy of the inventory (as earlier releases
    saved it) loads, and its frame_elements reads frame_identifier's inventory."""
    from fe_toy import toy_fe_inventory

    fe_nlp.to_disk(tmp_path / "nlp")
    stale = toy_fe_inventory()
    stale.add_frame("Only_in_the_copy", "A frame frame_identifier does not have.")
    stale.to_disk(tmp_path / "nlp" / "frame_elements" / "frames")
    loaded = spacy.load(tmp_path / "nlp")
    pipe = loaded.get_pipe("frame_elements")
    assert pipe.inventory is loaded.get_pipe("frame_identifier").inventory and "Only_in_the_copy" not in pipe.inventory
    ref = toy_fe_docs(loaded.vocab)[0]
    assert fe_view(loaded(gold_frames_doc(loaded, ref))) == fe_view(fe_nlp(gold_frames_doc(fe_nlp, ref)))


def test_without_frame_identifier_the_inventory_fails_clearly():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("frame_elements")
    with pytest.raises(ValueError, match="inventory_component 'frame_identifier', which is not linked"):
        _ = pipe.inventory
    with pytest.raises(ValueError, match="no frame_identifier"):
        spacy_frames.add_frame(nlp, "Cooking", "A Cook prepares Food.")


@pytest.mark.slow
def test_bad_setup_fails_clearly(tiny_bert, trained_frames, toy_fe_corpus, tmp_path):
    from conftest import fe_config
    from spacy.cli.train import train

    # no inventory to read
    config = fe_config(
        tiny_bert, trained_frames, toy_fe_corpus, **{"components.frame_elements.inventory_component": "nothing_here"}
    )
    config.to_disk(tmp_path / "config.cfg")
    with pytest.raises(ValueError, match="inventory_component 'nothing_here'"):
        train(tmp_path / "config.cfg", tmp_path / "out")
    # an inventory without FE data
    no_fes = toy_fe_inventory()
    for info in no_fes.frames.values():
        info["frame_elements"] = []
    no_fes.to_disk(tmp_path / "frames.json")
    config = fe_config(tiny_bert, trained_frames, toy_fe_corpus, **{"paths.frames": str(tmp_path / "frames.json")})
    config.to_disk(tmp_path / "config2.cfg")
    with pytest.raises(ValueError, match="no frame elements"):
        train(tmp_path / "config2.cfg", tmp_path / "out2")
    # a bad learning-rate scale; a setting the component does not have
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="head_lr_scale"):
        nlp.add_pipe("frame_elements", config={"head_lr_scale": 0.0})
    with pytest.raises(ConfigValidationError, match="decoding"):
        nlp.add_pipe("frame_elements", config={"decoding": "greedy"})


def test_default_config_add_pipe_and_uninitialized_use():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("frame_elements")
    assert pipe.labels == ()
    doc = nlp.make_doc("She gave him a gift .")
    doc.spans["frames"] = [doc.char_span(4, 8, label="Giving")]
    with pytest.raises(ValueError, match="no frame elements"):
        pipe(doc)


def test_the_factory_default_is_the_shipped_recipe():
    """A user who adds frame_elements and trains it gets the recipe en_frames_trf ships
    (configs/frames_stage2_fe.cfg), the transformer listener aside."""
    from pathlib import Path

    shipped = spacy.util.load_config(
        Path(__file__).resolve().parents[1] / "configs" / "frames_stage2_fe.cfg", interpolate=False
    )["components"]["frame_elements"]
    nlp = spacy.blank("en")
    nlp.add_pipe("frame_elements")
    default = nlp.config["components"]["frame_elements"]

    def flat(block, prefix=""):
        for key, value in block.items():
            if isinstance(value, dict):
                yield from flat(value, f"{prefix}{key}.")
            else:
                yield f"{prefix}{key}", value

    differ = {
        key: (value, dict(flat(default)).get(key))
        for key, value in flat(shipped)
        if not key.startswith("model.tok2vec") and dict(flat(default)).get(key) != value
    }
    assert not differ


def test_scorer_counts_exact_span_and_label():
    nlp = spacy.blank("en")
    install_extensions()
    gold = toy_fe_docs(nlp.vocab)[0]  # Giving(gave): Donor, Recipient, Theme; Giving(gift): Theme on "gift"
    pred = nlp.make_doc(gold.text)
    gave = pred.char_span(4, 8, label="Giving")
    pred.spans[FE_KEY] = [
        make_fe_span(gave, 0, 1, "Donor"),
        make_fe_span(gave, 2, 3, "Theme"),
        make_fe_span(gave, 3, 5, "Theme"),
    ]
    scores = score_frame_elements([Example(pred, gold)], component=type("C", (), {"inventory": toy_fe_inventory()})())
    assert scores["fe_p"] == pytest.approx(2 / 3) and scores["fe_r"] == pytest.approx(2 / 4)
    assert scores["fe_per_type"]["Recipient"] == {"p": 0.0, "r": 0.0, "f": 0.0, "n": 1, "tp": 0, "pred": 0}
    assert scores["fe_core_f"] == pytest.approx(4 / 7) and scores["fe_noncore_f"] is None
    # open-sesame's measure beside it: per target and FE name the set of spans, so Theme of
    # "gave" ({2-3, 3-5} against {3-5}) is wrong as a whole; Donor right of 2 names
    # predicted, of 4 gold names (all Core)
    assert (scores["fe_os_p"], scores["fe_os_r"]) == (pytest.approx(1 / 2), pytest.approx(1 / 4))
    assert score_frame_elements([Example(nlp.make_doc("x"), nlp.make_doc("x"))])["fe_f"] is None


def test_evaluate_frame_elements_command(trained_fe, toy_fe_corpus, tmp_path):
    import shutil

    import srsly
    from typer.testing import CliRunner

    from spacy_frames.cli import app

    fn15 = tmp_path / "fn15"
    shutil.copytree(toy_fe_corpus, fn15)
    shutil.copy(fn15 / "dev.spacy", fn15 / "test.spacy")
    fn17 = tmp_path / "fn17"
    shutil.copytree(toy_fe_corpus, fn17)  # the "1.7" inventory: the same frames, so nothing is new
    out = tmp_path / "fe.json"
    args = [
        "evaluate-frame-elements",
        str(trained_fe),
        "-o",
        str(out),
        "--fn15",
        str(fn15),
        "--fn17",
        str(fn17),
        "--split",
        "dev",
        "--split",
        "test",
        "--end-to-end",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    scores = srsly.read_json(out)
    assert scores["fn15_dev"]["fe_f"] == 100.0 and scores["fn15_dev"]["gold_fes"] == sum(
        len(s) for fes in FES for s in fes.values()
    )
    assert scores["fn17_dev"]["fe_f"] == 100.0 and scores["fn17_dev_new_frames"] is None
    assert list(scores["fn15_dev"]["top_fe_types"])[:3] == ["Theme", "Donor", "Recipient"]
    assert 0.0 <= scores["fn15_test_end_to_end"]["fe_f"] <= 100.0
    bad = CliRunner().invoke(app, ["evaluate-frame-elements", str(tmp_path / "missing"), "-o", str(out)])
    assert bad.exit_code == 1


def test_evaluate_frame_elements_open_sesame_measure(trained_fe, toy_fe_corpus, tmp_path):
    """fe_os_p/r/f beside the strict measure, on FN1.5 (gold frames and end to end) and FN1.7
    dev: a gold FE on its own target ("hand" the Body_part) that the model never saw is missed."""
    import shutil

    import srsly
    from typer.testing import CliRunner

    from spacy_frames.cli import app

    fn15 = fe_corpus_with_target_fe(toy_fe_corpus, tmp_path / "fn15")
    fn17 = tmp_path / "fn17"
    shutil.copytree(fn15, fn17)
    out = tmp_path / "fe.json"
    args = ["evaluate-frame-elements", str(trained_fe), "-o", str(out), "--fn15", str(fn15), "--fn17", str(fn17)]
    result = CliRunner().invoke(app, args + ["--end-to-end"])
    assert result.exit_code == 0, result.output
    scores = srsly.read_json(out)
    dev = scores["fn15_dev"]
    # FE names per target, Core 1 and Manner 0.5: 14.5 found of 15.5 (Body_part on "hand"
    # is missed); nothing predicted is wrong
    assert (dev["fe_os_p"], dev["fe_os_r"]) == (100.0, round(100 * 14.5 / 15.5, 2))
    assert scores["fn17_dev"]["fe_os_r"] == dev["fe_os_r"]
    assert 0.0 <= scores["fn15_test_end_to_end"]["fe_os_f"] <= 100.0
    assert "open-sesame measure" in result.output


def test_annotate_output_lists_each_frames_elements(fe_nlp):
    from spacy_frames.tools.annotate import format_doc

    ref = toy_fe_docs(fe_nlp.vocab)[1]  # "They bought a car ." Buyer, Goods
    text = format_doc(fe_nlp(gold_frames_doc(fe_nlp, ref)))
    assert "    Buyer                'They'" in text and "    Goods                'a car'" in text


@pytest.mark.slow
def test_tune_fe_threshold_saves_the_choice(trained_fe, toy_fe_corpus, tmp_path):
    import srsly
    from typer.testing import CliRunner

    from spacy_frames.cli import app
    from spacy_frames.scoring.frame_elements_eval import DEFAULT_FE_THRESHOLDS

    out, saved = tmp_path / "sweep.json", tmp_path / "tuned"
    args = ["tune-fe-threshold", str(trained_fe), "--corpus", str(toy_fe_corpus / "dev.spacy"), "-o", str(out)]
    result = CliRunner().invoke(app, [*args, "--output-model", str(saved)])
    assert result.exit_code == 0, result.output
    sweep = srsly.read_json(out)
    # the best row for the criterion (open-sesame's), both measures in every row, one model run
    assert sweep["best"]["criterion"] == "fe_os_f" and sweep["before"]["threshold"] == 0.0
    assert sweep["best"]["fe_os_f"] == max(row["fe_os_f"] for row in sweep["grid"])
    assert all(row["fe_f"] is not None and row["fe_os_f"] is not None for row in sweep["grid"])
    assert len({row["candidate_rows"] for row in sweep["grid"]}) == 1
    assert max(row["fe_r"] for row in sweep["grid"]) == 100.0
    assert [row["threshold"] for row in sweep["grid"]] == list(DEFAULT_FE_THRESHOLDS)
    nlp = spacy.load(saved)
    assert nlp.get_pipe("frame_elements").cfg["threshold"] == sweep["best"]["threshold"]
    assert nlp.config["components"]["frame_elements"]["threshold"] == sweep["best"]["threshold"]
    assert "frame_identifier" in nlp.pipe_names  # saved as a whole frame parser
    bad = CliRunner().invoke(app, [*args, "--criterion", "fe_x"])
    assert bad.exit_code != 0 and "criterion" in bad.output


@pytest.mark.slow
def test_joint_stage2_trains_both_listeners_on_one_transformer(tiny_bert, toy_fe_corpus, trained_frames, tmp_path):
    """configs/test/frames_stage2_fe.cfg (placement b): frame_identifier's stage 2 and
    frame_elements on one transformer, which both update; both score on dev."""
    from conftest import fe_config, train_tiny, transformer_weights

    config = fe_config(tiny_bert, trained_frames, toy_fe_corpus)
    nlp = spacy.load(train_tiny(config, tmp_path, 40, 20))
    before = transformer_weights(spacy.load(trained_frames))
    after = transformer_weights(nlp)
    assert any(not (before[k] == after[k]).all() for k in before)
    ref = toy_fe_docs(nlp.vocab)[1]
    doc = nlp.make_doc(ref.text)
    doc.spans["targets"] = [doc.char_span(t.start_char, t.end_char) for t in ref.spans["targets"]]
    doc = nlp(doc)
    assert doc._.frames and isinstance(doc._.frames[0]._.frame_elements, list)


@pytest.mark.slow
def test_a_pipeline_of_another_release_is_scored_under_its_own_names(trained_fe, toy_fe_corpus, tmp_path):
    """Gold frames of an FN1.5-labelled corpus are renamed into a pipeline trained against
    (or swapped to) a later release, FE links included, so every gold frame is one the
    pipeline knows and every gold FE is counted."""
    from fe_toy import toy_fe_inventory

    from spacy_frames import set_inventory
    from spacy_frames.inventory.frames import FrameInventory
    from spacy_frames.scoring.frame_elements_eval import evaluate_frame_elements, fe_examples, load_frame_parser

    old = toy_fe_inventory()
    frames = {("Giving_renamed" if name == "Giving" else name): dict(info) for name, info in old.frames.items()}
    relations = {
        kind: [[("Giving_renamed" if f == "Giving" else f) for f in pair] for pair in pairs]
        for kind, pairs in old.relations.items()
    }
    nlp = load_on_gold_frames(trained_fe)
    set_inventory(nlp, FrameInventory(frames=frames, relations=relations, source="toy 2"))
    examples = fe_examples(nlp, toy_fe_corpus / "dev.spacy")
    labels = {span.label_ for eg in examples for span in eg.predicted.spans["frames"]}
    assert "Giving_renamed" in labels and labels <= set(frames)
    for eg in examples:
        for target in eg.reference.spans["targets"]:
            assert all(fe._.fe_frame == target.label_ for fe in target._.frame_elements)
    assert sum(len(t._.frame_elements) for eg in examples for t in eg.reference.spans["targets"]) == sum(
        len(s) for fes in FES for s in fes.values()
    )
    nlp.to_disk(tmp_path / "renamed")
    before = evaluate_frame_elements(load_frame_parser(str(trained_fe)), str(trained_fe), toy_fe_corpus)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*not in the frame inventory.*")
        renamed = str(tmp_path / "renamed")
        after = evaluate_frame_elements(load_frame_parser(renamed), renamed, toy_fe_corpus)
    assert after["fn15_dev"]["gold_fes"] == before["fn15_dev"]["gold_fes"] and after["fn15_dev"]["fe_r"] > 0


def test_an_fe_on_its_own_target_is_rendered_annotated_and_serialized():
    """The contract: an FE span may be its target ("gift" is the Theme of Giving); render,
    annotate and DocBin keep it."""
    from spacy_frames.render import docs_for_displacy
    from spacy_frames.tools.annotate import format_doc

    nlp = spacy.blank("en")
    install_extensions()
    doc = nlp("She gave him a gift .")
    gift = Span(doc, 4, 5, label="Giving")
    doc.spans["frames"] = [gift]
    doc.spans[FE_KEY] = [make_fe_span(gift, 4, 5, "Theme")]
    (block,) = docs_for_displacy(doc)
    assert [(s["start_token"], s["end_token"], s["label"]) for s in block["spans"]] == [
        (4, 5, "Giving"),
        (4, 5, "Theme"),
    ]
    assert "    Theme                'gift'" in format_doc(doc)
    (restored,) = DocBin(docs=[doc], store_user_data=True).get_docs(nlp.vocab)
    assert [(fe.start, fe.end, fe.label_) for fe in restored._.frames[0]._.frame_elements] == [(4, 5, "Theme")]


def test_prediction_chunks_are_cut_between_targets():
    """A long doc's rows go to the model in chunks of at most `limit` rows, cut between
    targets (a target over the limit alone); the chunks hold every row once, in order, with
    their targets' options."""
    from spacy_frames.ml.frame_elements import FECandidates
    from spacy_frames.pipeline.frame_elements import row_chunks

    nlp = spacy.blank("en")
    docs = [nlp("a b c d e f g h i j k l m n o p q r s t u v w x y"), nlp("a b c")]
    # doc 0: targets with 5, 3 and 4 rows; doc 1: a target without rows, one with 2
    rows = [
        numpy.array([(t, t + 1, s, s + 1) for t, n in ((0, 5), (10, 3), (20, 4)) for s in range(n)]),
        numpy.array([(1, 2, 0, 1), (1, 2, 2, 3)]),
    ]
    options = [numpy.array([0, i + 1]) for i in range(5)]
    candidates = FECandidates(docs, rows, numpy.array([5, 3, 4, 0, 2]), options)

    def layout(limit):
        chunks = list(row_chunks(candidates, limit))
        flat = numpy.concatenate([r for chunk in chunks for r in chunk.rows])
        assert numpy.array_equal(flat, numpy.concatenate(rows))
        for chunk in chunks:
            assert sum(len(r) for r in chunk.rows) == chunk.target_sizes.sum() and len(chunk.docs) == len(chunk.rows)
        return [(chunk.target_sizes.tolist(), [int(o[1]) for o in chunk.options]) for chunk in chunks]

    assert layout(8) == [([5, 3], [1, 2]), ([4, 0, 2], [3, 4, 5])]
    assert layout(4) == [([5], [1]), ([3], [2]), ([4, 0], [3, 4]), ([2], [5])]
    assert layout(100) == [([5, 3, 4, 0, 2], [1, 2, 3, 4, 5])]
    alone = FECandidates(docs[1:], rows[1:], numpy.array([0, 2]), options[3:])
    assert [c.target_sizes.tolist() for c in row_chunks(alone, 1)] == [[2]]  # the empty batch left out


@pytest.mark.slow
def test_run_time_settings_given_at_load_time_change_the_output(fe_nlp, trained_fe):
    """threshold and use_excludes given at load time win over the
    values saved with the component, and change the frame elements as documented."""
    refs = toy_fe_docs(fe_nlp.vocab)

    def load(**settings):
        nlp = spacy.load(trained_fe, disable=["frame_identifier"], config={"components": {"frame_elements": settings}})
        assert all(nlp.get_pipe("frame_elements").cfg[key] == value for key, value in settings.items())
        return nlp

    def fes(nlp):
        return [fe_view(nlp(gold_frames_doc(nlp, ref))) for ref in refs]

    def count(view):
        return sum(len(target) for doc in view for target in doc)

    shipped = fes(fe_nlp)
    assert count(fes(load(threshold=1e6))) == 0 < count(shipped)  # no gain is that large
    every = fes(load(threshold=-1e6))  # every candidate has a positive gain
    assert count(every) > count(shipped)
    for doc in every:  # one piece per FE, however low the threshold
        for target in doc:
            labels = [label for _, _, label in target]
            assert len(labels) == len(set(labels))
    assert load(use_excludes=False).get_pipe("frame_elements").frame_excludes("Self_motion") == {}
    assert fe_nlp.get_pipe("frame_elements").frame_excludes("Self_motion") == {"Goal": {"Source"}, "Source": {"Goal"}}

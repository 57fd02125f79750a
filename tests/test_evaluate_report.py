"""`spacy-frames evaluate MODEL DATA.spacy`: one row per score the gold data and the
pipeline allow, the values of nlp.evaluate's registered scorers, the JSON, the errors;
on the tiny assembled en_frames_trf and gold DocBins built from the toy data."""

import json

import pytest
import spacy
from discourse_toy import toy_relations
from fe_toy import toy_fe_docs
from frames_toy import toy_docs
from media_toy import toy_articles
from spacy.tokens import Doc, DocBin, Span, SpanGroup
from spacy.training import Example
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.clustering.metrics import bcubed
from spacy_frames.corpora.discourse import relation_doc
from spacy_frames.corpora.media_frames import article_doc
from spacy_frames.extensions import install_extensions
from spacy_frames.scoring.induction import score_induced_frames
from spacy_frames.scoring.report import METRICS, check_data, evaluate_report, make_examples, print_report
from spacy_frames.suggesters.frames import is_predicate

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:.*has no cluster centroids")]

FRAME_KEYS = {"target_p", "target_r", "target_f", "frame_acc", "frame_r1", "frame_r5", "induce_bcf"}
FE_KEYS = {"fe_p", "fe_r", "fe_f", "fe_os_p", "fe_os_r", "fe_os_f"}
DISCOURSE_KEYS = {"disc_l1_acc", "disc_l1_macro_f1", "disc_l2_acc", "disc_l2_macro_f1"}
MEDIA_KEYS = {"media_micro_f1", "media_macro_f1"}


@pytest.fixture(scope="module")
def nlp(tiny_frames_trf):
    install_extensions()
    return spacy.load(tiny_frames_trf)


def write(path, docs):
    DocBin(docs=docs, store_user_data=True).to_disk(path)
    return path


def discourse_docs(nlp):
    return [relation_doc(nlp, rel) for rel in toy_relations()[:4]]


def media_docs(nlp):
    return [article_doc(nlp, article) for article in toy_articles()[:4]]


def row_keys(report):
    return [row["key"] for row in report["rows"]]


def test_rows_exactly_for_the_annotations_present(nlp, tmp_path):
    frames_only = evaluate_report(nlp, write(tmp_path / "frames.spacy", toy_docs(nlp.vocab)))
    assert set(row_keys(frames_only)) == FRAME_KEYS | {"speed"}
    assert row_keys(frames_only)[-1] == "speed" and frames_only["words_per_second"] > 0
    assert frames_only["annotations"]["frames"] > 0 and frames_only["annotations"]["frame_elements"] == 0

    fe_discourse = evaluate_report(nlp, write(tmp_path / "fe_disc.spacy", toy_fe_docs(nlp.vocab) + discourse_docs(nlp)))
    assert set(row_keys(fe_discourse)) == FRAME_KEYS | FE_KEYS | DISCOURSE_KEYS | {"speed"}

    discourse_media = evaluate_report(nlp, write(tmp_path / "disc_media.spacy", discourse_docs(nlp) + media_docs(nlp)))
    assert set(row_keys(discourse_media)) == DISCOURSE_KEYS | MEDIA_KEYS | {"speed"}
    assert discourse_media["annotations"] == {"frames": 0, "frame_elements": 0, "discourse": 4, "media": 4}
    # rows keep the table's order
    order = [m.key for m in METRICS]
    for report in (frames_only, fe_discourse, discourse_media):
        keys = row_keys(report)[:-1]
        assert keys == sorted(keys, key=order.index)
        assert all(row["value"] is not None for row in report["rows"])


def test_rows_need_the_component(tiny_frames_trf, tmp_path):
    partial = spacy.load(tiny_frames_trf, exclude=["discourse_sense", "frame_inducer"])
    report = evaluate_report(
        partial, write(tmp_path / "mix.spacy", toy_docs(partial.vocab) + discourse_docs(partial) + media_docs(partial))
    )
    assert set(row_keys(report)) == (FRAME_KEYS - {"induce_bcf"}) | MEDIA_KEYS | {"speed"}
    assert "discourse_sense" not in report["components"] and report["annotations"]["discourse"] == 4


def test_values_are_nlp_evaluate_scores(nlp, tmp_path):
    docs = toy_fe_docs(nlp.vocab) + discourse_docs(nlp) + media_docs(nlp)
    report = evaluate_report(nlp, write(tmp_path / "all.spacy", docs))
    assert set(row_keys(report)) == FRAME_KEYS | FE_KEYS | DISCOURSE_KEYS | MEDIA_KEYS | {"speed"}
    expected = nlp.evaluate(make_examples(nlp, docs))
    for row in report["rows"]:
        if row["key"] not in ("speed", "induce_bcf"):
            assert row["value"] == pytest.approx(expected[row["key"]]), row["name"]
            assert report["scores"][row["key"]] == row["value"]
    # the JSON keeps every score the scorers gave, not only the rows'
    assert {"frame_r3", "fe_core_f", "induce_nn_acc", "disc_l2_per_sense"} <= set(report["scores"])
    # induced frames: B-cubed of the gold frames of the verb targets vs the clusters the
    # pipeline assigned, recomputed from a plain run of the pipeline
    gold, pred = [], []
    for ref, doc in zip(docs, nlp.pipe(eg.predicted for eg in make_examples(nlp, docs))):
        for target in ref.spans.get("targets", []):
            if is_predicate(target, ["VERB"]):
                gold.append(target.label_)
                pred.append(doc.char_span(target.start_char, target.end_char)._.induced_frame or f"none{len(pred)}")
    assert gold and report["scores"]["induce_instances"] == len(gold)
    assert report["scores"]["induce_bcf"] == pytest.approx(bcubed(gold, pred)[2])


def test_gold_targets_leave_out_target_detection(nlp, tmp_path):
    report = evaluate_report(nlp, write(tmp_path / "frames.spacy", toy_docs(nlp.vocab)), gold_targets=True)
    assert set(row_keys(report)) == FRAME_KEYS - {"target_p", "target_r", "target_f"} | {"speed"}
    examples = make_examples(nlp, toy_docs(nlp.vocab), gold_targets=True)
    assert all(len(eg.predicted.spans["targets"]) == len(eg.reference.spans["targets"]) for eg in examples)
    assert report["scores"]["frame_acc"] == pytest.approx(nlp.evaluate(examples)["frame_acc"])


def test_score_induced_frames_counts_unassigned_targets_as_singletons():
    install_extensions()
    vocab = spacy.blank("en").vocab
    examples = []
    # (words, tags, [(index, gold frame, induced frame or None)])
    rows = [
        ("She gave it".split(), ["PRP", "VBD", "PRP"], [(1, "Giving", "F0000")]),
        ("He handed it".split(), ["PRP", "VBD", "PRP"], [(1, "Giving", "F0000")]),
        ("We walked home".split(), ["PRP", "VBD", "NN"], [(1, "Self_motion", "F0000"), (2, "Locale", "F0001")]),
        ("They ran off".split(), ["PRP", "VBD", "RP"], [(1, "Self_motion", None)]),
    ]
    for words, tags, targets in rows:
        ref = Doc(vocab, words=words, tags=tags)
        ref.spans["targets"] = SpanGroup(
            ref, name="targets", spans=[Span(ref, i, i + 1, label=frame) for i, frame, _ in targets]
        )
        predicted = Doc(vocab, words=words)
        for i, _, cluster in targets:
            predicted[i : i + 1]._.induced_frame = cluster
        examples.append(Example(predicted, ref))
    scores = score_induced_frames(examples)
    # the noun target (Locale) is left out; the unassigned "ran" is a cluster of its own
    p, r, f = bcubed(["Giving", "Giving", "Self_motion", "Self_motion"], ["F0000", "F0000", "F0000", "alone"])
    assert scores["induce_instances"] == 4 and scores["induce_unassigned"] == 1
    assert (scores["induce_bcp"], scores["induce_bcr"], scores["induce_bcf"]) == pytest.approx((p, r, f))
    assert score_induced_frames(examples[:0])["induce_bcf"] is None


def test_cli_prints_one_table_and_writes_json(tiny_frames_trf, nlp, tmp_path):
    data = write(tmp_path / "frames_media.spacy", toy_docs(nlp.vocab) + media_docs(nlp))
    out = tmp_path / "metrics" / "evaluate.json"
    result = CliRunner().invoke(app, ["evaluate", str(tiny_frames_trf), str(data), "--output", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert set(row_keys(report)) == FRAME_KEYS | MEDIA_KEYS | {"speed"}
    assert report["words_per_second"] > 0 and report["scores"]["speed"] == report["words_per_second"]
    assert "Results" in result.output and "Discourse" not in result.output and "FE F" not in result.output
    lines = result.output.splitlines()
    for row in report["rows"]:
        line = next(line for line in lines if line.startswith(row["name"] + " "))
        shown = line.split()[len(row["name"].split())]
        if row["key"] != "speed":
            assert float(shown) == pytest.approx(100 * row["value"], abs=0.006)
        assert line.rstrip().endswith(row["key"])


def test_print_report_without_a_pipeline(capsys):
    report = {
        "data": "d.spacy",
        "documents": 2,
        "annotations": {"frames": 3, "frame_elements": 0, "discourse": 0, "media": 0},
        "rows": [
            {"name": "Frame R@5", "key": "frame_r5", "value": None},
            {"name": "Words/s", "key": "speed", "value": 1234.4},
        ],
    }
    print_report(report)
    out = capsys.readouterr().out
    assert "3 gold targets with frames" in out
    assert [line.split()[-2:] for line in out.splitlines() if line.startswith(("Frame R@5", "Words/s"))] == [
        ["-", "frame_r5"],
        ["1234", "speed"],
    ]


@pytest.mark.slow
def test_errors_are_clear(tiny_frames_trf, nlp, tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["evaluate", str(tiny_frames_trf), str(tmp_path / "missing.spacy")])
    assert result.exit_code == 1 and "missing.spacy' not found" in result.output
    jsonl = tmp_path / "gold.jsonl"
    jsonl.write_text('{"text": "x"}\n')
    result = runner.invoke(app, ["evaluate", str(tiny_frames_trf), str(jsonl)])
    assert result.exit_code == 1 and "is not a .spacy file" in result.output
    broken = tmp_path / "broken.spacy"
    broken.write_bytes(b"not a docbin")
    with pytest.raises(ValueError, match="could not be read as a DocBin"):
        evaluate_report(nlp, broken)
    with pytest.raises(ValueError, match="holds no documents"):
        evaluate_report(nlp, write(tmp_path / "empty.spacy", []))
    with pytest.raises(ValueError, match="not a .spacy file"):
        check_data(tmp_path)
    # raw text: nothing to score
    result = runner.invoke(
        app, ["evaluate", str(tiny_frames_trf), str(write(tmp_path / "raw.spacy", [nlp.make_doc("Prices rose.")]))]
    )
    assert result.exit_code == 1
    assert "no annotation this pipeline can score" in result.output and "no gold annotation" in result.output
    assert "frame_identifier" in result.output
    # annotation present, component missing: says what was found and what the pipeline has
    without = spacy.load(tiny_frames_trf, exclude=["media_framer"])
    with pytest.raises(
        ValueError, match="Found: 4 articles with gold media frames. Pipeline components: .*discourse_sense"
    ) as err:
        evaluate_report(without, write(tmp_path / "media.spacy", media_docs(nlp)))
    assert "media_framer" not in str(err.value).split("Scored:")[0]

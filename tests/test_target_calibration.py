"""frame_identifier's target calibration: target rates, the logistic calibration,
overlapping candidates competing by score (issue 25: "'m" and "come to" vs "come")."""

import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.util import make_tempdir

from spacy_frames.inventory.frames import FrameInventory
from spacy_frames.inventory.lexicon import Lexicon
from spacy_frames.pipeline.base import set_runtime_settings
from spacy_frames.pipeline.target_calibration import FEATURE_NAMES, TargetCalibration, fit_logistic, resolve_overlaps

RATE = FEATURE_NAMES.index("rate_logit")


def inventory():
    frames = {
        "Arriving": {"id": 0, "definition": "A Theme moves to a Goal.", "lexical_units": ["come.v", "arrive.v"]},
        "Waking_up": {"id": 1, "definition": "A Sleeper wakes up.", "lexical_units": ["come to.v", "wake.v"]},
        "Being": {"id": 2, "definition": "Something is.", "lexical_units": ["be.v"]},
    }
    return FrameInventory(frames=frames, relations={}, source="test")


def tagged(words, tags, lemmas):
    return Doc(spacy.blank("en").vocab, words=words, tags=tags, lemmas=lemmas)


def test_overlapping_candidates_give_a_multiword_lu_and_its_words():
    lexicon = Lexicon(inventory())
    doc = tagged("who come to Pleasant Run".split(), "WP VBP IN NNP NNP".split(), "who come to Pleasant Run".split())
    greedy = [(s.text, lu) for s, lu in lexicon.candidates(doc)]
    assert greedy == [("come to", "come to.v")]
    both = [(s.text, lu) for s, lu in lexicon.candidates(doc, overlapping=True)]
    assert both == [("come to", "come to.v"), ("come", "come.v")]
    assert lexicon.lexical_unit(doc[1:3]) == "come to.v" and lexicon.lexical_unit(doc[1:2]) == "come.v"
    assert lexicon.lexical_unit(doc[1:4]) is None


def test_resolve_overlaps_best_score_first():
    doc = tagged("a b c d".split(), ["NN"] * 4, "a b c d".split())
    spans = [doc[0:2], doc[0:1], doc[1:2], doc[3:4]]
    assert resolve_overlaps(spans, [0.6, 0.9, 0.7, 0.8], [True] * 4) == [False, True, True, True]
    assert resolve_overlaps(spans, [0.95, 0.9, 0.7, 0.8], [True] * 4) == [True, False, False, True]
    # a candidate under the cut-off blocks nothing
    assert resolve_overlaps(spans, [0.95, 0.9, 0.7, 0.8], [False, True, True, False]) == [False, True, True, False]


def test_fit_logistic_learns_the_informative_feature_and_rejects_one_class():
    rng = numpy.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 1] + 0.1 * rng.normal(size=400) > 0).astype(float)
    w, b = fit_logistic(X, y, l2=0.1)
    assert abs(w[1]) > 5 * max(abs(w[0]), abs(w[2])) and w[1] > 0
    with pytest.raises(ValueError, match="both kinds"):
        fit_logistic(X, numpy.ones(400))


def test_rates_features_and_serialization():
    cal = TargetCalibration(smoothing=1.0)
    with pytest.raises(ValueError, match="no target rates"):
        cal.features(["be.v"], [0.5], [tagged(["is"], ["VBZ"], ["be"])[0:1]], [True])
    cal.count([("be.v", False)] * 9 + [("be.v", True)] + [("come.v", True)] * 10)
    assert cal.base_rate == pytest.approx(11 / 20)
    assert cal.rate("be.v") == pytest.approx((1 + 0.55) / 11)
    assert cal.rate("unseen.n") == pytest.approx(0.55)
    span = tagged(["is"], ["VBZ"], ["be"])[0:1]
    X = cal.features(["be.v"], [0.5], [span], [True])
    assert (
        X.shape == (1, len(FEATURE_NAMES))
        and X[0, FEATURE_NAMES.index("pos_AUX")]
        + X[0, FEATURE_NAMES.index("pos_VERB")]
        + X[0, FEATURE_NAMES.index("pos_OTHER")]
        == 1
    )
    assert not cal.is_fitted
    cal.weights, cal.bias = numpy.eye(len(FEATURE_NAMES))[RATE], 0.0
    copy = TargetCalibration().from_bytes(cal.to_bytes())
    assert copy.is_fitted and copy.counts == cal.counts and copy.score(X) == pytest.approx(cal.score(X))
    stale = cal.to_dict()
    stale["features"] = ["detector_logit"]
    with pytest.raises(ValueError, match="tune-detection --train"):
        TargetCalibration().from_dict(stale)


def rates_only(counts):
    """A calibration that follows the target rate alone (the detector left out)."""
    cal = TargetCalibration()
    cal.count((key, i < targets) for key, (n, targets) in counts.items() for i in range(n))
    cal.weights, cal.bias = numpy.eye(len(FEATURE_NAMES))[RATE] * 4.0, 0.0
    return cal


@pytest.mark.slow
def test_contraction_and_multiword_competition_in_the_pipeline(trained_frames):
    nlp = spacy.load(trained_frames)
    fi = nlp.get_pipe("frame_identifier")
    fi.add_frame("Arriving", "A Theme moves to a Goal.", lexical_units=["come.v"])
    fi.add_frame("Waking_up", "A Sleeper wakes up.", lexical_units=["come to.v"])
    fi.add_frame("Being", "Something is.", lexical_units=["be.v"])
    fi.add_frame("Becoming", "An Entity comes to have a Final_quality.", lexical_units=["get.v"])
    # the detector alone lets everything through
    set_runtime_settings(nlp, "frame_identifier", {"threshold": 0.0, "oov_threshold": 0.0})
    come = "The people who come to Pleasant Run love it ."
    before = nlp(come)
    assert "come to" in [s.text for s in before._.frames]  # today: the longest LU wins
    assert "'m" in [s.text for s in nlp("I'm getting quite hungry.")._.frames]
    fi.target_calibration = rates_only({"be.v": (1808, 1), "come to.v": (13, 0), "come.v": (55, 29), "get.v": (38, 25)})
    set_runtime_settings(nlp, "frame_identifier", {"overlapping_candidates": True, "threshold": 0.3})
    doc = nlp(come)
    found = {s.text: s.label_ for s in doc._.frames}
    assert "come to" not in found and found.get("come") == "Arriving"
    hungry = nlp("I'm getting quite hungry.")
    assert "'m" not in [s.text for s in hungry._.frames] and "getting" in [s.text for s in hungry._.frames]
    # the calibration is saved with the component, the settings in config.cfg too
    with make_tempdir() as d:
        nlp.to_disk(d)
        again = spacy.load(d)
        assert again.get_pipe("frame_identifier").target_calibration.is_fitted
        assert [(s.text, s.label_) for s in again(come)._.frames] == [(s.text, s.label_) for s in doc._.frames]
    # from_bytes brings the state; the run-time settings are the receiving pipeline's config's
    settings = {"threshold": 0.3, "oov_threshold": 0.0, "overlapping_candidates": True}
    receiver = spacy.load(trained_frames, config={"components": {"frame_identifier": settings}})
    assert [(s.text, s.label_) for s in receiver.from_bytes(nlp.to_bytes())(come)._.frames] == [
        (s.text, s.label_) for s in doc._.frames
    ]


@pytest.mark.slow
def test_tune_detection_with_train_fits_and_saves_the_calibration(trained_frames, toy_corpus, tmp_path):
    import srsly
    from typer.testing import CliRunner

    from spacy_frames.cli import app

    out, saved = tmp_path / "detection.json", tmp_path / "tuned"
    args = [
        "tune-detection",
        str(trained_frames),
        "-o",
        str(out),
        "--corpus",
        str(toy_corpus / "dev.spacy"),
        "--train",
        str(toy_corpus / "train.spacy"),
        "--output-model",
        str(saved),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    metrics = srsly.read_json(out)
    cal = metrics["calibrated"]
    assert cal["best"]["target_f"] == max(row["target_f"] for row in cal["grid"])
    assert set(cal["weights"]) == set(FEATURE_NAMES) and cal["train_candidates"] > 0
    tuned = spacy.load(saved).get_pipe("frame_identifier")
    assert tuned.target_calibration.is_fitted and tuned.cfg["overlapping_candidates"] is True
    assert tuned.cfg["threshold"] == pytest.approx(cal["best"]["threshold"])
    missing = CliRunner().invoke(app, args[:-4] + ["--train", str(tmp_path / "nope.spacy")])
    assert missing.exit_code == 1 and "nope.spacy" in missing.output


def test_collected_candidates_carry_their_vectors_when_asked(trained_frames, toy_corpus):
    """collect_candidates(with_vectors=True): one target vector per candidate, the vector
    frame_identifier ranks frames with; without it, none."""
    from spacy_frames.pipeline.target_calibration import collect_candidates
    from spacy_frames.scoring.frames_eval import frame_examples

    nlp = spacy.load(trained_frames)
    examples = frame_examples(nlp, toy_corpus / "dev.spacy", gold_targets=False)
    plain = collect_candidates(nlp, examples, with_probs=True)
    docs = collect_candidates(nlp, examples, with_probs=True, with_vectors=True)
    assert all(d.vectors is None for d in plain)
    assert [len(d.spans) for d in docs] == [len(d.spans) for d in plain] and sum(len(d.spans) for d in docs) > 0
    fi = nlp.get_pipe("frame_identifier")
    for doc in docs:
        assert doc.vectors.shape == (len(doc.spans), fi.index.base.shape[1])
        assert [p for p in doc.probs] == [p for p in next(d for d in plain if d.offsets == doc.offsets).probs]

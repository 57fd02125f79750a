"""Frame-induction instances, folds, reader and the evaluation protocol (no transformer)."""

from collections import Counter
from itertools import islice

import numpy
import pytest
import spacy
from inducer_toy import INSTANCES

from spacy_frames.corpora.frame_induction import (
    assign_folds,
    collect_verb_instances,
    create_frame_induction_reader,
    create_instance_frames,
    fold_rotation,
    instance_stats,
)
from spacy_frames.corpora.framenet_sentences import FrameSentence, FrameTarget
from spacy_frames.scoring.induction_eval import baselines, evaluate_fold, ranking_recall, run_method, summarize_runs


def sentence(i, lu, frame, pieces=((0, 3),), n_targets=1):
    targets = [FrameTarget(frame, lu, list(pieces)) for _ in range(n_targets)]
    return FrameSentence("lu.xml", i, "ran far away", [(0, 3, None), (4, 7, None), (8, 12, None)], targets)


def test_collect_verb_instances_caps_per_lu_and_keeps_verbs_only():
    sents = [sentence(i, "run.v", "Self_motion") for i in range(7)]
    sents += [sentence(10, "run.n", "Race"), sentence(11, "walk.v", "Self_motion", pieces=())]
    sents += [sentence(12, "walk.v", "Self_motion", n_targets=2)]  # annotated twice: one instance
    sents += [sentence(20 + i, "run.v", "Leadership") for i in range(3)]  # another LU of "run.v"
    instances = collect_verb_instances(sents, max_per_lu=5, seed=0)
    lus = Counter((t.lu, t.frame) for _, t in instances)
    assert lus == {("run.v", "Self_motion"): 5, ("run.v", "Leadership"): 3, ("walk.v", "Self_motion"): 1}
    assert instances == collect_verb_instances(sents, max_per_lu=5, seed=0)  # seeded


def test_assign_folds_balances_polysemy_and_is_fixed():
    frames = {f"poly{i}": ["A", "B"] for i in range(9)}
    frames.update({f"mono{i}": ["A"] for i in range(21)})
    folds = assign_folds(frames, seed=0)
    assert folds == assign_folds(frames, seed=0)
    per_fold = Counter(folds.values())
    poly = Counter(folds[f"poly{i}"] for i in range(9))
    assert set(per_fold.values()) == {10} and set(poly.values()) == {3}
    assert fold_rotation(0) == {"test": 0, "dev": 1, "train": 2}
    assert fold_rotation(2) == {"test": 2, "dev": 0, "train": 1}
    with pytest.raises(ValueError, match="test fold"):
        fold_rotation(3)


def test_instance_stats_table2_form():
    stats = instance_stats(
        [("run", "Self_motion"), ("run", "Leadership"), ("walk", "Self_motion"), ("run", "Self_motion")]
    )
    assert stats == {
        "verbs": 2,
        "lexical_units": 3,
        "frames": 2,
        "instances": 4,
        "polysemous_verbs": 1,
        "polysemous_share": 50.0,
    }


def test_reader_groups_instances_by_frame(toy_folds):
    nlp = spacy.blank("en")
    reader = create_frame_induction_reader([str(toy_folds / "fold0.spacy")], per_frame=2, seed=0)
    stream = list(islice(reader(nlp), 64))  # endless: rounds over the data
    frames = [eg.reference.spans["targets"][0].label_ for eg in stream]
    assert all(frames[i] == frames[i + 1] for i in range(0, 64, 2))
    assert all(len(eg.predicted.spans["targets"]) == 1 for eg in stream[:4])  # the target is preset
    capped = list(create_frame_induction_reader([str(toy_folds / "fold0.spacy")], max_per_lu=1)(nlp))
    assert len(capped) == len({(row[3], row[2]) for row in INSTANCES})  # an LU is (lemma.pos, frame)
    limited = list(create_frame_induction_reader([str(toy_folds / "fold0.spacy")], limit=5)(nlp))
    assert len(limited) == 5
    assert create_instance_frames([str(toy_folds / "fold0.spacy")]) == sorted({row[2] for row in INSTANCES})


def test_diverse_runs_pair_different_verbs(toy_folds):
    """Every toy frame has two verbs with two instances each: a diverse run of two is
    always one instance of each verb; random runs often pair one verb."""
    nlp = spacy.blank("en")

    def runs(diverse):
        reader = create_frame_induction_reader(
            [str(toy_folds / "fold0.spacy")], per_frame=2, seed=0, diverse_runs=diverse
        )
        stream = list(islice(reader(nlp), 160))
        lus = [eg.reference.spans["targets"][0]._.lexical_unit for eg in stream]
        return [(lus[i], lus[i + 1]) for i in range(0, len(lus), 2)]

    assert all(a != b for a, b in runs(True))
    assert any(a == b for a, b in runs(False))


def test_sidecar_index_selects_the_same_instances(toy_folds, tmp_path):
    """With `<fold>.index.json` the reader decodes only the docs it keeps; the choice is the same."""
    from spacy.tokens import DocBin

    from spacy_frames.corpora.frame_induction import choose_instances, write_instances

    nlp = spacy.blank("en")
    docs = list(DocBin().from_disk(toy_folds / "fold0.spacy").get_docs(nlp.vocab))
    write_instances(
        DocBin(docs=docs, store_user_data=True), tmp_path / "fold0.spacy", [[r[3], r[2]] for r in INSTANCES]
    )
    for kwargs in ({"max_per_lu": 1}, {"limit": 5}, {"max_per_lu": 2, "limit": 7}):
        plain = [
            eg.reference.text for eg in create_frame_induction_reader([str(toy_folds / "fold0.spacy")], **kwargs)(nlp)
        ]
        indexed = [
            eg.reference.text for eg in create_frame_induction_reader([str(tmp_path / "fold0.spacy")], **kwargs)(nlp)
        ]
        assert plain == indexed
    assert create_instance_frames([str(tmp_path / "fold0.spacy")]) == create_instance_frames(
        [str(toy_folds / "fold0.spacy")]
    )
    lus = ["a"] * 5 + ["b"] * 3 + ["c"]
    keep = choose_instances(lus, 2, 0, 0)
    assert Counter(lus[i] for i in keep) == {"a": 2, "b": 2, "c": 1}
    assert choose_instances([lus[i] for i in keep], 2, 0, 0) == list(range(len(keep)))  # idempotent


def test_reader_errors(tmp_path):
    from spacy.tokens import DocBin

    with pytest.raises(FileNotFoundError, match="not found"):
        create_frame_induction_reader([str(tmp_path / "missing.spacy")])
    DocBin().to_disk(tmp_path / "empty.spacy")
    with pytest.raises(ValueError, match="holds no instances"):
        list(create_frame_induction_reader([str(tmp_path / "empty.spacy")])(spacy.blank("en")))


def blobs(n_frames=4, per_lemma=6, seed=0):
    """Two lemmas per frame, instances around one centre per frame (v_mask: noise)."""
    rng = numpy.random.default_rng(seed)
    centres = rng.standard_normal((n_frames, 16)) * 3
    rows, frames, lemmas = [], [], []
    for f in range(n_frames):
        for lemma in (f"verb{f}a", f"verb{f}b"):
            for _ in range(per_lemma):
                rows.append(centres[f] + rng.standard_normal(16) * 0.3)
                frames.append(f"F{f}")
                lemmas.append(lemma)
    v_word = numpy.array(rows, dtype="float32")
    return {
        "v_word": v_word,
        "v_mask": rng.standard_normal(v_word.shape).astype("float32"),
        "frames": numpy.array(frames),
        "lemmas": numpy.array(lemmas),
        "lus": numpy.array([f"{l}.v" for l in lemmas]),
    }


def test_run_method_picks_alpha_on_dev_and_recovers_frames():
    dev, test = blobs(seed=1), blobs(seed=2)
    for method in ("one-step", "two-step"):
        result = run_method(method, dev, test)
        assert result["alpha"] == 0.0  # v_mask is noise here
        assert result["bcf"] == pytest.approx(100.0)
        assert set(result["dev_bcf_by_alpha"]) == {str(a) for a in [round(0.1 * i, 1) for i in range(11)]}
    no_mask = dict(dev, v_mask=None)
    assert run_method("one-step", no_mask, dict(test, v_mask=None))["dev_bcf_by_alpha"].keys() == {"0.0"}


def test_ranking_recall_by_hand():
    X = numpy.array([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]], dtype="float32")
    X /= numpy.linalg.norm(X, axis=1, keepdims=True)
    frames = ["A", "A", "B", "A"]
    lemmas = ["x", "y", "x", "x"]
    # ALL: instance 0 has 2 same-frame others (1, 3); its top 2 are 1 then 3 (cos 0.99, 0.11 vs 0.0 for 2) -> 1
    #      instance 1 -> {0, 3}: top 2 = 0 (0.99), 3 (0.2) -> 1; instance 3 -> {0, 1}: top 2 = 2 (0.99), 1 -> 1/2
    #      instance 2 has no same-frame other: skipped. Mean (1 + 1 + 0.5) / 3
    # SAME (same lemma x): 0 -> {3} among {2, 3}: top 1 = 3 (0.11 vs 0) -> 1; 3 -> {0} among {0, 2}: top 1 = 2 -> 0
    # DIFF: 0 -> {1} among {1}: 1; 1 -> {0, 3} among {0, 2, 3}: top 2 = 0, 3 -> 1; 3 -> {1} among {1}: 1
    result = ranking_recall(X, frames, lemmas)
    assert result["all"] == pytest.approx(100 * 2.5 / 3, abs=0.01)
    assert result["same"] == pytest.approx(50.0)
    assert result["diff"] == pytest.approx(100.0)


def test_evaluate_fold_and_summary():
    dev, test = blobs(seed=1), blobs(seed=2)
    run = evaluate_fold(dev, test)
    run.update(baselines(test))
    assert run["1cpv"]["bcp"] == pytest.approx(100.0) and run["1cpv"]["n_clusters"] == 8
    assert run["all_in_one"]["n_clusters"] == 1
    summary = summarize_runs({"vanilla_fold0": run}, ["vanilla", "triplet"], 3)
    assert summary["table3"]["vanilla"]["two-step"]["folds"] == [0]
    assert "triplet" not in summary["table3"]
    assert any(line.startswith("| vanilla | two-step | 1/3") for line in summary["table"])
    assert summary["ranking_recall"]["vanilla"]["all"] == pytest.approx(100.0)
    # Table 6 also for the embedding itself (v_word, alpha 0), beside the two-step alpha
    assert run["ranking_recall_vword"]["alpha"] == 0.0 and summary["ranking_recall_vword"]["vanilla"]["folds"] == 1


def test_converter_holds_out_instances_the_centroids_never_see(fn15_zip, tmp_path, monkeypatch):
    """centroids.spacy and centroid_holdout.spacy are disjoint samples of the folds; the
    holdout takes only LUs the centroid cap cut, at most holdout_max_per_lu each, and
    adding it leaves the centroid sample as it was."""
    import srsly
    from spacy.tokens import DocBin

    import spacy_frames.corpora.frame_induction as fi

    def exemplars(zip_path, limit=None):  # the fixture release has no verb LU: six verbs, 1-6 exemplars each
        for v in range(6):
            for i in range(v + 1):
                text = f"ran far away {v}{i}"
                yield FrameSentence(
                    "lu.xml",
                    10 * v + i,
                    text,
                    [(0, 3, None), (4, 7, None), (8, 12, None), (13, len(text), None)],
                    [FrameTarget(("Leadership", "Surviving")[v % 2], f"verb{v}.v", [(0, 3)])],
                )

    monkeypatch.setattr(fi, "iter_exemplar_sentences", exemplars)
    summary = fi.convert_frame_induction(
        fn15_zip, tmp_path / "a", centroid_max_per_lu=2, holdout_max_per_lu=1, progress=False
    )
    again = fi.convert_frame_induction(
        fn15_zip, tmp_path / "b", centroid_max_per_lu=2, holdout_max_per_lu=3, progress=False
    )
    nlp = spacy.blank("en")

    def keys(path):
        return [
            (d.text, s.start, s.label_)
            for d in DocBin().from_disk(path).get_docs(nlp.vocab)
            for s in d.spans["targets"]
        ]

    folds = Counter(k for i in range(3) for k in keys(tmp_path / "a" / f"fold{i}.spacy"))
    centroids, holdout = keys(tmp_path / "a" / "centroids.spacy"), keys(tmp_path / "a" / "centroid_holdout.spacy")
    assert holdout and not set(centroids) & set(holdout)
    assert set(centroids) | set(holdout) <= set(folds)
    index = srsly.read_json(tmp_path / "a" / "centroid_holdout.index.json")
    per_lu = Counter(tuple(row) for row in index)
    assert set(per_lu.values()) == {1} and summary["centroid_holdout_instances"] == len(holdout) == len(index) == 4
    assert summary["centroid_holdout_lus"] == len(per_lu) == 4  # verb2..verb5: the LUs with more than 2
    assert len(centroids) == 1 + 2 * 5
    assert keys(tmp_path / "b" / "centroids.spacy") == centroids
    assert again["centroid_holdout_instances"] == 1 + 2 + 3 + 3

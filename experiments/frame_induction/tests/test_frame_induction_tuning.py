"""frame_induction_experiment's model selection: each rotation tuned on its own dev fold,
the paper's budget in epochs, and the LUs a clean head must not see labelled."""

import frame_induction_experiment as fie
import numpy
import pytest
import spacy
from inducer_toy import INSTANCES


@pytest.mark.slow
def test_tuning_scores_each_rotation_on_its_own_dev_fold(tmp_path, monkeypatch):
    """Rotation k (test fold k) is tuned on train fold k+2 and dev fold k+1 only, and a
    tuned run of rotation k takes what rotation k's dev fold chose, never another
    rotation's choice (whose dev fold is this rotation's test fold)."""
    import srsly
    from typer.testing import CliRunner

    for k in range(3):
        split = fie.tuning_split(k)
        assert split == {"train": (k + 2) % 3, "dev": (k + 1) % 3} and k not in split.values()
    # tune reads the rotation's dev fold and nothing else
    read, trained = [], []
    monkeypatch.setattr(fie, "fold_path", lambda k: read.append(k) or tmp_path / f"fold{k}.spacy")
    monkeypatch.setattr(fie, "train_system", lambda system, name, fold, *a, **kw: trained.append(fold) or tmp_path)
    monkeypatch.setattr(fie, "STUDY", tmp_path)
    monkeypatch.setattr(spacy, "load", lambda path: spacy.blank("en"))
    import spacy_frames.scoring.induction_eval as ie

    def fake_instances(path, vocab):
        nlp = spacy.blank("en")
        from inducer_toy import toy_instance_docs

        return toy_instance_docs(nlp.vocab)

    def fake_embed(nlp, docs, with_mask=True):
        rng = numpy.random.default_rng(0)
        spans = [d.spans["targets"][0] for d in docs]
        return {
            "v_word": rng.standard_normal((len(docs), 4)).astype("f"),
            "v_mask": rng.standard_normal((len(docs), 4)).astype("f"),
            "frames": numpy.array([s.label_ for s in spans]),
            "lemmas": numpy.array([s._.lexical_unit.split(".")[0] for s in spans]),
            "lus": numpy.array([s._.lexical_unit for s in spans]),
        }

    monkeypatch.setattr(ie, "load_instances", fake_instances)
    monkeypatch.setattr(ie, "embed_instances", fake_embed)
    for k in range(3):
        read.clear()
        result = CliRunner().invoke(fie.app, ["tune", "triplet", "--fold", str(k), "--dev-per-lu", "0", "--tag", "t"])
        assert result.exit_code == 0, result.output
        assert read == [(k + 1) % 3] and trained[-1] == k
        saved = srsly.read_json(
            tmp_path / "metrics" / "frame_inducer" / "tuning" / "full_dev" / f"triplet@t_fold{k}.json"
        )
        assert saved["dev_fold"] == (k + 1) % 3 and saved["rotation"]["test"] == k and saved["n_dev"] == len(INSTANCES)
    # per-rotation choice: a @ on rotation 0, b on rotation 1; the proxy's files are another protocol
    tuning = tmp_path / "tuning"
    (tuning / "full_dev").mkdir(parents=True)
    for name, fold, bcf in (("a", 0, 55.0), ("b", 0, 50.0), ("a", 1, 40.0), ("b", 1, 60.0)):
        srsly.write_json(
            tuning / "full_dev" / f"triplet@{name}_fold{fold}.json",
            {"bcf": bcf, "dev_fold": (fold + 1) % 3, "overrides": [f"x={name}"]},
        )
    srsly.write_json(tuning / "full_dev" / "triplet-head@c_fold0.json", {"bcf": 99.0, "dev_fold": 1, "overrides": []})
    srsly.write_json(tuning / "triplet@c_fold0.json", {"bcf": 99.0, "dev_fold": 1, "overrides": ["x=c"]})
    assert fie.tuned_setting("triplet", 0, 0, tuning)["overrides"] == ["x=a"]
    assert fie.tuned_setting("triplet", 1, 0, tuning)["overrides"] == ["x=b"]
    assert fie.tuned_setting("triplet", 0, 10, tuning)["name"] == "triplet@c"
    with pytest.raises(ValueError, match="no tuning runs"):
        fie.tuned_setting("triplet", 2, 0, tuning)
    srsly.write_json(tuning / "full_dev" / "triplet@d_fold2.json", {"bcf": 50.0, "dev_fold": 2, "overrides": []})
    with pytest.raises(ValueError, match="not scored on rotation 2's dev fold 0"):
        fie.tuned_setting("triplet", 2, 0, tuning)


def test_budget_overrides_count_epochs_as_the_paper(tmp_path, monkeypatch):
    import srsly

    index = [["a.v", "F"]] * 25 + [["b.v", "G"]] * 5 + [["a.v", "G"]] * 2  # LUs of 25, 5 and 2 instances
    srsly.write_json(tmp_path / "fold2.index.json", index)
    monkeypatch.setattr(fie, "fold_path", lambda k: tmp_path / f"fold{k}.spacy")
    # rotation 0 trains on fold 2: 10 + 5 + 2 = 17 instances, 4 epochs of 32 = 3 steps
    assert fie.budget_overrides(0, 10, 4) == [
        "variables.max_per_lu=10",
        "training.max_steps=3",
        "training.optimizer.learn_rate.warmup_steps=1",
    ]
    assert fie.budget_overrides(0, 0, 32)[1] == "training.max_steps=32"  # all 32 instances
    assert fie.budget_overrides(0, 30, 0) == ["variables.max_per_lu=30"]


def test_held_out_lus_are_the_rotation_dev_and_test_verbs(tmp_path, monkeypatch):
    import srsly
    from typer.testing import CliRunner

    monkeypatch.setattr(fie, "ROOT", tmp_path)
    (tmp_path / "corpus" / "frame_induction").mkdir(parents=True)
    srsly.write_json(
        tmp_path / "corpus" / "frame_induction" / "folds.json",
        {"seed": 0, "lemmas": {"go": 0, "soar": 1, "bend": 2, "take off": 0}},
    )
    out = tmp_path / "held.json"
    result = CliRunner().invoke(fie.app, ["held-out-lus", "--fold", "0", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert srsly.read_json(out) == ["go.v", "soar.v", "take off.v"]  # test fold 0 and dev fold 1, never train fold 2
    # a head run on another transformer must be named (its JSON must not overwrite the default's)
    result = CliRunner().invoke(
        fie.app, ["run", "triplet", "--fold", "0", "--variant", "head", "--transformer", str(tmp_path)]
    )
    assert result.exit_code != 0 and "--tag" in result.output

"""frame_induction_experiment on the toy folds: v_mask from every layer, and the packaged
inducer's cut swept over the fit's saved embeddings."""

import frame_induction_experiment as fie
import numpy
import pytest
import spacy
from inducer_toy import INSTANCES, toy_instance_docs
from spacy.tokens import DocBin


def test_mask_layers_scores_every_layer_on_the_dev_fold(tiny_bert, toy_folds, tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    read = []
    monkeypatch.setattr(fie, "fold_path", lambda k: read.append(k) or toy_folds / f"fold{k}.spacy")
    out = tmp_path / "layers.json"
    result = CliRunner().invoke(
        fie.app, ["mask-layers", "--fold", "2", "--encoder", str(tiny_bert), "--output", str(out), "--window", "4"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert read == [0] and data["dev_fold"] == 0 and data["n_dev"] == len(INSTANCES)
    assert len(data["layers"]) == 3  # the tiny BERT: embeddings + 2 layers
    assert all(0 < entry[m]["bcf"] <= 100 for entry in data["layers"].values() for m in ("one-step", "two-step"))


@pytest.mark.slow
def test_fit_inducer_keeps_vectors_and_packaged_cut_sweeps(trained_inducer, tmp_path):
    import json

    from typer.testing import CliRunner

    from spacy_frames.cli import app
    from spacy_frames.recipes.inducer import scale_cut

    assert scale_cut("two-step", {"kmax": 2, "pair_ratio": 0.1}, 0.5) == {
        "kmax": 2,
        "pair_ratio": 0.05,
        "cut_scale": 0.5,
    }
    with pytest.raises(ValueError, match="cut_scale"):
        scale_cut("one-step", {"threshold": 1.0}, 0)
    source = tmp_path / "input.spacy"
    DocBin(docs=toy_instance_docs(spacy.blank("en").vocab), store_user_data=True).to_disk(source)
    runner = CliRunner()
    for scale in ("1.0", "0.5"):
        result = runner.invoke(
            app,
            [
                "fit-inducer",
                str(trained_inducer),
                str(source),
                str(tmp_path / "out.spacy"),
                "--store-centroids",
                str(tmp_path / f"m{scale}"),
                "--save-vectors",
                str(tmp_path / "v.npz"),
                "--cut-scale",
                scale,
            ],
        )
        assert result.exit_code == 0, result.output
    stored = spacy.load(tmp_path / "m0.5").get_pipe("frame_inducer").cluster_info["params"]["two-step"]
    base = spacy.load(tmp_path / "m1.0").get_pipe("frame_inducer").cluster_info["params"]["two-step"]
    assert stored["cut_scale"] == 0.5 and stored["pair_ratio"] == pytest.approx(base["pair_ratio"] / 2)
    with numpy.load(tmp_path / "v.npz") as saved:
        assert saved["vectors"].shape[0] == len(INSTANCES) and list(saved["frames"]) == [row[2] for row in INSTANCES]
    out = tmp_path / "cut.json"
    result = runner.invoke(
        fie.app,
        [
            "packaged-cut",
            str(tmp_path / "m0.5"),
            str(tmp_path / "v.npz"),
            str(source),
            "--scales",
            "0.5,1",
            "--output",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["base_pair_ratio"] == pytest.approx(base["pair_ratio"]) and set(data["scales"]) == {"0.5", "1.0"}
    assert data["n_verb_targets"] == len(INSTANCES) and all(
        0 < data["scales"]["1.0"][a]["bcf"] <= 100 for a in ("nearest", "verb", "verb_sense")
    )
    best = data["best_scale"]
    assert best["assignment"] == "verb" and best["bcf"] == max(
        entry["verb"]["bcf"] for entry in data["scales"].values()
    )
    assert data["scales"][str(best["scale"])]["verb"]["bcf"] == best["bcf"]

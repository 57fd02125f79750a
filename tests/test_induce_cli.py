"""`spacy-frames induce`: embed, cluster, write induced frames, store centroids."""

import pytest
import spacy
from inducer_toy import toy_instance_docs
from spacy.tokens import DocBin
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.recipes.inducer import induce

# training and scoring run the pipeline before any centroids exist
pytestmark = pytest.mark.filterwarnings("ignore:.*has no cluster centroids")


@pytest.fixture(scope="module")
def toy_input(tmp_path_factory):
    path = tmp_path_factory.mktemp("induce") / "input.spacy"
    DocBin(docs=toy_instance_docs(spacy.blank("en").vocab), store_user_data=True).to_disk(path)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("method", ["two-step", "one-step", "faiss"])
def test_induce_writes_frames_and_stores_centroids(trained_inducer, toy_input, tmp_path, method):
    out = tmp_path / "out.spacy"
    stored = tmp_path / "with_centroids"
    result = induce(
        str(trained_inducer),
        toy_input,
        out,
        method=method,
        calibrate_on_input=True,
        store_centroids=stored,
        progress=False,
    )
    assert result["n_targets"] == 16 and result["n_clusters"] >= 1 and result["scores"]["bcf"] > 0
    nlp = spacy.load(stored)
    docs = list(DocBin().from_disk(out).get_docs(nlp.vocab))
    ids = [doc.spans["targets"][0]._.induced_frame for doc in docs]
    assert all(i and i.startswith("F") for i in ids) and len(set(ids)) == result["n_clusters"]
    inducer = nlp.get_pipe("frame_inducer")
    assert inducer.cluster_info["method"] == method and method in inducer.cluster_info["params"]
    # the stored pipeline assigns new targets, and re-clusters with its stored calibration
    doc = nlp(docs[0].copy())
    assert doc.spans["targets"][0]._.induced_frame in set(ids)
    again = induce(str(stored), toy_input, tmp_path / "again.spacy", method=method, progress=False)
    assert again["params"] == pytest.approx(result["params"])


def test_induce_errors(trained_inducer, transformer_dir, toy_input, tmp_path):
    with pytest.raises(ValueError, match="Unknown clustering method"):
        induce(str(trained_inducer), toy_input, tmp_path / "o.spacy", method="k-means")
    with pytest.raises(ValueError, match="has no 'frame_inducer'"):
        induce(str(transformer_dir), toy_input, tmp_path / "o.spacy")
    empty = tmp_path / "empty.spacy"
    nlp = spacy.blank("en")
    DocBin(docs=[nlp("No targets here .")]).to_disk(empty)
    with pytest.raises(ValueError, match="has no targets the frame_inducer handles"):
        induce(str(trained_inducer), empty, tmp_path / "o.spacy", progress=False)
    with pytest.raises(ValueError, match="No calibration for 'two-step'"):
        induce(str(trained_inducer), toy_input, tmp_path / "o.spacy", progress=False)
    with pytest.raises(FileNotFoundError, match="not found"):
        induce(str(trained_inducer), tmp_path / "missing.spacy", tmp_path / "o.spacy")


def test_induce_cli(trained_inducer, toy_input, tmp_path):
    runner = CliRunner()
    out = tmp_path / "out.spacy"
    result = runner.invoke(app, ["induce", str(trained_inducer), str(toy_input), str(out), "--dev", str(toy_input)])
    assert result.exit_code == 0, result.output
    assert out.exists() and '"method": "two-step"' in result.output
    result = runner.invoke(app, ["induce", str(trained_inducer), str(toy_input), str(out), "--method", "bogus"])
    assert result.exit_code == 1 and "Unknown clustering method" in result.output


@pytest.mark.slow
def test_fit_inducer_cli_is_two_step_calibrated_on_its_input(trained_inducer, toy_input, tmp_path):
    """`spacy-frames fit-inducer`: the packaged inducer's centroids, i.e. `induce` two-step,
    calibrated on the input's gold frames, with the cut scaled and the embeddings kept."""
    import numpy

    runner = CliRunner()
    args = [str(trained_inducer), str(toy_input), str(tmp_path / "fit.spacy")]
    result = runner.invoke(
        app,
        [
            "fit-inducer",
            *args,
            "--store-centroids",
            str(tmp_path / "fitted"),
            "--save-vectors",
            str(tmp_path / "v.npz"),
            "--cut-scale",
            "0.5",
        ],
    )
    assert result.exit_code == 0, result.output
    assert '"method": "two-step"' in result.output and '"cut_scale": 0.5' in result.output
    induce(
        str(trained_inducer),
        toy_input,
        tmp_path / "induced.spacy",
        method="two-step",
        calibrate_on_input=True,
        store_centroids=tmp_path / "induced",
        cut_scale=0.5,
        progress=False,
    )
    fitted, induced = (spacy.load(tmp_path / name).get_pipe("frame_inducer") for name in ("fitted", "induced"))
    assert fitted.to_bytes() == induced.to_bytes()
    assert (tmp_path / "fit.spacy").read_bytes() == (tmp_path / "induced.spacy").read_bytes()
    with numpy.load(tmp_path / "v.npz") as saved:
        assert saved["vectors"].shape[0] == 16 and set(saved["lemmas"]) == set(fitted.seen_lemmas)
    # a missing input corpus: an error message, not a traceback
    missing = runner.invoke(
        app, ["fit-inducer", str(trained_inducer), str(tmp_path / "no.spacy"), "o.spacy", "--store-centroids", "m"]
    )
    assert missing.exit_code == 1 and "not found" in missing.output

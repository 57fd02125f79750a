import pytest
import srsly
from spacy.tokens import DocBin
from typer.testing import CliRunner

from spacy_frames.cli import app


@pytest.mark.slow
def test_annotate_and_benchmark(transformer_nlp, tmp_path):
    model = tmp_path / "pipeline"
    transformer_nlp.to_disk(model)
    runner = CliRunner()
    result = runner.invoke(app, ["annotate", str(model), "Prices rose sharply."])
    assert result.exit_code == 0, result.output
    assert "Prices rose sharply." in result.output
    assert "no frame component" in result.output

    corpus = tmp_path / "corpus.spacy"
    DocBin(docs=[transformer_nlp.make_doc("Prices rose sharply because demand grew.")] * 20).to_disk(corpus)
    out = tmp_path / "bench.json"
    result = runner.invoke(
        app,
        [
            "benchmark",
            str(model),
            "--corpus",
            str(corpus),
            "--output",
            str(out),
            "--n-words",
            "100",
            "--without",
            "transformer",
        ],
    )
    assert result.exit_code == 0, result.output
    bench = srsly.read_json(out)
    row, without = bench["results"]
    assert bench["n_threads"] == 2
    assert row["words"] >= 100 and row["words_per_second"] > 0 and row["peak_rss_mib"] > 0
    assert row["pipeline"] == ["transformer"] and row["disabled"] == []
    assert without["pipeline"] == [] and without["disabled"] == ["transformer"] and without["words"] == row["words"]


def test_cli_errors_are_clear(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["annotate", str(tmp_path / "missing-model"), "text"])
    assert result.exit_code == 1
    assert "missing-model" in result.output
    result = runner.invoke(
        app, ["benchmark", "x", "--corpus", str(tmp_path / "none.spacy"), "--output", str(tmp_path / "o.json")]
    )
    assert result.exit_code == 1
    assert "none.spacy' not found" in result.output

"""The settings grid of the product's frame_elements (frames_lab.fe_research.product_grid),
through the study's `tune` command on the product's tiny trained pipeline."""

import pytest
import srsly


@pytest.mark.slow
def test_tune_writes_the_products_settings_grid(trained_fe, toy_fe_corpus, tmp_path):
    from frames_lab.fe_research.cli import app
    from typer.testing import CliRunner

    out = tmp_path / "grid.json"
    args = ["tune", str(trained_fe), "--corpus", str(toy_fe_corpus / "dev.spacy"), "-o", str(out)]
    gaps = ["--ngram-gap", "none", "--ngram-gap", "2", "--ngram-gap", "0"]
    result = CliRunner().invoke(app, [*args, *gaps, "--max-pieces", "1", "--max-pieces", "2"])
    assert result.exit_code == 0, result.output
    grid = srsly.read_json(out)
    rows = grid["grid"]
    assert {r["decoding"] for r in rows} == {"exact", "greedy"} and {r["max_pieces"] for r in rows} == {1, 2}
    by_gap = {r["ngram_gap"]: r for r in rows}
    assert set(by_gap) == {None, 2, 0} and by_gap[0]["candidate_rows"] < by_gap[None]["candidate_rows"]
    # the suggester's recall of the gold FEs (those on their target included: "gift")
    assert by_gap[None]["candidate_recall"] == 100.0 and 0 < by_gap[0]["candidate_recall"] <= 100.0
    assert all(r["fe_os_f"] is not None and r["fe_f"] is not None for r in rows)
    best = [r for r in rows if r["fe_os_f"] == grid["best"]["fe_os_f"]]
    assert grid["best"]["candidate_rows"] == min(r["candidate_rows"] for r in best)
    # the configured setting's row: the shipped gap, exact decoding, one piece, threshold 0
    before = grid["before"]
    assert (before["ngram_gap"], before["decoding"], before["max_pieces"], before["threshold"]) == (0, "exact", 1, 0.0)
    saved = CliRunner().invoke(app, [*args, "--output-model", str(tmp_path / "m")])
    assert saved.exit_code == 1 and "--output-model" in saved.output

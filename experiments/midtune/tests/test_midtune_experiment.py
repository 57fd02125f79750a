"""The midtune study's report: each E1 run beside its base run, the size curve and its plot."""

import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import srsly

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def run_script(name, *args):
    return subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)], capture_output=True, text=True)


@pytest.mark.slow
def test_midtune_experiment_pairs_each_e1_run_with_its_base_run(tmp_path, monkeypatch):
    """The report: an E1 run (tagged mt-<encoder>) beside the base encoder's run of
    the same setting, the deltas computed, a run without its base listed as missing."""
    import midtune_experiment as mte
    import typer
    from frames_lab.runs import write_json

    with pytest.raises(typer.BadParameter, match="form one of"):
        mte.check_name("propbank-triplet")
    with pytest.raises(typer.BadParameter):
        mte.check_name("base", base_ok=False)
    mte.check_name("dependency-classification")
    mte.check_name("frames-triplet")
    # a step count in the name (the size curve): framenet-triplet-1200 trains 1,200 steps
    assert mte.parse_name("framenet-triplet-1200") == ("framenet", "triplet", 1200)
    assert mte.parse_name("framenet-triplet") == ("framenet", "triplet", 0)
    for bad in ("framenet-triplet-0", "framenet-triplet-x", "framenet-triplet-12-3"):
        with pytest.raises(typer.BadParameter, match="<steps>"):
            mte.check_name(bad)
    runs = tmp_path / "runs"
    monkeypatch.setattr(mte, "OUT", tmp_path / "midtune")
    monkeypatch.setitem(mte.COMPONENTS, "discourse", {**mte.COMPONENTS["discourse"], "runs": runs})
    monkeypatch.setitem(mte.COMPONENTS, "inducer", {**mte.COMPONENTS["inducer"], "runs": tmp_path / "none"})
    # no component reads the project's own run folders here
    induction, media = tmp_path / "induction", tmp_path / "media"
    monkeypatch.setitem(mte.COMPONENTS, "inducer-triplet", {**mte.COMPONENTS["inducer-triplet"], "runs": induction})
    monkeypatch.setitem(mte.COMPONENTS, "media", {**mte.COMPONENTS["media"], "runs": media})
    monkeypatch.setitem(mte.COMPONENTS, "frames", {**mte.COMPONENTS["frames"], "runs": tmp_path / "frames"})
    encoder = lambda steps, after: {
        "loss_first": 1.0,
        "loss_last": 0.5,
        "steps": steps,
        "batch_size": 16,
        "examples": 1600,
        "held_out": {"form_accuracy_before": 70.0, "form_accuracy_after": after},
    }
    write_json(tmp_path / "midtune" / "encoders" / "framenet-triplet.json", encoder(100, 80.0))
    score = lambda acc: {"l2": {"acc": acc, "macro_f1": acc / 2}}
    write_json(runs / "packaged-ce_seed0.json", {"gdtb_dev": score(40.0), "gdtb_test": score(42.0)})
    write_json(runs / "packaged-ce@mt-framenet-triplet_seed0.json", {"gdtb_dev": score(41.5), "gdtb_test": score(41.0)})
    write_json(runs / "packaged-ce@mt-framenet-triplet_seed1.json", {"gdtb_dev": score(41.0), "gdtb_test": score(41.0)})
    mte.report_cli(tmp_path / "midtune.json")
    summary = srsly.read_json(tmp_path / "midtune.json")
    (row,) = summary["components"]["framenet-triplet"]["discourse"]
    assert row["base_run"] == "packaged-ce_seed0" and row["scores"]["gdtb_dev.l2.acc"] == {
        "base": 40.0,
        "e1": 41.5,
        "delta": 1.5,
    }
    assert row["scores"]["gdtb_test.l2.macro_f1"]["delta"] == -0.5
    assert summary["missing"] == ["discourse: packaged-ce_seed1 (base encoder)"]
    # a base run re-run today under its own tag (inducer-triplet), nested scores (media),
    # and the frame parser's pair of run files
    bcf = lambda value: {"two-step": {"bcf": value}}
    write_json(induction / "triplet_fold0.json", bcf(10.0))  # older code: not the pair
    write_json(induction / "triplet@mt-base_fold0.json", bcf(50.0))
    write_json(induction / "triplet@mt-framenet-triplet_fold0.json", bcf(52.0))
    write_json(media / "frozen-en@mt-base.json", {"scores": {"test": {"all": {"micro_f1": 0.7}}}})
    write_json(media / "frozen-en@mt-framenet-triplet.json", {"scores": {"test": {"all": {"micro_f1": 0.65}}}})
    frames = lambda overall: {"scores": {"frame_overall": overall, "fe_f_tuned": 55.0}}
    write_json(tmp_path / "frames" / "frames@mt-base.json", frames(88.0))
    write_json(tmp_path / "frames" / "frames@mt-framenet-triplet.json", frames(87.0))
    write_json(tmp_path / "frames" / "frames@mt-framenet-triplet_fe_threshold_dev.json", {"best": {}})  # not a run
    mte.report_cli(tmp_path / "midtune.json")
    rows = srsly.read_json(tmp_path / "midtune.json")["components"]["framenet-triplet"]
    (triplet,) = rows["inducer-triplet"]
    assert triplet["base_run"] == "triplet@mt-base_fold0" and triplet["scores"]["two-step.bcf"]["delta"] == 2.0
    assert rows["media"][0]["scores"]["scores.test.all.micro_f1"] == pytest.approx(
        {"base": 0.7, "e1": 0.65, "delta": -0.05}
    )
    (frames_row,) = rows["frames"]
    assert frames_row["base_run"] == "frames@mt-base" and frames_row["scores"]["scores.frame_overall"]["delta"] == -1.0
    assert frames_row["scores"]["scores.fe_f_tuned"]["delta"] == 0.0
    # two seeds paired: their means and the base seeds' spread
    write_json(runs / "packaged-ce_seed1.json", {"gdtb_dev": score(43.0), "gdtb_test": score(41.0)})
    mte.report_cli(tmp_path / "midtune.json")
    means = srsly.read_json(tmp_path / "midtune.json")["means"]["framenet-triplet"]["discourse"]
    assert means["gdtb_dev.l2.acc"] == {"base": 41.5, "e1": 41.25, "delta": -0.25, "base_range": 3.0, "runs": 2}
    # the size curve: one family, its encoders by the sentences they saw, E1 and base per measure
    write_json(tmp_path / "midtune" / "encoders" / "framenet-triplet-300.json", encoder(300, 90.0))
    mte.report_cli(tmp_path / "midtune.json")
    (small, large) = srsly.read_json(tmp_path / "midtune.json")["curve"]["framenet-triplet"]
    assert (small["encoder"], small["sentences_seen"], small["epochs"]) == ("framenet-triplet", 1600, 1.0)
    assert (large["encoder"], large["sentences_seen"], large["epochs"]) == ("framenet-triplet-300", 4800, 3.0)
    assert small["e1"]["held-out form accuracy"] == 80.0 and large["base"]["held-out form accuracy"] == 70.0
    assert small["e1"]["discourse GDTB dev L2 acc"] == 41.25 and small["runs"]["discourse GDTB dev L2 acc"] == 2
    assert "discourse GDTB dev L2 acc" not in large["e1"]  # no runs on it
    # media seeds pair by their suffix; a longer-trained encoder's runs stay its own
    write_json(media / "frozen-en@mt-base_seed1.json", {"scores": {"test": {"all": {"micro_f1": 0.72}}}})
    write_json(media / "frozen-en@mt-framenet-triplet_seed1.json", {"scores": {"test": {"all": {"micro_f1": 0.69}}}})
    write_json(media / "frozen-en@mt-framenet-triplet-300.json", {"scores": {"test": {"all": {"micro_f1": 0.5}}}})
    mte.report_cli(tmp_path / "midtune.json")
    report = srsly.read_json(tmp_path / "midtune.json")
    assert [r["e1_run"] for r in report["components"]["framenet-triplet"]["media"]] == [
        "frozen-en@mt-framenet-triplet",
        "frozen-en@mt-framenet-triplet_seed1",
    ]
    assert report["means"]["framenet-triplet"]["media"]["scores.test.all.micro_f1"]["e1"] == 0.67
    assert report["components"]["framenet-triplet-300"]["media"][0]["base_run"] == "frozen-en@mt-base"
    png = tmp_path / "curve.png"
    result = run_script("plot_midtune_curve.py", tmp_path / "midtune.json", png)
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    empty = tmp_path / "empty.json"
    write_json(empty, {"encoders": {}})
    missing = run_script("plot_midtune_curve.py", empty, tmp_path / "none.png")
    assert missing.returncode == 1 and "no curve" in missing.stderr and not (tmp_path / "none.png").exists()
    # nearest neighbours by cosine, never the sentence itself
    vectors = numpy.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    assert list(mte.nearest(vectors)) == [1, 0, 1]

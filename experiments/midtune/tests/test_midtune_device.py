"""scripts/midtune_device.py: mid-tuning where torch runs but spaCy does not. Its torch
objective equals the registered thinc losses, its loop is spacy_frames' own (loaded without
spaCy), and the int8 deltas it returns rebuild E1 to within half a quantisation step."""

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import midtune_device
import numpy
import pytest

from spacy_frames.losses.midtune import MidtunePairLoss, MidtuneTripletLoss
from spacy_frames.midtune.train import thinc_loss_step

STUDY = Path(__file__).resolve().parents[1]

EXAMPLES = [
    (
        "She gave him a book .",
        "[FRAME] Giving [LU] give.v [Donor] She",
        ["[FRAME] Giving [LU] give.v", "[FRAME] Buying"],
    ),
    ("They bought a car .", "[FRAME] Commerce_buy [LU] buy.v [Buyer] They", ["[FRAME] Commerce_buy [LU] buy.v"]),
    ("We walked home .", "[FRAME] Self_motion [LU] walk.v [Self_mover] We", ["[FRAME] Giving [LU] give.v [Donor] She"]),
    ("He raised his hand .", "[FRAME] Body_movement [LU] raise.v [Agent] He", ["[FRAME] Body_movement [LU] raise.v"]),
]


def _grads(make, seed=0):
    import torch

    torch.manual_seed(seed)
    step, params = make(6, "cpu")
    torch.manual_seed(1)
    u, v_pos, v_neg = (torch.randn(5, 6, requires_grad=True) for _ in range(3))
    value = step(u * 1.0, v_pos * 1.0, v_neg * 1.0)
    return value, [t.grad.numpy().copy() for t in (u, v_pos, v_neg)] + [p.grad.numpy().copy() for p in params]


@pytest.mark.parametrize(
    "objective,loss", [("triplet", MidtuneTripletLoss(margin=1.0)), ("classification", MidtunePairLoss())]
)
def test_the_torch_objective_equals_the_registered_loss(objective, loss):
    value, grads = _grads(midtune_device.torch_loss_step(objective, margin=1.0))
    ref_value, ref_grads = _grads(thinc_loss_step(loss, objective))
    assert value == pytest.approx(ref_value, rel=1e-5) and value > 0
    assert len(grads) == len(ref_grads) == (3 if objective == "triplet" else 5)
    for got, want in zip(grads, ref_grads):
        numpy.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_deltas_rebuild_the_weights_to_half_a_step():
    rng = numpy.random.default_rng(0)
    base = {
        "w": rng.normal(size=(4, 3)).astype("float32"),
        "b": rng.normal(size=3).astype("float32"),
        "same": numpy.ones(2, dtype="float32"),
    }
    trained = {
        "w": base["w"] + rng.normal(scale=1e-3, size=(4, 3)).astype("float32"),
        "b": base["b"] + 0.5,
        "same": base["same"].copy(),
    }
    packed = midtune_device.quantize_delta(trained, base)
    assert packed["w::q"].dtype == numpy.int8 and packed["w::scale"].shape == (4, 1)
    rebuilt = midtune_device.dequantize_into(base, packed)
    step = numpy.abs(trained["w"] - base["w"]).max(axis=1, keepdims=True) / 127
    assert (numpy.abs(rebuilt["w"] - trained["w"]) <= step / 2 + 1e-7).all()
    numpy.testing.assert_allclose(rebuilt["b"], trained["b"], atol=1e-6)
    numpy.testing.assert_array_equal(rebuilt["same"], base["same"])
    with pytest.raises(ValueError, match="no parameter 'extra'"):
        midtune_device.dequantize_into({**base, "extra": numpy.zeros(1, dtype="float32")}, packed)


def _pack(tiny_bert, out: Path) -> Path:
    out.mkdir()
    shutil.copytree(tiny_bert, out / "base")
    settings = {
        "form": "framenet",
        "objective": "triplet",
        "seed": 0,
        "max_steps": 12,
        "batch_size": 2,
        "learning_rate": 1e-3,
        "max_length": 32,
        "held_out": 2,
        "margin": 1.0,
    }
    (out / "settings.json").write_text(json.dumps({"framenet-triplet-12": settings}))
    with gzip.open(out / "examples_framenet_seed0_held2.json.gz", "wt", encoding="utf8") as file:
        json.dump({"examples": EXAMPLES, "held": EXAMPLES[:2], "sentences": 4, "held_sentences": 2}, file)
    return out


@pytest.mark.slow
def test_train_there_without_spacy_then_unpack_here(tiny_bert, tmp_path):
    pack = _pack(tiny_bert, tmp_path / "pack")
    # the device has no spaCy or thinc: block both, then train with the script's own code
    code = (
        "import sys; sys.modules['spacy'] = None; sys.modules['thinc'] = None; sys.modules['spacy_frames'] = None\n"
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('midtune_device', {str(STUDY / 'scripts' / 'midtune_device.py')!r})\n"
        "midtune_device = importlib.util.module_from_spec(spec); spec.loader.exec_module(midtune_device)\n"
        f"midtune_device.train_cli(['framenet-triplet-12'], pack=midtune_device.Path({str(pack)!r}), "
        f"out=midtune_device.Path({str(tmp_path / 'out')!r}), cache=midtune_device.Path({str(tmp_path / 'cache')!r}), "
        "give='', device='cpu', max_steps=0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=STUDY)
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads((tmp_path / "out" / "summaries.json").read_text())["framenet-triplet-12"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "framenet-triplet-12.embeddings.npz",
        "framenet-triplet-12.layers.npz",
        "summaries.json",
    ]
    assert summary["steps"] == 12 and summary["epochs"] == 6.0 and summary["device"] == "cpu"
    assert summary["weights_moved"]["E1"] > 0 and len(summary["losses"]) == 12
    assert summary["held_out"]["sentences"] == 2 and summary["held_out"]["examples"] == 2

    from typer.testing import CliRunner

    args = [
        "unpack",
        "framenet-triplet-12",
        "--src",
        str(tmp_path / "out"),
        "--base",
        str(tiny_bert),
        "--work",
        str(tmp_path / "work"),
        "--metrics",
        str(tmp_path / "metrics"),
    ]
    unpacked = CliRunner().invoke(midtune_device.app, args)
    assert unpacked.exit_code == 0, unpacked.output
    written = json.loads((tmp_path / "metrics" / "framenet-triplet-12.json").read_text())
    assert "losses" not in written and "int8" in written["weights"]
    assert list(json.loads((tmp_path / "device_runs.json").read_text())) == ["framenet-triplet-12"]
    assert len(json.loads((tmp_path / "work" / "framenet-triplet-12" / "losses.json").read_text())) == 12

    # the rebuilt E1 moved from the base by what training moved it, up to the rounding
    from transformers import AutoModel

    base = AutoModel.from_pretrained(str(tiny_bert))
    rebuilt = AutoModel.from_pretrained(str(tmp_path / "work" / "framenet-triplet-12" / "encoder"))
    moved = numpy.sqrt(
        sum(float(((p - q) ** 2).sum().detach()) for p, q in zip(rebuilt.parameters(), base.parameters()))
    )
    assert moved == pytest.approx(summary["weights_moved"]["E1"], rel=0.02)
    # a second run finds the cached result and only copies it
    again = subprocess.run(
        [sys.executable, "-c", code.replace("give=''", "give='none'")], capture_output=True, text=True, cwd=STUDY
    )
    assert again.returncode == 0 and "step" not in again.stdout

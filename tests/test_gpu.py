"""en_frames_trf on a CUDA GPU (`spacy.require_gpu()`, `--gpu-id 0`): the same annotations
as on the CPU, and every component's training config trains there. Skipped without a GPU
(cupy and a CUDA device)."""

import math

import pytest
import spacy
import srsly
from thinc.api import require_cpu


def has_cuda_gpu() -> bool:
    try:
        import cupy  # the GPU ops of thinc; absent on CPU-only installs

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not has_cuda_gpu(), reason="needs a CUDA GPU and cupy"),
    pytest.mark.filterwarnings("ignore:.*has no cluster centroids"),
]

TEXTS = [
    "The committee decided to postpone the vote after protesters blocked the entrance.",
    "Prices rose sharply. So demand outpaced the supply of grain. Then they boarded the train to Berlin.",
    "The president resigned.",
    "",
]


def annotations(doc) -> dict:
    """What a user reads of a doc: decisions exactly, scores apart (compared with a tolerance)."""
    frames = [
        {
            "span": (f.start, f.end, f.label_),
            "lu": f._.lexical_unit,
            "induced": f._.induced_frame,
            "fes": [(fe.start, fe.end, fe.label_) for fe in f._.frame_elements],
        }
        for f in doc._.frames
    ]
    relations = [(r["arg1"], r["arg2"], r["sense"]) for r in doc._.discourse_relations]
    scores = [score for f in doc._.frames for _, score in (f._.frame_ranking or [])[:3]]
    scores += [r["score"] for r in doc._.discourse_relations] + list(doc.cats.values())
    return {
        "frames": frames,
        "relations": relations,
        "media": doc._.media_frames,
        "cats": list(doc.cats),
        "scores": scores,
    }


def assert_same(cpu: dict, gpu: dict) -> None:
    assert {k: v for k, v in gpu.items() if k != "scores"} == {k: v for k, v in cpu.items() if k != "scores"}
    assert gpu["scores"] == pytest.approx(cpu["scores"], abs=1e-3)


def test_en_frames_trf_annotates_on_gpu_as_on_cpu(tiny_frames_trf, record_testsuite_property):
    import cupy
    import thinc
    import torch
    import transformers

    # where it ran, in the JUnit report (`spacy project run test-gpu`)
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    record_testsuite_property("device", name.decode() if isinstance(name, bytes) else name)
    for module in (torch, cupy, spacy, thinc, transformers):
        record_testsuite_property(module.__name__, module.__version__)
    require_cpu()
    cpu_nlp = spacy.load(tiny_frames_trf)
    cpu = [annotations(doc) for doc in cpu_nlp.pipe(TEXTS)]
    try:
        spacy.require_gpu(0)
        gpu_nlp = spacy.load(tiny_frames_trf)
        transformer = gpu_nlp.get_pipe("transformer").model
        assert type(transformer.ops).__name__ == "CupyOps"
        for text, expected in zip(TEXTS, cpu):
            assert_same(expected, annotations(gpu_nlp(text)))
        # batched, and a document longer than the transformer's window
        for expected, doc in zip(cpu, gpu_nlp.pipe(TEXTS, batch_size=2)):
            assert_same(expected, annotations(doc))
        long_text = " ".join(TEXTS[:3] * 40)
        assert_same(annotations(cpu_nlp(long_text)), annotations(gpu_nlp(long_text)))
    finally:
        require_cpu()


@pytest.mark.parametrize(
    "fixture", ["trained_frames", "trained_fe", "trained_inducer_head", "trained_discourse_head", "trained_media"]
)
def test_component_trains_on_gpu(fixture, request, tmp_path):
    """The component's own training config (the one its CPU fixture trained with), a few
    steps with `spacy train --gpu-id 0`: finite losses, finite dev scores."""
    trained = request.getfixturevalue(fixture)
    train_on_gpu(spacy.util.load_config(trained.parent / "config.cfg", interpolate=False), tmp_path)


def test_joint_stage2_trains_on_gpu(tiny_bert, toy_fe_corpus, trained_frames, tmp_path):
    """configs/test/frames_stage2_fe.cfg: frame_identifier's stage 2 (its candidate frames
    re-encoded by the definition encoder) and frame_elements on one transformer."""
    from conftest import fe_config

    train_on_gpu(fe_config(tiny_bert, trained_frames, toy_fe_corpus), tmp_path)


def train_on_gpu(config, tmp_path) -> None:
    from spacy.cli.train import train

    log = tmp_path / "log.jsonl"
    config["training"]["logger"] = {
        "@loggers": "spacy.ConsoleLogger.v2",
        "progress_bar": False,
        "output_file": str(log),
    }
    config.to_disk(tmp_path / "config.cfg")
    try:
        overrides = {"training.max_steps": 6, "training.eval_frequency": 3}
        train(tmp_path / "config.cfg", tmp_path / "model", overrides=overrides, use_gpu=0)
    finally:
        require_cpu()
    rows = [row for row in srsly.read_jsonl(log) if row.get("losses")]
    assert rows, "no training step was logged"
    losses = [value for row in rows for value in row["losses"].values()]
    assert all(math.isfinite(value) for value in losses) and any(value > 0 for value in losses)
    performance = srsly.read_json(tmp_path / "model" / "model-last" / "meta.json")["performance"]
    assert performance and all(value is None or math.isfinite(value) for value in _numbers(performance))
    # trained on the GPU, it loads on the CPU: every layer computes with numpy there
    nlp = spacy.load(tmp_path / "model" / "model-last")
    models = [pipe.model for _, pipe in nlp.pipeline if getattr(pipe, "model", None) is not None]
    assert models and all(type(node.ops).__name__ == "NumpyOps" for model in models for node in model.walk())
    assert len(nlp("The committee decided to postpone the vote.")) == 8


def _numbers(tree):
    if isinstance(tree, dict):
        for value in tree.values():
            yield from _numbers(value)
    elif isinstance(tree, (int, float)) or tree is None:
        yield tree

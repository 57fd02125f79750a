"""Mid-tune encoders on a GPU machine that has torch but no spaCy (larger runs).

    python scripts/midtune_device.py pack framenet-triplet-1200 dependency-triplet   # here
    python3 scripts/midtune_device.py train --pack .device_midtune --out OUT NAME...  # there
    python scripts/midtune_device.py unpack --src OUT NAME...                         # here

`pack` writes what the run needs and nothing it can compute: each form's training and
held-out examples exactly as `spacy_frames.midtune.train` builds them from the cached parses
(same seeds, same negatives), each name's settings (configs/midtune.cfg with the name's form,
objective and steps), and the base encoder stored as float16 (it trains in float32).
`train` runs the very loop of `spacy-frames midtune` (spacy_frames/midtune/loop.py, loaded
by path) with the objective written in torch autograd (`torch_loss_step`, tested equal to
the registered thinc losses), and returns each E1 as int8 per-row deltas from the base,
compressed in two files (word embeddings, the rest: about 19 MiB an encoder instead of 87),
every run's summary and losses in summaries.json. `unpack` adds them to the float32 base
encoder, saves training/midtune/<name>/encoder and writes
metrics/midtune/encoders/<name>.json, marked with the device it trained on.

Anyone with a GPU and the project installed gets the same run from
`python scripts/midtune_experiment.py encoder NAME --gpu-id 0`.
"""

import gzip
import importlib.util
import json
import shutil
from pathlib import Path
from typing import Dict, List, Optional

import numpy
import typer

STUDY = Path(__file__).resolve().parents[1]  # experiments/midtune
ROOT = STUDY.parents[1]  # the product: spacy_frames and the base encoder
PACK = STUDY / ".device_midtune"
# the files of an encoder directory that travel besides the weights
ENCODER_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")

app = typer.Typer(help=__doc__.split("\n")[0], no_args_is_help=True, add_completion=False)


def load_loop():
    """spacy_frames/midtune/loop.py as a module of its own (no spacy_frames package import)."""
    spec = importlib.util.spec_from_file_location("midtune_loop", ROOT / "spacy_frames" / "midtune" / "loop.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torch_loss_step(objective: str, margin: float = 1.0):
    """The loop's loss step in torch autograd: MidtuneTripletLoss's Euclidean triplet
    (distances sqrt(squared + 1e-12)) or MidtunePairLoss's cross-entropy over the linear head
    on (u, v, |u - v|, u * v) of (sentence, form) and (sentence, negative) pairs."""
    import torch

    loop = load_loop()

    def make(width: int, device: str):
        head = loop.pair_head(width, device) if objective == "classification" else None

        def step(u, v_pos, v_neg) -> float:
            if head is None:
                d_pos = torch.sqrt(((u - v_pos) ** 2).sum(1) + 1e-12)
                d_neg = torch.sqrt(((u - v_neg) ** 2).sum(1) + 1e-12)
                loss = torch.relu(d_pos - d_neg + margin).mean()
            else:
                logits = loop.pair_logits(head, u, v_pos, v_neg)
                labels = torch.tensor([1] * len(u) + [0] * len(u), device=logits.device)
                loss = torch.nn.functional.cross_entropy(logits, labels)
            loss.backward()
            return float(loss.detach())

        return step, (list(head.parameters()) if head is not None else [])

    return make


def quantize_delta(trained: Dict[str, numpy.ndarray], base: Dict[str, numpy.ndarray]) -> Dict[str, numpy.ndarray]:
    """trained - base per parameter as int8 rows with one float32 scale per row (the row's
    largest absolute change / 127): the rounding error is at most half a step of its row."""
    out = {}
    for name, value in trained.items():
        delta = (value.astype("float32") - base[name].astype("float32")).reshape(
            value.shape[0] if value.ndim > 1 else 1, -1
        )
        scale = numpy.abs(delta).max(axis=1, keepdims=True) / 127.0
        scale[scale == 0] = 1.0
        out[f"{name}::q"] = numpy.round(delta / scale).astype("int8")
        out[f"{name}::scale"] = scale.astype("float32")
    return out


PARTS = ("embeddings", "layers")


def split_parts(packed: Dict[str, numpy.ndarray]) -> Dict[str, List[str]]:
    """The packed keys in two parts: the word embeddings (half of MiniLM), everything else."""
    emb = [k for k in packed if k.startswith("embeddings.word_embeddings.")]
    return {"embeddings": emb, "layers": [k for k in packed if k not in emb]}


def dequantize_into(base: Dict[str, numpy.ndarray], packed) -> Dict[str, numpy.ndarray]:
    """base + the deltas of `quantize_delta`, every parameter of `base` required."""
    out = {}
    for name, value in base.items():
        if f"{name}::q" not in packed:
            raise ValueError(f"the packed deltas have no parameter {name!r}: trained on another architecture?")
        delta = packed[f"{name}::q"].astype("float32") * packed[f"{name}::scale"]
        out[name] = (value.astype("float32") + delta.reshape(value.shape)).astype(value.dtype)
    return out


@app.command("pack")
def pack_cli(
    names: List[str] = typer.Argument(..., help="Encoders to train there, <form>-<objective>[-<steps>]"),
    out: Path = typer.Option(PACK, "--out"),
):
    """Here: each form's examples, each name's settings and the float16 base encoder."""
    import spacy
    from midtune_experiment import BASE_ENCODER, PARSES, midtune_config
    from safetensors.numpy import load_file, save_file
    from spacy.tokens import DocBin

    from spacy_frames.extensions import install_extensions
    from spacy_frames.midtune.train import split_examples

    out.mkdir(parents=True, exist_ok=True)
    settings = {}
    for name in names:
        config, resolved = midtune_config(name)
        entry = {k: v for k, v in config["midtune"].items() if k != "loss"}
        entry["margin"] = float(getattr(resolved["midtune"]["loss"], "margin", 0.0))
        settings[name] = entry
    install_extensions()
    docs = list(DocBin().from_disk(PARSES).get_docs(spacy.blank("en").vocab))
    for form, seed, n_held in sorted({(s["form"], int(s["seed"]), int(s["held_out"])) for s in settings.values()}):
        examples, held, n_train = split_examples(docs, form, seed, n_held)
        with gzip.open(out / f"examples_{form}_seed{seed}_held{n_held}.json.gz", "wt", encoding="utf8") as file:
            json.dump({"examples": examples, "held": held, "sentences": n_train, "held_sentences": n_held}, file)
        typer.echo(f"{form}: {len(examples)} examples, {len(held)} held out")
    (out / "settings.json").write_text(json.dumps(settings, indent=2))
    base_dir = out / "base"
    base_dir.mkdir(exist_ok=True)
    weights = load_file(str(ROOT / BASE_ENCODER / "model.safetensors"))
    save_file(
        {k: v.astype("float16") if v.dtype == numpy.float32 else v for k, v in weights.items()},
        str(base_dir / "model.safetensors"),
    )
    for file in ENCODER_FILES:
        shutil.copy(ROOT / BASE_ENCODER / file, base_dir / file)


def model_arrays(model) -> Dict[str, numpy.ndarray]:
    return {name: p.detach().float().cpu().numpy() for name, p in model.named_parameters()}


@app.command("train")
def train_cli(
    names: List[str] = typer.Argument(...),
    pack: Path = typer.Option(PACK, "--pack"),
    out: Path = typer.Option(..., "--out", help="Where the deltas and summaries of --give go"),
    cache: Path = typer.Option(Path("/tmp/midtune_device"), "--cache", help="Every run's deltas and summary, kept"),
    give: str = typer.Option("", "--give", help="Comma-separated names copied to --out (default: all)"),
    device: str = typer.Option("cuda", "--device"),
    max_steps: int = typer.Option(0, "--max-steps", help="A smoke run's steps (0: the name's); not cached"),
):
    """There: train each name (skipped when --cache has it), copy the deltas and summary of
    those in --give to --out, and every summary so far to --out/summaries.json."""
    import torch

    loop = load_loop()
    settings = json.loads((pack / "settings.json").read_text())
    cache.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    gives = set(give.split(",")) if give else set(names)
    base = None
    if max_steps:
        cache = cache / "smoke"
        cache.mkdir(parents=True, exist_ok=True)
    for name in names:
        if not (cache / f"{name}.json").exists():
            s = dict(settings[name], **({"max_steps": max_steps} if max_steps else {}))
            with gzip.open(
                pack / f"examples_{s['form']}_seed{s['seed']}_held{s['held_out']}.json.gz", "rt", encoding="utf8"
            ) as file:
                data = json.load(file)
            examples = [(a, b, list(c)) for a, b, c in data["examples"]]
            held = [(a, b, list(c)) for a, b, c in data["held"]]
            e1, _, losses, measured = loop.train_pair_encoders(
                examples,
                held,
                str(pack / "base"),
                s,
                torch_loss_step(s["objective"], s["margin"]),
                device,
                log=lambda line, name=name: print(f"[{name}] {line}", flush=True),
            )
            if base is None:
                base = model_arrays(loop.Encoder(str(pack / "base"), 8, "cpu").model)
            packed = quantize_delta(model_arrays(e1.model), base)
            # two files, each under the 16 MiB a returned file may hold: the word embeddings, the rest
            for part, keys in split_parts(packed).items():
                numpy.savez_compressed(cache / f"{name}.{part}.npz", **{k: packed[k] for k in keys})
            summary = {
                "form": s["form"],
                "objective": s["objective"],
                "seed": s["seed"],
                "steps": s["max_steps"],
                "batch_size": s["batch_size"],
                "sentences": data["sentences"],
                "examples": len(examples),
                "negatives_per_example": 1,
                **measured,
                "device": torch.cuda.get_device_name() if device.startswith("cuda") else device,
                "torch": torch.__version__,
                "config": {k: v for k, v in s.items() if k != "margin"},
                "losses": losses,
            }
            summary["held_out"] = {"sentences": data["held_sentences"], **measured["held_out"]}
            (cache / f"{name}.json").write_text(json.dumps(summary))
            del e1
            torch.cuda.empty_cache() if device.startswith("cuda") else None
        if name in gives:
            for part in PARTS:
                shutil.copy(cache / f"{name}.{part}.npz", out / f"{name}.{part}.npz")
        done = {n: json.loads((cache / f"{n}.json").read_text()) for n in names if (cache / f"{n}.json").exists()}
        (out / "summaries.json").write_text(json.dumps(done, indent=1))


@app.command("unpack")
def unpack_cli(
    names: List[str] = typer.Argument(...),
    src: Path = typer.Option(..., "--src", help="The folder `train --out` filled"),
    base_encoder: Optional[Path] = typer.Option(
        None, "--base", help="The float32 base encoder (default: the project's)"
    ),
    work: Optional[Path] = typer.Option(None, "--work", help="Where <name>/encoder goes (default: training/midtune)"),
    metrics: Optional[Path] = typer.Option(
        None, "--metrics", help="Where <name>.json goes (default: metrics/midtune/encoders)"
    ),
):
    """Here: E1 = base + deltas saved as training/midtune/<name>/encoder, its summary in
    metrics/midtune/encoders/<name>.json (losses in training/midtune/<name>/losses.json); the
    summaries of every run in summaries.json in metrics/midtune/device_runs.json."""
    import torch
    from frames_lab.runs import write_json
    from midtune_experiment import BASE_ENCODER, OUT, WORK
    from transformers import AutoModel, AutoTokenizer

    base_encoder = base_encoder or ROOT / BASE_ENCODER
    work, metrics = work or WORK, metrics or OUT / "encoders"
    summaries = json.loads((src / "summaries.json").read_text())
    # every run the device made, returned or not (a rerun of a CPU run checks the loop there)
    runs = metrics.parent / "device_runs.json"
    recorded = json.loads(runs.read_text()) if runs.exists() else {}
    recorded.update({n: {k: v for k, v in s.items() if k != "losses"} for n, s in summaries.items()})
    write_json(runs, recorded)
    for name in names:
        if name not in summaries:
            raise typer.BadParameter(f"{src / 'summaries.json'} has no run {name!r} (runs: {sorted(summaries)})")
        summary = summaries[name]
        model = AutoModel.from_pretrained(str(base_encoder))
        base = {k: p.detach().numpy() for k, p in model.named_parameters()}
        packed = {}
        for part in PARTS:
            with numpy.load(src / f"{name}.{part}.npz") as file:
                packed.update({k: file[k] for k in file.files})
        weights = dequantize_into(base, packed)
        with torch.no_grad():
            for key, param in model.named_parameters():
                param.copy_(torch.from_numpy(weights[key]))
        target = work / name / "encoder"
        target.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(target)
        AutoTokenizer.from_pretrained(str(base_encoder)).save_pretrained(target)
        (work / name / "losses.json").write_text(json.dumps([round(x, 5) for x in summary.pop("losses")]))
        summary["encoder"] = str(target.relative_to(ROOT)) if target.is_relative_to(ROOT) else str(target)
        summary["weights"] = (
            "trained on the device named, returned as int8 per-row deltas from the float16-stored base (scripts/midtune_device.py)"
        )
        write_json(metrics / f"{name}.json", summary)
        typer.echo(f"{name}: {target}")


if __name__ == "__main__":
    app()

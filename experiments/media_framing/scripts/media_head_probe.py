"""Why media_framer's USE head trails logistic regression leave-one-language-out: the head
re-implemented in torch over the cached USE article vectors (no spaCy, no contrastive
term), beside one-vs-rest logistic regression, on the same articles.

    python scripts/media_head_probe.py metrics/media_framer/head_probe.json

For each held-out language: train on the other four languages' train splits, test on every
labelled article of the held-out one, one threshold 0.3 for all frames (BASELINES.md's
protocol, `media_baselines.lolo_scores`; nothing tuned). Systems: logistic regression
(C = 4, the floor: `use_lr_train_splits` of baselines.json); the head
(projection 256 -> ReLU 256 -> dropout 0.5 -> 14, AdamW 1e-3, weight decay 0.01, warm-up
30 steps, batches of 16, as configs/media_use.cfg) at 300 / 1,000 steps; the same without
dropout; a linear layer (AdamW 1e-2) at 300 / 1,000 steps. The USE vectors are the
baselines' cache (training/media_baselines_cache), embedded where missing.
"""

from pathlib import Path
from typing import Callable, Dict

import media_baselines as mb
import numpy
import typer

STUDY = Path(__file__).resolve().parents[1]  # experiments/media_framing
ROOT = STUDY.parents[1]  # the product: its corpora

BATCH = 16


def train_torch(model, X: numpy.ndarray, y: numpy.ndarray, steps: int, lr: float, weight_decay: float, seed: int = 0):
    import torch

    torch.manual_seed(seed)
    rng = numpy.random.default_rng(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    warmup = 30
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda t: min((t + 1) / warmup, max(0.0, (steps - t) / (steps - warmup)))
    )
    Xt, yt = torch.tensor(X, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)
    order: list = []
    for _ in range(steps):
        if len(order) < BATCH:  # epochs of shuffled articles
            order += list(rng.permutation(len(X)))
        idx, order = order[:BATCH], order[BATCH:]
        model.train()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(Xt[idx]), yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    model.eval()

    def predict(Z: numpy.ndarray) -> numpy.ndarray:
        with torch.no_grad():
            return torch.sigmoid(model(torch.tensor(Z, dtype=torch.float32))).numpy()

    return predict


def systems(seed: int = 0) -> Dict[str, Callable]:
    import torch
    from torch import nn

    def head(dropout: float):
        torch.manual_seed(seed)
        return nn.Sequential(
            nn.Linear(512, 256), nn.Linear(256, 256), nn.ReLU(), nn.Dropout(dropout), nn.Linear(256, 14)
        )

    def linear():
        torch.manual_seed(seed)
        return nn.Linear(512, 14)

    out = {"logistic_regression": mb.lolo_lr_fit}
    for steps in (300, 1000):
        out[f"head_{steps}"] = lambda X, y, s=steps: train_torch(head(0.5), X, y, s, 1e-3, 0.01)
        out[f"head_no_dropout_{steps}"] = lambda X, y, s=steps: train_torch(head(0.0), X, y, s, 1e-3, 0.01)
        out[f"linear_{steps}"] = lambda X, y, s=steps: train_torch(linear(), X, y, s, 1e-2, 0.0)
    return out


def main(
    output: Path = typer.Argument(STUDY / "metrics" / "media_framer" / "head_probe.json"),
    corpus: Path = typer.Option(ROOT / "corpus" / "media_frames", "--corpus"),
):
    import torch
    from frames_lab.runs import write_json

    from spacy_frames.corpora.media_frames import LANGUAGES

    torch.set_num_threads(1)
    use: Dict[str, Callable] = {}  # loaded only if a split is not cached yet

    def embed(texts, desc):
        if "use" not in use:
            use["use"] = mb.use_embedder()
        return use["use"](texts, desc)

    splits = {(lang, s): mb.load_split(corpus, lang, s) for lang in LANGUAGES for s in ("train", "dev", "test")}
    vectors = {key: mb.cached("use-v3", split, embed) for key, split in splits.items()}
    gold = {key: split.gold for key, split in splits.items()}
    result: Dict[str, Dict] = {}
    for name, fit in systems().items():
        per_lang = {held: mb.lolo_scores(vectors, gold, held, ("train",), fit)["micro_f1"] for held in LANGUAGES}
        per_lang["mean"] = round(float(numpy.mean([per_lang[l] for l in LANGUAGES])), 4)
        result[name] = per_lang
        typer.echo(f"{name}: {per_lang}")
    write_json(
        output,
        {
            "protocol": "train: the other four languages' train splits; test: every labelled article of the held-out one; "
            f"micro-F1 at one threshold {mb.LOLO_THRESHOLD}; USE v3 vectors",
            "micro_f1": result,
        },
    )


if __name__ == "__main__":
    typer.run(main)

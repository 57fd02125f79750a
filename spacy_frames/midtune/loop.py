"""The mid-tuning loop itself: two encoders (E1 for sentences, E2 for forms), mean pooled,
stepped by AdamW on a loss whose gradient comes in as a `LossStep`.

This module imports torch, transformers and numpy only (lazily), never spaCy, thinc or
another spacy_frames module: the same loop runs inside `spacy_frames.midtune.train`
(with the registered thinc losses) and on a machine that has torch but no spaCy
(scripts/midtune_device.py, which loads this file by path).
"""

import random
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy

Example = Tuple[str, str, List[str]]  # (sentence, its form, negative forms)
# LossStep(u, v_pos, v_neg) -> loss value, after calling backward on the graph; built by a
# MakeLossStep(width, device) that also returns the extra parameters it trains (a head)
LossStep = Callable[..., float]
MakeLossStep = Callable[[int, str], Tuple[LossStep, list]]


class Encoder:
    """A Hugging Face encoder with mean pooling over the attention mask, in float32 on `device`."""

    def __init__(self, path: str, max_length: int, device: str = "cpu"):
        from transformers import AutoModel, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(path)
        # float32 whatever the stored dtype (an encoder stored as float16 trains in float32)
        self.model = AutoModel.from_pretrained(path).float().to(device)
        self.max_length = max_length
        self.device = device

    def __call__(self, texts: Sequence[str]):
        batch = self.tokenizer(
            list(texts), padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        )
        batch = {key: value.to(self.device) for key, value in batch.items()}
        hidden = self.model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)

    def weights(self) -> numpy.ndarray:
        return numpy.concatenate([p.detach().reshape(-1).cpu().numpy().copy() for p in self.model.parameters()])


def form_accuracy(e1: Encoder, e2: Encoder, examples: List[Example], batch_size: int = 64) -> Optional[float]:
    """Share of `examples` whose sentence vector (E1) is nearer its own form's (E2) than
    its first negative's, in Euclidean distance (None without examples)."""
    import torch

    if not examples:
        return None
    hits = 0
    modes = (e1.model.training, e2.model.training)
    e1.model.eval()
    e2.model.eval()
    with torch.no_grad():
        for start in range(0, len(examples), batch_size):
            batch = examples[start : start + batch_size]
            u = e1([s for s, _, _ in batch])
            d_pos = (u - e2([p for _, p, _ in batch])).norm(dim=1)
            d_neg = (u - e2([n[0] for _, _, n in batch])).norm(dim=1)
            hits += int((d_pos < d_neg).sum())
    e1.model.train(modes[0])
    e2.model.train(modes[1])
    return round(100.0 * hits / len(examples), 2)


def pair_head(width: int, device: str):
    """The classification objective's linear head over SBERT's pair features (u, v, |u - v|, u * v)."""
    import torch

    return torch.nn.Linear(4 * width, 2).to(device)


def pair_logits(head, u, v_pos, v_neg):
    """Logits (2n, 2) of the n (sentence, own form) pairs, then the n (sentence, negative) pairs."""
    import torch

    uu, vv = torch.cat([u, u]), torch.cat([v_pos, v_neg])
    return head(torch.cat([uu, vv, (uu - vv).abs(), uu * vv], dim=1))


def train_pair_encoders(
    examples: List[Example],
    held: List[Example],
    encoder_path: str,
    settings: Dict,
    make_loss_step: MakeLossStep,
    device: str = "cpu",
    log: Callable[[str], None] = print,
) -> Tuple[Encoder, Encoder, List[float], Dict]:
    """Train E1 / E2 from `encoder_path` on `examples` for settings["max_steps"] steps of
    settings["batch_size"] sentences (reshuffled each pass, one negative drawn per sentence).
    Returns E1, E2, the per-step losses and the summary's measurements (held-out form
    accuracy before and after, how far each encoder moved, seconds)."""
    import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"midtune: device {device!r} asks for a GPU, but torch sees none (use -1 / cpu)")
    seed = int(settings["seed"])
    random.seed(seed)
    torch.manual_seed(seed)
    e1 = Encoder(encoder_path, settings["max_length"], device)
    e2 = Encoder(encoder_path, settings["max_length"], device)
    held_before = form_accuracy(e1, e2, held)
    loss_step, extra_params = make_loss_step(e1.model.config.hidden_size, device)
    params = list(e1.model.parameters()) + list(e2.model.parameters()) + list(extra_params)
    optimizer = torch.optim.AdamW(params, lr=settings["learning_rate"])
    start_weights = (e1.weights(), e2.weights())
    batch_size, max_steps = int(settings["batch_size"]), int(settings["max_steps"])
    rng = random.Random(seed)
    order: List[int] = []
    losses: List[float] = []
    started = time.perf_counter()
    e1.model.train()
    e2.model.train()
    for step in range(max_steps):
        if len(order) < batch_size:
            refill = list(range(len(examples)))
            rng.shuffle(refill)
            order.extend(refill)
        batch = [examples[i] for i in order[:batch_size]]
        del order[:batch_size]
        negs = [rng.choice(n) for _, _, n in batch]
        optimizer.zero_grad()
        u = e1([s for s, _, _ in batch])
        v_pos, v_neg = e2([p for _, p, _ in batch]), e2(negs)
        losses.append(float(loss_step(u, v_pos, v_neg)))
        optimizer.step()
        if step % max(1, max_steps // 10) == 0 or step == max_steps - 1:
            log(
                f"step {step:>5}  loss {numpy.mean(losses[-max(1, max_steps // 10) :]):.4f}  {time.perf_counter() - started:.0f}s"
            )
    moved = [float(numpy.linalg.norm(enc.weights() - before)) for enc, before in zip((e1, e2), start_weights)]
    seconds = time.perf_counter() - started
    measured = {
        "held_out": {
            "examples": len(held),
            "form_accuracy_before": held_before,
            "form_accuracy_after": form_accuracy(e1, e2, held),
        },
        "loss_first": round(float(numpy.mean(losses[: max(1, len(losses) // 10)])), 5),
        "loss_last": round(float(numpy.mean(losses[-max(1, len(losses) // 10) :])), 5),
        "weights_moved": {"E1": round(moved[0], 5), "E2": round(moved[1], 5)},
        "seconds": round(seconds, 1),
        # how many times the loop went through the training examples (the paper counts epochs)
        "epochs": round(max_steps * batch_size / len(examples), 3),
    }
    return e1, e2, losses, measured

"""Semantic mid-tuning (Umair & Ferraro): train a sentence encoder E1 and a form encoder E2,
both initialised from the base encoder and mean pooled, so that a sentence is close to the
linearised semantic form of its own parse and far from a deleted or foreign form.

Objectives (the config's [midtune.loss], registered thinc losses):
- "triplet" (`spacy-frames.MidtuneTripletLoss.v1`): Euclidean triplet, anchor E1(sentence),
  positive E2(its form), negative E2(a negative form);
- "classification" (`spacy-frames.MidtunePairLoss.v1`): is this the form of this sentence,
  softmax cross-entropy over a linear layer on concat(u, v, |u - v|, u * v), one positive
  and one negative pair per sentence.
The losses are numpy functions; their gradients w.r.t. the embeddings (or logits) are fed
back into torch with `tensor.backward(gradient)`.

E1 is saved with `save_pretrained` (weights, config, tokenizer) as an encoder directory
that `paths.encoder` accepts; `summary.json` logs the losses, the share of sentences that
had a negative, how far each encoder's weights moved, and on the last `held_out` parsed
sentences (never trained on) how often a sentence lies nearer its own form than a
negative one, before and after.
"""
import json
import random
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy
import srsly
from thinc.api import Config

from ..losses.midtune import MidtunePairLoss, MidtuneTripletLoss
from .forms import FRAME_NEGATIVES, PAPER_NEGATIVES, dependency_form, frame_only_form, framenet_form, linearize, name_counts, negatives

FORMS: Dict[str, Callable] = {"framenet": framenet_form, "dependency": dependency_form, "frames": frame_only_form}
# which negatives each form draws: frame-only forms have no roles for the paper's deletions
FORM_NEGATIVES: Dict[str, Tuple[str, ...]] = {"framenet": PAPER_NEGATIVES, "dependency": PAPER_NEGATIVES, "frames": FRAME_NEGATIVES}
OBJECTIVES = ("triplet", "classification")


def form_examples(docs, form: str, seed: int, n_negatives: int = 1) -> List[Tuple[str, str, List[str]]]:
    """(sentence, positive form text, negative form texts) for every parsed doc whose form
    is not empty, negatives drawn by `negatives` (deletions and foreign forms)."""
    if form not in FORMS:
        raise ValueError(f"midtune: form must be one of {sorted(FORMS)}, got {form!r}")
    docs = list(docs)
    forms = [FORMS[form](doc) for doc in docs]
    counts = name_counts(forms)  # once, not per sentence (swap_frame)
    rng = random.Random(seed)
    out = []
    for i, (doc, f) in enumerate(zip(docs, forms)):
        if f.is_empty():
            continue
        negs = [text for _, text in negatives(f, forms, i, rng, n_negatives, kinds=FORM_NEGATIVES[form], counts=counts)]
        out.append((doc.text, linearize(f), negs))
    return out


class Encoder:
    """A Hugging Face encoder with mean pooling over the attention mask."""

    def __init__(self, path: str, max_length: int):
        from transformers import AutoModel, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path)
        self.max_length = max_length

    def __call__(self, texts: Sequence[str]):
        batch = self.tokenizer(list(texts), padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        hidden = self.model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)

    def weights(self) -> numpy.ndarray:
        return numpy.concatenate([p.detach().reshape(-1).numpy().copy() for p in self.model.parameters()])


def form_accuracy(e1: Encoder, e2: Encoder, examples: List[Tuple[str, str, List[str]]], batch_size: int = 64) -> Optional[float]:
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


def _to_torch(array, like):
    import torch

    return torch.from_numpy(numpy.ascontiguousarray(array, dtype="float32")).to(like.dtype)


def midtune(config: Config, docs, output: Path, log: Callable[[str], None] = print) -> Dict:
    """Mid-tune on the parsed `docs` as `config` says; save E1 under output / "encoder"."""
    import torch

    settings = config["midtune"]
    objective, form = settings["objective"], settings["form"]
    if objective not in OBJECTIVES:
        raise ValueError(f"midtune: objective must be one of {OBJECTIVES}, got {objective!r}")
    loss_fn = config["midtune"]["loss"]
    expected = MidtuneTripletLoss if objective == "triplet" else MidtunePairLoss
    if not isinstance(loss_fn, expected):
        raise ValueError(f"midtune: objective {objective!r} needs [midtune.loss] {expected.__name__}, got {type(loss_fn).__name__}")
    seed = int(settings["seed"])
    random.seed(seed)
    torch.manual_seed(seed)
    docs = list(docs)
    n_held = int(settings.get("held_out", 0))
    if n_held and n_held >= len(docs):
        raise ValueError(f"midtune: held_out ({n_held}) must be smaller than the {len(docs)} parsed sentences")
    train_docs, held_docs = (docs[:-n_held], docs[-n_held:]) if n_held else (docs, [])
    examples = [e for e in form_examples(train_docs, form, seed, n_negatives=1) if e[2]]
    if not examples:
        raise ValueError(f"midtune: no sentence has a non-empty {form} form with a negative; parse the sample first")
    held = [e for e in form_examples(held_docs, form, seed + 1, n_negatives=1) if e[2]]
    encoder_path = config["paths"]["encoder"]
    e1, e2 = Encoder(encoder_path, settings["max_length"]), Encoder(encoder_path, settings["max_length"])
    held_before = form_accuracy(e1, e2, held)
    width = e1.model.config.hidden_size
    head = torch.nn.Linear(4 * width, 2) if objective == "classification" else None
    params = list(e1.model.parameters()) + list(e2.model.parameters()) + (list(head.parameters()) if head else [])
    optimizer = torch.optim.AdamW(params, lr=settings["learning_rate"])
    start_weights = (e1.weights(), e2.weights())
    batch_size, max_steps = int(settings["batch_size"]), int(settings["max_steps"])
    rng = random.Random(seed)
    order: List[int] = []
    losses, started = [], time.perf_counter()
    e1.model.train()
    e2.model.train()
    for step in range(max_steps):
        if len(order) < batch_size:
            refill = list(range(len(examples)))
            rng.shuffle(refill)
            order.extend(refill)
        batch = [examples[i] for i in order[:batch_size]]
        del order[:batch_size]
        sentences = [s for s, _, _ in batch]
        positives = [p for _, p, _ in batch]
        negs = [rng.choice(n) for _, _, n in batch]
        optimizer.zero_grad()
        u = e1(sentences)
        v_pos, v_neg = e2(positives), e2(negs)
        if objective == "triplet":
            (d_u, d_pos, d_neg), value = loss_fn((u.detach().numpy(), v_pos.detach().numpy(), v_neg.detach().numpy()), None)
            torch.autograd.backward([u, v_pos, v_neg], [_to_torch(d_u, u), _to_torch(d_pos, v_pos), _to_torch(d_neg, v_neg)])
        else:
            uu, vv = torch.cat([u, u]), torch.cat([v_pos, v_neg])
            logits = head(torch.cat([uu, vv, (uu - vv).abs(), uu * vv], dim=1))
            labels = numpy.array([1] * len(batch) + [0] * len(batch))
            d_logits, value = loss_fn(logits.detach().numpy(), labels)
            logits.backward(_to_torch(d_logits, logits))
        optimizer.step()
        losses.append(float(value))
        if step % max(1, max_steps // 10) == 0 or step == max_steps - 1:
            log(f"step {step:>5}  loss {numpy.mean(losses[-max(1, max_steps // 10):]):.4f}  {time.perf_counter() - started:.0f}s")
    moved = [float(numpy.linalg.norm(enc.weights() - before)) for enc, before in zip((e1, e2), start_weights)]
    held_after = form_accuracy(e1, e2, held)
    output = Path(output)
    (output / "encoder").mkdir(parents=True, exist_ok=True)
    e1.model.save_pretrained(output / "encoder")
    e1.tokenizer.save_pretrained(output / "encoder")
    summary = {
        "form": form, "objective": objective, "seed": seed, "steps": max_steps, "batch_size": batch_size,
        "sentences": len(train_docs), "examples": len(examples), "negatives_per_example": 1,
        # held-out sentences (never trained on): how often E1(sentence) is nearer E2(its
        # own form) than E2(a negative form), before and after
        "held_out": {"sentences": len(held_docs), "examples": len(held), "form_accuracy_before": held_before,
                     "form_accuracy_after": held_after},
        "loss_first": round(float(numpy.mean(losses[: max(1, len(losses) // 10)])), 5),
        "loss_last": round(float(numpy.mean(losses[-max(1, len(losses) // 10):])), 5),
        "weights_moved": {"E1": round(moved[0], 5), "E2": round(moved[1], 5)},
        "seconds": round(time.perf_counter() - started, 1), "encoder": str(output / "encoder"),
    }
    srsly.write_json(output / "summary.json", summary)
    (output / "losses.json").write_text(json.dumps([round(x, 5) for x in losses]))
    return summary

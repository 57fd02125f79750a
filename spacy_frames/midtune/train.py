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
back into torch with `tensor.backward(gradient)` (`thinc_loss_step`). The loop itself is
`loop.train_pair_encoders`, on CPU or on GPU `gpu_id`.

E1 is saved with `save_pretrained` (weights, config, tokenizer) as an encoder directory
that `paths.encoder` accepts; `summary.json` logs the losses, the share of sentences that
had a negative, how far each encoder's weights moved, and on the last `held_out` parsed
sentences (never trained on) how often a sentence lies nearer its own form than a
negative one, before and after.
"""

import json
import random
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy
import srsly
from thinc.api import Config

from ..losses.midtune import MidtunePairLoss, MidtuneTripletLoss
from .forms import (
    FRAME_NEGATIVES,
    PAPER_NEGATIVES,
    dependency_form,
    frame_only_form,
    framenet_form,
    linearize,
    name_counts,
    negatives,
)
from .loop import Example, MakeLossStep, pair_head, pair_logits, train_pair_encoders

FORMS: Dict[str, Callable] = {"framenet": framenet_form, "dependency": dependency_form, "frames": frame_only_form}
# which negatives each form draws: frame-only forms have no roles for the paper's deletions
FORM_NEGATIVES: Dict[str, Tuple[str, ...]] = {
    "framenet": PAPER_NEGATIVES,
    "dependency": PAPER_NEGATIVES,
    "frames": FRAME_NEGATIVES,
}
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


def thinc_loss_step(loss_fn, objective: str) -> MakeLossStep:
    """The loop's loss step for a registered thinc loss (numpy in, numpy gradients out):
    "triplet" on (E1(sentence), E2(form), E2(negative)); "classification" through a linear
    head on the pair features of (sentence, form) and (sentence, negative) pairs."""

    def make(width: int, device: str):
        import torch

        head = pair_head(width, device) if objective == "classification" else None

        def step(u, v_pos, v_neg) -> float:
            if head is None:
                (d_u, d_pos, d_neg), value = loss_fn((_numpy(u), _numpy(v_pos), _numpy(v_neg)), None)
                torch.autograd.backward(
                    [u, v_pos, v_neg], [_to_torch(d_u, u), _to_torch(d_pos, v_pos), _to_torch(d_neg, v_neg)]
                )
                return value
            logits = pair_logits(head, u, v_pos, v_neg)
            labels = numpy.array([1] * len(u) + [0] * len(u))
            d_logits, value = loss_fn(_numpy(logits), labels)
            logits.backward(_to_torch(d_logits, logits))
            return value

        return step, (list(head.parameters()) if head is not None else [])

    return make


def _numpy(tensor) -> numpy.ndarray:
    return tensor.detach().cpu().numpy()


def _to_torch(array, like):
    import torch

    return torch.from_numpy(numpy.ascontiguousarray(array, dtype="float32")).to(dtype=like.dtype, device=like.device)


def split_examples(docs, form: str, seed: int, n_held: int) -> Tuple[List[Example], List[Example], int]:
    """The training and held-out examples of the parsed `docs`: the last `n_held` docs are
    held out (never trained on). Returns (examples, held, number of training docs)."""
    docs = list(docs)
    if n_held and n_held >= len(docs):
        raise ValueError(f"midtune: held_out ({n_held}) must be smaller than the {len(docs)} parsed sentences")
    train_docs, held_docs = (docs[:-n_held], docs[-n_held:]) if n_held else (docs, [])
    examples = [e for e in form_examples(train_docs, form, seed, n_negatives=1) if e[2]]
    if not examples:
        raise ValueError(f"midtune: no sentence has a non-empty {form} form with a negative; parse the sample first")
    held = [e for e in form_examples(held_docs, form, seed + 1, n_negatives=1) if e[2]]
    return examples, held, len(train_docs)


def check_objective(settings, loss_fn) -> None:
    objective = settings["objective"]
    if objective not in OBJECTIVES:
        raise ValueError(f"midtune: objective must be one of {OBJECTIVES}, got {objective!r}")
    expected = MidtuneTripletLoss if objective == "triplet" else MidtunePairLoss
    if not isinstance(loss_fn, expected):
        raise ValueError(
            f"midtune: objective {objective!r} needs [midtune.loss] {expected.__name__}, got {type(loss_fn).__name__}"
        )


def midtune(config: Config, docs, output: Path, log: Callable[[str], None] = print, gpu_id: int = -1) -> Dict:
    """Mid-tune on the parsed `docs` as `config` says (on GPU `gpu_id` when >= 0); save E1
    under output / "encoder"."""
    settings = config["midtune"]
    loss_fn = settings["loss"]
    check_objective(settings, loss_fn)
    form, seed = settings["form"], int(settings["seed"])
    n_held = int(settings.get("held_out", 0))
    examples, held, n_train = split_examples(docs, form, seed, n_held)
    device = f"cuda:{gpu_id}" if gpu_id >= 0 else "cpu"
    e1, _, losses, measured = train_pair_encoders(
        examples,
        held,
        config["paths"]["encoder"],
        settings,
        thinc_loss_step(loss_fn, settings["objective"]),
        device,
        log,
    )
    output = Path(output)
    (output / "encoder").mkdir(parents=True, exist_ok=True)
    e1.model.save_pretrained(output / "encoder")
    e1.tokenizer.save_pretrained(output / "encoder")
    summary = {
        "form": form,
        "objective": settings["objective"],
        "seed": seed,
        "steps": int(settings["max_steps"]),
        "batch_size": int(settings["batch_size"]),
        "sentences": n_train,
        "examples": len(examples),
        "negatives_per_example": 1,
        "device": device,
        **measured,
        "encoder": str(output / "encoder"),
    }
    # held-out sentences (never trained on): how often E1(sentence) is nearer E2(its own
    # form) than E2(a negative form), before and after
    summary["held_out"] = {"sentences": n_held, **measured["held_out"]}
    srsly.write_json(output / "summary.json", summary)
    (output / "losses.json").write_text(json.dumps([round(x, 5) for x in losses]))
    return summary

"""Scores of discourse-sense classification (the protocol of Long & Webber 2022).

A relation may have two gold senses: a prediction matching either is correct, and for
the F1 tables its gold is the one it matches (else the first). Accuracy and macro-F1
at level 1 and level 2; macro-F1 averages over the senses present in the gold of the
evaluated set (a sense predicted but never gold counts against precision only
through the gold senses it took examples from), and the per-sense F1 table lists them.
"""

from collections import Counter
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.training import Example

from .prf import prf

LEVELS = {"l1": 1, "l2": 2}


def prefix(sense: Optional[str], level: int) -> Optional[str]:
    return ".".join(sense.split(".")[:level]) if sense else None


def resolve(predicted: Optional[str], gold: Sequence[str]) -> Tuple[str, bool]:
    """The gold sense a prediction is judged against, and whether it matches."""
    if predicted in gold:
        return predicted, True
    return gold[0], False


def level_scores(predicted: Sequence[Optional[str]], gold: Sequence[Sequence[str]], level: int) -> Dict[str, Any]:
    """Accuracy, macro-F1 and per-sense P/R/F1 (percent) at one level."""
    pairs = []
    for p, g in zip(predicted, gold):
        p_level = prefix(p, level)
        g_level = list(dict.fromkeys(prefix(s, level) for s in g))
        g_chosen, _ = resolve(p_level, g_level)
        pairs.append((p_level, g_chosen))
    n = len(pairs)
    if n == 0:
        return {"acc": None, "macro_f1": None, "per_sense": {}, "n": 0}
    tp, fp, fn = Counter(), Counter(), Counter()
    for p, g in pairs:
        if p == g:
            tp[g] += 1
        else:
            fn[g] += 1
            if p is not None:
                fp[p] += 1
    per_sense = {}
    for sense in sorted(set(g for _, g in pairs)):
        prec, rec, f1 = prf(tp[sense], tp[sense] + fp[sense], tp[sense] + fn[sense])
        per_sense[sense] = {
            "p": round(100 * prec, 2),
            "r": round(100 * rec, 2),
            "f1": round(100 * f1, 2),
            "support": tp[sense] + fn[sense],
        }
    macro = sum(v["f1"] for v in per_sense.values()) / len(per_sense)
    return {"acc": round(100.0 * sum(tp.values()) / n, 2), "macro_f1": round(macro, 2), "per_sense": per_sense, "n": n}


def score_relations(predicted: Sequence[Optional[str]], gold: Sequence[Sequence[str]]) -> Dict[str, Any]:
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold relations")
    return {name: level_scores(predicted, gold, level) for name, level in LEVELS.items()}


def example_predictions(examples: Iterable[Example]) -> Tuple[List[Optional[str]], List[List[str]]]:
    """(predicted sense, gold senses) of the examples that have gold senses."""
    predicted, gold = [], []
    for eg in examples:
        ref = eg.reference._.discourse_gold
        if not ref or not ref.get("senses"):
            continue
        relations = eg.predicted._.discourse_relations
        predicted.append(relations[0]["sense"] if relations else None)
        gold.append(list(ref["senses"]))
    return predicted, gold


def score_discourse_senses(examples: Iterable[Example], **kwargs) -> Dict[str, Any]:
    predicted, gold = example_predictions(examples)
    scores = score_relations(predicted, gold)
    out: Dict[str, Any] = {}
    for name, level in scores.items():
        out[f"disc_{name}_acc"] = level["acc"] / 100 if level["acc"] is not None else None
        out[f"disc_{name}_macro_f1"] = level["macro_f1"] / 100 if level["macro_f1"] is not None else None
        out[f"disc_{name}_per_sense"] = {
            k: {"p": v["p"] / 100, "r": v["r"] / 100, "f": v["f1"] / 100} for k, v in level["per_sense"].items()
        }
    return out

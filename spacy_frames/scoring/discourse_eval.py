"""Evaluation drivers of discourse_sense: a pipeline over a converted discourse corpus or a
DISRPT `.rels` file, the paired bootstrap between two systems, and the summary of the
experiment runs over seeds (scripts/discourse_experiment.py)."""

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from spacy.training import Example

from .discourse import LEVELS, example_predictions, level_scores, score_relations


def evaluate_corpus(nlp, path, batch_size: int = 64) -> Tuple[Dict[str, Any], List[Optional[str]], List[List[str]]]:
    """Run `nlp` over a converted discourse DocBin (implicit relations, their argument
    pairs given) and score it; returns (scores, predicted senses, gold senses)."""
    from spacy.tokens import DocBin

    from ..corpora.discourse import input_doc, with_separator
    from ..extensions import install_extensions

    install_extensions()
    if not Path(path).is_file():
        raise FileNotFoundError(f"Corpus '{path}' not found: run `spacy project run convert-discourse` to write it.")
    references = list(DocBin().from_disk(path).get_docs(nlp.vocab))
    references = [d for d in references if d._.discourse_gold and d._.discourse_gold.get("senses")]
    if not references:
        raise ValueError(f"'{path}' holds no discourse relations with gold senses")
    separator = component_separator(nlp)
    references = [with_separator(nlp, ref, separator) for ref in references]
    docs = nlp.pipe((input_doc(nlp, ref) for ref in references), batch_size=batch_size)
    examples = [Example(doc, ref) for doc, ref in zip(docs, references)]
    predicted, gold = example_predictions(examples)
    return score_relations(predicted, gold), predicted, gold


def evaluate_documents(nlp, gdtb_root, split: str = "test", batch_size: int = 4) -> Dict[str, Any]:
    """`nlp` over the whole documents of a GDTB split, as a user runs it on raw text: each
    gold implicit relation takes the sense of the predicted relation
    (`doc._.discourse_relations`) whose arguments overlap its Arg1 and Arg2 most (no such
    relation: no sense, counted wrong). Scores over every gold implicit relation, the share
    of them a predicted relation reached (`reached`), and the scores on those alone."""
    from ..corpora.discourse import char_extent, gdtb_documents
    from ..extensions import install_extensions

    install_extensions()
    documents = gdtb_documents(gdtb_root, split)
    if not any(rels for _, rels in documents.values()):
        raise ValueError(f"GDTB {split} under '{gdtb_root}' holds no implicit relations with senses")
    names = sorted(documents)
    predicted: List[Optional[str]] = []
    gold: List[List[str]] = []
    words = 0
    for name, doc in zip(names, nlp.pipe((documents[n][0] for n in names), batch_size=batch_size)):
        words += len(doc)
        pairs = [(tuple(r["arg1"]), tuple(r["arg2"]), r["sense"]) for r in doc._.discourse_relations]
        for rel in documents[name][1]:
            arg1, arg2 = char_extent(rel.meta["arg1_chars"]), char_extent(rel.meta["arg2_chars"])
            predicted.append(best_overlap(pairs, arg1, arg2))
            gold.append(list(rel.senses))
    reached = [i for i, p in enumerate(predicted) if p is not None]
    return {
        "split": split,
        "documents": len(names),
        "words": words,
        "gold_implicit": len(gold),
        "reached": round(100.0 * len(reached) / len(gold), 2),
        "scores": _summary(score_relations(predicted, gold)),
        "scores_reached": _summary(score_relations([predicted[i] for i in reached], [gold[i] for i in reached])),
    }


def best_overlap(pairs, arg1: Tuple[int, int], arg2: Tuple[int, int]) -> Optional[str]:
    """The sense of the pair whose arguments overlap arg1 and arg2 (both) by the most
    characters; None when none overlaps both."""

    def overlap(a, b):
        return max(0, min(a[1], b[1]) - max(a[0], b[0]))

    best, best_sense = 0, None
    for p1, p2, sense in pairs:
        o1, o2 = overlap(p1, arg1), overlap(p2, arg2)
        if o1 > 0 and o2 > 0 and o1 + o2 > best:
            best, best_sense = o1 + o2, sense
    return best_sense


def _summary(scores: Dict[str, Any]) -> Dict[str, Any]:
    return {level: {k: v for k, v in s.items() if k != "per_sense"} for level, s in scores.items()}


def paired_bootstrap(
    predictions_a: Sequence[Sequence[Optional[str]]],
    predictions_b: Sequence[Sequence[Optional[str]]],
    gold: Sequence[Sequence[str]],
    n_resamples: int = 1000,
    seed: int = 0,
) -> Dict[str, Any]:
    """System A minus system B, each the mean over its seeds' predictions (lists of one
    prediction per gold relation), with a 95 % percentile interval from resampling the
    relations with replacement (the same resample for both systems: a paired bootstrap).
    Accuracy and macro-F1 at levels 1 and 2, in points."""
    import numpy

    if not predictions_a or not predictions_b:
        raise ValueError("paired_bootstrap: each system needs the predictions of at least one seed")
    n = len(gold)
    if any(len(p) != n for p in list(predictions_a) + list(predictions_b)):
        raise ValueError("paired_bootstrap: every prediction list must have one prediction per gold relation")

    def system_score(runs, index, level, metric):
        values = []
        for predicted in runs:
            scores = level_scores([predicted[i] for i in index], [gold[i] for i in index], level)
            values.append(scores[metric])
        return float(numpy.mean(values))

    rng = numpy.random.default_rng(seed)
    resamples = [rng.integers(0, n, size=n) for _ in range(n_resamples)]
    full = numpy.arange(n)
    out: Dict[str, Any] = {
        "relations": n,
        "seeds_a": len(predictions_a),
        "seeds_b": len(predictions_b),
        "resamples": n_resamples,
    }
    for name, level in LEVELS.items():
        for metric in ("acc", "macro_f1"):
            a, b = system_score(predictions_a, full, level, metric), system_score(predictions_b, full, level, metric)
            diffs = numpy.array(
                [
                    system_score(predictions_a, idx, level, metric) - system_score(predictions_b, idx, level, metric)
                    for idx in resamples
                ]
            )
            low, high = numpy.percentile(diffs, [2.5, 97.5])
            out[f"{name}_{metric}"] = {
                "a": round(a, 2),
                "b": round(b, 2),
                "diff": round(a - b, 2),
                "ci95": [round(float(low), 2), round(float(high), 2)],
                "p_a_not_better": round(float((diffs <= 0).mean()), 4),
            }
    return out


def component_separator(nlp) -> str:
    """The separator the pipeline's discourse_sense was trained with ("" if none)."""
    names = [
        name
        for name, proc in nlp.pipeline
        if getattr(proc, "cfg", None) is not None and "separator" in proc.cfg and "head_weights" in proc.cfg
    ]
    return nlp.get_pipe(names[0]).cfg.get("separator", "") if names else ""


def summarize_runs(runs: Dict[str, Dict[str, Any]], sets: Sequence[str]) -> Dict[str, Any]:
    """Mean and sample sd over seeds per run name (`<name>_seed<k>`), for each evaluated
    set and level: accuracy and macro-F1; the per-sense F1 (GDTB test, level 2) averaged."""
    import statistics
    from collections import defaultdict

    by_name: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
    for stem, run in runs.items():
        by_name[stem.rsplit("_seed", 1)[0]].append(run)
    table: Dict[str, Any] = {}
    header = (
        "| run | seeds | " + " | ".join(f"{s} {lvl} {m}" for s in sets for lvl in LEVELS for m in ("acc", "F1")) + " |"
    )
    lines = [header, "|" + "---|" * (2 + 4 * len(sets))]
    for name in sorted(by_name):
        rows = by_name[name]
        entry: Dict[str, Any] = {"seeds": sorted(r["seed"] for r in rows)}
        cells = [name, str(len(rows))]
        for s in sets:
            for lvl in LEVELS:
                for metric in ("acc", "macro_f1"):
                    values = [r[s][lvl][metric] for r in rows if s in r]
                    mean = round(statistics.fmean(values), 2) if values else None
                    sd = round(statistics.stdev(values), 2) if len(values) > 1 else None
                    entry.setdefault(s, {}).setdefault(lvl, {})[metric] = {"mean": mean, "sd": sd}
                    cells.append("–" if mean is None else f"{mean:.1f}" + (f" ± {sd:.1f}" if sd is not None else ""))
        per_sense: Dict[str, List[float]] = defaultdict(list)
        for r in rows:
            for sense, v in r.get("gdtb_test", {}).get("l2", {}).get("per_sense", {}).items():
                per_sense[sense].append(v["f1"])
        entry["gdtb_test_l2_per_sense_f1"] = {k: round(statistics.fmean(v), 2) for k, v in sorted(per_sense.items())}
        table[name] = entry
        lines.append("| " + " | ".join(cells) + " |")
    return {"runs": table, "table": lines}


def predict_rels(nlp, input_path, output_path, batch_size: int = 64) -> Dict[str, Any]:
    """Classify every relation of a DISRPT `.rels` file (its two units as Arg1, Arg2)
    and write the file back with the predicted senses (for the DISRPT scorer)."""
    from ..corpora.discourse import input_doc, read_rels, relation_doc, write_rels
    from ..extensions import install_extensions

    install_extensions()
    if "discourse_sense" not in nlp.component_names:
        raise ValueError(f"The pipeline has no discourse_sense component (components: {nlp.component_names}).")
    relations = [r for r in read_rels(input_path) if r.arg1.strip() and r.arg2.strip()]
    if not relations:
        raise ValueError(f"'{input_path}' holds no relations with text")
    separator = component_separator(nlp)
    docs = nlp.pipe(
        (input_doc(nlp, relation_doc(nlp, rel, separator=separator)) for rel in relations), batch_size=batch_size
    )
    predicted = [doc._.discourse_relations[0]["sense"] for doc in docs]
    write_rels(output_path, relations, predicted)
    implicit = [(p, r.senses) for p, r in zip(predicted, relations) if r.implicit and r.senses]
    scores = score_relations([p for p, _ in implicit], [g for _, g in implicit]) if implicit else {}
    return {"relations": len(relations), "implicit_scores": scores}

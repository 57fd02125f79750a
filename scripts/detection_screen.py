"""Issue 25 part 3: can more evidence or a richer model lift target detection?

On FN1.5 dev (never test), every lexicon candidate of the shipped frame parser
(overlapping candidates, the parser on, as in the pipeline) with its detector
probability. Calibrations compared by the same 5-fold cross-validation over dev documents
as `tune-detection --train` (scoring/detection.py), each at its best cut-off:
- `shipped`: the shipped features (detector logit, training target rate, POS, ...), logistic;
- `+frame_scores`: plus how well the target matches a frame (the cosine of its best lexicon
  frame and of its best frame overall, their gap, the gap to the second frame overall);
- `+syntax`: plus the head's dependency label, capitalisation, sentence start and how many
  frames its LU has;
- the same feature sets in gradient-boosted trees (scikit-learn), which can read
  interactions (a preposition's attachment, an LU's context) that a linear model cannot.

    python scripts/detection_screen.py MODEL OUTPUT.json
"""
import json
import math
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

import numpy
import spacy
import typer

from spacy_frames.extensions import TARGETS_KEY, install_extensions
from spacy_frames.pipeline.target_calibration import TargetCalibration, candidate_key, fit_logistic, resolve_overlaps
from spacy_frames.scoring.detection import L2_GRID, N_FOLDS, SKIPPED, collect_candidates, count_rates
from spacy_frames.scoring.frames_eval import frame_examples
from spacy_frames.scoring.prf import prf

DEPS = ("amod", "compound", "nsubj", "dobj", "pobj", "ROOT", "prep", "advmod", "aux", "auxpass", "conj", "nummod",
        "attr", "acomp", "xcomp", "ccomp", "advcl", "relcl", "acl", "poss", "npadvmod", "pcomp", "appos")
THRESHOLDS = tuple(round(0.02 * i, 2) for i in range(5, 45))


def dev_rows(nlp, examples, batch_size: int = 32) -> Tuple[List[Dict], int]:
    """Every candidate of the dev docs that have gold targets, with the pipeline's parse."""
    pipe = nlp.get_pipe("frame_identifier")
    examples = [eg for eg in examples if eg.reference.spans.get(TARGETS_KEY)]
    pipe.cfg["overlapping_candidates"] = True
    skipped = [n for n in nlp.pipe_names if (n in SKIPPED and n != "parser") or n == "frame_identifier"]
    with nlp.select_pipes(disable=skipped):
        docs = list(nlp.pipe((eg.predicted for eg in examples), batch_size=batch_size))
    rows = []
    for start in range(0, len(docs), batch_size):
        predicted = pipe.predict(docs[start:start + batch_size])
        batch, probs, vectors = predicted["batch"], predicted["probs"], predicted["vectors"]
        offset = 0
        for j, (spans, lus) in enumerate(zip(batch.spans, batch.lexical_units)):
            gold = Counter((s.start_char, s.end_char) for s in examples[start + j].reference.spans[TARGETS_KEY])
            for i, (span, lu) in enumerate(zip(spans, lus)):
                row = offset + i
                known = pipe.in_lexicon(lu)
                frames = pipe.inventory.frames_for_lu(lu) if known else []
                top, _ = pipe.index.search(vectors[row:row + 1], 2)
                rows.append({
                    "doc": start + j, "span": span, "key": candidate_key(span, lu if known else None), "known": known,
                    "prob": float(probs[row]), "gold": (span.start_char, span.end_char) in gold,
                    "best_lexicon": float(numpy.max(pipe.index.score(vectors[row], frames))) if frames else float(top[0][0]),
                    "best": float(top[0][0]), "second": float(top[0][1]), "n_frames": len(frames),
                })
            offset += len(spans)
    n_gold = sum(sum(Counter((s.start_char, s.end_char) for s in eg.reference.spans[TARGETS_KEY]).values()) for eg in examples)
    return rows, n_gold


def features(rows, calibration: TargetCalibration, feature_set: str) -> numpy.ndarray:
    X = calibration.features([r["key"] for r in rows], [r["prob"] for r in rows], [r["span"] for r in rows], [r["known"] for r in rows])
    extra = []
    for r in rows:
        row = []
        if feature_set in ("+frame_scores", "+syntax"):
            row += [r["best_lexicon"], r["best"], r["best"] - r["best_lexicon"], r["best"] - r["second"]]
        if feature_set == "+syntax":
            root = r["span"].root
            row += [float(root.dep_ == d) for d in DEPS]
            row += [float(r["span"].text[:1].isupper()), float(bool(root.is_sent_start)), math.log1p(r["n_frames"])]
        extra.append(row)
    return numpy.hstack([X, numpy.asarray(extra, dtype="float64").reshape(len(rows), -1)])


def cross_validated(X, y, folds, model: str, l2: float) -> numpy.ndarray:
    from sklearn.ensemble import HistGradientBoostingClassifier

    scores = numpy.zeros(len(y))
    for fold in range(N_FOLDS):
        held = folds == fold
        if model == "logistic":
            w, b = fit_logistic(X[~held], y[~held], l2)
            scores[held] = 1.0 / (1.0 + numpy.exp(-(X[held] @ w + b)))
        else:
            trees = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=40, random_state=0)
            scores[held] = trees.fit(X[~held], y[~held]).predict_proba(X[held])[:, 1]
    return scores


def errors_at(rows, scores, threshold: float, top: int = 15) -> Dict:
    """The missed gold targets and the false targets at a cut-off: by the head's POS and
    by candidate key (LU, or "OOV:" + word), most frequent first."""
    by_doc: Dict[int, List[int]] = {}
    for i, r in enumerate(rows):
        by_doc.setdefault(r["doc"], []).append(i)
    missed, false = Counter(), Counter()
    missed_pos, false_pos = Counter(), Counter()
    for idx in by_doc.values():
        keep = resolve_overlaps([rows[i]["span"] for i in idx], [float(scores[i]) for i in idx], [scores[i] >= threshold for i in idx])
        for i, kept in zip(idx, keep):
            r = rows[i]
            if r["gold"] and not kept:
                missed[r["key"]] += 1
                missed_pos[r["span"].root.pos_] += 1
            elif kept and not r["gold"]:
                false[r["key"]] += 1
                false_pos[r["span"].root.pos_] += 1
    return {"missed": sum(missed.values()), "missed_by_pos": dict(missed_pos.most_common()), "missed_top": dict(missed.most_common(top)),
            "false": sum(false.values()), "false_by_pos": dict(false_pos.most_common()), "false_top": dict(false.most_common(top))}


def best_cutoff(rows, scores, n_gold) -> Dict:
    by_doc: Dict[int, List[int]] = {}
    for i, r in enumerate(rows):
        by_doc.setdefault(r["doc"], []).append(i)
    best = None
    for t in THRESHOLDS:
        n_pred = n_match = 0
        for idx in by_doc.values():
            keep = resolve_overlaps([rows[i]["span"] for i in idx], [float(scores[i]) for i in idx], [scores[i] >= t for i in idx])
            n_pred += sum(keep)
            n_match += sum(rows[i]["gold"] for i, k in zip(idx, keep) if k)
        p, r, f = prf(n_match, n_pred, n_gold)
        row = {"threshold": t, "target_p": round(100 * p, 2), "target_r": round(100 * r, 2), "target_f": round(100 * f, 2)}
        if best is None or row["target_f"] > best["target_f"]:
            best = row
    return best


def main(model: str, output: Path, corpus_dir: Path = Path("corpus/framenet15")):
    install_extensions()
    nlp = spacy.load(model)
    calibration = TargetCalibration()
    train = frame_examples(nlp, corpus_dir / "train.spacy", gold_targets=False)
    count_rates(calibration, collect_candidates(nlp, train, with_probs=False, exhaustive_only=True))
    rows, n_gold = dev_rows(nlp, frame_examples(nlp, corpus_dir / "dev.spacy", gold_targets=False))
    y = numpy.asarray([float(r["gold"]) for r in rows])
    folds = numpy.asarray([r["doc"] % N_FOLDS for r in rows])
    result = {"model": model, "corpus": str(corpus_dir / "dev.spacy"), "dev_candidates": len(rows), "dev_targets": n_gold,
              "folds": N_FOLDS, "settings": {}}
    for feature_set in ("shipped", "+frame_scores", "+syntax"):
        X = features(rows, calibration, feature_set)
        for model_kind in ("logistic", "boosted_trees"):
            best = None
            for l2 in (L2_GRID if model_kind == "logistic" else (None,)):
                scores = cross_validated(X, y, folds, model_kind, l2)
                row = best_cutoff(rows, scores, n_gold)
                row["l2"] = l2
                if best is None or row["target_f"] > best["target_f"]:
                    best, best_scores = row, scores
            name = f"{model_kind} {feature_set}"
            result["settings"][name] = best
            if name == "logistic shipped":  # where the shipped calibration goes wrong
                result["errors"] = errors_at(rows, best_scores, best["threshold"])
            typer.echo(f"{name}: {best}")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    typer.run(main)

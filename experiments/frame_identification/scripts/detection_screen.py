"""Can more evidence or a richer model lift target detection?

On FN1.5 dev (never test), every lexicon candidate of the shipped frame parser
(overlapping candidates, the parser on, as in the pipeline) with its detector
probability. Calibrations compared by the same 5-fold cross-validation over dev documents
as `tune-detection --train` (pipeline/target_calibration.py), each at its best cut-off:
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
from typing import Dict, List, Sequence

import numpy
import spacy
import typer

from spacy_frames.extensions import install_extensions
from spacy_frames.pipeline.target_calibration import (
    L2_GRID,
    N_FOLDS,
    DocCandidates,
    TargetCalibration,
    _design,
    _split,
    collect_candidates,
    count_rates,
    detection_prf,
    fit_logistic,
    resolve_overlaps,
)
from spacy_frames.scoring.frames_eval import frame_examples

DEPS = (
    "amod",
    "compound",
    "nsubj",
    "dobj",
    "pobj",
    "ROOT",
    "prep",
    "advmod",
    "aux",
    "auxpass",
    "conj",
    "nummod",
    "attr",
    "acomp",
    "xcomp",
    "ccomp",
    "advcl",
    "relcl",
    "acl",
    "poss",
    "npadvmod",
    "pcomp",
    "appos",
)
THRESHOLDS = tuple(round(0.02 * i, 2) for i in range(5, 45))


def extra_features(pipe, docs: Sequence[DocCandidates], feature_set: str) -> numpy.ndarray:
    """The columns a feature set adds to the shipped calibration's, one row per candidate."""
    rows = []
    for doc in docs:
        top, _ = pipe.index.search(doc.vectors, 2) if len(doc.spans) else (numpy.zeros((0, 2)), None)
        for i, (span, key, known) in enumerate(zip(doc.spans, doc.keys, doc.known)):
            row = []
            if feature_set in ("+frame_scores", "+syntax"):
                frames = pipe.inventory.frames_for_lu(key) if known else []
                best_lexicon = (
                    float(numpy.max(pipe.index.score(doc.vectors[i], frames))) if frames else float(top[i][0])
                )
                row += [best_lexicon, float(top[i][0]), float(top[i][0]) - best_lexicon, float(top[i][0] - top[i][1])]
            if feature_set == "+syntax":
                root = span.root
                row += [float(root.dep_ == d) for d in DEPS]
                row += [float(span.text[:1].isupper()), float(bool(root.is_sent_start)), math.log1p(len(frames))]
            rows.append(row)
    return numpy.asarray(rows, dtype="float64").reshape(len(rows), -1)


def cross_validated(X, y, folds, model: str, l2) -> numpy.ndarray:
    """Each candidate's score from a calibration fitted on the other folds' documents."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    scores = numpy.zeros(len(y))
    for fold in range(N_FOLDS):
        held = folds == fold
        if model == "logistic":
            w, b = fit_logistic(X[~held], y[~held], l2)
            scores[held] = 1.0 / (1.0 + numpy.exp(-(X[held] @ w + b)))
        else:
            trees = HistGradientBoostingClassifier(
                max_iter=200, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=40, random_state=0
            )
            scores[held] = trees.fit(X[~held], y[~held]).predict_proba(X[held])[:, 1]
    return scores


def errors_at(docs: Sequence[DocCandidates], scores: List[List[float]], threshold: float, top: int = 15) -> Dict:
    """The missed gold targets and the false targets at a cut-off: by the head's POS and
    by candidate key (LU, or "OOV:" + word), most frequent first."""
    missed, false, missed_pos, false_pos = Counter(), Counter(), Counter(), Counter()
    for doc, doc_scores in zip(docs, scores):
        keep = resolve_overlaps(doc.spans, doc_scores, [s >= threshold for s in doc_scores])
        for span, key, offset, kept in zip(doc.spans, doc.keys, doc.offsets, keep):
            if offset in doc.gold and not kept:
                missed[key] += 1
                missed_pos[span.root.pos_] += 1
            elif kept and offset not in doc.gold:
                false[key] += 1
                false_pos[span.root.pos_] += 1
    return {
        "missed": sum(missed.values()),
        "missed_by_pos": dict(missed_pos.most_common()),
        "missed_top": dict(missed.most_common(top)),
        "false": sum(false.values()),
        "false_by_pos": dict(false_pos.most_common()),
        "false_top": dict(false.most_common(top)),
    }


def main(model: str, output: Path, corpus_dir: Path = Path("../../corpus/framenet15")):
    install_extensions()
    nlp = spacy.load(model)
    pipe = nlp.get_pipe("frame_identifier")
    calibration = TargetCalibration()
    train = frame_examples(nlp, corpus_dir / "train.spacy", gold_targets=False)
    count_rates(calibration, collect_candidates(nlp, train, with_probs=False, exhaustive_only=True))
    docs = collect_candidates(
        nlp,
        frame_examples(nlp, corpus_dir / "dev.spacy", gold_targets=False),
        with_probs=True,
        with_parser=True,
        with_vectors=True,
    )
    shipped, y, sizes = _design(calibration, docs)
    folds = numpy.repeat(numpy.arange(len(docs)), sizes) % N_FOLDS  # by document, as tune-detection
    result = {
        "model": model,
        "corpus": str(corpus_dir / "dev.spacy"),
        "dev_candidates": int(sum(sizes)),
        "dev_targets": sum(sum(d.gold.values()) for d in docs),
        "folds": N_FOLDS,
        "settings": {},
    }
    for feature_set in ("shipped", "+frame_scores", "+syntax"):
        X = numpy.hstack([shipped, extra_features(pipe, docs, feature_set)])
        for model_kind in ("logistic", "boosted_trees"):
            best = None
            for l2 in L2_GRID if model_kind == "logistic" else (None,):
                scores = _split(cross_validated(X, y, folds, model_kind, l2), sizes)
                for t in THRESHOLDS:
                    row = {"threshold": t, **detection_prf(docs, scores, t), "l2": l2}
                    if best is None or row["target_f"] > best["target_f"]:
                        best, best_scores = row, scores
            name = f"{model_kind} {feature_set}"
            result["settings"][name] = best
            if name == "logistic shipped":  # where the shipped calibration goes wrong
                result["errors"] = errors_at(docs, best_scores, best["threshold"])
            typer.echo(f"{name}: {best}")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    typer.run(main)

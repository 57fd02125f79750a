"""The packaged frame_inducer on a corpus's gold verb targets (FN1.7 dev by default).

    python scripts/evaluate_inducer.py training/inducer_clustered corpus/framenet17/dev.spacy \
        --output metrics/frame_inducer_fn17_dev.json

The pipeline runs as a user runs it (nlp.pipe; span._.induced_frame), once per assignment
rule (nearest centroid overall, the verb's own clusters, the verb's senses), and its
clusters are scored (BcF / PiF) against the gold frames, beside one cluster per verb lemma;
each rule also on the targets of verbs seen / unseen when the centroids were fitted.
"""

import json
import time
from pathlib import Path
from typing import Any, Dict

import numpy
import typer

SCORE_KEYS = ("pu", "ipu", "pif", "bcp", "bcr", "bcf")


def score_packaged(nlp, docs, assignments=None) -> Dict[str, Any]:
    """The packaged frame_inducer on the gold verb targets of `docs`, run as a user runs
    it (nlp.pipe; span._.induced_frame), once per assignment rule, against one cluster
    per verb lemma; each also on the targets of verbs seen / unseen at fit time."""
    from spacy.tokens import DocBin

    from spacy_frames.clustering import cluster_scores, one_cluster_per_lemma
    from spacy_frames.corpora.docbins import add_docs, docs_from
    from spacy_frames.pipeline.frame_inducer import ASSIGNMENTS
    from spacy_frames.recipes.inducer import verb_targets
    from spacy_frames.scoring.induction_eval import get_inducer
    from spacy_frames.suggesters.frames import target_lemma

    inducer = get_inducer(nlp)
    if not len(inducer.centroids.names):
        raise ValueError("the frame_inducer has no centroids: fit them with `spacy-frames fit-inducer`")
    n = verb_targets(docs)
    if n == 0:
        raise ValueError("no gold verb targets (LU *.v with a frame) in the corpus")
    frozen = add_docs(DocBin(store_user_data=True), docs).to_bytes()
    configured = inducer.cfg["assignment"]
    seen_lemmas = set(inducer.seen_lemmas)
    result: Dict[str, Any] = {}
    for assignment in assignments or ASSIGNMENTS:
        inducer.cfg["assignment"] = assignment
        copies = docs_from(DocBin(store_user_data=True).from_bytes(frozen), nlp.vocab)
        spans = [s for doc in nlp.pipe(copies, batch_size=32) for s in doc.spans["targets"]]
        frames = numpy.array([s.label_ for s in spans])
        lemmas = numpy.array([target_lemma(s) for s in spans])
        seen = numpy.array([lemma in seen_lemmas for lemma in lemmas])
        clusters = numpy.array([s._.induced_frame for s in spans])
        labels = numpy.array([s._.induced_frame_label or "" for s in spans])
        entry: Dict[str, Any] = {}
        for subset, rows in (("all", numpy.ones(len(spans), bool)), ("seen", seen), ("unseen", ~seen)):
            if rows.sum() == 0:
                continue
            scores = cluster_scores(frames[rows], clusters[rows])
            base = cluster_scores(frames[rows], one_cluster_per_lemma(lemmas[rows]))
            entry[subset] = {
                "n": int(rows.sum()),
                "n_clusters": scores["n_clusters"],
                **{k: round(scores[k], 2) for k in SCORE_KEYS},
                "label_acc": round(100.0 * float((labels[rows] == frames[rows]).mean()), 2),
                "1cpv": {"n_clusters": base["n_clusters"], **{k: round(base[k], 2) for k in SCORE_KEYS}},
            }
        result[assignment] = entry
    inducer.cfg["assignment"] = configured
    result["data"] = {
        "n_verb_targets": n,
        "n_lemmas": int(len(set(lemmas.tolist()))),
        "n_lemmas_seen_at_fit": int(len(set(lemmas[seen].tolist()))),
        "n_targets_seen_at_fit": int(seen.sum()),
        "n_fit_lemmas": len(seen_lemmas),
        "n_fit_clusters": len(inducer.centroids.names),
    }
    result["configured_assignment"] = configured
    result["alpha"] = inducer.cfg["alpha"]
    return result


def main(
    model: Path = typer.Argument(..., help="Pipeline with a fitted frame_inducer (training/inducer_clustered)"),
    corpus: Path = typer.Argument(..., help="Gold-annotated corpus (corpus/framenet17/dev.spacy)"),
    output: Path = typer.Option(..., "--output", help="JSON file to write"),
):
    """The packaged inducer on a corpus's gold verb targets (FN1.7 dev by default): BcF / PiF
    of span._.induced_frame against the gold frames for each assignment rule (nearest
    centroid overall, the verb's own clusters, the verb's senses), beside one cluster per
    verb lemma."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_frames.extensions import install_extensions

    install_extensions()
    nlp = spacy.load(model)
    docs = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
    start = time.time()
    result = score_packaged(nlp, docs)
    result.update({"model": str(model), "corpus": str(corpus), "time_s": round(time.time() - start, 1)})
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n", encoding="utf8")
    for name in ("nearest", "verb", "verb_sense"):
        scores = result[name]["all"]
        typer.echo(
            f"{name}: BcF {scores['bcf']:.1f} PiF {scores['pif']:.1f} (1cpv BcF {scores['1cpv']['bcf']:.1f} PiF {scores['1cpv']['pif']:.1f})"
        )
    typer.echo(json.dumps(result["data"]))


if __name__ == "__main__":
    typer.run(main)

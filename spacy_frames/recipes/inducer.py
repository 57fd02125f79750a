"""Cluster a corpus's targets with the frame_inducer, and fit its centroids.

`induce`: every target the pipeline's frame_inducer handles (its POS list; from
`doc.spans["frames"]`, else `doc.spans["targets"]`) is embedded, the targets are
clustered (two-step, one-step or the FAISS path for large corpora), and the docs are
written back with `span._.induced_frame` (and `span._.induced_frame_label`, the most
common gold frame of the cluster when the input has gold frames). With
`store_centroids`, the pipeline is saved with these clusters as its centroids and
with the clusters each verb lemma's instances were put in, so `nlp(text)` assigns new
targets to them (a seen verb's target to the nearest of its own clusters; see the
component's `assignment`).

The stopping criterion of each method is calibrated on a corpus with gold frames:
`dev` (instances in the same format), or the input itself when `calibrate_on_input`
(e.g. the training instances of the packaged inducer), or else the calibration stored
with the pipeline's centroids. `cut_scale` makes the calibrated cut finer or coarser,
`save_vectors` keeps the embeddings (.npz: vectors, lemmas, frames) for re-clustering.

`fit_inducer`: the packaged inducer's centroids, `induce` with the two-step method
calibrated on its gold-labelled input.
"""

from pathlib import Path
from typing import Any, Dict, Optional

import numpy

from ..clustering import METHODS


def induce(
    model: str,
    input_path: Path,
    output_path: Path,
    *,
    method: str = "two-step",
    dev: Optional[Path] = None,
    calibrate_on_input: bool = False,
    store_centroids: Optional[Path] = None,
    save_vectors: Optional[Path] = None,
    cut_scale: float = 1.0,
    batch_size: int = 64,
    progress: bool = True,
    seed: int = 0,
) -> Dict[str, Any]:
    import spacy
    from spacy.tokens import DocBin

    from ..clustering import cluster, cluster_scores
    from ..corpora.docbins import add_docs
    from ..extensions import install_extensions
    from ..scoring.induction_eval import embed_targets, get_inducer
    from ..suggesters.frames import target_lemma

    if method not in METHODS:
        raise ValueError(f"Unknown clustering method {method!r}: choose one of {', '.join(METHODS)}.")
    input_path = Path(input_path)
    if not input_path.is_file():
        raise FileNotFoundError(f"Input corpus '{input_path}' not found.")
    nlp = spacy.load(model)
    inducer = get_inducer(nlp)
    install_extensions()
    docs = list(DocBin().from_disk(input_path).get_docs(nlp.vocab))
    targets = [inducer.targets(doc) for doc in docs]
    n = sum(len(t) for t in targets)
    if n == 0:
        raise ValueError(
            f"'{input_path}' has no targets the frame_inducer handles (POS {inducer.cfg['pos']}) in "
            f"doc.spans['{inducer.cfg['spans_key']}'] or doc.spans['{inducer.cfg['targets_key']}']."
        )
    vectors, _, _ = embed_targets(nlp, docs, targets, batch_size=batch_size, progress=progress)
    spans = [span for doc_targets in targets for span in doc_targets]
    lemmas = numpy.array([target_lemma(span) for span in spans])
    gold = [span.label_ or None for span in spans]
    params = _calibration(method, inducer, nlp, dev, calibrate_on_input, vectors, lemmas, gold, batch_size, progress)
    params = {key: (value.item() if hasattr(value, "item") else value) for key, value in params.items()}  # JSON-able
    if cut_scale != 1.0:
        params = scale_cut(method, params, cut_scale)
    if save_vectors is not None:
        save_vectors = Path(save_vectors)
        save_vectors.parent.mkdir(parents=True, exist_ok=True)
        numpy.savez(save_vectors, vectors=vectors, lemmas=lemmas, frames=numpy.array([g or "" for g in gold]))
    labels = cluster(method, vectors, lemmas, params)
    ids = inducer.set_clusters(
        vectors,
        labels.tolist(),
        frames=gold,
        info={"method": method, "params": {method: params}},
        lemmas=lemmas.tolist(),
    )
    for span, cluster_id in zip(spans, ids):
        span._.induced_frame = cluster_id
        span._.induced_frame_label = inducer.cluster_labels.get(cluster_id)
    output_path = Path(output_path)
    output_path.parent.mkdir(parents=True, exist_ok=True)
    add_docs(DocBin(store_user_data=True), docs).to_disk(output_path)
    if store_centroids is not None:
        nlp.to_disk(store_centroids)
    result = {
        "method": method,
        "params": params,
        "n_targets": n,
        "n_clusters": len(set(ids)),
        "alpha": inducer.cfg["alpha"],
        "n_lemmas": inducer.cluster_info["n_lemmas"],
        "n_senses": inducer.cluster_info["n_senses"],
    }
    if all(gold):
        result["scores"] = cluster_scores(gold, labels)
    return result


def fit_inducer(
    model: str,
    input_path: Path,
    output_path: Path,
    store_centroids: Path,
    *,
    save_vectors: Optional[Path] = None,
    cut_scale: float = 1.0,
) -> Dict[str, Any]:
    """Fit a trained frame_inducer's centroids on gold-labelled instances: two-step
    clustering of every instance (X-means per verb lemma, then group-average merging of
    the pseudo-LUs), its stopping criterion calibrated on the instances' own gold frames
    and scaled by `cut_scale`; the pipeline is saved to `store_centroids` with the clusters
    as its centroids, the clustered instances to `output_path` and, with `save_vectors`,
    their embeddings for re-clustering. Returns what `induce` returns."""
    return induce(
        model,
        input_path,
        output_path,
        method="two-step",
        calibrate_on_input=True,
        store_centroids=store_centroids,
        save_vectors=save_vectors,
        cut_scale=cut_scale,
    )


def verb_targets(docs) -> int:
    """Keep only the gold targets whose LU is a verb (doc.spans["targets"]) and drop any
    predicted frame spans, so that the inducer reads these. Returns how many were kept."""
    from spacy.tokens import SpanGroup

    from ..extensions import FRAMES_KEY, TARGETS_KEY

    n = 0
    for doc in docs:
        spans = [s for s in doc.spans.get(TARGETS_KEY, []) if s.label_ and (s._.lexical_unit or "").endswith(".v")]
        doc.spans[TARGETS_KEY] = SpanGroup(doc, name=TARGETS_KEY, spans=spans)
        if FRAMES_KEY in doc.spans:
            del doc.spans[FRAMES_KEY]
        n += len(spans)
    return n


def scale_cut(method: str, params: Dict[str, Any], scale: float) -> Dict[str, Any]:
    """The calibrated stopping criterion made finer (< 1) or coarser (> 1): two-step's
    pair_ratio (the share of pseudo-LU pairs put in one cluster) or the one-step / faiss
    cut height, times `scale`."""
    if not scale > 0:
        raise ValueError(f"cut_scale must be > 0, got {scale}")
    key = "pair_ratio" if method == "two-step" else "threshold"
    return dict(params, **{key: float(params[key]) * scale, "cut_scale": scale})


def _calibration(
    method, inducer, nlp, dev, calibrate_on_input, vectors, lemmas, gold, batch_size, progress
) -> Dict[str, Any]:
    from spacy.tokens import DocBin

    from ..clustering import calibrate
    from ..scoring.induction_eval import embed_targets
    from ..suggesters.frames import target_lemma

    if dev is not None:
        dev = Path(dev)
        if not dev.is_file():
            raise FileNotFoundError(f"Dev corpus '{dev}' not found.")
        dev_docs = list(DocBin().from_disk(dev).get_docs(nlp.vocab))
        dev_targets = [[s for s in inducer.targets(doc) if s.label_] for doc in dev_docs]
        dev_spans = [s for t in dev_targets for s in t]
        if not dev_spans:
            raise ValueError(f"Dev corpus '{dev}' has no gold-labelled targets to calibrate on.")
        X_dev, _, _ = embed_targets(nlp, dev_docs, dev_targets, batch_size=batch_size, progress=progress)
        return calibrate(method, X_dev, [target_lemma(s) for s in dev_spans], [s.label_ for s in dev_spans])
    if calibrate_on_input:
        if not all(gold):
            raise ValueError("calibrate_on_input needs a gold frame (span label) on every input target.")
        return calibrate(method, vectors, lemmas, gold)
    stored = inducer.cluster_info.get("params", {}).get(method)
    if stored is None:
        raise ValueError(
            f"No calibration for '{method}': give a dev corpus with gold frames (--dev), use --calibrate-on-input "
            "on gold-labelled input, or a pipeline whose centroids were fitted with this method."
        )
    return stored

"""The frame_inducer scorer: how well the embeddings of the gold targets group by frame
(model selection while training), and the B-cubed scores of the induced frames a
pipeline assigns (`spacy-frames evaluate`). The clustering scores of the evaluation
protocol are in induction_eval.py and clustering/metrics.py."""

from typing import Any, Dict, Iterable, List, Sequence

import numpy
from spacy.training import Example

from ..extensions import TARGETS_KEY


def score_frame_induction(examples: Iterable[Example], **kwargs) -> Dict[str, Any]:
    """How well the embeddings of the gold targets group by frame, for model selection
    while training: `induce_nn_acc` is the share of targets whose nearest other target
    (cosine) has the same frame. Needs the component (FrameInducer.score passes it)."""
    component = kwargs["component"]
    examples = list(examples)
    targets, frames = component._gold(examples)
    docs = [eg.predicted for eg in examples]
    if len(frames) < 2:
        return {"induce_nn_acc": None}
    vectors, _, _ = component.embed(docs, targets)
    sims = vectors @ vectors.T
    numpy.fill_diagonal(sims, -numpy.inf)
    nearest = sims.argmax(axis=1)
    frames_arr = numpy.asarray(frames)
    return {"induce_nn_acc": float((frames_arr[nearest] == frames_arr).mean())}


def score_induced_frames(
    examples: Iterable[Example], *, targets_key: str = TARGETS_KEY, pos: Sequence[str] = ("VERB",), **kwargs
) -> Dict[str, Any]:
    """B-cubed P/R/F1 (clustering/metrics.py) of the induced frames the pipeline assigned
    (`span._.induced_frame` of the predicted docs) against the gold frames of the gold
    targets of the inducer's parts of speech `pos` (by lexical unit, else tag:
    `is_predicate`). A gold target left without an induced frame (not found, or no
    centroids) is a cluster of its own: every gold instance counts, as in the induction
    protocol, where every instance is clustered. Fractions in [0, 1], like the scorers."""
    from ..clustering.metrics import bcubed
    from ..suggesters.frames import is_predicate

    gold: List[str] = []
    pred: List[str] = []
    unassigned = 0
    for eg in examples:
        for ref in eg.reference.spans.get(targets_key, []):
            if not ref.label_ or not is_predicate(ref, pos):
                continue
            # Span._ values are keyed by character offsets: any span there reads them
            span = eg.predicted.char_span(ref.start_char, ref.end_char, alignment_mode="expand")
            cluster = span._.induced_frame if span is not None else None
            if cluster is None:
                unassigned += 1
                cluster = f"unassigned:{len(pred)}"  # cluster ids are "F0042": no clash
            gold.append(ref.label_)
            pred.append(cluster)
    if not gold:
        return {
            "induce_bcp": None,
            "induce_bcr": None,
            "induce_bcf": None,
            "induce_instances": 0,
            "induce_unassigned": 0,
        }
    p, r, f = bcubed(gold, pred)
    return {
        "induce_bcp": p,
        "induce_bcr": r,
        "induce_bcf": f,
        "induce_instances": len(gold),
        "induce_unassigned": unassigned,
    }

"""The frame_inducer scorer: how well the embeddings of the gold targets group by frame
(model selection while training). The clustering scores of the evaluation protocol are
in induction_eval.py and clustering/metrics.py."""
from typing import Any, Dict, Iterable

import numpy
from spacy.training import Example


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

"""The settings grid of the product's frame_elements on dev: the suggester's n-gram gap, the
decoding (exact or greedy), pieces per FE and the decision threshold, each row with both
measures and the suggester's recall of the gold FEs. The product tunes the threshold alone
(`spacy-frames tune-fe-threshold`) at the gap, decoding and pieces this grid chose; the
study's tables read the grid (`python -m frames_lab.fe_research tune` on a product
pipeline)."""

import itertools
from typing import Any, Dict, List, Optional, Sequence

from spacy.language import Language
from spacy.tokens import Doc, SpanGroup
from spacy.training import Example

from spacy_frames.extensions import fe_target_id, make_fe_span
from spacy_frames.pipeline.frame_elements import FrameElements
from spacy_frames.scoring.frame_elements import score_frame_elements
from spacy_frames.scoring.prf import pct

from .decoding import decode
from .fitting import _suggester_with_gap, gold_fe_offsets

MEASURES = ("fe_p", "fe_r", "fe_f", "fe_os_p", "fe_os_r", "fe_os_f")


def product_grid(
    nlp: Language,
    examples: Sequence[Example],
    *,
    thresholds: Sequence[float],
    ngram_gaps: Sequence[Optional[int]] = (None, 2, 0),
    decodings: Sequence[str] = ("exact", "greedy"),
    max_pieces: Sequence[int] = (1,),
    criterion: str = "fe_os_f",
    batch_size: int = 32,
) -> Dict[str, Any]:
    """Every (gap, decoding, pieces, threshold) of the product's frame_elements of `nlp` on
    `examples` (gold frames): the model runs once per gap, each setting re-decodes. Returns
    the configured setting's row ("before"), the best for `criterion` (of equal, the fewest
    candidate rows) and the grid; the pipeline is left as it was."""
    pipe = nlp.get_pipe("frame_elements")
    docs = pipe.preceding_docs(nlp, examples, batch_size)
    chunks = [docs[i : i + batch_size] for i in range(0, len(docs), batch_size)]
    settings = dict(nlp.config["components"]["frame_elements"]["suggester"])
    configured = (settings.get("ngram_gap"), "exact", 1, pipe.cfg["threshold"])
    saved, rows = (pipe.suggester, pipe.cfg["threshold"]), []
    try:
        for gap in ngram_gaps:
            pipe.suggester = _suggester_with_gap(settings, gap)
            predictions = [pipe.predict(chunk) for chunk in chunks]
            n_rows = sum(int(p["candidates"].target_sizes.sum()) for p in predictions)
            recall = candidate_recall(pipe, chunks, predictions, examples)
            for decoding, pieces, threshold in itertools.product(decodings, max_pieces, thresholds):
                pipe.cfg["threshold"] = threshold
                for chunk, prediction in zip(chunks, predictions):
                    annotate(pipe, chunk, prediction, decoding, pieces)
                scores = score_frame_elements(
                    [Example(d, eg.reference) for d, eg in zip(docs, examples)], component=pipe
                )
                row = {"ngram_gap": gap, "decoding": decoding, "max_pieces": pieces, "threshold": threshold}
                rows.append(
                    {
                        **row,
                        "candidate_rows": n_rows,
                        "candidate_recall": recall,
                        **{k: pct(scores[k]) for k in MEASURES},
                    }
                )
    finally:
        pipe.suggester, pipe.cfg["threshold"] = saved
        for key in ("decoding", "max_pieces"):  # set by `annotate` for a subclass that reads them
            pipe.cfg.pop(key, None)
    keys = ("ngram_gap", "decoding", "max_pieces", "threshold")
    current = next((r for r in rows if tuple(r[k] for k in keys) == configured), None)
    best = max(rows, key=lambda r: (r[criterion] or 0.0, -r["candidate_rows"]))
    return {"before": current, "best": {**best, "criterion": criterion}, "grid": rows}


def annotate(pipe, docs: List[Doc], prediction: Dict[str, Any], decoding: str, max_pieces: int) -> None:
    """The product's set_annotations with another decoding or more pieces per FE (a study's
    subclass that decodes its own way reads them from its cfg)."""
    if type(pipe).set_annotations is not FrameElements.set_annotations:
        pipe.cfg.update(decoding=decoding, max_pieces=max_pieces)
        pipe.set_annotations(docs, prediction)
        return
    per_target = iter(pipe._positive_candidates(prediction))
    for doc, doc_targets in zip(docs, prediction["targets"]):
        group = SpanGroup(doc, name=pipe.cfg["fe_key"])
        for target in doc_targets:
            excludes = pipe.frame_excludes(target.label_)
            for fe_start, fe_end, fe_label, _ in decode(next(per_target), decoding, excludes, max_pieces):
                group.append(make_fe_span(target, fe_start, fe_end, fe_label))
        doc.spans[pipe.cfg["fe_key"]] = group


def candidate_recall(
    pipe, chunks: List[List[Doc]], predictions: List[Dict[str, Any]], examples: Sequence[Example]
) -> Optional[float]:
    """The share of the gold FE spans of the gold targets (those on their target included)
    that are candidate rows, in percent."""
    found = n_gold = 0
    per_doc = [
        (doc, doc_targets, doc_rows)
        for chunk, prediction in zip(chunks, predictions)
        for doc, doc_targets, doc_rows in zip(chunk, prediction["targets"], prediction["candidates"].rows)
    ]
    sizes = iter(size for prediction in predictions for size in prediction["candidates"].target_sizes.tolist())
    for (doc, doc_targets, doc_rows), eg in zip(per_doc, examples):
        gold, targets, n = gold_fe_offsets(eg, pipe.cfg["fe_key"], pipe.cfg["targets_key"])
        n_gold += n
        first = 0
        for target in doc_targets:
            size = next(sizes)
            spans = gold.pop(fe_target_id(target), set())
            if spans and (target.start_char, target.end_char) in targets:
                for ss, se in doc_rows[first : first + size, 2:].tolist():
                    found += (doc[ss].idx, doc[se - 1].idx + len(doc[se - 1])) in spans
            first += size
    return round(100.0 * found / n_gold, 2) if n_gold else None

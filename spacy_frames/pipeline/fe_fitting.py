"""frame_elements' settings fitted after training, on dev (`spacy-frames tune-fe-threshold`):
the suggester's n-gram gap, the decoding, pieces per FE and the decision threshold, chosen
for one of the two measures, with the suggester's recall of the gold FEs.
"""

import itertools
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

from ..extensions import fe_link_offsets, fe_target_id
from ..scoring.frame_elements import score_frame_elements
from ..scoring.prf import pct
from .base import set_config_block, set_runtime_settings


class FEFittingMixin:
    """`find_threshold` of FrameElements (see the module docstring)."""

    def find_threshold(
        self,
        examples: Sequence[Example],
        *,
        nlp: Language,
        thresholds: Sequence[float],
        decodings: Sequence[str] = ("exact", "greedy"),
        ngram_gaps: Sequence[Optional[int]] = (None,),
        max_pieces: Sequence[int] = (1,),
        criterion: str = "fe_f",
        batch_size: int = 32,
    ) -> Dict[str, Any]:
        """Choose the suggester's n-gram gap (`ngram_gaps`), the decoding, pieces per FE
        (`max_pieces`) and the decision threshold (the gain, log p(FE) - log p(no FE), a
        candidate must exceed) for `criterion` on `examples` (gold frames; a dev set):
        "fe_f" (exact span and name) or "fe_os_f" (open-sesame's measure); and use them: in
        cfg, the suggester and the pipeline's config (`set_runtime_settings`), which
        config.cfg saves. The model runs once per gap; each setting re-decodes. The best is the highest
        criterion; of equal, the fewest candidate rows (the component's cost). Returns the
        configured setting's row ("before"), the best, the whole grid (both measures in
        every row) and the suggester settings chosen ("suggester")."""
        if criterion not in ("fe_f", "fe_os_f"):
            raise ValueError(f"[{self.name}] criterion must be 'fe_f' or 'fe_os_f', got {criterion!r}")
        docs = self._docs_before(nlp, examples, batch_size)
        settings = nlp.config["components"][self.name].get("suggester") or {}
        saved = (self.cfg["decoding"], self.cfg["threshold"], self.cfg["max_pieces"], self.suggester)
        rows = []
        try:
            for gap in ngram_gaps:
                # the configured gap keeps the configured suggester (one without n-grams too)
                configured = gap == settings.get("ngram_gap")
                self.suggester = saved[3] if configured else _suggester_with_gap(settings, gap)
                rows.extend(self._grid_rows(docs, examples, batch_size, gap, decodings, max_pieces, thresholds))
        finally:
            self.cfg["decoding"], self.cfg["threshold"], self.cfg["max_pieces"], self.suggester = saved
        setting = ("decoding", "threshold", "max_pieces", "ngram_gap")
        current = next(
            (r for r in rows if tuple(r[k] for k in setting) == (*saved[:3], settings.get("ngram_gap"))), None
        )
        best = max(rows, key=lambda r: (r[criterion] or 0.0, -r["candidate_rows"]))
        best = {**best, "criterion": criterion}
        # the choice in the component and in the pipeline's config, which config.cfg saves
        set_runtime_settings(nlp, self.name, {key: best[key] for key in ("decoding", "threshold", "max_pieces")})
        if best["ngram_gap"] != settings.get("ngram_gap"):
            set_config_block(nlp, self.name, "suggester", {"ngram_gap": best["ngram_gap"]})
            self.suggester = _suggester_with_gap(settings, best["ngram_gap"])
        return {"before": current, "best": best, "grid": rows, "suggester": {"ngram_gap": best["ngram_gap"]}}

    def _docs_before(self, nlp: Language, examples: Sequence[Example], batch_size: int) -> List[Doc]:
        """The examples' texts through the components before this one (the inventory's
        owner excepted: the gold frames are read)."""
        owner = self.cfg["inventory_component"]
        before = [n for n in nlp.pipe_names[: nlp.pipe_names.index(self.name)] if n != owner]
        with nlp.select_pipes(enable=before):
            return list(nlp.pipe((eg.predicted for eg in examples), batch_size=batch_size))

    def _grid_rows(self, docs, examples, batch_size, gap, decodings, max_pieces, thresholds) -> List[Dict[str, Any]]:
        """One row per (decoding, pieces, threshold) of the current suggester's predictions."""
        predictions = [
            (chunk, self.predict(chunk))
            for chunk in (docs[i : i + batch_size] for i in range(0, len(docs), batch_size))
        ]
        n_rows = sum(int(prediction["candidates"].target_sizes.sum()) for _, prediction in predictions)
        recall = self._candidate_recall(predictions, examples)
        rows = []
        for decoding, pieces, threshold in itertools.product(decodings, max_pieces, thresholds):
            self.cfg.update(decoding=decoding, threshold=threshold, max_pieces=pieces)
            for chunk, prediction in predictions:
                self.set_annotations(chunk, prediction)
            scored = [Example(doc, eg.reference) for doc, eg in zip(docs, examples)]
            scores = score_frame_elements(scored, component=self)  # both measures
            rows.append(
                {
                    "ngram_gap": gap,
                    "decoding": decoding,
                    "max_pieces": pieces,
                    "threshold": threshold,
                    "candidate_rows": n_rows,
                    "candidate_recall": recall,
                    **{k: pct(scores[k]) for k in ("fe_p", "fe_r", "fe_f", "fe_os_p", "fe_os_r", "fe_os_f")},
                }
            )
        return rows

    def _candidate_recall(
        self, predictions: List[Tuple[List[Doc], Dict[str, Any]]], examples: Sequence[Example]
    ) -> Optional[float]:
        """The share of the gold FE spans of the gold targets (those on their target
        included) that are candidate rows, in percent."""
        found = n_gold = 0
        per_doc = [
            (doc, doc_targets, doc_rows)
            for chunk, prediction in predictions
            for doc, doc_targets, doc_rows in zip(chunk, prediction["targets"], prediction["candidates"].rows)
        ]
        sizes = iter(size for _, prediction in predictions for size in prediction["candidates"].target_sizes.tolist())
        for (doc, doc_targets, doc_rows), eg in zip(per_doc, examples):
            gold: Dict[str, Set[Tuple[int, int]]] = {}
            for fe in eg.reference.spans.get(self.cfg["fe_key"], []):
                gold.setdefault(fe.id_, set()).add((fe.start_char, fe.end_char))
            targets = {(t.start_char, t.end_char) for t in eg.reference.spans.get(self.cfg["targets_key"], [])}
            n_gold += sum(len(spans) for key, spans in gold.items() if fe_link_offsets(key) in targets)
            first = 0
            for target in doc_targets:
                size = next(sizes)
                spans = gold.pop(fe_target_id(target), set())
                if spans and (target.start_char, target.end_char) in targets:
                    for ss, se in doc_rows[first : first + size, 2:].tolist():
                        found += (doc[ss].idx, doc[se - 1].idx + len(doc[se - 1])) in spans
                first += size
        return round(100.0 * found / n_gold, 2) if n_gold else None


def _suggester_with_gap(settings: Dict[str, Any], ngram_gap: Optional[int]) -> Callable:
    """The suggester of the config block `settings` with `ngram_gap` set."""
    settings = {**settings, "ngram_gap": ngram_gap}
    factory = registry.misc.get(settings.pop("@misc", "spacy-frames.fe_candidate_suggester.v1"))
    return factory(**settings)

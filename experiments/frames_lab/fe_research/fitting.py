"""The research frame_elements' settings fitted after training, on dev
(`python -m frames_lab.fe_research tune`): the candidate set, decoding, pieces per FE and decision threshold, chosen for one of the two
measures, with the suggester's recall of the gold FEs before and after pruning.
"""

import itertools
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

from spacy_frames.extensions import fe_link_offsets, fe_target_id
from spacy_frames.scoring.frame_elements import score_frame_elements
from spacy_frames.scoring.prf import pct


class FEFittingMixin:
    """`find_threshold` of FrameElementsResearch (see the module docstring)."""

    def find_threshold(
        self,
        examples: Sequence[Example],
        *,
        nlp: Language,
        thresholds: Sequence[float],
        decodings: Sequence[str] = ("exact", "greedy"),
        ngram_gaps: Sequence[Optional[int]] = (None,),
        phrases_clauses: Sequence[Optional[bool]] = (None,),
        max_pieces: Sequence[int] = (1,),
        criterion: str = "fe_f",
        batch_size: int = 32,
    ) -> Dict[str, Any]:
        """Choose the candidate set (the suggester's `ngram_gaps`, and with `phrases_clauses`
        True frames-lab.fe_candidate_suggester.v2's phrases and clauses, False without them, None as
        configured), decoding, pieces per FE
        (`max_pieces`) and decision threshold (the gain, log p(FE) - log p(no FE), a
        candidate must exceed) for `criterion` on `examples` (gold frames; a dev set):
        "fe_f" (exact span and name) or "fe_os_f" (open-sesame's measure); and use them:
        decoding, pieces and threshold in cfg, the suggester rebuilt with the gap (which
        config.cfg records only when the pipeline is saved with it). The model runs once per
        candidate set, each setting re-decodes. The best is the highest criterion; of equal,
        the fewest candidate rows (the component's cost). Returns the configured setting's
        row ("before"), the best, the whole grid (both measures in every row) and the
        suggester settings to record in config.cfg ("suggester")."""
        if criterion not in ("fe_f", "fe_os_f"):
            raise ValueError(f"[{self.name}] criterion must be 'fe_f' or 'fe_os_f', got {criterion!r}")
        before = [n for n in nlp.pipe_names[: nlp.pipe_names.index(self.name)] if n != "frame_identifier"]
        with nlp.select_pipes(enable=before):
            docs = list(nlp.pipe((eg.predicted for eg in examples), batch_size=batch_size))
        settings = nlp.config["components"][self.name].get("suggester") or {}
        configured = settings.get("ngram_gap")
        configured_extras = bool(settings.get("phrases")) and bool(settings.get("clauses"))
        saved, rows = (self.cfg["decoding"], self.cfg["threshold"], self.suggester), []
        saved_pieces = self.cfg.get("max_pieces", 1)
        try:
            for gap, extras in itertools.product(ngram_gaps, phrases_clauses):
                self.suggester = _suggester_with_gap(settings, gap, extras)
                candidates = {"ngram_gap": gap, "phrases_clauses": configured_extras if extras is None else extras}
                grid = itertools.product(decodings, max_pieces, thresholds)
                rows += self._grid_rows(docs, examples, candidates, grid, batch_size)
        finally:
            self.cfg["decoding"], self.cfg["threshold"], self.suggester = saved
            self.cfg["max_pieces"] = saved_pieces
        setting = ("decoding", "threshold", "max_pieces", "ngram_gap", "phrases_clauses")
        current = next(
            (
                r
                for r in rows
                if tuple(r[k] for k in setting) == (*saved[:2], saved_pieces, configured, configured_extras)
            ),
            None,
        )
        best = max(rows, key=lambda r: (r[criterion] or 0.0, -r["candidate_rows"]))
        best = {**best, "criterion": criterion}
        self.cfg.update(decoding=best["decoding"], threshold=best["threshold"], max_pieces=best["max_pieces"])
        # the configured suggester unless the best turns v2's extras on or off otherwise
        extras = None if best["phrases_clauses"] == configured_extras else best["phrases_clauses"]
        self.suggester = _suggester_with_gap(settings, best["ngram_gap"], extras)
        chosen = suggester_settings({}, best["ngram_gap"], extras)
        return {"before": current, "best": best, "grid": rows, "suggester": chosen}

    def _grid_rows(
        self,
        docs: List[Doc],
        examples: Sequence[Example],
        candidates: Dict[str, Any],
        grid: Iterable[Tuple[str, int, float]],
        batch_size: int,
    ) -> List[Dict[str, Any]]:
        """One candidate set (the current suggester, `candidates` its settings): the model
        run once on `docs`, then each (decoding, pieces per FE, threshold) of `grid`
        decoded and scored with both measures, a row each."""
        predictions = [
            (chunk, self.predict(chunk))
            for chunk in (docs[i : i + batch_size] for i in range(0, len(docs), batch_size))
        ]
        n_rows = sum(len(r) for _, prediction in predictions for r in prediction["rows"])
        recall = self._candidate_recall(predictions, examples)
        rows = []
        for decoding, pieces, threshold in grid:
            self.cfg.update(decoding=decoding, threshold=threshold, max_pieces=pieces)
            for chunk, prediction in predictions:
                self.set_annotations(chunk, prediction)
            scored = [Example(doc, eg.reference) for doc, eg in zip(docs, examples)]
            scores = score_frame_elements(scored, component=self)  # both measures
            rows.append(
                {
                    **candidates,
                    "decoding": decoding,
                    "max_pieces": pieces,
                    "threshold": threshold,
                    "candidate_rows": n_rows,
                    **recall,
                    **{k: pct(scores[k]) for k in ("fe_p", "fe_r", "fe_f", "fe_os_p", "fe_os_r", "fe_os_f")},
                }
            )
        return rows

    def _candidate_recall(self, predictions: List[Tuple[List[Doc], Dict[str, Any]]], examples: Sequence[Example]):
        """The share of the gold FE spans (of the gold targets, those on their target
        included) that are candidate rows (`candidate_recall`) and that pruning kept
        (`kept_recall`), in percent."""
        found = kept_found = n_gold = 0
        docs = [doc for chunk, _ in predictions for doc in chunk]
        per_doc = [
            (doc_targets, doc_rows, doc_ranges, prediction["kept"], offset)
            for _, prediction in predictions
            for doc_targets, doc_rows, doc_ranges, offset in zip(
                prediction["targets"],
                prediction["rows"],
                prediction["ranges"],
                numpy.cumsum([0] + [len(r) for r in prediction["rows"]])[:-1],
            )
        ]
        for doc, eg, (doc_targets, doc_rows, doc_ranges, kept, offset) in zip(docs, examples, per_doc):
            gold, targets, n = gold_fe_offsets(eg, self.cfg["fe_key"], self.cfg["targets_key"])
            n_gold += n
            for target, (first, last) in zip(doc_targets, doc_ranges):
                spans = gold.pop(fe_target_id(target), set())
                if not spans or (target.start_char, target.end_char) not in targets:
                    continue
                for r in range(first, last):
                    ss, se = int(doc_rows[r][2]), int(doc_rows[r][3])
                    if (doc[ss].idx, doc[se - 1].idx + len(doc[se - 1])) in spans:
                        found += 1
                        kept_found += bool(kept[offset + r])
        return {
            "candidate_recall": round(100.0 * found / n_gold, 2) if n_gold else None,
            "kept_recall": round(100.0 * kept_found / n_gold, 2) if n_gold else None,
        }


def gold_fe_offsets(eg: Example, fe_key: str, targets_key: str):
    """The example's gold FE spans (character offsets) per target link, its gold targets'
    offsets and the number of gold FEs of those targets."""
    gold: Dict[str, Set[Tuple[int, int]]] = {}
    for fe in eg.reference.spans.get(fe_key, []):
        gold.setdefault(fe.id_, set()).add((fe.start_char, fe.end_char))
    targets = {(t.start_char, t.end_char) for t in eg.reference.spans.get(targets_key, [])}
    return gold, targets, sum(len(spans) for key, spans in gold.items() if fe_link_offsets(key) in targets)


V1 = "frames-lab.fe_candidate_suggester.v1"
V2 = "frames-lab.fe_candidate_suggester.v2"


def suggester_settings(settings: Dict[str, Any], ngram_gap: Optional[int], extras: Optional[bool] = None) -> Dict:
    """The config block `settings` with `ngram_gap` set and, unless `extras` is None,
    fe_candidate_suggester.v2 with its phrases and clauses on (True) or off (False)."""
    settings = {**settings, "ngram_gap": ngram_gap}
    if extras is not None:
        settings.update({"@misc": V2, "phrases": bool(extras), "clauses": bool(extras)})
    return settings


def _suggester_with_gap(settings: Dict[str, Any], ngram_gap: Optional[int], extras: Optional[bool] = None) -> Callable:
    """The suggester of `suggester_settings(settings, ngram_gap, extras)`."""
    settings = suggester_settings(settings, ngram_gap, extras)
    factory = registry.misc.get(settings.pop("@misc", V1))
    return factory(**settings)

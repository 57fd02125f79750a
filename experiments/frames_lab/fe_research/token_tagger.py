"""frame_elements as a token tagger conditioned on the target (open-sesame's and
frame-semantic-transformer's output shape): the parse-free alternative of the FE parse
screen (experiments/frame_elements, `scripts/fe_parse_screen.py`).

Built from the product's component and model (`spacy_frames.pipeline.frame_elements`,
`spacy-frames.FrameElementScorer.v3`), with three changes:

- candidates (`frames-lab.fe_token_suggester.v1`): every token of the target's window,
  the target's own tokens included, one row each (linear in the sentence length per
  target; no parse);
- options: "outside" (the model's "no FE") and, per FE of the target's frame, a B- and an
  I- vector (the FE table holds "B-Name" and "I-Name"); the loss is the product's, per
  token;
- decoding: each token takes its best option when its gain over "outside" exceeds the
  threshold; the B-/I- tags make spans (`bio_spans`, lenient: an I- without its B- opens a
  span); each span's gain is its tokens' mean, and the product's decoder keeps the best
  valid set (no overlap, pieces per FE, FrameNet's Excludes).
"""

import inspect
from typing import Any, Callable, Dict, Iterable, List, Optional

import numpy
from spacy.language import Language
from spacy.tokens import Doc, SpanGroup
from spacy.training import Example
from spacy.util import registry
from thinc.api import Model, Ops
from thinc.types import Ragged

from spacy_frames.corpora.framenet_elements import bio_spans
from spacy_frames.extensions import FRAMES_KEY, fe_target_id, make_fe_span
from spacy_frames.pipeline.frame_elements import FrameElements, make_frame_elements
from spacy_frames.suggesters import to_ragged
from spacy_frames.suggesters.frame_elements import DocArrays

from .decoding import decode

TAGS = ("B", "I")


@registry.misc("frames-lab.fe_token_suggester.v1")
def build_fe_token_suggester(window: int = 30) -> Callable[..., Ragged]:
    """Rows [target_start, target_end, i, i + 1] for every token i of the target's
    sentence within `window` tokens of it, the target's tokens included."""
    if window < 1:
        raise ValueError(f"fe_token_suggester: window must be >= 1, got {window}")

    def suggest(docs: Iterable[Doc], *, ops: Optional[Ops] = None, frames_key: str = FRAMES_KEY) -> Ragged:
        rows = []
        for doc in docs:
            targets = [t for t in doc.spans[frames_key] if len(t)] if frames_key in doc.spans else []
            doc_rows = [numpy.zeros((0, 4), dtype="int32")]
            if targets:
                tokens = DocArrays(doc)
                for t in targets:
                    lo = max(int(tokens.sent_start[t.start]), t.start - window)
                    hi = min(max(int(tokens.sent_end[t.start]), t.end), t.end + window)
                    i = numpy.arange(lo, hi)
                    doc_rows.append(
                        numpy.column_stack([numpy.full_like(i, t.start), numpy.full_like(i, t.end), i, i + 1])
                    )
            rows.append(numpy.concatenate(doc_rows).astype("int32"))
        return to_ragged(rows, width=4, ops=ops)

    return suggest


def make_frame_elements_bio(nlp: Language, name: str, model: Model, **settings: Any) -> "FrameElementsBIO":
    """The product's factory settings (its signature, below); `suggester`:
    frames-lab.fe_token_suggester.v1."""
    return FrameElementsBIO(nlp.vocab, model, name, **settings)


# spaCy validates a factory's config against its signature: the product's
make_frame_elements_bio.__signature__ = inspect.signature(make_frame_elements)
Language.factory(
    "frame_elements_bio",
    assigns=["doc.spans", "span._.frame_elements"],
    requires=["doc.spans"],
    default_config={
        **Language.get_factory_meta("frame_elements").default_config,
        "suggester": {"@misc": "frames-lab.fe_token_suggester.v1", "window": 30},
    },
    default_score_weights=Language.get_factory_meta("frame_elements").default_score_weights,
)(make_frame_elements_bio)


class FrameElementsBIO(FrameElements):
    """frame_elements tagging the tokens of each target's window (the module docstring)."""

    # -- the table: a B- and an I- vector per FE name ------------------------------------
    @staticmethod
    def _table_names(fe_names: Iterable[str]) -> List[str]:
        return [f"{tag}-{name}" for name in fe_names for tag in TAGS]

    # -- gold: each token's tag for its target ---------------------------------------------
    def _gold_columns(self, examples: List[Example], targets, candidates) -> numpy.ndarray:
        gold = numpy.zeros(int(candidates.target_sizes.sum()), dtype="i")
        sizes, t, offset = candidates.target_sizes.tolist(), 0, 0
        for eg, doc_targets, doc_rows in zip(examples, targets, candidates.rows):
            fes: Dict[str, List] = {}
            for fe in eg.reference.spans.get(self.cfg["fe_key"], []):
                fes.setdefault(fe.id_, []).append((fe.start_char, fe.end_char, fe.label_))
            doc = eg.predicted
            first = 0
            for target in doc_targets:
                size, opts = sizes[t], candidates.options[t]
                column = {self.fe_names[o - 1]: j for j, o in enumerate(opts.tolist()) if j}
                # the first FE over a token wins (a tag sequence cannot hold two)
                for start, end, label in sorted(fes.get(fe_target_id(target), [])):
                    for r in range(first, first + size):
                        token = doc[int(doc_rows[r, 2])]
                        if gold[offset + r] or not (start <= token.idx < end):
                            continue
                        tag = "B" if token.idx == start else "I"
                        gold[offset + r] = column.get(f"{tag}-{label}", 0)
                first, t = first + size, t + 1
            offset += len(doc_rows)
        return gold

    # -- decoding: tags to spans, then the best valid set --------------------------------------
    def set_annotations(self, docs: Iterable[Doc], predictions: Dict) -> None:
        candidates, scores = predictions["candidates"], predictions["scores"]
        temperature = getattr(self.loss, "temperature", 1.0)
        sizes = candidates.target_sizes.tolist()
        t = 0
        for doc, doc_targets, doc_rows in zip(docs, predictions["targets"], candidates.rows):
            group = SpanGroup(doc, name=self.cfg["fe_key"])
            row = int(sum(sizes[:t]))
            first = 0
            for target in doc_targets:
                size, opts = sizes[t], candidates.options[t].tolist()
                block = scores[row : row + size, : len(opts)]
                gains = (block[:, 1:] - block[:, :1]) / temperature - self.cfg["threshold"]
                best = gains.argmax(axis=1) if len(opts) > 1 else numpy.zeros(size, dtype="int64")
                tags = [
                    self.fe_names[opts[b + 1] - 1] if len(opts) > 1 and gains[i, b] > 0 else "O"
                    for i, b in enumerate(best.tolist())
                ]
                tokens = doc_rows[first : first + size, 2].tolist()
                cands = []
                for label, a, b in bio_spans(tags):
                    if tokens[b - 1] - tokens[a] != b - 1 - a:
                        continue  # never across a gap in the rows (none: the window is contiguous)
                    gain = float(numpy.mean([gains[i, best[i]] for i in range(a, b)]))
                    cands.append((tokens[a], tokens[b - 1] + 1, label, gain))
                # the product's decoding (exact, one piece) unless the settings grid sets others
                decoding, pieces = self.cfg.get("decoding", "exact"), self.cfg.get("max_pieces", 1)
                for start, end, label, _ in decode(cands, decoding, self.frame_excludes(target.label_), pieces):
                    group.append(make_fe_span(target, start, end, label))
                row, first, t = row + size, first + size, t + 1
            doc.spans[self.cfg["fe_key"]] = group

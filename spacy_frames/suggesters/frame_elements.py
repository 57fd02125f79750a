"""The spans frame_elements scores as arguments of each frame target
(`spacy-frames.fe_candidate_suggester.v1`).

Rows [target_start, target_end, span_start, span_end]: for every frame span of
`doc.spans[frames_key]`, the candidate spans of the target's sentence, within `window`
tokens of the target on either side:
- every n-gram of 1..`max_ngram` tokens;
- when the doc has a dependency parse, every token's subtree, and the subtree without
  its leading preposition or trailing punctuation (FrameNet often marks "to [the
  bank]"-style FEs either way), which reaches the long clausal FEs n-grams miss.
A candidate never overlaps its target (the FE layer excludes the target; FEs that do
overlap it are skipped in the data and counted). Sentences come from the pipeline when it
sets them, else the whole doc is one sentence (the window still bounds the cost).
"""
from functools import partial
from typing import Callable, Iterable, List, Optional, Set, Tuple

from spacy.tokens import Doc, Span
from spacy.util import registry
from thinc.api import Ops
from thinc.types import Ragged

from ..extensions import FRAMES_KEY
from . import to_ragged


@registry.misc("spacy-frames.fe_candidate_suggester.v1")
def build_fe_candidate_suggester(max_ngram: int = 4, window: int = 30, subtrees: bool = True) -> Callable[..., Ragged]:
    """Context: `frames_key` (the key of the frame spans whose arguments are wanted)."""
    if max_ngram < 1 or window < 1:
        raise ValueError(f"fe_candidate_suggester: max_ngram and window must be >= 1, got {max_ngram}, {window}")

    # A partial of a module-level function, not a closure: the pipeline must pickle for
    # nlp.pipe(n_process=...) under the spawn start method (macOS, Windows).
    return partial(suggest_fe_candidates, max_ngram=max_ngram, window=window, subtrees=subtrees)


def suggest_fe_candidates(
    docs: Iterable[Doc], *, ops: Optional[Ops] = None, frames_key: str = FRAMES_KEY, max_ngram: int = 4, window: int = 30, subtrees: bool = True
) -> Ragged:
    rows = []
    for doc in docs:
        doc_rows: List[Tuple[int, int, int, int]] = []
        for target in doc.spans[frames_key] if frames_key in doc.spans else []:
            if not len(target):
                continue
            for start, end in fe_candidates(doc, target, max_ngram, window, subtrees):
                doc_rows.append((target.start, target.end, start, end))
        rows.append(doc_rows)
    return to_ragged(rows, width=4, ops=ops)


def sentence_bounds(doc: Doc, target: Span) -> Tuple[int, int]:
    if doc.has_annotation("SENT_START"):
        sent = doc[target.start].sent
        return sent.start, max(sent.end, target.end)
    return 0, len(doc)


def fe_candidates(doc: Doc, target: Span, max_ngram: int, window: int, subtrees: bool = True) -> List[Tuple[int, int]]:
    """Sorted (start, end) candidates for one target (see the module docstring)."""
    sent_start, sent_end = sentence_bounds(doc, target)
    lo, hi = max(sent_start, target.start - window), min(sent_end, target.end + window)
    found: Set[Tuple[int, int]] = set()

    def add(start: int, end: int) -> None:
        if lo <= start < end <= hi and (end <= target.start or start >= target.end):
            found.add((start, end))

    for start in range(lo, hi):
        for n in range(1, max_ngram + 1):
            add(start, start + n)
    if subtrees and doc.has_annotation("DEP"):
        for token in doc[lo:hi]:
            start, end = token.left_edge.i, token.right_edge.i + 1
            add(start, end)
            if doc[start].dep_ == "prep" or doc[start].pos_ == "ADP":
                add(start + 1, end)
            if end - start > 1 and doc[end - 1].is_punct:
                add(start, end - 1)
    return sorted(found)

"""The spans the research frame_elements scores as arguments of each frame target
(`frames-lab.fe_candidate_suggester.v1`).

Rows [target_start, target_end, span_start, span_end]: v1's candidates are the product's
(`spacy-frames.fe_candidate_suggester.v1`, spacy_frames.suggesters.frame_elements, whose
docstring lists them: n-grams near the target, subtrees, the target itself), and
- with `phrases` (and a parse), every phrase the target sits in, cut at the target: for
  the target's head word and each of its ancestors, the part of the ancestor's subtree
  after the target and the part before it ("the strongest [critics of our welfare
  system]": the Entity of *strongest*, a phrase no subtree and no short n-gram gives);
- with `clauses`, the text between the target and the nearest punctuation mark on each
  side, and between the target and each sentence edge (with and without the final
  punctuation mark): clausal FEs ("complaint [that the system discourages working]").
`frames-lab.fe_candidate_suggester.v2` turns `phrases` and `clauses` on, with the
target and the n-grams next to it (v1's defaults offer neither).
No other candidate overlaps its target (FEs that overlap their target without being it
are 0.4 % of those on the target in FN1.5 full text). Sentences come from the pipeline when it
sets them, else the whole doc is one sentence (the window still bounds the cost).
"""

from functools import partial
from typing import Callable, Iterable, List, NamedTuple, Optional, Tuple

import numpy
from spacy.tokens import Doc, Span
from spacy.util import registry
from thinc.api import Ops
from thinc.types import Ragged

from spacy_frames.extensions import FRAMES_KEY
from spacy_frames.suggesters import to_ragged

# v1's candidates are the product's (spacy_frames.suggesters.frame_elements): its doc
# arrays, its step over a block of targets and the block size; the lab adds v2's phrases
# and clauses to them
from spacy_frames.suggesters.frame_elements import TARGETS_PER_STEP, DocArrays
from spacy_frames.suggesters.frame_elements import _block_candidates as _v1_block_candidates
from spacy_frames.suggesters.frame_elements import build_fe_candidate_suggester as _v1_build


@registry.misc("frames-lab.fe_candidate_suggester.v1")
def build_fe_candidate_suggester(
    max_ngram: int = 4,
    window: int = 30,
    subtrees: bool = True,
    ngram_gap: Optional[int] = None,
    include_target: bool = False,
) -> Callable[..., Ragged]:
    """Context: `frames_key` (the key of the frame spans whose arguments are wanted).
    ngram_gap: the most tokens between an n-gram candidate and its target (None: any, within
    the window). include_target: the target span is a candidate too."""
    return _build(max_ngram, window, subtrees, ngram_gap, include_target)


@registry.misc("frames-lab.fe_candidate_suggester.v2")
def build_fe_candidate_suggester_v2(
    max_ngram: int = 4,
    window: int = 30,
    subtrees: bool = True,
    ngram_gap: Optional[int] = 0,
    include_target: bool = True,
    phrases: bool = True,
    clauses: bool = True,
) -> Callable[..., Ragged]:
    """v1's candidates, (`phrases`) the phrases the target sits in cut at the target and
    (`clauses`) the text from the target to the nearest punctuation and to the sentence
    edges (module docstring)."""
    return _build(max_ngram, window, subtrees, ngram_gap, include_target, phrases, clauses)


def _build(
    max_ngram: int,
    window: int,
    subtrees: bool,
    ngram_gap: Optional[int],
    include_target: bool,
    phrases: bool = False,
    clauses: bool = False,
) -> Callable[..., Ragged]:
    # the product's checks of v1's settings, and its settings with v2's added, on a partial
    # of this module's function (a partial, not a closure: the pipeline must pickle for
    # nlp.pipe(n_process=...) under the spawn start method)
    v1 = _v1_build(max_ngram, window, subtrees, ngram_gap, include_target)
    return partial(suggest_fe_candidates, **v1.keywords, phrases=phrases, clauses=clauses)


def suggest_fe_candidates(
    docs: Iterable[Doc],
    *,
    ops: Optional[Ops] = None,
    frames_key: str = FRAMES_KEY,
    max_ngram: int = 4,
    window: int = 30,
    subtrees: bool = True,
    ngram_gap: Optional[int] = None,
    include_target: bool = False,
    phrases: bool = False,
    clauses: bool = False,
) -> Ragged:
    extra = Extras(phrases, clauses)
    rows = []
    for doc in docs:
        targets = [t for t in doc.spans[frames_key] if len(t)] if frames_key in doc.spans else []
        doc_rows = [numpy.zeros((0, 4), dtype="int32")]
        if targets:
            tokens = DocArrays(doc)
            bounds = numpy.asarray([(t.start, t.end) for t in targets], dtype="int64")
            for first in range(0, len(bounds), TARGETS_PER_STEP):
                block = bounds[first : first + TARGETS_PER_STEP]
                doc_rows.append(
                    _block_candidates(tokens, block, max_ngram, window, subtrees, ngram_gap, include_target, extra)
                )
        rows.append(numpy.concatenate(doc_rows))
    return to_ragged(rows, width=4, ops=ops)


def _block_candidates(
    tokens: DocArrays,
    bounds: numpy.ndarray,
    max_ngram: int,
    window: int,
    subtrees: bool,
    ngram_gap: Optional[int],
    include_target: bool,
    extra: "Extras",
) -> numpy.ndarray:
    """The rows [target_start, target_end, start, end] of the targets `bounds` ((k, 2)
    [start, end)), target after target, each target's candidates sorted and distinct (the
    module docstring): v1's (the product's array step over all the targets at once), and
    with `extra` each target's phrases and clauses in its window and off it, merged in."""
    if not (extra.phrases or extra.clauses):
        return _v1_block_candidates(tokens, bounds, max_ngram, window, subtrees, ngram_gap, include_target)
    # v1's rows with each target's own row, so that every target has rows: a target's run
    # ends where the target's offsets change or its (start, end) stops rising
    rows = _v1_block_candidates(tokens, bounds, max_ngram, window, subtrees, ngram_gap, True).astype("int64")
    n1 = tokens.n + 1
    local = rows[:, 2] * n1 + rows[:, 3]
    new_run = (local[1:] <= local[:-1]) | (rows[1:, :2] != rows[:-1, :2]).any(axis=1)
    which = numpy.cumsum(numpy.r_[True, new_run]) - 1
    t_start, t_end = bounds[:, 0], bounds[:, 1]
    sent_start, sent_end = tokens.sent_start[t_start], numpy.maximum(tokens.sent_end[t_start], t_end)
    lo, hi = numpy.maximum(sent_start, t_start - window), numpy.minimum(sent_end, t_end + window)
    # a few spans per target, from its own walk up the tree; in its window and off it
    sents = zip(bounds.tolist(), sent_start.tolist(), sent_end.tolist())
    more = [_extra_spans(tokens, a, b, s, e, extra) for (a, b), s, e in sents]
    more_which = numpy.concatenate([numpy.full(len(spans[0]), i) for i, spans in enumerate(more)])
    start, end = numpy.concatenate([spans[0] for spans in more]), numpy.concatenate([spans[1] for spans in more])
    keep = (lo[more_which] <= start) & (start < end) & (end <= hi[more_which])
    keep &= (end <= t_start[more_which]) | (start >= t_end[more_which])
    which = numpy.concatenate([which, more_which[keep]])
    start, end = numpy.concatenate([rows[:, 2], start[keep]]), numpy.concatenate([rows[:, 3], end[keep]])
    if not include_target:  # no other candidate is its target
        off = (start != t_start[which]) | (end != t_end[which])
        which, start, end = which[off], start[off], end[off]
    # distinct and sorted, as v1's
    codes = numpy.sort((which * n1 + start) * n1 + end)
    codes = codes[numpy.r_[True, codes[1:] != codes[:-1]]] if len(codes) else codes
    which, start, end = codes // (n1 * n1), codes // n1 % n1, codes % n1
    return numpy.column_stack([t_start[which], t_end[which], start, end]).astype("int32")


def _extra_spans(tokens: "DocArrays", t_start: int, t_end: int, sent_start: int, sent_end: int, extra: "Extras"):
    """(starts, ends) of one target's phrase and clause candidates, before the window
    ([sent_start, sent_end): the target's sentence, stretched to cover the target)."""
    starts, ends = [numpy.zeros(0, dtype="int64")], [numpy.zeros(0, dtype="int64")]
    if extra.phrases and tokens.parsed:
        phrase_starts, phrase_ends = _phrases(tokens, t_start, t_end)
        starts.append(phrase_starts)
        ends.append(phrase_ends)
    if extra.clauses:
        clause_starts, clause_ends = _clauses(tokens, t_start, t_end, sent_start, sent_end)
        starts.append(clause_starts)
        ends.append(clause_ends)
    return numpy.concatenate(starts), numpy.concatenate(ends)


class Extras(NamedTuple):
    """The candidates beyond v1's (module docstring)."""

    phrases: bool = False
    clauses: bool = False


def fe_candidates(
    doc: Doc,
    target: Span,
    max_ngram: int,
    window: int,
    subtrees: bool = True,
    ngram_gap: Optional[int] = None,
    tokens: Optional[DocArrays] = None,
    include_target: bool = False,
    extra: Extras = Extras(),
) -> List[Tuple[int, int]]:
    """Sorted (start, end) candidates for one target (see the module docstring); `tokens`:
    the doc's DocArrays, when the caller asks for many targets of one doc."""
    tokens = tokens if tokens is not None else DocArrays(doc)
    bounds = numpy.asarray([(target.start, target.end)], dtype="int64")
    rows = _block_candidates(tokens, bounds, max_ngram, window, subtrees, ngram_gap, include_target, extra)
    return [(int(a), int(b)) for a, b in rows[:, 2:]]


def _phrases(tokens: DocArrays, t_start: int, t_end: int) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """The subtree of the target's head word and of each of its ancestors, cut at the
    target: the part after it and the part before it."""
    inside = numpy.arange(t_start, t_end)
    outside = (tokens.heads[inside] < t_start) | (tokens.heads[inside] >= t_end) | (tokens.heads[inside] == inside)
    token = int(inside[outside][0]) if outside.any() else t_start
    starts, ends = [], []
    for _ in range(tokens.n):  # up to the root; a head cycle (bad input) stops at n steps
        left, right = int(tokens.left[token]), int(tokens.right[token])
        starts += [t_end, left]
        ends += [right, t_start]
        head = int(tokens.heads[token])
        if head == token:
            break
        token = head
    return numpy.asarray(starts, dtype="int64"), numpy.asarray(ends, dtype="int64")


def _clauses(
    tokens: DocArrays, t_start: int, t_end: int, sent_start: int, sent_end: int
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """From the target to the nearest punctuation mark and to the sentence edge, on each
    side; the sentence edge also without its punctuation."""
    after = numpy.flatnonzero(tokens.punct[t_end:sent_end])
    before = numpy.flatnonzero(tokens.punct[sent_start:t_start])
    next_punct = t_end + int(after[0]) if len(after) else sent_end
    prev_punct = sent_start + int(before[-1]) + 1 if len(before) else sent_start
    last = sent_end - 1 if sent_end > t_end and tokens.punct[sent_end - 1] else sent_end
    first = sent_start + 1 if sent_start < t_start and tokens.punct[sent_start] else sent_start
    starts = [t_end, t_end, t_end, prev_punct, sent_start, first]
    ends = [next_punct, sent_end, last, t_start, t_start, t_start]
    return numpy.asarray(starts, dtype="int64"), numpy.asarray(ends, dtype="int64")

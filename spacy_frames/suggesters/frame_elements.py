"""The spans frame_elements scores as arguments of each frame target
(`spacy-frames.fe_candidate_suggester.v1`): rows [target_start, target_end, span_start,
span_end] within `window` tokens of the target in its sentence, off the target: n-grams of
up to `max_ngram` tokens at most `ngram_gap` tokens from the target (None: anywhere in the
window); with a parse (`subtrees`) every token's subtree, also without its leading
preposition or trailing punctuation; with `include_target`, the target itself (FEs the word
incorporates). What each choice is worth: docs/frame_elements.md.
"""

from functools import partial
from typing import Callable, Iterable, Optional, Tuple

import numpy
from spacy.attrs import DEP, HEAD, IS_PUNCT, POS, SENT_START
from spacy.symbols import ADP
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Ops
from thinc.types import Ragged

from ..extensions import FRAMES_KEY
from . import to_ragged


@registry.misc("spacy-frames.fe_candidate_suggester.v1")
def build_fe_candidate_suggester(
    max_ngram: int = 4,
    window: int = 30,
    subtrees: bool = True,
    ngram_gap: Optional[int] = 0,
    include_target: bool = True,
) -> Callable[..., Ragged]:
    """The suggester (defaults: the shipped recipe), called with the frame spans' `frames_key`."""
    if max_ngram < 1 or window < 1:
        raise ValueError(f"fe_candidate_suggester: max_ngram and window must be >= 1, got {max_ngram}, {window}")
    if ngram_gap is not None and ngram_gap < 0:
        raise ValueError(f"fe_candidate_suggester: ngram_gap must be >= 0 or null, got {ngram_gap}")

    # not a closure: the pipeline must pickle for nlp.pipe(n_process=...) under spawn
    return partial(
        suggest_fe_candidates,
        max_ngram=max_ngram,
        window=window,
        subtrees=subtrees,
        ngram_gap=ngram_gap,
        include_target=include_target,
    )


def suggest_fe_candidates(
    docs: Iterable[Doc],
    *,
    ops: Optional[Ops] = None,
    frames_key: str = FRAMES_KEY,
    max_ngram: int,
    window: int,
    subtrees: bool,
    ngram_gap: Optional[int],
    include_target: bool,
) -> Ragged:
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
                    _block_candidates(tokens, block, max_ngram, window, subtrees, ngram_gap, include_target)
                )
        rows.append(numpy.concatenate(doc_rows))
    return to_ragged(rows, width=4, ops=ops)


# targets whose candidates are made in one array step: bounds the (targets x candidates)
# arrays on long documents
TARGETS_PER_STEP = 512


def _block_candidates(
    tokens: "DocArrays",
    bounds: numpy.ndarray,
    max_ngram: int,
    window: int,
    subtrees: bool,
    ngram_gap: Optional[int],
    include_target: bool,
) -> numpy.ndarray:
    """The rows of the targets `bounds` ((k, 2) [start, end)), target after target, each
    target's sorted and distinct, in array steps over all the targets at once."""
    t_start, t_end = bounds[:, 0], bounds[:, 1]
    sent_start, sent_end = tokens.sent_start[t_start], numpy.maximum(tokens.sent_end[t_start], t_end)
    lo, hi = numpy.maximum(sent_start, t_start - window), numpy.minimum(sent_end, t_end + window)
    lengths = numpy.arange(1, max_ngram + 1)
    width = int((hi - lo).max(initial=0))
    # every column a candidate (start, end) per target; `valid` masks the padding
    if ngram_gap is None:  # every n-gram of the window
        offsets = numpy.tile(numpy.arange(width), max_ngram)
        starts = [lo[:, None] + offsets[None, :]]
        ends = [starts[0] + numpy.repeat(lengths, width)[None, :]]
        valid = [numpy.broadcast_to(offsets[None, :] < (hi - lo)[:, None], starts[0].shape)]
    else:  # n-grams ending at most ngram_gap tokens before the target, or starting as close after it
        gaps = numpy.tile(numpy.arange(ngram_gap + 1), max_ngram)
        ngram_lengths = numpy.repeat(lengths, ngram_gap + 1)
        before = t_start[:, None] - (ngram_lengths + gaps)[None, :]
        after = t_end[:, None] + gaps[None, :]
        starts = [before, after]
        ends = [before + ngram_lengths[None, :], after + ngram_lengths[None, :]]
        valid = [numpy.ones(before.shape, dtype=bool), numpy.ones(after.shape, dtype=bool)]
    if subtrees and tokens.parsed and width:
        position = lo[:, None] + numpy.arange(width)[None, :]
        inside = position < hi[:, None]
        position = numpy.minimum(position, tokens.n - 1)
        left, right = tokens.left[position], tokens.right[position]
        # the subtree; without its leading preposition; without its trailing punctuation
        no_prep = inside & tokens.prep[numpy.minimum(left, tokens.n - 1)]
        no_punct = inside & (right - left > 1) & tokens.punct[numpy.maximum(right - 1, 0)]
        starts += [left, left + 1, left]
        ends += [right, right, right - 1]
        valid += [inside, no_prep, no_punct]
    start, end = numpy.concatenate(starts, axis=1), numpy.concatenate(ends, axis=1)
    which, column = numpy.nonzero(numpy.concatenate(valid, axis=1))
    start, end = start[which, column], end[which, column]
    # in the target's window, and off the target
    keep = (lo[which] <= start) & (start < end) & (end <= hi[which])
    keep &= (end <= t_start[which]) | (start >= t_end[which])
    which, start, end = which[keep], start[keep], end[keep]
    if include_target:
        which = numpy.concatenate([which, numpy.arange(len(bounds))])
        start, end = numpy.concatenate([start, t_start]), numpy.concatenate([end, t_end])
    n1 = tokens.n + 1
    # distinct and sorted; a sort, not numpy.unique, which hashes first and is many times slower on a million rows
    codes = numpy.sort((which * n1 + start) * n1 + end)
    codes = codes[numpy.r_[True, codes[1:] != codes[:-1]]] if len(codes) else codes
    which, start, end = codes // (n1 * n1), codes // n1 % n1, codes % n1
    return numpy.column_stack([t_start[which], t_end[which], start, end]).astype("int32")


class DocArrays:
    """What the candidates need of a doc's tokens, read once with `Doc.to_array`: sentence
    bounds, punctuation and with a parse each token's subtree edges and prepositions."""

    def __init__(self, doc: Doc) -> None:
        n = self.n = len(doc)
        index = numpy.arange(n, dtype="int64")
        # signed (HEAD is relative) except the DEP hash, a uint64 compared as such
        columns = doc.to_array([HEAD, SENT_START, POS, IS_PUNCT]).astype("int64").reshape(n, 4)
        self.sent_start = numpy.zeros(n, dtype="int64")
        self.sent_end = numpy.full(n, n, dtype="int64")
        if doc.has_annotation("SENT_START") and n:
            starts = numpy.flatnonzero((columns[:, 1] == 1) | (index == 0))
            which = numpy.searchsorted(starts, index, side="right") - 1
            self.sent_start = starts[which]
            self.sent_end = numpy.append(starts[1:], n)[which]
        self.punct = columns[:, 3].astype(bool)
        self.parsed = doc.has_annotation("DEP")
        if self.parsed:
            self.heads = index + columns[:, 0]
            self.left, self.right = subtree_edges(self.heads)
            self.prep = (doc.to_array(DEP) == doc.vocab.strings["prep"]) | (columns[:, 2] == ADP)


def subtree_edges(heads: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Each token's subtree as [left, right): the least and (one past) the largest index
    among the token and its descendants, spread up the tree one level per pass."""
    n = len(heads)
    left, right = numpy.arange(n, dtype="int64"), numpy.arange(1, n + 1, dtype="int64")
    for _ in range(n):
        new_left, new_right = left.copy(), right.copy()
        numpy.minimum.at(new_left, heads, left)
        numpy.maximum.at(new_right, heads, right)
        if (new_left == left).all() and (new_right == right).all():
            break
        left, right = new_left, new_right
    return left, right

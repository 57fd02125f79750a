"""A candidate row's position and syntax features for the research frame_elements' span vectors: the
target's side and distance, the span's length (bucketed one-hots, `on_target`: the span is
its target) and, when the doc is parsed, the dependency label of the span's root and how
that root hangs from the target."""

from typing import List, Optional, Sequence, Tuple, Union

import numpy
from spacy.attrs import DEP, HEAD, POS
from spacy.strings import get_string_id
from spacy.tokens import Doc
from thinc.api import get_array_module
from thinc.util import to_numpy

# the product's buckets, labels and helpers (spacy_frames.ml.fe_features); only the
# builders below are the lab's own: they give OneHotRows, the product's dense arrays
from spacy_frames.ml.fe_features import (
    DEP_LABELS,
    DISTANCE_BUCKETS,
    LENGTH_BUCKETS,
    N_SYNTAX,
    Row,
    _dep_columns,
    bucket,
    n_position_features,
    root_relations,
)
from spacy_frames.suggesters.frame_elements import subtree_edges


def distinct_spans(starts: numpy.ndarray, ends: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """The distinct spans [start, end) (token offsets) in (start, end) order, as their
    starts and ends, and each span's place among them: what numpy.unique of the spans'
    codes gives, from a table over (start, length) instead of a sort when that table is
    small (candidate spans are short, so the table is a few times the number of spans)."""
    starts, ends = numpy.asarray(starts, dtype="int64").reshape(-1), numpy.asarray(ends, dtype="int64").reshape(-1)
    if not len(starts):
        return starts, ends, numpy.zeros(0, dtype="int64")
    lengths = ends - starts
    shortest, first = int(lengths.min()), int(starts.min())
    n_lengths = int(lengths.max()) - shortest + 1
    size = (int(starts.max()) - first + 1) * n_lengths
    if size > 8 * len(starts) + 4096:
        n1 = int(ends.max()) + 1
        codes, inverse = numpy.unique(starts * n1 + ends, return_inverse=True)
        return codes // n1, codes % n1, inverse.reshape(-1)
    codes = (starts - first) * n_lengths + (lengths - shortest)
    present = numpy.zeros(size, dtype=bool)
    present[codes] = True
    distinct = numpy.flatnonzero(present)
    span_starts = first + distinct // n_lengths
    return span_starts, span_starts + shortest + distinct % n_lengths, (numpy.cumsum(present) - 1)[codes]


def syntax_one_hots(docs: Sequence[Doc], rows: Sequence[Union[numpy.ndarray, List[Row]]]) -> "OneHotRows":
    """Per row of each doc, stacked: one-hot of the span root's dependency label, and
    RELATIONS flags (none for a doc without a parse). Computed in one pass over the parsed
    docs' tokens stacked (heads never point out of their doc), so a batch of
    short docs costs one pass, not one per doc. Roots are found once per distinct span."""
    counts = [len(r) for r in rows]
    feats = OneHotRows(sum(counts), N_SYNTAX)
    row_starts = numpy.cumsum([0] + counts)
    parsed = [i for i, doc in enumerate(docs) if counts[i] and doc.has_annotation("DEP")]
    if not parsed:
        return feats
    token_starts = numpy.cumsum([0] + [len(docs[i]) for i in parsed])
    heads = numpy.concatenate(
        [
            numpy.arange(len(docs[i])) + docs[i].to_array(HEAD).astype("int64") + start
            for i, start in zip(parsed, token_starts)
        ]
    )
    deps = _dep_columns(numpy.concatenate([docs[i].to_array(DEP) for i in parsed]))
    left, right = subtree_edges(heads)  # right: one past the subtree's last token
    stacked = numpy.concatenate(
        [numpy.asarray(rows[i], dtype="int64").reshape(-1, 4) + start for i, start in zip(parsed, token_starts)]
    )
    span_root, relations = root_relations(heads, deps, left, right, stacked)
    # the parsed docs' rows among all rows (the others have no syntax features)
    at = numpy.concatenate([numpy.arange(row_starts[i], row_starts[i + 1]) for i in parsed])

    def spread(values: numpy.ndarray, fill) -> numpy.ndarray:
        every = numpy.full(feats.n_rows, fill, dtype=values.dtype)
        every[at] = values
        return every

    feats.add_group(spread(deps[span_root], -1))
    for k, which in enumerate(relations):
        feats.add_flag(len(DEP_LABELS) + 1 + k, spread(which, False))
    return feats


# Universal POS tags (what attribute_ruler maps a tagger's tags to); any other: the last column
UPOS = tuple("ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split())
N_POS_GROUPS = 4  # the span's first and last token, the token before it and after it
N_POS = N_POS_GROUPS * (len(UPOS) + 1)


def pos_one_hots(docs: Sequence[Doc], rows: Sequence[Union[numpy.ndarray, List[Row]]]) -> "OneHotRows":
    """Per row of each doc, stacked: one-hots of the coarse POS of the span's first and
    last token and of the tokens just before and after it (none at the doc's edges or
    without tags): what a parse-free model can know of the span's phrase type."""
    counts = [len(r) for r in rows]
    feats = OneHotRows(sum(counts), N_POS)
    if not sum(counts):
        return feats
    width = len(UPOS) + 1
    columns = {get_string_id(tag): i for i, tag in enumerate(UPOS)}
    groups: List[List[numpy.ndarray]] = [[] for _ in range(N_POS_GROUPS)]
    for doc, doc_rows in zip(docs, rows):
        arr = numpy.asarray(doc_rows, dtype="int64").reshape(-1, 4)
        if not doc.has_annotation("POS"):
            for g in groups:
                g.append(numpy.full(len(arr), -1, dtype="int64"))
            continue
        tags = numpy.asarray([columns.get(h, len(UPOS)) for h in doc.to_array(POS).tolist()], dtype="int64")
        tags = numpy.append(tags, -1)  # index len(doc): no token
        ss, se = arr[:, 2], arr[:, 3]
        before = numpy.where(ss > 0, ss - 1, len(doc))
        for g, (at, positions) in enumerate(((0, ss), (1, se - 1), (2, before), (3, se))):
            column = tags[positions]  # positions <= len(doc), the sentinel
            groups[g].append(numpy.where(column >= 0, column + at * width, -1))
    for g in groups:
        feats.add_group(numpy.concatenate(g))
    return feats


def position_one_hots(rows: Union[numpy.ndarray, List[Row]], on_target: bool = False) -> "OneHotRows":
    """One-hots of the span's side and gap to its target, and of its length; with
    `on_target`, a last column: the span is its target."""
    rows = numpy.asarray(rows, dtype="int64").reshape(-1, 4)
    feats = OneHotRows(len(rows), n_position_features(on_target))
    ts, te, ss, se = rows.T
    n_dist = len(DISTANCE_BUCKETS)
    before = se <= ts
    gap = numpy.where(before, ts - se, numpy.maximum(ss - te, 0))
    feats.add_group(numpy.where(before, 0, n_dist) + bucket(gap, DISTANCE_BUCKETS))
    feats.add_group(2 * n_dist + bucket(numpy.maximum(se - ss, 1), LENGTH_BUCKETS))
    if on_target:
        feats.add_flag(feats.width - 1, (ss == ts) & (se == te))
    return feats


class OneHotRows:
    """A (rows, width) matrix of 0s and 1s held as where its 1s are: per one-hot group each
    row's column (-1: none in that row), per flag column the rows that have it. The pruner
    reads every candidate row's features through `self @ v` and `self.T @ d`, a few numbers
    per row; only the rows it keeps are written out (`dense`)."""

    def __init__(self, n_rows: int, width: int):
        self.n_rows, self.width = n_rows, width
        self.groups: List[numpy.ndarray] = []
        self.flags: List[Tuple[int, numpy.ndarray]] = []

    @property
    def shape(self) -> Tuple[int, int]:
        return (self.n_rows, self.width)

    def __len__(self) -> int:
        return self.n_rows

    def add_group(self, columns: numpy.ndarray) -> None:
        self.groups.append(numpy.asarray(columns, dtype="int64"))

    def add_flag(self, column: int, which: numpy.ndarray) -> None:
        self.flags.append((column, numpy.asarray(which, dtype=bool)))

    def beside(self, other: "OneHotRows") -> "OneHotRows":
        """This matrix and `other` side by side."""
        both = OneHotRows(self.n_rows, self.width + other.width)
        both.groups = self.groups + [numpy.where(g >= 0, g + self.width, -1) for g in other.groups]
        both.flags = self.flags + [(column + self.width, which) for column, which in other.flags]
        return both

    def dense(self, rows: Optional[numpy.ndarray] = None) -> numpy.ndarray:
        """The matrix, or its `rows`."""
        take = slice(None) if rows is None else numpy.asarray(rows, dtype="int64")
        out = numpy.zeros((self.n_rows if rows is None else len(take), self.width), dtype="f")
        for columns in self.groups:
            columns = columns[take]
            has = numpy.flatnonzero(columns >= 0)
            out[has, columns[has]] = 1.0
        for column, which in self.flags:
            out[:, column] = which[take]
        return out

    def __matmul__(self, v):
        """self.dense() @ v, in v's array library."""
        weights = numpy.append(to_numpy(v).astype("f"), numpy.float32(0))  # column -1: none
        total = numpy.zeros(self.n_rows, dtype="f")
        for columns in self.groups:
            total += weights[columns]
        for column, which in self.flags:
            total[which] += weights[column]
        return get_array_module(v).asarray(total)

    @property
    def T(self) -> "_TransposedOneHotRows":
        return _TransposedOneHotRows(self)


class _TransposedOneHotRows:
    def __init__(self, matrix: OneHotRows):
        self.matrix = matrix

    def __matmul__(self, d):
        """matrix.dense().T @ d, in d's array library."""
        matrix, values = self.matrix, to_numpy(d).astype("float64")
        total = numpy.zeros(matrix.width, dtype="float64")
        for columns in matrix.groups:
            has = columns >= 0
            total += numpy.bincount(columns[has], weights=values[has], minlength=matrix.width)
        for column, which in matrix.flags:
            total[column] += values[which].sum()
        return get_array_module(d).asarray(total.astype("f"))

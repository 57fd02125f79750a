"""A candidate row's position and syntax features for frame_elements' span vectors: the
target's side and distance, the span's length (bucketed one-hots, `on_target`: the span is
its target) and, when the doc is parsed, the dependency label of the span's root and how
that root hangs from the target."""

from typing import List, Optional, Sequence, Tuple, Union

import numpy
from spacy.attrs import DEP, HEAD
from spacy.tokens import Doc

from ..suggesters.frame_elements import subtree_edges

Row = Tuple[int, int, int, int]

DISTANCE_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24)  # token gaps; the last bucket is open
LENGTH_BUCKETS = (1, 2, 3, 4, 6, 8, 12, 16)
# en_core_web_sm's (ClearNLP) dependency labels; any other label is the last column
DEP_LABELS = (
    "ROOT",
    "acl",
    "acomp",
    "advcl",
    "advmod",
    "agent",
    "amod",
    "appos",
    "attr",
    "aux",
    "auxpass",
    "case",
    "cc",
    "ccomp",
    "compound",
    "conj",
    "csubj",
    "csubjpass",
    "dative",
    "dep",
    "det",
    "dobj",
    "expl",
    "intj",
    "mark",
    "meta",
    "neg",
    "nmod",
    "npadvmod",
    "nsubj",
    "nsubjpass",
    "nummod",
    "oprd",
    "parataxis",
    "pcomp",
    "pobj",
    "poss",
    "preconj",
    "predet",
    "prep",
    "prt",
    "punct",
    "quantmod",
    "relcl",
    "xcomp",
)
DEP_INDEX = {label: i for i, label in enumerate(DEP_LABELS)}
# how the span's root hangs from the target: its head is in the target; its grandparent
# is (through a preposition, "gave it [to] him"); it holds the target's head; it shares
# the target's head; the span is a whole subtree
RELATIONS = ("child", "grandchild", "governor", "sibling", "subtree")
N_SYNTAX = len(DEP_LABELS) + 1 + len(RELATIONS)


def n_position_features(on_target: bool = False) -> int:
    return 2 * len(DISTANCE_BUCKETS) + len(LENGTH_BUCKETS) + int(on_target)


def bucket(value, edges: Sequence[int]):
    """The bucket of `value` (a number or an array) among the lower `edges`."""
    return numpy.searchsorted(edges, value, side="right") - 1


def distinct_spans(starts: numpy.ndarray, ends: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """The distinct spans [start, end) (token offsets) in (start, end) order, as their
    starts and ends, and each span's place among them: what numpy.unique of the spans'
    codes gives, from a table over (start, length) instead of a sort when that table is
    small (candidate spans are short: ten times faster on a long document's rows)."""
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


def span_roots(heads: numpy.ndarray, starts: numpy.ndarray, ends: numpy.ndarray) -> numpy.ndarray:
    """Per span [start, end): its first token whose head lies outside it (or is itself);
    the start when none does. One vectorised pass per token position, over distinct spans."""
    first, last, inverse = distinct_spans(starts, ends)
    root, found = first.copy(), numpy.zeros(len(first), dtype=bool)
    for k in range(int((last - first).max(initial=0))):
        i = first + k
        open_ = ~found & (i < last)
        if not open_.any():
            break
        h = heads[numpy.minimum(i, len(heads) - 1)]
        is_root = open_ & ((h == i) | (h < first) | (h >= last))
        root[is_root] = i[is_root]
        found |= is_root
    return root[inverse]


def syntax_features(
    doc: Doc, rows: Union[numpy.ndarray, List[Row]], out: Optional[numpy.ndarray] = None
) -> numpy.ndarray:
    """Per row: one-hot of the span root's dependency label, and RELATIONS flags (all
    zero when the doc has no parse). Roots are found once per distinct span. out: a
    zeroed (rows, N_SYNTAX) array to write them into."""
    out = numpy.zeros((len(rows), N_SYNTAX), dtype="f") if out is None else out
    if not doc.has_annotation("DEP") or not len(rows):
        return out
    heads = numpy.arange(len(doc)) + doc.to_array(HEAD).astype("int64")
    dep_index = {doc.vocab.strings[label]: i for label, i in DEP_INDEX.items()}  # hashes: uint64, kept so
    deps = numpy.asarray([dep_index.get(d, len(DEP_LABELS)) for d in doc.to_array(DEP).tolist()], dtype="i")
    left, right = subtree_edges(heads)  # right: one past the subtree's last token
    ts, te, ss, se = numpy.asarray(rows, dtype="int64").reshape(-1, 4).T
    span_root, target_root = span_roots(heads, ss, se), span_roots(heads, ts, te)
    n = numpy.arange(len(rows))
    out[n, deps[span_root]] = 1.0
    head = heads[span_root]
    has_head = head != span_root
    target_head = heads[target_root]
    prep_like = numpy.isin(deps, [DEP_INDEX["prep"], DEP_INDEX["agent"], DEP_INDEX["dative"]])
    n_dep = len(DEP_LABELS) + 1
    out[:, n_dep] = (ts <= head) & (head < te) & has_head
    out[:, n_dep + 1] = (ts <= heads[head]) & (heads[head] < te) & prep_like[head] & has_head
    out[:, n_dep + 2] = (ss <= target_head) & (target_head < se) & (target_head != target_root)
    out[:, n_dep + 3] = (head == target_head) & has_head
    out[:, n_dep + 4] = (left[span_root] == ss) & (right[span_root] == se)
    return out


def position_features(
    rows: Union[numpy.ndarray, List[Row]], on_target: bool = False, out: Optional[numpy.ndarray] = None
) -> numpy.ndarray:
    """One-hots of the span's side and gap to its target, and of its length; with
    `on_target`, a last column: the span is its target. out: a zeroed array of that shape
    to write them into."""
    out = numpy.zeros((len(rows), n_position_features(on_target)), dtype="f") if out is None else out
    if not len(rows):
        return out
    ts, te, ss, se = numpy.asarray(rows, dtype="i").reshape(-1, 4).T
    n_dist = len(DISTANCE_BUCKETS)
    before = se <= ts
    gap = numpy.where(before, ts - se, numpy.maximum(ss - te, 0))
    n = numpy.arange(len(rows))
    out[n, numpy.where(before, 0, n_dist) + bucket(gap, DISTANCE_BUCKETS)] = 1.0
    out[n, 2 * n_dist + bucket(numpy.maximum(se - ss, 1), LENGTH_BUCKETS)] = 1.0
    if on_target:
        out[:, -1] = (ss == ts) & (se == te)
    return out

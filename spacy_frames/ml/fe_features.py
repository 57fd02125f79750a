"""A candidate row's position and syntax features for frame_elements' span vectors: the
target's side and distance, the span's length (bucketed one-hots, `on_target`: the span is
its target) and, when the doc is parsed, the dependency label of the span's root and how
that root hangs from the target."""

from typing import List, Sequence, Tuple, Union

import numpy
from spacy.attrs import DEP, HEAD
from spacy.strings import get_string_id
from spacy.tokens import Doc

from ..suggesters.frame_elements import subtree_edges

Row = Tuple[int, int, int, int]

DISTANCE_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24)  # token gaps; the last bucket is open
LENGTH_BUCKETS = (1, 2, 3, 4, 6, 8, 12, 16)
# en_core_web_sm's (ClearNLP) dependency labels; any other label is the last column
DEP_LABELS = tuple(
    "ROOT acl acomp advcl advmod agent amod appos attr aux auxpass case cc ccomp compound conj csubj csubjpass "
    "dative dep det dobj expl intj mark meta neg nmod npadvmod nsubj nsubjpass nummod oprd parataxis pcomp pobj "
    "poss preconj predet prep prt punct quantmod relcl xcomp".split()
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


def span_roots(heads: numpy.ndarray, starts: numpy.ndarray, ends: numpy.ndarray) -> numpy.ndarray:
    """Per span [start, end): its first token whose head lies outside it (or is itself), else
    its start; one vectorised pass per token position, over the distinct spans."""
    starts, ends = numpy.asarray(starts, dtype="int64"), numpy.asarray(ends, dtype="int64")
    n1 = int(ends.max(initial=0)) + 1
    codes, inverse = numpy.unique(starts * n1 + ends, return_inverse=True)
    first, last, inverse = codes // n1, codes % n1, inverse.reshape(-1)
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


def syntax_one_hots(docs: Sequence[Doc], rows: Sequence[Union[numpy.ndarray, List[Row]]]) -> numpy.ndarray:
    """Per row of each doc, stacked: one-hot of the span root's dependency label, and
    RELATIONS flags (none for a doc without a parse)."""
    feats = [numpy.zeros((len(doc_rows), N_SYNTAX), dtype="f") for doc_rows in rows]
    for doc, doc_rows, out in zip(docs, rows, feats):
        if not len(out) or not doc.has_annotation("DEP"):
            continue
        heads = numpy.arange(len(doc)) + doc.to_array(HEAD).astype("int64")
        deps = _dep_columns(doc.to_array(DEP))
        left, right = subtree_edges(heads)
        span_root, relations = root_relations(heads, deps, left, right, numpy.asarray(doc_rows, dtype="int64"))
        out[numpy.arange(len(out)), deps[span_root]] = 1.0
        out[:, len(DEP_LABELS) + 1 :] = numpy.column_stack(relations)
    return numpy.concatenate(feats) if feats else numpy.zeros((0, N_SYNTAX), dtype="f")


def root_relations(heads, deps, left, right, rows: numpy.ndarray) -> Tuple[numpy.ndarray, Tuple[numpy.ndarray, ...]]:
    """Each row's span root and its RELATIONS flags, from the tokens' heads, DEP_LABELS
    columns and subtree edges (`right` one past the subtree's last token)."""
    ts, te, ss, se = rows.reshape(-1, 4).T
    span_root, target_root = span_roots(heads, ss, se), span_roots(heads, ts, te)
    head, target_head = heads[span_root], heads[target_root]
    has_head = head != span_root
    prep_like = numpy.isin(deps, [DEP_INDEX["prep"], DEP_INDEX["agent"], DEP_INDEX["dative"]])
    relations = (
        (ts <= head) & (head < te) & has_head,
        (ts <= heads[head]) & (heads[head] < te) & prep_like[head] & has_head,
        (ss <= target_head) & (target_head < se) & (target_head != target_root),
        (head == target_head) & has_head,
        (left[span_root] == ss) & (right[span_root] == se),
    )
    return span_root, relations


_DEP_COLUMN = {get_string_id(label): i for i, label in enumerate(DEP_LABELS)}  # keyed as Doc.to_array(DEP)


def _dep_columns(hashes: numpy.ndarray) -> numpy.ndarray:
    """Each token's dependency label as its DEP_LABELS column (any other label: the last)."""
    return numpy.asarray([_DEP_COLUMN.get(h, len(DEP_LABELS)) for h in hashes.tolist()], dtype="int64")


def position_one_hots(rows: Union[numpy.ndarray, List[Row]], on_target: bool = False) -> numpy.ndarray:
    """One-hots of the span's side and gap to its target, and of its length; with
    `on_target`, a last column: the span is its target."""
    rows = numpy.asarray(rows, dtype="int64").reshape(-1, 4)
    feats = numpy.zeros((len(rows), n_position_features(on_target)), dtype="f")
    ts, te, ss, se = rows.T
    n_dist, at = len(DISTANCE_BUCKETS), numpy.arange(len(rows))
    before = se <= ts
    gap = numpy.where(before, ts - se, numpy.maximum(ss - te, 0))
    feats[at, numpy.where(before, 0, n_dist) + bucket(gap, DISTANCE_BUCKETS)] = 1.0
    feats[at, 2 * n_dist + bucket(numpy.maximum(se - ss, 1), LENGTH_BUCKETS)] = 1.0
    if on_target:
        feats[:, -1] = (ss == ts) & (se == te)
    return feats

"""frame_elements' option scores: each kept row's span vector against the vectors of its
frame's FEs and of "no FE" (cosine), the rows grouped by their options so that each group
is one matrix product. The FE table (fe_vectors, fe_map, no_fe and, with frame-aware
queries, frame_query and frame_no_fe) is the scoring layer's; see `model.py`."""

from typing import Dict, List, Sequence, Tuple

import numpy
from thinc.api import Model
from thinc.types import Floats2d

from spacy_frames.ml.layers import l2_normalize


def option_scores(
    model: Model, spans_unit: Floats2d, options: List[List[int]], kept: numpy.ndarray, row_frames, n_opts: int
):
    """(scores, mask) of every row (n_rows, n_opts): the kept rows' span vectors against
    their options' vectors (cosine), and the backprop to the span vectors. `model` holds
    the FE table (fe_vectors, fe_map, no_fe; frame_query and frame_no_fe with
    frame_queries) and the settings (attrs)."""
    ops = model.ops
    with_frames = model.attrs.get("frame_queries", False)
    frame_of = numpy.asarray(row_frames[0], dtype="int64") if with_frames else numpy.zeros(len(options), "int64")
    if len(frame_of) != len(options):
        raise ValueError(f"frame_elements: {len(frame_of)} row frames for {len(options)} candidate rows")
    plan, order = option_groups(options, kept, frame_of)
    used_fes, table, plan = _option_table(model, plan)
    queries = _Queries(model, table, plan, row_frames if with_frames else None)
    # the kept rows in group order: each group one contiguous block, one gather and one
    # scatter for the whole batch
    order_xp = ops.asarray1i(order.astype("int32"))
    rows_xp = ops.asarray1i(kept[order].astype("int32"))
    spans_grouped = spans_unit[order_xp]
    grouped = ops.alloc2f(len(order), n_opts)
    grouped_mask = ops.alloc2f(len(order), n_opts)
    for (opts, _, first, last), unit in zip(plan, queries.units):
        grouped[first:last, : len(opts)] = spans_grouped[first:last] @ unit.T
        grouped_mask[first:last, : len(opts)] = 1.0
    scores = ops.alloc2f(len(options), n_opts)
    mask = ops.alloc2f(len(options), n_opts)
    scores[rows_xp] = grouped
    mask[rows_xp] = grouped_mask

    def backprop(d_scores: Floats2d) -> Floats2d:
        d_grouped = d_scores[rows_xp]
        d_spans_grouped = ops.alloc2f(*spans_grouped.shape)
        d_units = []
        for (opts, _, first, last), unit in zip(plan, queries.units):
            d_group = d_grouped[first:last, : len(opts)]
            d_spans_grouped[first:last] = d_group @ unit
            d_units.append(d_group.T @ spans_grouped[first:last])
        _table_gradients(model, queries.backprop(d_units), used_fes)
        d_spans_unit = ops.alloc2f(*spans_unit.shape)
        d_spans_unit[order_xp] = d_spans_grouped
        return d_spans_unit

    return (scores, mask), backprop


def _option_table(model: Model, plan: List):
    """The FE table's rows this batch's options name ("no FE" first: the others' scores are
    never read and their gradient is zero, so they are not computed): their indices among
    the FEs, the rows (no_fe, then the FE vectors mapped) and the plan with each group's
    options as rows of that table."""
    ops = model.ops
    fe_vectors, fe_map = model.get_param("fe_vectors"), model.get_param("fe_map")
    used = numpy.unique(numpy.concatenate([[0]] + [opts for opts, _, _ in plan]))
    if used[-1] > len(fe_vectors):
        raise ValueError(f"frame_elements: option {used[-1]} is not in the FE table ({len(fe_vectors)} FEs)")
    used_fes = ops.asarray1i((used[1:] - 1).astype("int32"))
    table = ops.xp.concatenate([model.get_param("no_fe")[None, :], fe_vectors[used_fes] @ fe_map])
    plan = [(ops.asarray1i(numpy.searchsorted(used, opts)), frame, first, last) for opts, frame, (first, last) in plan]
    return used_fes, table, plan


def _table_gradients(model: Model, d_table: Floats2d, used_fes) -> None:
    """The FE table's parameters' gradients from that of its used rows."""
    fe_vectors, fe_map = model.get_param("fe_vectors"), model.get_param("fe_map")
    model.inc_grad("no_fe", d_table[0])
    model.inc_grad("fe_map", fe_vectors[used_fes].T @ d_table[1:])
    if model.attrs["learn_fe_vectors"]:
        d_fe_vectors = model.ops.alloc2f(*fe_vectors.shape)
        d_fe_vectors[used_fes] = d_table[1:] @ fe_map.T
        model.inc_grad("fe_vectors", d_fe_vectors)


class _Queries:
    """Each group's unit query vectors (`units`, its options' rows of the table) and
    their backprop to the table. With `row_frames` (frame-aware queries), a group's
    queries are its options' rows shifted by its frame's vector (`frame_query`, and
    `frame_no_fe` for "no FE"), then normalised; else the table's rows normalised."""

    def __init__(self, model: Model, table: Floats2d, plan: List, row_frames) -> None:
        ops = model.ops
        self.model, self.table, self.plan = model, table, plan
        self.with_frames = row_frames is not None
        if not self.with_frames:
            table_unit, self.bp_norm = l2_normalize(ops, table)
            self.units = [table_unit[opts] for opts, _, _, _ in plan]
            return
        self.frame_matrix = ops.asarray2f(row_frames[1])
        self.shift_fe = self.frame_matrix @ model.get_param("frame_query")
        self.shift_none = self.frame_matrix @ model.get_param("frame_no_fe")
        self.units, self.bp_units = [], []
        for opts, frame, _, _ in plan:
            shifted = table[opts] + self.shift_fe[frame][None, :]
            shifted[0] = table[0] + self.shift_none[frame]
            unit, bp_unit = l2_normalize(ops, shifted)
            self.units.append(unit)
            self.bp_units.append(bp_unit)

    def backprop(self, d_units: List[Floats2d]) -> Floats2d:
        """The table's gradient from each group's queries' (and, with frames, the frame
        maps' gradients added to the model)."""
        ops = self.model.ops
        if not self.with_frames:
            d_table_unit = ops.alloc2f(*self.table.shape)
            for (opts, _, _, _), d_unit in zip(self.plan, d_units):
                ops.xp.add.at(d_table_unit, opts, d_unit)
            return self.bp_norm(d_table_unit)
        d_table = ops.alloc2f(*self.table.shape)
        d_shift_fe, d_shift_none = ops.alloc2f(*self.shift_fe.shape), ops.alloc2f(*self.shift_none.shape)
        for (opts, frame, _, _), d_unit, bp_unit in zip(self.plan, d_units, self.bp_units):
            d_shifted = bp_unit(d_unit)
            ops.xp.add.at(d_table, opts, d_shifted)
            d_shift_none[frame] += d_shifted[0]
            d_shift_fe[frame] += d_shifted[1:].sum(axis=0)
        self.model.inc_grad("frame_query", self.frame_matrix.T @ d_shift_fe)
        self.model.inc_grad("frame_no_fe", self.frame_matrix.T @ d_shift_none)
        return d_table


def option_groups(options: Sequence[Sequence[int]], kept: numpy.ndarray, frame_of: numpy.ndarray):
    """The kept rows grouped by their options (and, with frame-aware queries, their
    frame): rows with the same options (a target's rows, or every target of one frame)
    are scored with one matrix product, with no (rows x options x width) gather, so a long
    doc's hundreds of thousands of rows stay cheap. Returns ([(options, frame, (first,
    last))], order): `order` lists the kept rows' positions among the kept, group after
    group, and each group's [first, last) slice of it. Rows are grouped by list object
    first (the component passes one list per target; no Python step per row), then merged
    by content."""
    ids = numpy.fromiter(map(id, map(options.__getitem__, kept.tolist())), dtype="int64", count=len(kept))
    frames = frame_of[kept]
    by_object = numpy.lexsort((frames, ids))
    change = numpy.flatnonzero(
        (ids[by_object][1:] != ids[by_object][:-1]) | (frames[by_object][1:] != frames[by_object][:-1])
    )
    bounds = [0, *(change + 1).tolist(), len(by_object)] if len(by_object) else [0]
    groups: Dict[Tuple[Tuple[int, ...], int], List[numpy.ndarray]] = {}
    for first, last in zip(bounds[:-1], bounds[1:]):
        opts = options[int(kept[by_object[first]])]
        if not len(opts) or opts[0] != 0:
            raise ValueError("frame_elements: every row's options start with 0, the no-FE option")
        key = (tuple(int(o) for o in opts), int(frames[by_object[first]]))
        groups.setdefault(key, []).append(by_object[first:last])
    plan, pieces, offset = [], [], 0
    # groups by their first row and each group's rows in order, not in the order of the
    # lists' addresses: the backprop's sums then never depend on the memory layout
    ordered = [(numpy.sort(numpy.concatenate(members)), key) for key, members in groups.items()]
    for rows_, (opts, frame) in sorted(ordered, key=lambda item: int(item[0][0])):
        plan.append((numpy.asarray(opts, dtype="int64"), frame, (offset, offset + len(rows_))))
        pieces.append(rows_)
        offset += len(rows_)
    order = numpy.concatenate(pieces) if pieces else numpy.zeros(0, dtype="int64")
    return plan, order

"""frame_elements' last layer (`fe_option_scores`): the cosine of each row's span vector with its
target's options, a learned "no FE" vector and the learned FE table (`fe_vectors`, row i for
table row i + 1) through a learned square map (`fe_map`, the identity at first). Rows of targets
with the same options share one matrix product."""

from typing import Dict, List, Tuple

import numpy
from thinc.api import Model
from thinc.types import Floats2d

from .layers import l2_normalize


def build_fe_option_scores(query_width: int) -> Model:
    return Model(
        "fe_option_scores",
        option_scores_forward,
        init=option_scores_init,
        params={"fe_vectors": None, "fe_map": None, "no_fe": None},
        dims={"nD": query_width},
    )


def option_scores_init(model: Model, X=None, Y=None) -> None:
    if not model.has_param("fe_vectors"):
        raise ValueError(
            "frame_elements: the FE table is empty; the component sets it from the inventory before initializing the model"
        )
    width = model.get_dim("nD")
    if not model.has_param("fe_map"):
        model.set_param("fe_map", model.ops.asarray2f(numpy.eye(width, dtype="f")))
    if not model.has_param("no_fe"):
        rng = numpy.random.default_rng(0)
        model.set_param("no_fe", model.ops.asarray1f(rng.normal(0, 1 / numpy.sqrt(width), width).astype("f")))


def set_fe_vectors(options: Model, vectors: numpy.ndarray) -> None:
    """Set the FE table's vectors (rows 1..; row 0 is "no FE") of the option layer."""
    vectors, width = numpy.asarray(vectors, dtype="f"), options.get_dim("nD")
    if vectors.ndim != 2 or not len(vectors) or vectors.shape[1] != width:
        raise ValueError(f"frame_elements: FE vectors must be a non-empty matrix of width {width}, got {vectors.shape}")
    options.set_param("fe_vectors", options.ops.asarray2f(vectors))


def option_scores_forward(model: Model, X, is_train: bool):
    """(n_rows, most options) scores of SpanVectors X; the backprop gives the span vectors'
    gradient and adds the FE table's."""
    ops, (vectors, candidates) = model.ops, X
    n_opts = max((len(opts) for opts in candidates.options), default=1)
    plan, order = option_groups(candidates)
    fe_vectors, fe_map = model.get_param("fe_vectors"), model.get_param("fe_map")
    # only the table rows the batch's options name ("no FE" first): the others' gradient is 0
    used = numpy.unique(numpy.concatenate([[0]] + [opts for opts, _ in plan]).astype("int64"))
    if used[-1] > len(fe_vectors):
        raise ValueError(f"frame_elements: option {used[-1]} is not in the FE table ({len(fe_vectors)} FEs)")
    used_fes = ops.asarray1i((used[1:] - 1).astype("int32"))
    table = ops.xp.concatenate([model.get_param("no_fe")[None, :], fe_vectors[used_fes] @ fe_map])
    table_unit, bp_table = l2_normalize(ops, table)
    plan = [(ops.asarray1i(numpy.searchsorted(used, opts).astype("int32")), bounds) for opts, bounds in plan]
    order_xp = ops.asarray1i(order.astype("int32"))
    grouped_vectors = vectors[order_xp]
    grouped = ops.alloc2f(len(order), n_opts)
    for opts, (first, last) in plan:
        grouped[first:last, : len(opts)] = grouped_vectors[first:last] @ table_unit[opts].T
    scores = ops.alloc2f(len(vectors), n_opts)
    scores[order_xp] = grouped

    def backprop(d_scores: Floats2d) -> Floats2d:
        d_grouped = d_scores[order_xp]
        d_grouped_vectors = ops.alloc2f(*grouped_vectors.shape)
        d_table_unit = ops.alloc2f(*table_unit.shape)
        for opts, (first, last) in plan:
            d_group = d_grouped[first:last, : len(opts)]
            d_grouped_vectors[first:last] = d_group @ table_unit[opts]
            ops.xp.add.at(d_table_unit, opts, d_group.T @ grouped_vectors[first:last])
        d_table = bp_table(d_table_unit)
        model.inc_grad("no_fe", d_table[0])
        model.inc_grad("fe_map", fe_vectors[used_fes].T @ d_table[1:])
        d_fe_vectors = ops.alloc2f(*fe_vectors.shape)
        d_fe_vectors[used_fes] = d_table[1:] @ fe_map.T
        model.inc_grad("fe_vectors", d_fe_vectors)
        d_vectors = ops.alloc2f(*vectors.shape)
        d_vectors[order_xp] = d_grouped_vectors
        return d_vectors

    return scores, backprop


def option_groups(candidates) -> Tuple[List[Tuple[numpy.ndarray, Tuple[int, int]]], numpy.ndarray]:
    """The rows grouped by their target's options: ([(options, (first, last))], order), `order`
    the rows group after group in the order of their first rows (the backprop's sums never
    depend on the batch's layout)."""
    sizes = numpy.asarray(candidates.target_sizes, dtype="int64")
    starts = numpy.cumsum(sizes) - sizes
    groups: Dict[Tuple[int, ...], List[int]] = {}
    for t, opts in enumerate(candidates.options):
        if sizes[t]:
            groups.setdefault(tuple(int(o) for o in opts), []).append(t)
    plan, pieces, offset = [], [], 0
    for opts, targets in groups.items():  # dicts keep insertion order: by first row
        rows = numpy.concatenate([numpy.arange(starts[t], starts[t] + sizes[t]) for t in targets])
        plan.append((numpy.asarray(opts, dtype="int64"), (offset, offset + len(rows))))
        pieces.append(rows)
        offset += len(rows)
    return plan, (numpy.concatenate(pieces) if pieces else numpy.zeros(0, dtype="int64"))

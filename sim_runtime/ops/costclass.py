"""The cost of each op, by op class: one table maps an op to its class, one maps a class to
the cost model's function, so a new cost model needs only entries here."""

from __future__ import annotations

from sim_runtime import costs

_SORT = ("sort32", "mrgsort", "mrgsort2")
_GATHER = ("gather", "gatherb", "gathermask", "scatter", "histogram")
_REDUCE = ("sum", "argmax", "argmin", "row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min")
_SCALAR = ("getval", "setval", "printf", "pto_assert", "trap", "set_vec_mask", "reset_mask", "set_mask_count",
           "set_mask_norm", "ssbuf_load", "ssbuf_store", "get_spr")

#: Op -> class; every vector op not listed is "elementwise".
OP_CLASS: dict[str, str] = {**dict.fromkeys(_SORT, "sort"), **dict.fromkeys(_GATHER, "gather"),
                            **dict.fromkeys(_REDUCE, "reduce"), **dict.fromkeys(_SCALAR, "scalar")}


def op_cost(op: str, nbytes: int) -> int:
    """Cycles of a vector-core op on `nbytes` of its widest operand: scalar-pipe ops cost one
    scalar step, a sort is a merge network (two passes over the data), everything else is
    the vector unit's throughput for the op (`costs.vector_cost`)."""
    kind = OP_CLASS.get(op, "elementwise")
    if kind == "scalar":
        return costs.COSTS.scalar
    return costs.vector_cost(2 * nbytes if kind == "sort" else nbytes, op)

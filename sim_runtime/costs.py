"""Cycle cost table of the timing model: the one place every op's cost comes from.

These numbers are a MODEL, NOT A MEASUREMENT. They exist to compare schedules of the same
kernel (serial against pipelined, one preload against another), not to predict hardware
time. Each number says where it comes from in `SOURCES`: a public fact, or "assumed" (a
round figure of the right order of magnitude, to be replaced once measured). Change them
here, nowhere else; a new op needs at most one entry in `VECTOR_OP_CLASS`.

How the costs are spent (per-pipe queues, the front end, sync latency) is `coretime.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class LinearCost:
    """cost = latency + amount / per_cycle (amount in bytes, or MACs for the cube)."""

    latency: int
    per_cycle: float

    def __call__(self, amount: float) -> int:
        return int(self.latency + amount / self.per_cycle)


#: Transfer paths by the pipe that moves the data (each pipe serves one kind of path).
TRANSFER_PATHS = {
    "MTE2": "GM -> L1 / UB",
    "MTE3": "UB -> GM / L1",
    "MTE1": "L1 -> L0A / L0B",
    "FIX": "L0C -> UB / GM (fixpipe)",
    "V": "UB -> UB (layout change on the vector unit)",
}


@dataclass(frozen=True)
class CostTable:
    #: Data movement per transfer path (keyed by its pipe, see TRANSFER_PATHS).
    dma: dict = field(
        default_factory=lambda: {
            "MTE2": LinearCost(300, 32.0),
            "MTE3": LinearCost(200, 32.0),
            "MTE1": LinearCost(30, 128.0),
            "FIX": LinearCost(50, 64.0),
            "V": LinearCost(20, 128.0),
        }
    )
    #: Cube MACs per cycle by input dtype.
    cube_macs: dict = field(
        default_factory=lambda: {"DT_FP16": 4096, "DT_BF16": 4096, "DT_FP32": 1024, "DT_INT8": 8192}
    )
    cube_latency: int = 30
    #: Vector unit throughput per op class: start-up, then bytes of the widest operand per cycle.
    vector: dict = field(
        default_factory=lambda: {
            "elementwise": LinearCost(20, 128.0),
            "transcendental": LinearCost(30, 64.0),
            "reduce": LinearCost(30, 128.0),
        }
    )
    #: A vector function: one start-up, then each register op costs 2 cycles.
    vf: LinearCost = LinearCost(20, 0.5)
    #: Scalar pipe ops (getval/setval).
    scalar: int = 2
    #: Cycles between two instructions the front end issues.
    issue: int = 1
    #: Instructions a pipe's queue holds before the front end stalls.
    queue_depth: int = 8
    #: Cycles from a cross-core set (or barrier arrival) until the waiting core sees it.
    sync: int = 10


#: Where each number of the table comes from ("assumed" = a round figure, not sourced).
SOURCES = {
    "dma.MTE2": "assumed: GM latency of a few hundred cycles; 32 B/cycle is the share of one core when "
                "all cores of a chip stream from HBM at once",
    "dma.MTE3": "assumed: as MTE2, with a shorter write latency",
    "dma.MTE1": "assumed: an on-chip L1 -> L0 path several times wider than GM",
    "dma.FIX": "assumed: between MTE1 and MTE2",
    "dma.V": "assumed: as an element-wise vector op",
    "cube_macs": "public: the Da Vinci cube computes a 16x16x16 FP16 (BF16) matrix product per cycle "
                 "(4096 MACs) and INT8 at twice that (Huawei, Hot Chips 31, 2019); FP32 at a quarter "
                 "rate is assumed",
    "cube_latency": "assumed",
    "vector.elementwise": "public: vector registers are 256 bytes (PyPTO docs, vf.reg_tensor); assumed: "
                          "one register every 2 cycles, 20 cycles start-up",
    "vector.transcendental": "assumed: exp, log, sqrt, division at half the element-wise rate",
    "vector.reduce": "assumed: reductions and expands at the element-wise rate, longer start-up",
    "vf": "public: 256-byte registers (as above); assumed: 2 cycles per register op",
    "scalar": "assumed",
    "issue": "assumed: one instruction per cycle",
    "queue_depth": "assumed",
    "sync": "assumed: a cross-core event takes about ten cycles to arrive",
}

#: Vector ops that are not element-wise; any other vector op costs as element-wise.
VECTOR_OP_CLASS = {
    **dict.fromkeys(("exp", "log", "sqrt", "rsqrt", "recip", "div", "divs", "expand_div", "row_expand_div",
                     "col_expand_div"), "transcendental"),
    **dict.fromkeys(("sum", "row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min", "row_prod",
                     "col_prod", "argmax", "argmin"), "reduce"),
}

COSTS = CostTable()


def dma_cost(pipe: str, nbytes: int, table: CostTable = COSTS) -> int:
    return table.dma.get(pipe, table.dma["MTE3"])(nbytes)


def matmul_cost(m: int, n: int, k: int, dtype: str, table: CostTable = COSTS) -> int:
    return LinearCost(table.cube_latency, table.cube_macs.get(dtype, 1024))(m * n * k)


def vector_cost(nbytes: int, op: str = "", table: CostTable = COSTS) -> int:
    return table.vector[VECTOR_OP_CLASS.get(op, "elementwise")](nbytes)


def vf_cost(register_ops: int, table: CostTable = COSTS) -> int:
    return table.vf(register_ops)

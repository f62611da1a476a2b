"""Cycle cost table of the timing model.

These numbers are a MODEL, NOT A MEASUREMENT. They are round figures chosen to have the
right orders of magnitude for an Ascend 950-class AI Core (public marketing material and
the documented unit widths: a 16x16x16 FP16 cube step per cycle, 256-byte vector repeats,
GM bandwidth shared by many cores). They exist to compare schedules of the same kernel
(serial vs pipelined), not to predict hardware time. Change them here, nowhere else.
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


@dataclass(frozen=True)
class CostTable:
    #: Data movement per pipe. MTE2 = GM->L1/UB (slowest: shared GM), MTE3 = UB->GM/L1,
    #: MTE1 = L1->L0A/L0B (wide on-chip path), FIX = fixpipe L0C->UB/GM.
    dma: dict = field(
        default_factory=lambda: {
            "MTE2": LinearCost(300, 32.0),
            "MTE3": LinearCost(200, 32.0),
            "MTE1": LinearCost(30, 128.0),
            "FIX": LinearCost(50, 64.0),
            "V": LinearCost(20, 128.0),  # Vec->Vec move (layout change) runs on V
        }
    )
    #: Cube MACs per cycle by input dtype (16x16x16 FP16 per cycle; FP32 at quarter rate).
    cube_macs: dict = field(
        default_factory=lambda: {"DT_FP16": 4096, "DT_BF16": 4096, "DT_FP32": 1024, "DT_INT8": 8192}
    )
    cube_latency: int = 30
    #: Vector unit: 128 bytes of the widest operand per cycle after a fixed start-up.
    vector: LinearCost = LinearCost(20, 128.0)
    #: A vector function: one start-up, then each register op (one 256-byte register at
    #: 128 bytes per cycle) costs 2 cycles.
    vf: LinearCost = LinearCost(20, 0.5)
    #: Scalar pipe ops (getval/setval) and cross-core set/wait issue cost.
    scalar: int = 2
    sync: int = 10


COSTS = CostTable()


def dma_cost(pipe: str, nbytes: int, table: CostTable = COSTS) -> int:
    return table.dma.get(pipe, table.dma["MTE3"])(nbytes)


def matmul_cost(m: int, n: int, k: int, dtype: str, table: CostTable = COSTS) -> int:
    return LinearCost(table.cube_latency, table.cube_macs.get(dtype, 1024))(m * n * k)


def vector_cost(nbytes: int, table: CostTable = COSTS) -> int:
    return table.vector(nbytes)


def vf_cost(register_ops: int, table: CostTable = COSTS) -> int:
    return table.vf(register_ops)

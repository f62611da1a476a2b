"""The timing model's pipes: a core's pipes run at once, each in order, and an op waits for
what orders it (auto_mutex ids, waits on its pipe). Micro kernels on one vector core."""

import pytest

from sim_runtime import costs, run_kernel

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\n"
TILE = "pl.TileType(shape=[64, 128], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)"


def kernel(*body: str) -> str:
    """A vector-only kernel over x, y -> out with tiles a (mutex 0), b (1), c (2) in UB."""
    lines = [
        f"a = pl.make_tile_group(type={TILE}, addrs=0x00000, mutex_ids=[0])",
        f"b = pl.make_tile_group(type={TILE}, addrs=0x08000, mutex_ids=[1])",
        f"c = pl.make_tile_group(type={TILE}, addrs=0x10000, mutex_ids=[2])",
        *body,
    ]
    return (HEAD + "@pl.jit(auto_mutex=True)\n"
            "def k(x: pl.Tensor[[64, 128], pl.DT_FP32], y: pl.Tensor[[64, 128], pl.DT_FP32],\n"
            "      out: pl.Tensor[[64, 128], pl.DT_FP32]):\n"
            "    with pl.section_vector():\n" + "".join(f"        {line}\n" for line in lines))


def spans(*body: str):
    res = run_kernel("pipes.py", "k", {}, source=kernel(*body))
    return res, {s.name: s for s in res.timeline.ops}


LOAD = costs.dma_cost("MTE2", 64 * 128 * 4)
RELU = costs.vector_cost(64 * 128 * 4, "relu")


def test_independent_ops_on_two_pipes_of_one_core_overlap():
    alone_load, _ = spans("pl.load(a[0], x, [0, 0])")
    alone_relu, _ = spans("pl.relu(c[0], b[0])")
    both, ops = spans("pl.load(a[0], x, [0, 0])", "pl.relu(c[0], b[0])")
    assert ops["load"].pipe == "MTE2" and ops["relu"].pipe == "V"
    assert ops["relu"].start < ops["load"].end  # the relu runs while the load is in flight
    assert both.cycles < alone_load.cycles + alone_relu.cycles
    assert both.cycles == max(alone_load.cycles, alone_relu.cycles + costs.COSTS.issue)
    assert both.cores["b0.AIV"].busy == LOAD  # the union of the two, not their sum


def test_ops_on_one_pipe_run_in_order():
    res, _ = spans("pl.load(a[0], x, [0, 0])", "pl.load(b[0], y, [0, 0])")
    loads = [s for s in res.timeline.ops if s.name == "load"]
    assert loads[1].start == loads[0].end and res.cycles == 2 * LOAD


def test_an_op_on_a_tile_another_pipe_writes_waits_for_it():
    # the relu reads a, which the load writes: auto_mutex id 0 orders them across pipes
    res, ops = spans("pl.load(a[0], x, [0, 0])", "pl.relu(c[0], a[0])")
    assert ops["relu"].start == ops["load"].end
    assert res.cycles == LOAD + RELU

"""Kernels whose verdict the static checker and the emulator must both give.

Each case is a hand-synchronised kernel written as production PyPTO kernels are, with the
verdict the hardware gives it: "ok" (every conflicting pair of accesses is ordered and no core
blocks for ever), "race" or "deadlock". `test_shared_semantics` runs every case through both
interpreters.
"""

from __future__ import annotations

from dataclasses import dataclass

TILE, HALF, N = 32, 16, 3


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    kernel: str
    verdict: str  #: "ok", "race" or "deadlock"
    why: str


_TWO_LOOPS = '''
import pypto_pro.language as pl

TILE, HALF, N = 32, 16, 3


@pl.jit(auto_mutex=True)
def two_loops(
    x: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    mid: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
):
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        vt = pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        x_ub = pl.make_tile_group(type=vt, addrs=0x0000, mutex_ids=[0]).current()
        y_ub = pl.make_tile_group(type=vt, addrs=0x1000, mutex_ids=[1]).current()
    with pl.section_cube():
        mat = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ)
        a_l1 = pl.make_tile_group(type=mat, addrs=0x0000, mutex_ids=[2]).current()
        b_l1 = pl.make_tile_group(type=mat, addrs=0x1000, mutex_ids=[3]).current()
        left = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[4]).current()
        right = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000, mutex_ids=[5]).current()
        acc = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[6]).current()
        pl.load(b_l1, b, [0, 0])
        pl.move(right, b_l1)

    # loop 1: the vector cores write mid
    for i in pl.range(0, N):
        with pl.section_vector():
            pl.load(x_ub, x, [i * TILE + sub_id * HALF, 0])
            pl.muls(y_ub, x_ub, 2.0)
            pl.store(mid, y_ub, [i * TILE + sub_id * HALF, 0])

BARRIER
    # loop 2: the cube reads mid
    for j in pl.range(0, N):
        with pl.section_cube():
            pl.load(a_l1, mid, [j * TILE, 0])
            pl.move(left, a_l1)
            pl.matmul(acc, left, right)
            pl.store(out, acc, [j * TILE, 0])
'''

_HALVES = '''
import pypto_pro.language as pl

TILE, HALF = 32, 16


@pl.jit(auto_mutex=True)
def swap_halves(
    x: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    mid: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[TILE, TILE], pl.DT_FP32],
):
    with pl.section_cube():  # a mix kernel: the cube has work of its own
        mat = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ)
        b_l1 = pl.make_tile_group(type=mat, addrs=0x0000, mutex_ids=[4]).current()
        pl.load(b_l1, b, [0, 0])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        vt = pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        x_ub = pl.make_tile_group(type=vt, addrs=0x0000, mutex_ids=[0]).current()
        y_ub = pl.make_tile_group(type=vt, addrs=0x1000, mutex_ids=[1]).current()
        z_ub = pl.make_tile_group(type=vt, addrs=0x2000, mutex_ids=[2]).current()
        w_ub = pl.make_tile_group(type=vt, addrs=0x3000, mutex_ids=[3]).current()
        # each vector core writes its half of mid ...
        pl.load(x_ub, x, [sub_id * HALF, 0])
        pl.muls(y_ub, x_ub, 2.0)
        pl.store(mid, y_ub, [sub_id * HALF, 0])
BARRIER
    with pl.section_vector():
        # ... and reads the half the other one wrote
        pl.load(z_ub, mid, [(1 - sub_id) * HALF, 0])
        pl.adds(w_ub, z_ub, 1.0)
        pl.store(out, w_ub, [sub_id * HALF, 0])
'''

_VEC_BARRIER = "        pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)\n"
_CUBE_AND_VEC = ("    with pl.section_cube():\n        pl.system.sync_all(core_type=pl.SyncCoreType.AIC_ONLY)\n"
                 "    with pl.section_vector():\n        pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)\n")
_ALL = "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"

BARRIER_CASES = [
    Case("two_loops_all_core_barrier", _TWO_LOOPS.replace("BARRIER\n", _ALL), "two_loops", "ok",
         "the all-core barrier orders loop 1's stores before loop 2's loads"),
    Case("two_loops_per_type_barriers", _TWO_LOOPS.replace("BARRIER\n", _CUBE_AND_VEC), "two_loops", "race",
         "AIC_ONLY joins only the cube and AIV_ONLY only the vector cores: nothing orders a vector store of "
         "mid before the cube's load of it"),
    Case("two_loops_no_barrier", _TWO_LOOPS.replace("BARRIER\n", ""), "two_loops", "race",
         "nothing orders the two loops"),
    Case("halves_vector_barrier", _HALVES.replace("BARRIER\n", _VEC_BARRIER), "swap_halves", "ok",
         "AIV_ONLY joins the two vector cores: each store of mid is ordered before the other core's load; the "
         "cube takes no part and is not waited for"),
    Case("halves_no_barrier", _HALVES.replace("BARRIER\n", ""), "swap_halves", "race",
         "nothing orders one vector core's store of mid before the other's load"),
    Case("halves_all_core_barrier_in_vector_section",
         _HALVES.replace("BARRIER\n", "    with pl.section_vector():\n" + _ALL.replace("    ", "        ", 1)),
         "swap_halves", "deadlock", "the cube never reaches the all-core barrier the vector cores wait in"),
]

CASES = BARRIER_CASES

_CHAIN = '''
import pypto_pro.language as pl

TILE, HALF, N = 32, 16, 3
EV_FULL, EV_FREE = 0, 1


@pl.jit(auto_mutex=False)
def chain(
    a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
):
    x_ub = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                        addr=0x0000)
    with pl.section_cube():
        mat = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ)
        a_l1 = pl.make_tile(mat, addr=0x0000)
        b_l1 = pl.make_tile(mat, addr=0x1000)
        left = pl.make_tile(
            pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addr=0x0000)
        right = pl.make_tile(
            pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addr=0x0000)
        acc = pl.make_tile(
            pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addr=0x0000)
        pl.load(a_l1, a, [0, 0])
        pl.load(b_l1, b, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(right, b_l1)
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        r_ub = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                            addr=0x1000)
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_FREE)

    for t in pl.range(0, N):
        with pl.section_cube():
            # the vector cores are done with x and r of tile t - 1: the matmul of tile t - 1 is
            # then done too (M -> FIX -> set -> V -> MTE3 -> set), so left may be overwritten
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=EV_FREE)
            pl.move(left, a_l1)
            pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=1)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=1)
            pl.matmul(acc, left, right)
            pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=2)
            pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=2)
            pl.move(x_ub, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)
            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FULL)
        with pl.section_vector():
            pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL)
            pl.relu(r_ub, x_ub)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=3)
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=3)
            pl.store(out, r_ub, [t * TILE + sub_id * HALF, 0])
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_FREE)

    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=EV_FREE)
'''

CHAIN_CASES = [
    Case("transitive_chain", _CHAIN, "chain", "ok",
         "matmul (M) -> sync M->FIX -> FIX move -> set(FIX) -> vector wait(V) -> sync V->MTE3 -> set(MTE3) -> "
         "cube wait(MTE1) -> move into left (MTE1): every hop orders, so the move follows the matmul"),
]

CASES = BARRIER_CASES + CHAIN_CASES

_TWO_PIPE_RELEASE = '''
import pypto_pro.language as pl

TILE, HALF, N = 32, 16, 4
EV_FULL, EV_FREE = [0, 1], 2


@pl.jit(auto_mutex=False)
def two_pipe_release(
    a: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
):
    x_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=[0x0000, 0x1000], depth=2)
    with pl.section_cube():
        mat = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ)
        a_l1 = pl.make_tile(mat, addr=0x0000)
        b_l1 = pl.make_tile(mat, addr=0x1000)
        left = pl.make_tile(
            pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addr=0x0000)
        right = pl.make_tile(
            pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addr=0x0000)
        acc = pl.make_tile(
            pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addr=0x0000)
        pl.load(a_l1, a, [0, 0])
        pl.load(b_l1, b, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(left, a_l1)
        pl.move(right, b_l1)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=1)
        pl.matmul(acc, left, right)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=2)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=2)
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        r_ub = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                            addr=0x2000)
        # both slots start free
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE)
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE)

    for t in pl.range(0, N):
        with pl.section_cube():
            pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE)
            pl.move(x_db[t % 2], acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)
            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FULL[t % 2])
        with pl.section_vector():
            x = x_db[t % 2]
            if t % 2 == 0:
                # stored as it is: the slot is free once the store (MTE3) has read it
                pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_FULL[t % 2])
                pl.store(out, x, [t * TILE + sub_id * HALF, 0])
                pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_FREE)
            else:
                # rectified first: the slot is free once relu (V) has read it
                pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL[t % 2])
                pl.relu(r_ub, x)
                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE)
                pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=3)
                pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=3)
                pl.store(out, r_ub, [t * TILE + sub_id * HALF, 0])
                pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=4)
                pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=4)

    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE)
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE)
'''

COUNTER_CASES = [
    Case("two_pipe_release", _TWO_PIPE_RELEASE, "two_pipe_release", "race",
         "one free event is released from MTE3 (task 0, after a store) and from V (task 1, after relu): the V "
         "set of task 1 can complete before the MTE3 set of task 0, so the cube's third wait does not order "
         "its overwrite of slot 0 after task 0's store of it"),
    Case("one_pipe_release", _TWO_PIPE_RELEASE.replace("pl.system.set_cross_core(pipe=pl.PipeType.MTE3, "
                                                       "event_id=EV_FREE)",
                                                       "pl.system.sync_src(set_pipe=pl.PipeType.MTE3, "
                                                       "wait_pipe=pl.PipeType.V, event_id=5)\n"
                                                       "                pl.system.sync_dst(set_pipe="
                                                       "pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=5)\n"
                                                       "                pl.system.set_cross_core(pipe="
                                                       "pl.PipeType.V, event_id=EV_FREE)"),
         "two_pipe_release", "ok",
         "every release is set from V, after the store's MTE3 work is ordered before V: sets of one pipe "
         "complete in order, so the k-th wait follows task k - 3's release"),
]

CASES = BARRIER_CASES + CHAIN_CASES + COUNTER_CASES

_VALID_SHAPE = '''
import pypto_pro.language as pl

TILE, HALF = 32, 16


@pl.jit(auto_mutex=True)
def valid_halves(
    x: pl.Tensor[[2 * TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[2 * TILE, TILE], pl.DT_FP32],
):
    with pl.section_cube():  # a mix kernel: two vector cores
        mat = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ)
        pl.load(pl.make_tile_group(type=mat, addrs=0x0000, mutex_ids=[2]).current(), x, [0, 0])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        vt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        x_db = pl.make_tile_group(type=vt, addrs=0x0000, mutex_ids=[0])
        y_ub = pl.make_tile_group(type=vt, addrs=0x1000, mutex_ids=[1]).current()
        SET_VALID
        x_ub = x_db.next()
        pl.load(x_ub, x, [sub_id * HALF, 0])
        pl.muls(y_ub, x_ub, 2.0)
        pl.store(out, y_ub, [sub_id * ROWS, 0])
'''
_HALF_VALID = ("pl.set_validshape(x_db, [HALF, TILE])\n"
               "        pl.set_validshape(y_ub, [HALF, TILE])")

VALID_SHAPE_CASES = [
    Case("valid_shape_disjoint_rows", _VALID_SHAPE.replace("SET_VALID", _HALF_VALID).replace("ROWS", "HALF"),
         "valid_halves", "ok",
         "each vector core sets its tiles to [HALF, TILE] valid and stores rows [sub_id * HALF, + HALF): a store "
         "moves the valid shape, so the two stores write disjoint rows"),
    Case("valid_shape_overlapping_rows", _VALID_SHAPE.replace("SET_VALID", _HALF_VALID).replace("ROWS", "8"),
         "valid_halves", "race",
         "the valid halves stored at rows sub_id * 8 overlap in rows [8, 16): unordered writes of one GM range"),
    Case("valid_shape_not_set", _VALID_SHAPE.replace("SET_VALID", "pass").replace("ROWS", "HALF"),
         "valid_halves", "race",
         "without set_validshape each store moves a whole [TILE, TILE] tile: rows [0, 32) and [16, 48) overlap"),
]

CASES = BARRIER_CASES + CHAIN_CASES + COUNTER_CASES + VALID_SHAPE_CASES

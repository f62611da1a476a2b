"""out_i = exp(a_i @ b) over a run-time number of tiles, pipelined by hand through a GM
workspace: the vector cores prime DEPTH (8) releases (EV_FREE), the cube signals each half of
ws[i] on its own (two sets of EV_HALF per tile). With the vector cores the slow side, the cube
runs 8 tiles ahead: 16 pending sets of EV_HALF, past what the hardware counter holds (15)."""

import pypto_pro.language as pl

TILE = 32
HALF = 16
DEPTH = 8  # tiles the cube may run ahead of the vector cores
EV_HALF = 0  # cube -> vector: one half of ws[i] is stored
EV_FREE = 1  # vector -> cube: one more tile may be produced


def square(memory, layout):
    """A TILE x TILE fp32 tile type in `memory`."""
    return pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=memory, layout=layout)


@pl.jit(auto_mutex=True)
def ws_kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    ws: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
):
    n = a.shape[0] // TILE
    with pl.section_cube():
        # one tile of each kind: the square type of each memory, in its layout
        a_l1 = pl.make_tile_group(type=square(pl.MemorySpace.Mat, pl.NZ), addrs=0x0, mutex_ids=[0])
        b_l1 = pl.make_tile_group(type=square(pl.MemorySpace.Mat, pl.NZ), addrs=0x2000, mutex_ids=[1])
        left_t = pl.make_tile_group(type=square(pl.MemorySpace.Left, pl.NZ), addrs=0x0, mutex_ids=[2])
        right_t = pl.make_tile_group(type=square(pl.MemorySpace.Right, pl.ZN), addrs=0x0, mutex_ids=[3])
        acc_t = pl.make_tile_group(type=square(pl.MemorySpace.Acc, pl.NZ), addrs=0x0, mutex_ids=[4])
        b_slot = b_l1.current()
        pl.load(b_slot, b, [0, 0])
        right = right_t.current()
        pl.move(right, b_slot)
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        x_t = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x0, mutex_ids=[5])
        y_t = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x1000, mutex_ids=[6])
        for _ in range(DEPTH):
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_FREE)
        # prologue: the vector cores warm their scratch while the cube starts on the first tiles
        y0 = y_t.current()
        for _ in range(200):
            pl.full(y0, 0.0)

    for i in pl.range(0, n):
        with pl.section_cube():
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=EV_FREE)
            at = a_l1.current()
            pl.load(at, a, [i * TILE, 0])
            left = left_t.current()
            pl.move(left, at)
            acc = acc_t.current()
            pl.matmul(acc, left, right)
            # each half is signalled on its own, so a vector core starts as soon as its half is out
            for h in range(2):
                pl.store(ws, acc[h * HALF:(h + 1) * HALF, :], [i * TILE + h * HALF, 0])
                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_HALF)
        with pl.section_vector():
            x = x_t.current()
            y = y_t.current()
            for _ in range(2):
                pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=EV_HALF)
            pl.load(x, ws, [i * TILE + sub_id * HALF, 0])
            pl.exp(y, x)
            for _ in range(40):  # a long epilogue: the vector cores are the slow side
                pl.muls(y, y, 1.0)
            pl.store(out, y, [i * TILE + sub_id * HALF, 0])
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_FREE)

    with pl.section_cube():
        for _ in range(DEPTH):
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=EV_FREE)

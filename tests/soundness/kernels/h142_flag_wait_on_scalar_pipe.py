"""out[r] = x[r] * x[r0, 0] per row tile: each AIV loads its rows, reads their first element on the
scalar pipe and scales the rows by it. The load is ordered before the scalar read by an MTE2 -> S
flag; the vector op, issued after the scalar unit has passed that flag's wait (and has used the
value it read), relies on it too, as a wait_cross_core on S would (probe h142)."""

import pypto_pro.language as pl

ROWS = 16


@pl.jit()
def kernel(
    x: pl.Tensor[[pl.DYNAMIC, 64], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, 64], pl.DT_FP32],
):
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        t = pl.make_tile(pl.TileType(shape=[ROWS, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                         addr=0x0000, size=ROWS * 64 * 4)
        y = pl.make_tile(pl.TileType(shape=[ROWS, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                         addr=0x1000, size=ROWS * 64 * 4)
        row = sub_id * ROWS
        pl.load(t, x, [row, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.S, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.S, event_id=0)
        s = t[0, 0]
        pl.muls(y, t, s)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.store(out, y, [row, 0])

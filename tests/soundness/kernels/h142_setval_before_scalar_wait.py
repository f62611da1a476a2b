"""Hand-pipelined: out[i] = relu(a[i] @ b), and a header row per tile, head[2 * i + sub] = [i, 0..]
(probe h142). Each AIV writes the header element with a scalar store (setval) into a tile of
`make_tile`, waits for the cube's tile on the scalar pipe, and stores the header on MTE3, with no
S -> MTE3 flag: the wait holds back the issue of later work, not the scalar store before it.
"""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2
EV_FULL = [0, 1]
EV_FREE = [2, 3]


@pl.jit(auto_mutex=True)
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    head: pl.Tensor[[pl.DYNAMIC, 8], pl.DT_FP32],
):
    x_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[0, 1])
    with pl.section_cube():
        a_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[2, 3])
        b_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x2000, mutex_ids=[4])
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[5, 6])
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000, mutex_ids=[7, 8])
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[9, 10])
        b_slot = b_l1.current()
        pl.load(b_slot, b, [0, 0])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        r_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x2000, mutex_ids=[11, 12])
        hd = pl.make_tile(pl.TileType(shape=[1, 8], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                          addr=0x6000, size=32)
        pl.full(hd, 0.0)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.S, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.S, event_id=0)

    n_tiles = a.shape[0] // TILE
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[0])
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])

    for t in pl.range(0, n_tiles + 1):
        with pl.section_cube():
            if t < n_tiles:
                pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[t % 2])
                at = a_l1.next()
                pl.load(at, a, [t * TILE, 0])
                left = left_db.next()
                right = right_db.next()
                acc = acc_db.next()
                pl.move(left, at)
                pl.move(right, b_slot)
                pl.matmul(acc, left, right)
                x = x_db.next()
                pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)
                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FULL[t % 2])
        with pl.section_vector():
            if t >= 1:
                # the previous header's store must be done before the scalar unit rewrites hd
                pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.S, event_id=1)
                pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.S, event_id=1)
                hd[0, 0] = t * 1.0
                pl.system.wait_cross_core(pipe=pl.PipeType.S, event_id=EV_FULL[(t - 1) % 2])
                x = x_db.next()
                r = r_db.next()
                pl.relu(r, x)
                pl.store(out, r, [(t - 1) * TILE + sub_id * HALF, 0])
                pl.store(head, hd, [(t - 1) * 2 + sub_id, 0])
                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])

    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[n_tiles % 2])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(n_tiles + 1) % 2])

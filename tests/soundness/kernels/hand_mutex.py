"""examples/hand_pipelined.py with `auto_mutex=False` and the mutexes auto_mutex would insert
written by hand: every op holds the ids of its slots on its own pipe
(`pl.system.mutex_lock`/`mutex_unlock`), which orders the pipes of one core on a tile. Slot `s`
of every double-buffered group is the beat's residue `t % 2`."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2  # each AIV stores half of a tile's rows
N = 6
EV_FULL = [0, 1]  # cube -> vector: tile t % 2 holds a @ b of tile t
EV_FREE = [2, 3]  # vector -> cube: tile t % 2 may be overwritten


def locked(pipe, ids):
    for i in ids:
        pl.system.mutex_lock(pipe=pipe, mutex_id=i)


def unlocked(pipe, ids):
    for i in ids:
        pl.system.mutex_unlock(pipe=pipe, mutex_id=i)


def produce(s, row, a, b_slot, a_l1, left_db, right_db, acc_db, x_db):
    """Cube: x = a[row:row + TILE] @ b, each AIV receives its half; every op holds the ids of its
    slots on its pipe, as auto_mutex would have it."""
    at = a_l1.next()
    locked(pl.PipeType.MTE2, [2 + s])
    pl.load(at, a, [row, 0])
    unlocked(pl.PipeType.MTE2, [2 + s])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    locked(pl.PipeType.MTE1, [5 + s, 2 + s])
    pl.move(left, at)
    unlocked(pl.PipeType.MTE1, [5 + s, 2 + s])
    locked(pl.PipeType.MTE1, [7 + s, 4])
    pl.move(right, b_slot)
    unlocked(pl.PipeType.MTE1, [7 + s, 4])
    locked(pl.PipeType.M, [9 + s, 5 + s, 7 + s])
    pl.matmul(acc, left, right)
    unlocked(pl.PipeType.M, [9 + s, 5 + s, 7 + s])
    x = x_db.next()
    locked(pl.PipeType.FIX, [s, 9 + s])
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)
    unlocked(pl.PipeType.FIX, [s, 9 + s])


def consume(s, row, sub_id, out, x_db, r_db):
    """Vector: out[row + this AIV's half] = relu(x)."""
    x = x_db.next()
    r = r_db.next()
    locked(pl.PipeType.V, [11 + s, s])
    pl.relu(r, x)
    unlocked(pl.PipeType.V, [11 + s, s])
    locked(pl.PipeType.MTE3, [11 + s])
    pl.store(out, r, [row + sub_id * HALF, 0])
    unlocked(pl.PipeType.MTE3, [11 + s])


@pl.jit(auto_mutex=False)
def hand_pipelined_kernel(
    a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
):
    # handed from cube to vector; synchronised by the EV_FULL / EV_FREE events below
    x_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000,
        mutex_ids=[0, 1],
    )
    with pl.section_cube():
        a_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[2, 3],
        )
        b_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x2000,
            mutex_ids=[4],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[5, 6],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000,
            mutex_ids=[7, 8],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[9, 10],
        )
        b_slot = b_l1.current()
        locked(pl.PipeType.MTE2, [4])
        pl.load(b_slot, b, [0, 0])
        unlocked(pl.PipeType.MTE2, [4])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        r_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x2000,
            mutex_ids=[11, 12],
        )

    # one context per tile in flight: the row a beat's producer works on, read a beat later
    ring = pl.struct_array(2, "Beat", row=0)
    # both tiles start free: prime the releases the cube waits for
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[0])
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])

    for t in pl.range(0, N + 1):
        now = ring[t % 2]
        now.row = t * TILE
        with pl.section_cube():
            if t < N:
                pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[t % 2])
                produce(t % 2, now.row, a, b_slot, a_l1, left_db, right_db, acc_db, x_db)
                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FULL[t % 2])
        with pl.section_vector():
            if t >= 1:
                before = ring[(t - 1) % 2]
                pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL[(t - 1) % 2])
                consume((t - 1) % 2, before.row, sub_id, out, x_db, r_db)
                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])

    # drain: consume the releases of the last two tiles so every set meets its wait
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[N % 2])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(N + 1) % 2])


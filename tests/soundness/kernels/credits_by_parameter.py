"""hand_event_in_stages.py with the credits its help asks for, taken one per two tasks: the cube
waits for a release of the vector cores on even tasks, and they release one on even tasks.
The vector cores prime `range(8 if d == 7 else 1)` credits before the loop: at `d = 7` the
cube runs 16 tasks ahead and the sets of event 5 pending pass the hardware counter at 24
tiles (probe h81: the trip counts were drawn from the one credit of the first sample of `d`)."""
import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.pipeline.stage
def produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db):
    if i % 2 == 0:
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=6)
    at = a_l1.next()
    pl.load(at, a, [i * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, at)
    pl.move(right, b_slot)
    pl.matmul(acc, left, right)
    pl.store(mid, acc, [i * TILE, 0])
    pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=5)


@pl.pipeline.stage
def consume(i, sub_id, mid, out, r_db):
    pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=5)
    r = r_db.next()
    pl.load(r, mid, [i * TILE + sub_id * HALF, 0])
    for _k in range(40):
        pl.relu(r, r)
    pl.store(out, r, [i * TILE + sub_id * HALF, 0])
    if i % 2 == 0:
        pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=6)


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kern(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    mid: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    d: pl.DT_INT32,
):
    with pl.section_cube():
        a_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[2, 3],
        )
        b_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x2000, mutex_ids=[4],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[5, 6],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000, mutex_ids=[7, 8],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[9, 10],
        )
        b_slot = b_l1.current()
        pl.load(b_slot, b, [0, 0])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        r_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x2000, mutex_ids=[11, 12],
        )
    n = a.shape[0] // TILE
    with pl.section_vector():
        for _c in range(8 if d == 7 else 1):
            pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=6)
    for i in pl.range(0, n):
        with pl.section_cube():
            produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db)
        with pl.section_vector():
            consume(i, sub_id, mid, out, r_db)
    with pl.section_cube():
        for _c in range(8 if d == 7 else 1):
            pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=6)

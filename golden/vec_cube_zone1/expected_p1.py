"""Two stages, vector first: out[i] = (a[i] * s(i)) @ d with s(i) = 2 * i + 1 computed in zone 1.

  v1 (vector) load a half tile per AIV, scale by s, to NZ, insert into L1 -> mbuf (cross-core, Mat)
  c1 (cube)   out[i] = m @ d
"""

from pypto_pro import language as pl

TILE = 32
HALF = TILE // 2
N = 5


@pl.pipeline.stage
def v1(i, scale, sub_id, a, a_db, nz_db, mbuf):
    av = a_db.next()
    pl.load(av, a, [i * TILE + sub_id * HALF, 0])
    pl.muls(av, av, scale)
    anz = nz_db.next()
    pl.move(anz, av)
    m = mbuf.next()
    pl.insert(m, anz, [sub_id * HALF, 0])


@pl.pipeline.stage
def c1(i, dm, out, mbuf, left_db, right_db, acc_db):
    m = mbuf.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, m)
    pl.move(right, dm)
    pl.matmul(acc, left, right)
    pl.store(out, acc, [i * TILE, 0])


# Written by pto-transpile (digest 900763324e3a162e): edit the serial kernel it came from, not this one.
@pl.jit(auto_mutex=True)
def vec_cube_kernel(
    a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    d: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
):
    mbuf = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=0x0,
        mutex_ids=[0, 1],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        a_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x0,
            mutex_ids=[2, 3],
        )
        nz_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, layout=pl.NZ),
            addrs=0x1000,
            mutex_ids=[4, 5],
        )
    with pl.section_cube():
        d_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x8000,
            mutex_ids=[6],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[7, 8],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0,
            mutex_ids=[9, 10],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[11, 12],
        )
        dm = d_l1.current()
        pl.load(dm, d, [0, 0])

    _pl_ctx_arr = pl.struct_array(2, "PipeCtx", _pl_is_valid=0, i=0, scale=0, sub_id=0, _pl_task_id=0)
    _pl_task_id = 0
    _pl_fwd_ids_mbuf = [0, 1]
    _pl_bwd_ids_mbuf = [2, 3]
    with pl.section_cube():
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_mbuf[0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_mbuf[1])
    for i in pl.range(0, N):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        if i < N:
            _pl_ctx_0._pl_is_valid = 1
        else:
            _pl_ctx_0._pl_is_valid = 0
        scale = i * 2 + 1  # zone 1: a per-iteration scalar the vector stage reads
        _pl_ctx_0.i = i
        _pl_ctx_0.scale = scale
        _pl_ctx_0._pl_task_id = _pl_task_id
        with pl.section_vector():
            _pl_ctx_0.sub_id = sub_id
        with pl.section_vector():
            if _pl_ctx_0._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_bwd_ids_mbuf[_pl_ctx_0._pl_task_id % 2],
                )
                v1(_pl_ctx_0.i, _pl_ctx_0.scale, _pl_ctx_0.sub_id, a, a_db, nz_db, mbuf)
                pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_fwd_ids_mbuf[_pl_ctx_0._pl_task_id % 2])
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_cube():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_fwd_ids_mbuf[_pl_ctx_neg1._pl_task_id % 2],
                )
                c1(_pl_ctx_neg1.i, dm, out, mbuf, left_db, right_db, acc_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_bwd_ids_mbuf[_pl_ctx_neg1._pl_task_id % 2],
                )
        _pl_task_id = _pl_task_id + 1
    for _pl_drain in pl.range(0, 1):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        _pl_ctx_0._pl_is_valid = 0
        _pl_ctx_0._pl_task_id = _pl_task_id
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_cube():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_fwd_ids_mbuf[_pl_ctx_neg1._pl_task_id % 2],
                )
                c1(_pl_ctx_neg1.i, dm, out, mbuf, left_db, right_db, acc_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_bwd_ids_mbuf[_pl_ctx_neg1._pl_task_id % 2],
                )
        _pl_task_id = _pl_task_id + 1
    with pl.section_vector():
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_mbuf[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_mbuf[1])

"""Two independent pipeline loops in one kernel, each with its own preload.

Loop 1: out1[i] = relu(a[i] @ b)        (cube matmul -> vector relu + store)
Loop 2: out2[j] = (a[j] @ b) * 0.5      (reuses the same stage shape on other buffers)
"""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2
N = 4
M = 3


@pl.pipeline.stage
def mm(i, a, b_slot, a_l1, left_db, right_db, acc_db, xbuf):
    at = a_l1.next()
    pl.load(at, a, [i * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, at)
    pl.move(right, b_slot)
    pl.matmul(acc, left, right)
    x = xbuf.next()
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def relu_store(i, sub_id, out, xbuf, r_db):
    x = xbuf.next()
    r = r_db.next()
    pl.relu(r, x)
    pl.store(out, r, [i * TILE + sub_id * HALF, 0])


@pl.pipeline.stage
def mm2(j, a, b_slot, a_l1, left_db, right_db, acc_db, ybuf):
    at = a_l1.next()
    pl.load(at, a, [j * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, at)
    pl.move(right, b_slot)
    pl.matmul(acc, left, right)
    y = ybuf.next()
    pl.move(y, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def half_store(j, sub_id, out, ybuf, r_db):
    y = ybuf.next()
    r = r_db.next()
    pl.muls(r, y, 0.5)
    pl.store(out, r, [j * TILE + sub_id * HALF, 0])


# Written by pto-transpile (digest d2111abd9ee82806): edit the serial kernel it came from, not this one.
@pl.jit(auto_mutex=True)
def two_loop_kernel(
    a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out1: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    out2: pl.Tensor[[M * TILE, TILE], pl.DT_FP32],
):
    xbuf = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0,
        mutex_ids=[0, 1],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    ybuf = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x4000,
        mutex_ids=[2, 3],
        fwd_ids=[4, 5],
        bwd_ids=[6, 7],
    )
    with pl.section_cube():
        a_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[4, 5],
        )
        b_l1 = pl.make_tile_group(
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
        b_slot = b_l1.current()
        pl.load(b_slot, b, [0, 0])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        r_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000,
            mutex_ids=[13, 14],
        )

    _pl_ctx_arr = pl.struct_array(2, "PipeCtx", _pl_is_valid=0, i=0, sub_id=0, _pl_task_id=0)
    _pl_task_id = 0
    _pl_fwd_ids_xbuf = [0, 1]
    _pl_bwd_ids_xbuf = [2, 3]
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_xbuf[0])
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_xbuf[1])
    # first pipeline
    for i in pl.range(0, N):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        if i < N:
            _pl_ctx_0._pl_is_valid = 1
        else:
            _pl_ctx_0._pl_is_valid = 0
        _pl_ctx_0.i = i
        _pl_ctx_0._pl_task_id = _pl_task_id
        with pl.section_vector():
            _pl_ctx_0.sub_id = sub_id
        with pl.section_cube():
            if _pl_ctx_0._pl_is_valid:
                pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_xbuf[_pl_ctx_0._pl_task_id % 2])
                mm(_pl_ctx_0.i, a, b_slot, a_l1, left_db, right_db, acc_db, xbuf)
                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_fwd_ids_xbuf[_pl_ctx_0._pl_task_id % 2])
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_vector():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_fwd_ids_xbuf[_pl_ctx_neg1._pl_task_id % 2],
                )
                relu_store(_pl_ctx_neg1.i, _pl_ctx_neg1.sub_id, out1, xbuf, r_db)
                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_xbuf[_pl_ctx_neg1._pl_task_id % 2])
        _pl_task_id = _pl_task_id + 1
    for _pl_drain in pl.range(0, 1):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        _pl_ctx_0._pl_is_valid = 0
        _pl_ctx_0._pl_task_id = _pl_task_id
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_vector():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_fwd_ids_xbuf[_pl_ctx_neg1._pl_task_id % 2],
                )
                relu_store(_pl_ctx_neg1.i, _pl_ctx_neg1.sub_id, out1, xbuf, r_db)
                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_xbuf[_pl_ctx_neg1._pl_task_id % 2])
        _pl_task_id = _pl_task_id + 1
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_xbuf[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_xbuf[1])

    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)

    _pl_ctx_arr_1 = pl.struct_array(2, "PipeCtx_1", _pl_is_valid=0, j=0, sub_id=0, _pl_task_id=0)
    _pl_task_id_1 = 0
    _pl_fwd_ids_ybuf = [4, 5]
    _pl_bwd_ids_ybuf = [6, 7]
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_ybuf[0])
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_ybuf[1])
    # second pipeline
    for j in pl.range(0, M):
        _pl_ctx_0_1 = _pl_ctx_arr_1[_pl_task_id_1 % 2]
        if j < M:
            _pl_ctx_0_1._pl_is_valid = 1
        else:
            _pl_ctx_0_1._pl_is_valid = 0
        _pl_ctx_0_1.j = j
        _pl_ctx_0_1._pl_task_id = _pl_task_id_1
        with pl.section_vector():
            _pl_ctx_0_1.sub_id = sub_id
        with pl.section_cube():
            if _pl_ctx_0_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.FIX,
                    event_id=_pl_bwd_ids_ybuf[_pl_ctx_0_1._pl_task_id % 2],
                )
                mm2(_pl_ctx_0_1.j, a, b_slot, a_l1, left_db, right_db, acc_db, ybuf)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.FIX,
                    event_id=_pl_fwd_ids_ybuf[_pl_ctx_0_1._pl_task_id % 2],
                )
        _pl_ctx_neg1_1 = _pl_ctx_arr_1[(_pl_task_id_1 + 1) % 2]
        with pl.section_vector():
            if _pl_ctx_neg1_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_fwd_ids_ybuf[_pl_ctx_neg1_1._pl_task_id % 2],
                )
                half_store(_pl_ctx_neg1_1.j, _pl_ctx_neg1_1.sub_id, out2, ybuf, r_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_bwd_ids_ybuf[_pl_ctx_neg1_1._pl_task_id % 2],
                )
        _pl_task_id_1 = _pl_task_id_1 + 1
    for _pl_drain_1 in pl.range(0, 1):
        _pl_ctx_0_1 = _pl_ctx_arr_1[_pl_task_id_1 % 2]
        _pl_ctx_0_1._pl_is_valid = 0
        _pl_ctx_0_1._pl_task_id = _pl_task_id_1
        _pl_ctx_neg1_1 = _pl_ctx_arr_1[(_pl_task_id_1 + 1) % 2]
        with pl.section_vector():
            if _pl_ctx_neg1_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_fwd_ids_ybuf[_pl_ctx_neg1_1._pl_task_id % 2],
                )
                half_store(_pl_ctx_neg1_1.j, _pl_ctx_neg1_1.sub_id, out2, ybuf, r_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_bwd_ids_ybuf[_pl_ctx_neg1_1._pl_task_id % 2],
                )
        _pl_task_id_1 = _pl_task_id_1 + 1
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_ybuf[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_ybuf[1])

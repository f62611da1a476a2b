"""Small cube kernels that accumulate a K split in an Acc tile with `phase=` (the Acc unit
flag, `pto_api.sync.UNIT_FLAG`), for the emulator's and the check's tests of it."""

from __future__ import annotations

GROUPS = '''
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[0, 1])
        b_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x8000, mutex_ids=[2, 3])
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000, mutex_ids=[4, 5])
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000, mutex_ids=[6, 7])
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ,
                             fractal=1024),
            addrs=0x0000, mutex_ids=[8, 9])
'''

MULTIPLY = '''
    a_l1 = a_l1_db.next()
    b_l1 = b_l1_db.next()
    pl.load(a_l1, a, [ki * TILE, 0 * TILE])
    pl.load(b_l1, b, [0 * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    pl.move(left, a_l1)
    pl.move(right, b_l1)
    pl.matmul(acc, left, right, phase=pl.AccPhase.Partial)
    a_l1 = a_l1_db.next()
    b_l1 = b_l1_db.next()
    pl.load(a_l1, a, [ki * TILE, 1 * TILE])
    pl.load(b_l1, b, [1 * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    pl.move(left, a_l1)
    pl.move(right, b_l1)
    pl.matmul_acc(acc, acc, left, right{last})
'''

COPY = '''

@pl.pipeline.stage
def cp(ki, sub_id, c, d, vec_db):
    half = vec_db.next()
    pl.load(half, c, [ki * TILE + sub_id * HALF, 0])
    pl.store(d, half, [ki * TILE + sub_id * HALF, 0])
'''

VECTOR_GROUPS = '''    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        vec_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x0000, mutex_ids=[10, 11])
'''


def ksplit(last: str = "Final", store: str | None = "Final", n_iter: int = 3, stages: int = 1) -> str:
    """`out_i = A_i @ B` with K in two blocks: the first matmul Partial, the second `last`,
    then `pl.store` of the Acc tile with phase `store` (None: none). `stages=2` stores in a
    second cube stage, the Acc tile passed on through its 2-slot group."""
    phase = lambda enum, name: f", phase=pl.{enum}.{name}" if name else ""  # noqa: E731
    store_line = f"    pl.store(out, acc, [ki * TILE, 0]{phase('STPhase', store)})\n"
    body = MULTIPLY.format(last=phase("AccPhase", last))
    params, groups = "", GROUPS
    if stages == 1:
        stage_defs = ("@pl.pipeline.stage\ndef mm(ki, a, b, out, a_l1_db, b_l1_db, left_db, right_db, acc_db):\n"
                      "    acc = acc_db.next()" + body + store_line)
        calls = "            mm(ki, a, b, out, a_l1_db, b_l1_db, left_db, right_db, acc_db)\n"
    else:  # cube stages alternate with vector ones: a copy of `c` into `d` between them
        stage_defs = ("@pl.pipeline.stage\ndef mm(ki, a, b, a_l1_db, b_l1_db, left_db, right_db, acc_db):\n"
                      "    acc = acc_db.next()" + body + COPY + "\n\n@pl.pipeline.stage\ndef st(ki, out, acc_db):\n"
                      "    acc = acc_db.current()\n" + store_line)
        calls = ("            mm(ki, a, b, a_l1_db, b_l1_db, left_db, right_db, acc_db)\n"
                 "        with pl.section_vector():\n            cp(ki, sub_id, c, d, vec_db)\n"
                 "        with pl.section_cube():\n            st(ki, out, acc_db)\n")
        params += ("    c: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
                   "    d: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n")
        groups += VECTOR_GROUPS
    return (_head(n_iter) + stage_defs + "\n\n@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))"
            + _signature(params) + groups + "    for ki in pl.range(0, N_ITER):\n        with pl.section_cube():\n"
            + calls)


def _head(n_iter: int) -> str:
    return (f"import pypto_pro.language as pl\n\nTILE = 32\nHALF = TILE // 2\nN_ITER = {n_iter}\n"
            "K_SPLIT = 2  # the two blocks of MULTIPLY\n\n\n")


def _signature(params: str = "") -> str:
    return ("\ndef k(\n    a: pl.Tensor[[N_ITER * TILE, K_SPLIT * TILE], pl.DT_FP32],\n"
            "    b: pl.Tensor[[K_SPLIT * TILE, TILE], pl.DT_FP32],\n"
            "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n" + params + "):")


def run_ahead(slots: int = 2, n_iter: int = 3) -> str:
    """The K-split kernel pipelined by hand as preload 1 would run a matmul stage and a later
    store stage on one cube core: beat `t` multiplies task `t` into Acc tile `t % slots`, then
    stores task `t - 1`'s, so the Final matmul of a task comes before the Final store of the
    one before. An M -> FIX `sync_src`/`sync_dst` pair hands each task to its store."""
    accs = [f"acc{i}" for i in range(slots)]
    tiles = "".join(f"        {name} = pl.make_tile(acc_type, addr={i * 0x1000:#x})\n" for i, name in enumerate(accs))
    body = MULTIPLY.format(last=", phase=pl.AccPhase.Final").replace("\n    ", "\n                ")
    return (_head(n_iter) + "@pl.jit(auto_mutex=True)" + _signature() + GROUPS.split("        acc_db")[0]
            + "        acc_type = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc,\n"
            "                               layout=pl.NZ, fractal=1024)\n"
            + tiles + f"        accs = ({', '.join(accs)},)\n"
            "        for t in pl.range(0, N_ITER + 1):\n"
            "            if t < N_ITER:\n"
            f"                ki = t\n                acc = accs[t % {slots}]" + body
            + "                pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)\n"
            "            if t >= 1:\n"
            "                pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)\n"
            f"                pl.store(out, accs[(t - 1) % {slots}], [(t - 1) * TILE, 0], phase=pl.STPhase.Final)\n")

from pto_transpile.rules import _examples as ex
from pto_transpile.rules.base import Rule

#: Counters only pto-transpile's output binds (full mode / serial mode).
MARKERS = ("_pl_task_id", "_pl_sync_id")


def is_generated(kernel) -> bool:
    return any(n.startswith(MARKERS) for n in kernel.stored)


def check(file):
    for kernel in file.kernels:
        if is_generated(kernel):
            yield kernel.node.name, {"kernel": kernel.name}


DOC = """\
## What it checks
The kernel is already the output of pto-transpile (it binds the task or sync counter the
transform generates, `_pl_task_id` / `_pl_sync_id`).

## Why it matters for pipelining
A pipelined kernel holds the ctx ring, the validity guards and every cross-core sync; its
stage calls sit under runtime `if`s and it uses reserved `_pl_` names, so transforming it
again would be rejected on every line, and a second set of syncs would be wrong anyway.
Transform the serial source instead. (This check stands in for all the others on such a
kernel, so the report is one line instead of dozens.)

## Example
```python
# build/kernel/pipeline_generated.py
    _pl_ctx_arr = pl.struct_array(2, "PipeCtx", _pl_is_valid=0, ki=0, _pl_task_id=0)
```

## Use instead
```python
# the serial kernel.py the generated file came from
    for ki in pl.range(0, N):
        with pl.section_cube():
            mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
```
"""


#: the 2-stage skeleton as pto-transpile writes it at preload 1 (kept literal: building it here
#: would run the transform while the rule registry is still being loaded)
_GENERATED = '''\
import pypto_pro.language as pl


TILE = 32
HALF = TILE // 2
N = 4


@pl.pipeline.stage
def mm(ki, a, a_l1, left_db, right_db, acc_db, x_db):
    cur_a = a_l1.next()
    pl.load(cur_a, a, [ki * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_a)
    pl.matmul(acc, left, right)
    x = x_db.next()
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    x = x_db.next()
    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])


@pl.jit(auto_mutex=True)
def kernel(  # E: PTO060
    a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
):
    x_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0,
        mutex_ids=[0, 1],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[4, 5],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[6, 7],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0,
            mutex_ids=[8, 9],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[10, 11],
        )
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
    _pl_ctx_arr = pl.struct_array(2, "PipeCtx", _pl_is_valid=0, ki=0, sub_id=0, _pl_task_id=0)
    _pl_task_id = 0
    _pl_fwd_ids_x_db = [0, 1]
    _pl_bwd_ids_x_db = [2, 3]
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_x_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_x_db[1])
    for ki in pl.range(0, N):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        if ki < N:
            _pl_ctx_0._pl_is_valid = 1
        else:
            _pl_ctx_0._pl_is_valid = 0
        _pl_ctx_0.ki = ki
        _pl_ctx_0._pl_task_id = _pl_task_id
        with pl.section_vector():
            _pl_ctx_0.sub_id = sub_id
        with pl.section_cube():
            if _pl_ctx_0._pl_is_valid:
                pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_x_db[_pl_ctx_0._pl_task_id % 2])
                mm(_pl_ctx_0.ki, a, a_l1, left_db, right_db, acc_db, x_db)
                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_fwd_ids_x_db[_pl_ctx_0._pl_task_id % 2])
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_vector():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_fwd_ids_x_db[_pl_ctx_neg1._pl_task_id % 2],
                )
                st(_pl_ctx_neg1.ki, _pl_ctx_neg1.sub_id, out, x_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_bwd_ids_x_db[_pl_ctx_neg1._pl_task_id % 2],
                )
        _pl_task_id = _pl_task_id + 1
    for _pl_drain in pl.range(0, 1):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        _pl_ctx_0._pl_is_valid = 0
        _pl_ctx_0._pl_task_id = _pl_task_id
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_vector():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_fwd_ids_x_db[_pl_ctx_neg1._pl_task_id % 2],
                )
                st(_pl_ctx_neg1.ki, _pl_ctx_neg1.sub_id, out, x_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_bwd_ids_x_db[_pl_ctx_neg1._pl_task_id % 2],
                )
        _pl_task_id = _pl_task_id + 1
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_x_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_x_db[1])
'''

INVALID = (_GENERATED,)

VALID = (ex.kernel(config="preload=1"),)


RULE = Rule(
    code="PTO060",
    name="already-pipelined",
    title="The kernel is already pipelined",
    message="kernel `{kernel}` is already the output of pto-transpile",
    hint="Run pto-transpile on the serial kernel the generated file came from",
    phase="file",
    check=check,
    seed="(tool) transform serial kernels only",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)

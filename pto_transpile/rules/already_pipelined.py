from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.read.pipelined import BY_HAND, pipelined_as
from pto_transpile.rules import _examples as ex
from pto_transpile.rules.rule import Rule


def check(ctx):
    file = ctx.file
    for kernel in file.kernels:
        how = pipelined_as(kernel, file)
        if how is not None:
            yield kernel.node.name, {"kernel": kernel.name, "how": how,
                                     "_hint": "hand" if how.startswith(BY_HAND) else "generated"}


DOC = """\
## What it checks
(A note.) A kernel without `pipeline=` is already pipelined: it is pto-transpile's output
(it binds the generated task counter `_pl_task_id` / `_pl_sync_id`), or its author
pipelined it by hand (it calls `pl.system.set_cross_core`/`wait_cross_core`, or the
intra-core flags `sync_src`/`sync_dst`, itself or in a function of the file it calls, as
production kernels do). Such a kernel is left exactly as written: the output file holds it
byte for byte, and the exit status is 0, so `--check` in a pre-commit hook accepts committed
generated files and hand-written pipelines alike.

## Why it matters for pipelining
A pipelined kernel holds its own ring of contexts, validity guards and cross-core syncs;
pipelining it again would add a second set of syncs on the same event ids. The serial
source is what the transform takes. To check the syncs of a hand-written pipeline, run it
with `--simulate`: the emulator runs it with hardware semantics and reports races,
deadlocks and unbalanced events.

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

#: the hand-pipelined example kernel, marked where this note is expected
_HAND = ex.HAND_PIPELINED.replace("\ndef kernel(\n", "\ndef kernel(  # E: PTO060\n", 1)

INVALID = (_GENERATED, _HAND)

VALID = (ex.kernel(config="preload=1"),)


RULE = Rule(
    code=codes.ALREADY_PIPELINED,
    name="already-pipelined",
    title="The kernel is already pipelined, so it is left as written",
    message="kernel `{kernel}` is {how}; it is left as written",
    hint="Run pto-transpile on the serial kernel the generated file came from",
    hints={"generated": "Run pto-transpile on the serial kernel the generated file came from",
           "hand": "Run with `--simulate` to check its syncs on the emulated NPU"},
    phase="file",
    severity=Severity.NOTE,
    check=check,
    seed="a kernel already pipelined (generated, or by hand) is not transformed again",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)

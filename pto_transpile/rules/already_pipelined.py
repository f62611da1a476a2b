from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.read.pipelined import BY_HAND, pipelined_as
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
(it binds the generated task counter `_pl_task_id` / `_pl_sync_id` and carries the comment
pto-transpile writes above it, `# Written by pto-transpile (digest ...)`, whose digest is
that of the whole file and the kernel's name), or its author pipelined it by hand (it calls
`pl.system.set_cross_core`/`wait_cross_core`, or the intra-core flags `sync_src`/`sync_dst`,
itself or in a function of the file it calls, as production kernels do).
Such a kernel is left as written, and the exit status is 0, so `--check` in a pre-commit hook
accepts committed generated files and hand-written pipelines alike. The output file holds
pto-transpile's output byte for byte; above a kernel pipelined by hand it adds one comment,
`# Copied by pto-transpile: ...`, which names the copy as pto-transpile's own, so that a run
after the hand-written file is edited replaces it (a file without a mark of pto-transpile's is
someone else's, replaced only with `--force`). A kernel that binds the generated counters
without a mark matching its file (a generated file edited afterwards, or a hand-written
pipeline that uses those names) counts as pipelined by hand: its syncs are checked
(PTO068, PTO077).

## Why it matters for pipelining
A pipelined kernel holds its own ring of contexts, validity guards and cross-core syncs;
pipelining it again would add a second set of syncs on the same event ids. The serial
source is what the transform takes. The syncs of a hand-written pipeline are checked all
the same, for every run (PTO068, PTO077); `--simulate` also runs it with hardware
semantics on the emulator, which reports races, deadlocks and unbalanced events.

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


RULE = Rule(
    code=codes.ALREADY_PIPELINED,
    name="already-pipelined",
    title="The kernel is already pipelined, so it is left as written",
    message="kernel `{kernel}` is {how}; it is left as written",
    hint="Run pto-transpile on the serial kernel the generated file came from",
    hints={"generated": "Run pto-transpile on the serial kernel the generated file came from",
           "hand": "Its syncs are checked all the same (PTO068 names an unsound one, PTO077 one the check cannot "
                   "follow); `--simulate` also runs it on the emulated NPU"},
    phase="file",
    severity=Severity.NOTE,
    check=check,
    seed="a kernel already pipelined (generated, or by hand) is not transformed again",
    doc=DOC,
)

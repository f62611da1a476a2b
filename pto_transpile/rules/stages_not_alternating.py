from itertools import pairwise

import libcst as cst

from pto_api.ops import op_pipe
from pto_transpile import codes
from pto_transpile.rules._accesses import in_other_cores_memory, stage_accesses
from pto_transpile.rules.rule import Rule

#: The core whose unit executes an op's pipe: matmuls need the cube unit, V work the vector unit.
CORE_OF_PIPE = {"M": "cube", "V": "vector"}


def check(ctx):
    for loop in ctx.kernel.loops:
        # a stage whose core is not known (no section, or a `with` another rule reports) stands
        # between its neighbours: which core it belongs on decides whether they alternate
        told: set[int] = set()  #: the misplaced stages reported: one stage in the wrong section is one finding
        for prev, cur in pairwise(loop.stages):
            if prev.section == cur.section in ("cube", "vector") and prev.holder is not cur.holder:
                fields = {"prev": prev.func, "stage": cur.func, "core": cur.section}
                misplaced = next(((s, op) for s in (cur, prev) for op in [_foreign_op(ctx, s)] if op), None)
                if misplaced is not None:
                    stage, op = misplaced
                    if id(stage) in told:
                        continue  # (its neighbour on the other side: study ux3 got two findings of one mistake)
                    told.add(id(stage))
                    other = "vector" if stage.section == "cube" else "cube"
                    fields.update(_hint="misplaced", misplaced=stage.func, op=op, other=other)
                yield cur.call, fields


def _foreign_op(ctx, stage) -> str:
    """A `pl` op of the stage's function that only the other core can run ("" if none): by its
    pipe (a matmul, a vector op), or by the memory of the tiles it moves (a store from a Vec
    tile: the MTE3 pipe is on both cores, UB on the vector core alone)."""
    file = ctx.file
    func = file.stages.get(stage.func)
    if func is None:
        return ""
    for call in file.find(func.node.body, cst.Call):
        path = file.pl.path(call.func)
        if path and len(path) == 1:
            core = CORE_OF_PIPE.get(op_pipe(path[0]) or "")
            if core is not None and core != stage.section:
                return path[0]
    return next((a.op for a in stage_accesses(ctx, stage) if in_other_cores_memory(ctx.kernel, a, stage.section)), "")


DOC = """\
## What it checks
Two consecutive stages of the pipeline loop are in sections of the same core (two
`section_vector()` blocks in a row, or two `section_cube()` blocks). Stages must strictly
alternate cube/vector: C->V->C->V... (or V->C->V...).

## Why it matters for pipelining
Delays are computed along the chain: the first stage of a core is delayed one iteration
behind the upstream stage of the other core, and each further stage on the same core
`preload` iterations behind the previous one. Two neighbouring stages on one core would
just be one stage split in two, with nothing to overlap between them but an extra ctx
slot and delay.

## Example
```python
    with pl.section_vector():
        act(ki, x_db, y_db)
    with pl.section_vector():
        st(ki, sub_id, out, y_db)
```

## Use instead
```python
    with pl.section_vector():
        st(ki, sub_id, out, x_db, y_db)  # one vector stage: relu, then store
```
"""


RULE = Rule(
    code=codes.STAGES_NOT_ALTERNATING,
    name="stages-not-alternating",
    title="Two consecutive stages run on the same core",
    message="stages `{prev}` and `{stage}` are both on the {core} core; stages must "
            "alternate cube/vector (C->V->C->V...)",
    hint="Merge `{prev}` and `{stage}` into one stage, or put a stage of the other core between them",
    hints={"misplaced": "`{misplaced}` calls `pl.{op}`, which runs on the {other} core: call it in a "
                        "`pl.section_{other}()` block"},
    check=check,
    seed="stage calls strictly alternate cube/vector (C, V, C, V...): no two consecutive stages on one core",
    doc=DOC,
)

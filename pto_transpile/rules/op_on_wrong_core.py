from pto_api.ops import CROSS_CORE_WRITES, PIPE_CORES, SPACE_CORE
from pto_transpile import codes
from pto_transpile.rules._accesses import all_accesses, in_other_cores_memory
from pto_transpile.rules.rule import Rule


def check(ctx):
    seen: set = set()
    for stage, accesses in zip(ctx.loop.stages, all_accesses(ctx), strict=True):
        core = stage.section
        if core not in ("cube", "vector"):
            continue
        nowhere = {a.node: a for a in accesses if _nowhere(ctx, a)}
        if accesses and not nowhere and all(_of_other_core(ctx, a, core) for a in accesses):
            # every op of the stage is the other core's: the section is what is wrong (first-hour
            # study ux1: one error per op, each sending the op to the other core)
            seen.update(a.node for a in accesses)
            ops = ", ".join(dict.fromkeys(f"`pl.{a.op}`" for a in accesses))
            yield stage.call, {"op": accesses[0].op, "stage": stage.func, "core": core,
                               "problem": f"every op of the stage ({ops}) runs on the {_other(core)} core",
                               "_hint": "section", "other": _other(core)}
            continue
        for a in accesses:
            if a.node in seen:
                continue
            problem, fields = None, {}
            if a.node in nowhere:  # (probe h140: `Mat -> Vec` on V; each refusal sent the author to the other core)
                b = nowhere[a.node]
                owner = SPACE_CORE[ctx.kernel.buffers[b.buffer].memory]
                problem = (f"it reaches `{b.buffer}` in `{ctx.kernel.buffers[b.buffer].memory}`, the {owner} core's "
                           f"memory, on the {b.pipe} pipe, which only the {_other(owner)} core has: a move between "
                           "the two cores' memories that pto-transpile and its emulator do not model")
                fields = {"_hint": "nowhere"}
            elif core not in PIPE_CORES.get(a.pipe, (core,)):
                problem = f"it runs on the {a.pipe} pipe, which only the {_other(core)} core has"
            elif in_other_cores_memory(ctx.kernel, a, core):
                memory = ctx.kernel.buffers[a.buffer].memory
                problem = f"`{a.buffer}` lives in `{memory}`, the {_other(core)} core's memory"
            if problem:
                seen.add(a.node)
                yield a.node, {"op": a.op, "stage": stage.func, "core": core, "problem": problem, **fields}


def _of_other_core(ctx, a, core: str) -> bool:
    """Does access `a` run on a pipe only the other core has, or reach the other core's memory?"""
    return core not in PIPE_CORES.get(a.pipe, (core,)) or in_other_cores_memory(ctx.kernel, a, core)


def _nowhere(ctx, a) -> bool:
    """Does access `a` reach one core's memory on a pipe only the other core has, other than the
    documented cross-core writes (the fixpipe into Vec, MTE3 into Mat)?"""
    memory = ctx.kernel.buffers[a.buffer].memory
    return memory in SPACE_CORE and a.pipe in PIPE_CORES and SPACE_CORE[memory] not in PIPE_CORES[a.pipe] \
        and not ("W" in a.role and (a.pipe, memory) in CROSS_CORE_WRITES)


def _other(core: str) -> str:
    return "vector" if core == "cube" else "cube"


DOC = """\
## What it checks
An op inside a stage belongs to the other core: a `pl.matmul`, an L1 -> L0 move or a
Left/Right/Acc tile in a stage called in `section_vector()`, or a vector op (`pl.relu`,
`pl.add`, a vector function...) or a store from UB in a stage called in `section_cube()`.
A stage may reach into the other core's memory only the two ways pto-transpile models: the
cube's fixpipe move from Acc into a UB tile, and the vector core's `pl.insert` into an L1 tile.
An op that reaches one core's memory on a pipe only the other core has (a `pl.move` from a Mat
tile into a Vec tile, on V by PyPTO's table of moves) is refused in either core's stage.

## Why it matters for pipelining
Each section runs on one core, with that core's pipes and memories. An op of the other
core cannot run there at all; the transform would place its syncs on a pipe that core does
not have, and nothing about the kernel can be proven.

## Example
```python
@pl.pipeline.stage
def mm(ki, a, a_l1, left_db, right_db, acc_db, x_db):   # called in section_cube()
    ...
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)
    pl.relu(x, x)   # a vector op on the cube core
```

## Use instead
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):                          # called in section_vector()
    x = x_db.next()
    pl.relu(x, x)
    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])
```
"""

RULE = Rule(
    code=codes.OP_ON_WRONG_CORE,
    name="op-on-wrong-core",
    title="A stage uses an op or a memory of the other core",
    message="`pl.{op}` in stage `{stage}` cannot run on the {core} core: {problem}",
    hint="Move this op into a stage of the other core and hand the data over through a cross-core buffer",
    hints={"section": "Call `{stage}` in a `pl.section_{other}()` block",
           "nowhere": "Hand the data over the ways pto-transpile and its emulator model: from the cube by the "
                      "fixpipe (`pl.move` from an Acc tile into a Vec tile), from the vector core by `pl.insert` (or "
                      "`pl.move`) into a Mat tile; a move straight from Mat into Vec is not modelled"},
    phase="loop",
    check=check,
    seed="each section runs on its own core, with that core's pipes and memories",
    doc=DOC,
)

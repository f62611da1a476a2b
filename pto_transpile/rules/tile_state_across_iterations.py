from __future__ import annotations

import libcst as cst

from pto_api.ops import DESCRIPTOR_ONLY_OPS, PARTIAL_WRITE_OPS, op_roles
from pto_transpile import codes
from pto_transpile.read import vfbody
from pto_transpile.read.kinds import SLOT_ACCESSORS
from pto_transpile.read.walk import names_stored
from pto_transpile.rules.rule import Rule
from pto_transpile.sync.scan import parameter_arguments


def check(ctx):
    """Stages reading a tile of a shared local group before writing it in the same call."""
    kernel, loop = ctx.kernel, ctx.loop
    users: dict[tuple[str, str], list] = {}  # (group, core) -> [(stage call, parameter)]
    for stage in loop.stages:
        func = ctx.file.stages.get(stage.func)
        if func is None:
            continue
        for param, arg in stage.bind(func.params):
            name = getattr(arg.value, "value", None)
            buf = kernel.buffers.get(name) if isinstance(name, str) else None
            if buf is not None and not buf.cross_core:
                users.setdefault((buf.name, stage.section), []).append((stage, param))
    body_names = {n.value for stmt in loop.prologue + loop.epilogue + loop.between
                  for n in ctx.file.find(stmt, cst.Name)}
    for (group, core), uses in users.items():
        in_body = group in body_names
        if len(uses) < 2 and not in_body:
            continue  # one stage alone keeps its own order of iterations when pipelined
        if not in_body and not any(_writes(ctx, ctx.file.stages[stage.func].node, param) for stage, param in uses):
            continue  # read only (filled before the loop): every iteration reads the same data (probe h139)
        for stage, param in uses:
            for node, var in _reads_before_write(ctx, ctx.file.stages[stage.func].node, param):
                others = [s.func for s, _ in uses if s is not stage] or ["the loop body"]
                yield node, {"stage": stage.func, "var": var, "group": group, "other": f"`{others[0]}`"
                             if others[0] != "the loop body" else "the loop body", "core": core}


def _reads_before_write(ctx, fn: cst.FunctionDef, param: str):
    """(op call, tile variable) for each read of a tile picked from `param` before an
    unconditional write of it in this call of the stage."""
    written: set[str] = set()
    found = []
    for call, touched, picked, depth in _calls_with_picks(ctx, fn, param):
        for role, arg in touched:
            var = arg.value if isinstance(arg, cst.Name) else None
            if var is None or var not in picked:
                continue
            if "R" in role and var not in written:
                found.append((call, var))
                written.add(var)  # once per tile is enough
        covers = not _writes_part(ctx.file, call)
        for role, arg in touched:
            if "W" in role and isinstance(arg, cst.Name) and depth == 0 and covers:
                written.add(arg.value)
    return found


def _writes(ctx, fn: cst.FunctionDef, param: str) -> bool:
    """Does the stage write a tile it picks from `param` (under a test or not), or hand one to a
    call the check reads no roles of?"""
    for call, touched, picked, _depth in _calls_with_picks(ctx, fn, param):
        # (or may write it: "M", a helper writing it under a test)
        if any(("W" in role or "M" in role) and isinstance(arg, cst.Name) and arg.value in picked
               for role, arg in touched):
            return True
        given = {a.value.value for a in call.args if isinstance(a.value, cst.Name)}
        if not touched and given & (picked | {param}) and ctx.file.pl.path(call.func) is None \
                and not _picks(call, param):
            return True  # a helper of the file given the tile or the group: it may write it
    return False


def _calls_with_picks(ctx, fn: cst.FunctionDef, param: str):
    """Each call of the stage, in order, with what it touches (`_touched`), the names bound so far
    to tiles picked from `param` (`t = g.next()`), and the branches and loops around it."""
    picked: set[str] = set()
    for stmt, depth in _lines_and_depths(fn.body.body, 0):
        for small in stmt.body:
            if type(small) is cst.Assign and len(small.targets) == 1 \
                    and isinstance(small.targets[0].target, cst.Name) and _picks(small.value, param):
                picked.add(small.targets[0].target.value)
            for call in ctx.file.find(small, cst.Call):
                yield call, _touched(ctx.file, call), picked, depth


def _lines_and_depths(stmts, depth: int):
    """Each simple statement line under `stmts`, in order, with the number of branches and loops
    around it (a `with` adds none)."""
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield stmt, depth
        elif isinstance(stmt, cst.If):
            yield from _lines_and_depths(stmt.body.body, depth + 1)
            orelse = stmt.orelse
            while orelse is not None:
                yield from _lines_and_depths(orelse.body.body, depth + 1)
                orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
        elif isinstance(stmt, (cst.For, cst.While)):
            yield from _lines_and_depths(stmt.body.body, depth + 1)
        elif isinstance(stmt, cst.With):
            yield from _lines_and_depths(stmt.body.body, depth)


def _touched(file, call: cst.Call, seen: frozenset = frozenset()) -> list[tuple[str, cst.BaseExpression]]:
    """(role, argument) for each argument of `call` a `pl` op or a vector function of the file
    reads or writes (a vector function's roles from the `vf` ops in its body; an op the table
    does not know counts as reading and writing), or a plain helper of the file does by its own
    calls (`_helper_roles`)."""
    if type(call.func) is cst.Name and call.func.value not in file.vector_functions and call.func.value not in seen \
            and isinstance(helper := file.functions_by_name.get(call.func.value), cst.FunctionDef) \
            and call.func.value not in file.stages:
        params = [p.name.value for p in (*helper.params.posonly_params, *helper.params.params)]
        done = _helper_roles(file, helper, seen | {call.func.value})
        return [(done[params[i]], a.value)
                for i, a in parameter_arguments(params, call.args, len(helper.params.posonly_params))
                if i < len(params) and params[i] in done]
    if type(call.func) is cst.Name and call.func.value in file.vector_functions:
        roles = vfbody.param_roles(file, call.func.value, lambda _function, _call: "RW")
        return [(roles[i], a.value) for i, a in parameter_arguments(file.vf_body(call.func.value).params, call.args)
                if i in roles]
    path = file.pl.path(call.func)
    if path is None or len(path) != 1 or path[0] in DESCRIPTOR_ONLY_OPS:
        return []
    table = op_roles(path[0]) or ()
    args = [a.value for a in call.args if a.keyword is None and not a.star]
    return [(role, arg) for role, arg in zip(table, args, strict=False) if role]


def _writes_part(file, call: cst.Call) -> bool:
    """A `pl` op that may write less than its destination (`PARTIAL_WRITE_OPS`: `pl.setval`
    writes one element): the rest of the tile keeps what an earlier iteration left."""
    path = file.pl.path(call.func)
    return path is not None and len(path) == 1 and path[0] in PARTIAL_WRITE_OPS


def _picks(value: cst.BaseExpression, param: str) -> bool:
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        owner = value.func.value
        return isinstance(owner, cst.Name) and owner.value == param and value.func.attr.value in SLOT_ACCESSORS
    return isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and value.value.value == param


DOC = """\
## What it checks
A stage reads a tile of a local tile group (one without `fwd_ids`/`bwd_ids`) before it
writes that tile in the same call, or writes it only under a condition (`if ki > 0:`),
while another stage on the same core, or the loop body, uses the same group, and a stage
writes a tile of it (a group every stage only reads, filled before the loop, holds the same
data for every iteration, whichever order they run in). Reads and
writes are those of the `pl` ops the stage runs and of the vector functions it calls (by the
`vf` ops in their bodies: a tile a vector function only stores to is written), and of the plain
helpers of the file it calls, in the order of their own calls (`mm_tile(acc, left, right, ...)`
moving into `left` and `right`, then multiplying into `acc`, writes all three).

## Why it matters for pipelining
Such a read sees what an earlier iteration left in the tile: state carried across
iterations. Serially, the previous user of that tile is fixed by the loop order. Pipelined,
stages of different iterations interleave on the core and the group's cursor hands the
tiles out in another order, so the stage reads another iteration's (or another stage's)
data, and the results change. A group used by one stage alone keeps its order and is fine.

## Example
```python
@pl.pipeline.stage
def mm2(b_slot, p_db, left_db, right_db, acc_db, y_db):
    p = p_db.next()
    left = left_db.next()          # left_db is also used by mm1
    ...
    pl.matmul(acc, left, right)    # reads `left` before this call writes it
    pl.move(left, p)
```

## Use instead
```python
    pl.move(left, p)
    pl.matmul(acc, left, right)
```
"""

RULE = Rule(
    code=codes.TILE_STATE_ACROSS_ITERATIONS,
    name="tile-state-across-iterations",
    title="A stage reads a shared local tile it has not written in the same iteration",
    message="`{stage}` reads `{var}` (a tile of `{group}`) before writing it in this iteration, and {other} also uses "
            "`{group}` on the {core} core: pipelined, it would see another iteration's data",
    hint="Write `{var}` unconditionally before reading it in `{stage}`, or give `{stage}` a tile group of its own",
    phase="loop",
    check=check,
    seed="the pipelined kernel must compute what the serial kernel computes",
    doc=DOC,
)


def _helper_roles(file, fn: cst.FunctionDef, seen: frozenset) -> dict[str, str]:
    """What a plain helper does to each of its parameters, in the order of its calls: "R" when it
    reads the parameter's tile before writing it, "W" when it writes all of it with no test around
    (`mm_tile(acc, left, right, ...)` moving into `left` and `right`, then `matmul` into `acc`),
    "M" when it may write it (under a test, or in part). A stage calling it has done the same."""
    roles: dict[str, str] = {}
    written: set[str] = set()
    for stmt, depth in _lines_and_depths(fn.body.body, 0):
        for call in file.find(stmt, cst.Call):
            touched = _touched(file, call, seen)
            for role, arg in touched:
                if isinstance(arg, cst.Name) and "R" in role and arg.value not in written:
                    roles[arg.value] = roles.get(arg.value, "") + "R"
            covers = depth == 0 and not _writes_part(file, call)
            for role, arg in touched:
                if isinstance(arg, cst.Name) and ("W" in role or "M" in role):
                    if covers and "W" in role:
                        written.add(arg.value)
                    roles[arg.value] = roles.get(arg.value, "") + ("W" if covers and "W" in role else "M")
    for name in {n.value for n in names_stored(fn.body)}:  # a parameter bound again: its tile read, maybe written
        roles[name] = "MR"
    return {name: "".join(sorted(set(r))) for name, r in roles.items()}

import libcst as cst

from pto_transpile import codes
from pto_transpile.read.kinds import SLOT_ACCESSORS
from pto_transpile.rules.rule import Rule


def _uses(file, fn, param, seen=frozenset()):
    """Slot accessors applied to `param` in `fn`'s body, following plain helpers that
    receive it as a positional argument: list of (node, accessor)."""
    found: list[tuple[cst.CSTNode, str]] = []
    helper_calls: list[tuple[cst.Call, str]] = []  #: (call, helper name)
    for n in file.find(fn.body, (cst.Call, cst.Subscript)):
        if isinstance(n, cst.Call):
            f = n.func
            if isinstance(f, cst.Attribute) and f.attr.value in SLOT_ACCESSORS \
                    and isinstance(f.value, cst.Name) and f.value.value == param:
                found.append((n, f.attr.value))
            elif type(f) is cst.Name and f.value in file.helpers and f.value not in seen:
                helper_calls.append((n, f.value))
        elif isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and n.value.value == param:
            found.append((n, "index"))
    for call, helper_name in helper_calls:
        helper = file.helpers[helper_name]
        params = [p.name.value for p in (*helper.params.posonly_params, *helper.params.params)]
        for arg, name in zip(call.args, params, strict=False):
            if arg.keyword is None and arg.star == "" and isinstance(arg.value, cst.Name) and arg.value.value == param:
                found += _uses(file, helper, name, seen | {helper_name})
    return found


def check(ctx):
    k = ctx.kernel
    for s in ctx.loop.stages:
        func = ctx.file.stages.get(s.func)
        if func is None:
            continue
        for param, arg in s.bind(func.params):
            v = arg.value
            if not isinstance(v, cst.Name):
                continue
            if v.value in k.slot_vars and k.buffers[k.slot_vars[v.value]].cross_core:
                yield v, {"buffer": k.slot_vars[v.value], "stage": s.func,
                          "detail": f"receives slot `{v.value}` picked outside the loop, so the "
                                    "same tile is used every iteration"}
                continue
            buf = k.buffers.get(v.value)
            if buf is None or not buf.cross_core:
                continue
            uses = _uses(ctx.file, func.node, param)
            nexts = [u for u in uses if u[1] == "next"]
            others = [u for u in uses if u[1] != "next"]
            if others:
                node, how = others[0]
                spelled = "`[...]`" if how == "index" else f"`.{how}()`"
                detail = f"takes a slot with {spelled} instead of `.next()`"
                yield node, {"buffer": buf.name, "stage": s.func, "detail": detail}
            elif len(nexts) > 1:
                # (counted in its text: probe h195 had one of them under `for _ in range(0):`, which
                # never runs; the rule asks for one call, where the count is plain)
                detail = f"holds {len(nexts)} `.next()` calls of it, where one is taken per iteration"
                yield nexts[1][0], {"buffer": buf.name, "stage": s.func, "detail": detail}
            elif not nexts and uses == []:
                pass  # the buffer is passed on untouched: nothing rotates here, nothing is accessed


DOC = """\
## What it checks
Inside a stage, a cross-core buffer does not advance by exactly one tile per iteration:
the stage takes its tile with `.current()`, `.previous()` or `g[i]` instead of `.next()`,
calls `.next()` more than once (also through helpers it passes the group to), or receives
a tile picked once outside the loop.

## Why it matters for pipelining
Iteration `i` of each user must touch tile `i % tiles`, signalled with event id
`ids[i % len(ids)]`. One `.next()` per stage call keeps producer and consumer in step
across their delay; with a fixed tile, iteration `i + 1` overwrites what the consumer of
iteration `i` still reads.

## Example
```python
def st(ki, sub_id, out, x_db):
    x = x_db.current()
```

## Use instead
```python
def st(ki, sub_id, out, x_db):
    x = x_db.next()
```
"""


RULE = Rule(
    code=codes.BUFFER_NOT_ROTATING,
    name="buffer-not-rotating",
    title="A cross-core buffer's tiles do not rotate with the iterations",
    message="cross-core buffer `{buffer}` in stage `{stage}` {detail}; its tiles must rotate with the iteration order",
    hint="Take exactly one tile per iteration inside the stage with `slot = {buffer}.next()`",
    phase="loop",
    check=check,
    seed="the tiles of a cross-core buffer must rotate with the iteration order",
    doc=DOC,
)

import libcst as cst

from pto_transpile.kinds import SLOT_ACCESSORS
from pto_transpile.rules.base import Rule


def _uses(fn, param):
    """Slot accessors applied to `param` in the stage body: list of (node, accessor)."""
    found = []

    class _V(cst.CSTVisitor):
        def visit_Call(self, n):
            f = n.func
            if isinstance(f, cst.Attribute) and f.attr.value in SLOT_ACCESSORS \
                    and isinstance(f.value, cst.Name) and f.value.value == param:
                found.append((n, f.attr.value))

        def visit_Subscript(self, n):
            if isinstance(n.value, cst.Name) and n.value.value == param:
                found.append((n, "index"))

    fn.body.visit(_V())
    return found


def check(ctx):
    k = ctx.kernel
    for s in ctx.loop.stages:
        func = ctx.file.stages.get(s.func)
        if func is None:
            continue
        for param, arg in zip(func.params, s.positional):
            v = arg.value
            if not isinstance(v, cst.Name):
                continue
            if v.value in k.slot_vars and k.buffers[k.slot_vars[v.value]].cross_core:
                yield v, {"buffer": k.slot_vars[v.value], "stage": s.func,
                          "detail": f"receives slot `{v.value}` picked outside the loop, so the same tile is used every iteration"}
                continue
            buf = k.buffers.get(v.value)
            if buf is None or not buf.cross_core:
                continue
            uses = _uses(func.node, param)
            nexts = [u for u in uses if u[1] == "next"]
            others = [u for u in uses if u[1] != "next"]
            if others:
                node, how = others[0]
                spelled = "`[...]`" if how == "index" else f"`.{how}()`"
                yield node, {"buffer": buf.name, "stage": s.func, "detail": f"takes a slot with {spelled} instead of `.next()`"}
            elif len(nexts) > 1:
                yield nexts[1][0], {"buffer": buf.name, "stage": s.func, "detail": f"calls `.next()` {len(nexts)} times per iteration"}
            elif not nexts and uses == []:
                pass  # the buffer is passed on untouched: nothing rotates here, nothing is accessed


RULE = Rule(
    code="PTO037",
    name="buffer-not-rotating",
    title="A cross-core buffer's tiles do not rotate with the iterations",
    message="cross-core buffer `{buffer}` in stage `{stage}` {detail}; its tiles must rotate with the iteration order",
    hint="Take exactly one tile per iteration inside the stage with `slot = {buffer}.next()`",
    phase="loop",
    check=check,
    seed="跨核 Buffer 的 Tiles 必须随迭代顺序轮转",
)

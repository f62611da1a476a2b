import libcst as cst

from pto_transpile.rules._walk import names_stored
from pto_transpile.rules.base import Rule


def check(ctx):
    k = ctx.kernel
    for loop in k.loops:
        passed = {a.value.value for s in loop.stages for a in s.positional
                  if isinstance(a.value, cst.Name) and a.value.value in k.structs}
        for stmt in loop.body:
            for name in names_stored(stmt):
                if name.value in passed:
                    yield name, {"name": name.value}


RULE = Rule(
    code="PTO039",
    name="struct-rebound-in-loop",
    title="A struct passed to a stage is re-bound inside the pipeline loop",
    message="struct `{name}` is assigned inside the pipeline loop; stages see its fields through the ctx snapshot",
    hint="Declare `{name} = pl.struct(...)` before the loop and update its fields inside (`{name}.field = ...`)",
    check=check,
    seed="K13: a pl.struct stage argument must not be rebound in the loop",
)

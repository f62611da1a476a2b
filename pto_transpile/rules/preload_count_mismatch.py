from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    spec = ctx.kernel.preload
    values = ctx.preloads
    n = len(ctx.kernel.loops)
    if not values:
        return  # an empty list is PTO005 (preload-invalid); its length says nothing about loops
    if len(values) > 1 or (spec.is_sequence and values is spec.values):
        if len(values) != n and n:
            fields = {"count": len(values), "values": list(values), "loops": n}
            if values is not spec.values:  # given to the command (`--preload`) or the API, not in the file
                yield ctx.kernel.node.name, {**fields, "kernel": ctx.kernel.name, "_message": "override",
                                             "_hint": "override"}
                return
            node = spec.node if spec.node is not None else ctx.kernel.jit_decorator
            yield node, fields


DOC = """\
## What it checks
When `preload` is a list (or tuple), it must hold exactly one value per pipeline loop of
the kernel, in source order. A single `int` is shared by all loops.

## Why it matters for pipelining
Each pipeline loop gets its own schedule: its stage delays, ctx ring depth and drain beats
come from its own preload value. With more or fewer values than loops it is ambiguous
which loop a value was meant for (often a loop was removed or added and the list was not
updated), so the transform refuses to guess.

## Example
```python
# the kernel has one pipeline loop
@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=[1, 2]))
```

## Use instead
```python
@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=[1]))  # or preload=1
```
"""


RULE = Rule(
    code=codes.PRELOAD_COUNT_MISMATCH,
    name="preload-count-mismatch",
    title="A preload list whose length differs from the number of pipeline loops",
    message="preload has {count} values {values} but the kernel holds {loops} pipeline loop(s)",
    hint="Give exactly one preload value per pipeline loop, in source order, or a single int shared by all",
    messages={"override": "the preload given to the command ({values}) has {count} values, but kernel `{kernel}` "
                          "holds {loops} pipeline loop(s)"},
    hints={"override": "Give `--preload` one value per pipeline loop of the kernel, in source order (the list "
                       "applies to each kernel of the file), or a single value for all; for kernels of different "
                       "loop counts or preloads, set each kernel's `PipelineConfig(preload=...)` and leave "
                       "`--preload` out"},
    check=check,
    seed="a preload list has one value per pipeline loop of the kernel",
    doc=DOC,
)

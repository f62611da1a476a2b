from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    """The reader judged the value (`preload.problem`, as for `--preload`); this reports it."""
    spec = ctx.kernel.preload
    if spec.problem:
        yield spec.node if spec.node is not None else ctx.kernel.jit_decorator, {"detail": spec.problem}


DOC = """\
## What it checks
The `preload` of `pl.pipeline.PipelineConfig(preload=...)` must be an `int` >= 0 (not a
`bool`), or a non-empty list/tuple of such ints, one per pipeline loop. It must fold to a
compile-time constant.

## Why it matters for pipelining
`preload` is the delay, in iterations, between neighbouring stages on one core; the delays
size the ring of per-iteration ctx slots (`depth = max_delay + 1`) and the number of drain
beats after the loop. A negative delay would run a consumer before its producer; `True`
would silently mean 1; an empty list configures no loop at all. `preload=0` is the way to
keep the serial loop (only cross-core set/wait are inserted).

## Example
```python
@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=-1))
def kernel(a, out):
    ...
```

## Use instead
```python
@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(a, out):
    ...
```
"""


RULE = Rule(
    code=codes.PRELOAD_INVALID,
    name="preload-invalid",
    title="`preload` is not a non-negative int (or a non-empty list of them)",
    message="{detail}",
    hint="Use `PipelineConfig(preload=N)` with N >= 0 (0 keeps the serial loop), or one such value per pipeline loop",
    check=check,
    seed="preload values are integers >= 0",
    doc=DOC,
)

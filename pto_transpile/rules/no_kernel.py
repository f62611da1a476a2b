from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.read.pipelined import pipelined_as
from pto_transpile.rules.kernel_in_function import nested_kernels
from pto_transpile.rules.rule import Rule


def check(ctx):
    file = ctx.file
    if not file.kernels:
        if any(True for _ in nested_kernels(file)):
            return  # PTO079 says where the kernel is
        yield file.source.module, {"detail": "no `@pl.jit` kernel in this file", "_hint": "no-kernel"}
        return
    if any(k.loops or k.pipeline_keyword is not None or k.stray_stage_calls for k in file.kernels):
        return  # plain kernels beside a pipeline kernel are fine: they are left as they are
    for k in file.kernels:
        if pipelined_as(k, file) is None:  # PTO060 speaks for kernels pipelined already
            yield k.node.name, {"detail": f"kernel `{k.name}` has no `pipeline=` and calls no stage"}


DOC = """\
## What it checks
(A note.) The file contains no function decorated with `@pl.jit(...)`, where `pl` is
resolved from the imports (`import pypto_pro.language as pl`, `from pypto_pro import
language as pl`), so a misspelt import hides the kernel too (reported on the first line of
the file); or its kernels neither set `pipeline=` nor call a stage (reported on each kernel).
The file is left as it is and the exit status is 0: a pre-commit hook may run the tool on
every Python file.

## Why it matters for pipelining
The transform rewrites the pipeline loops of `@pl.jit` kernels that set
`pipeline=pl.pipeline.PipelineConfig(...)`. Without a kernel there is nothing to pipeline;
if you expected one, the path or the import is wrong.

## Example
```python
import pypto.language as pl  # not the pypto_pro package: `pl.jit` is unknown
```

## Use instead
```python
import pypto_pro.language as pl
```
"""


RULE = Rule(
    code=codes.NO_KERNEL,
    name="no-kernel",
    title="The file holds no kernel to pipeline",
    message="{detail}, so there is nothing to pipeline",
    hint="To pipeline it, set `pipeline=pl.pipeline.PipelineConfig(...)` and call "
         "`@pl.pipeline.stage` functions in a loop",
    hints={"no-kernel": "If this file should hold a kernel, decorate it with `@pl.jit(...)` and import "
                        "`pypto_pro.language` (not `pypto.language`)"},
    phase="file",
    severity=Severity.NOTE,
    check=check,
    seed="the input holds a `@pl.jit` kernel to pipeline",
    doc=DOC,
)

from pto_transpile.rules import _examples as ex
from pto_transpile.rules.base import Rule


def check(file):
    if not file.kernels:
        yield file.source.module, {}


DOC = """\
## What it checks
The file contains no function decorated with `@pl.jit(...)`, where `pl` is resolved from
the imports (`import pypto_pro.language as pl`, `from pypto_pro import language as pl`),
so a misspelt import hides the kernel too. Reported on the first line of the file.

## Why it matters for pipelining
The transform rewrites the pipeline loops of `@pl.jit` kernels that set
`pipeline=pl.pipeline.PipelineConfig(...)`. Without a kernel there is nothing to pipeline,
and running the tool on such a file is almost always a wrong path or a wrong import.

## Example
```python
import pypto.language as pl  # not the pypto_pro package: `pl.jit` is unknown
```

## Use instead
```python
import pypto_pro.language as pl
```
"""

INVALID = (
    ex.kernel(imports="import pypto.language as pl  # E: PTO003"),
)

VALID = (ex.kernel(),)


RULE = Rule(
    code="PTO003",
    name="no-kernel",
    title="The file defines no `@pl.jit` kernel",
    message="no `@pl.jit` kernel in this file, so there is nothing to pipeline",
    hint="Decorate the kernel function with `@pl.jit(...)` and import `pypto_pro.language`",
    phase="file",
    check=check,
    seed="(tool) the input must hold a kernel",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)

from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
pto-transpile itself failed on this input (an exception inside an analysis step or a
rule). Reported by the CLI/driver instead of a traceback; never caused by a mistake in
the kernel alone.

## Why it matters for pipelining
An internal error means the analysis is incomplete: some syncs or checks may be missing,
so no pipelined file is written for this kernel. Please report it with the input file;
meanwhile `preload=0` (serial loop, syncs only) or the serial kernel still works.

## Example
```python
# any kernel on which pto-transpile crashes
```

## Use instead
```python
# report the file; run the serial kernel meanwhile
```
"""

# no example kernels: produced by the CLI/driver when the tool crashes: see tests/rules/test_rules.py NO_EXAMPLES


RULE = Rule(
    code=codes.INTERNAL_ERROR,
    name="internal-error",
    title="pto-transpile itself failed",
    message="internal error: {detail}",
    hint="Please report this with the input file at the project's issue tracker",
    phase="analysis",
    seed="a crash of pto-transpile itself is reported as a bug, never as a problem of the kernel",
    doc=DOC,
    raised_by=("pto_transpile/driver.py", "pto_transpile/rules/reporter.py", "pto_transpile/output/run.py"),
)

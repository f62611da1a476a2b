from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
The command line tool cannot write an output it was asked for: the generated kernel
(`-o`, or the default `build/<path without .py>/pipeline_generated.py`) or the `--timeline` trace.
The directory is read-only, does not exist (for `--timeline`, which creates no
directories), or the disk refuses the write. Reported by the CLI with exit status 2.

## Why it matters for pipelining
The analysis succeeded, but nothing was written: a build step that goes on would use a
stale or missing pipelined kernel. The problem is the environment, not the kernel or
pto-transpile, so it is reported as such rather than as an internal error.

## Example
```python
# pto-transpile kernel.py -o /read-only/dir/kernel_pipelined.py
```

## Use instead
```python
# pto-transpile kernel.py -o build/kernel_pipelined.py
```
"""

# no example kernels: produced by the CLI, not by transpile(): see tests/rules/test_rules.py NO_EXAMPLES


RULE = Rule(
    code=codes.UNWRITABLE_OUTPUT,
    name="unwritable-output",
    title="An output file cannot be written",
    message="cannot write `{path}`: {detail}",
    hint="Check that the directory exists and is writable, or choose another path",
    hints={"space": "Free space on that file system (or raise the quota), or choose another path",
           "access": "Make the directory (or the file) writable, or choose another path",
           "new-file": "Choose a path in a directory that takes new files: the output is written to a temporary "
                       "file beside it, then renamed over it",
           "no-directory": "Create the directory, or choose another path"},
    phase="analysis",
    seed="every requested output is written, or the run says why not",
    doc=DOC,
    raised_by=("pto_transpile/output/run.py",),
)

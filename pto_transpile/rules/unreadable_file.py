from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
The command line tool cannot read a kernel file given to it: the path does not exist,
is not readable, or the bytes are not UTF-8 text. Reported by the CLI, before any
analysis (`transpile()` itself receives text, so it never reports this).

## Why it matters for pipelining
Nothing can be analysed or pipelined without the source; the file is skipped and the
exit code reports the failure, so a batch run over many kernels does not silently leave
one of them serial.

## Example
```python
# kernel.py saved as GBK: "# 流水 kernel" is not valid UTF-8
```

## Use instead
```python
# kernel.py saved as UTF-8
```
"""

# no example kernels: produced by the CLI, not by transpile(): see tests/rules/test_rules.py NO_EXAMPLES


RULE = Rule(
    code=codes.UNREADABLE_FILE,
    name="unreadable-file",
    title="The file cannot be read as UTF-8 text",
    message="cannot read `{path}`: {detail}",
    hint="Check the path, and save the file as UTF-8",
    hints={"missing": "Check the path: no file is there",
           "size": "Split the file: a kernel file of more than 1 MiB is not read",
           "encoding": "Save the file as UTF-8",
           "access": "Give the file read permission, or name a regular file"},
    phase="analysis",
    seed="a kernel file must be readable UTF-8",
    doc=DOC,
    raised_by=("pto_transpile/output/run.py",),
)

from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
The kernel file does not parse as Python. The position is the one Python's own parser
reports (the file is only parsed, never run).

## Why it matters for pipelining
pto-transpile reads the kernel statically (it never imports your file). Without a syntax
tree there are no stages, sections or tile groups to analyse, so no other check runs and
no pipelined file is written.

## Example
```python
    for ki in pl.range(0, N):
        with pl.section_cube():
            mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
        with pl.section_vector():
            st(ki, sub_id, out x_db)  # missing comma
```

## Use instead
```python
        with pl.section_vector():
            st(ki, sub_id, out, x_db)
```
"""


RULE = Rule(
    code=codes.SYNTAX_ERROR,
    name="syntax-error",
    title="The file is not valid Python",
    message="syntax error: {detail}",
    hint="Fix the syntax at the marked position; nothing else can be checked until the file parses",
    phase="analysis",
    seed="a kernel file must parse",
    doc=DOC,
    raised_by=("pto_transpile/driver.py",),
)

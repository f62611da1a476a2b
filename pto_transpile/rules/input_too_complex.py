from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
The file is larger, or nests deeper, than pto-transpile parses: more than 1,000,000
characters, or an expression or block structure more than 200 levels deep anywhere in the
file (open brackets count two levels, each operator chained within one element one level,
each indented block one level). The limit is checked before parsing, on the whole file,
not only on the kernel.

## Why it matters for pipelining
The parser recurses once per level: far deeper input would overflow its stack and kill the
process, and code generation would exhaust Python's recursion limit. Python itself refuses
more than 200 nested brackets. No kernel comes near the limit; generated tables or
expressions that do are better built at run time or split into named parts.

## Example
```python
WEIGHTS = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((...1...))))))))))))))))))))))))))))))))))))))))))))))
```

## Use instead
```python
WEIGHTS = 1
```
"""


RULE = Rule(
    code=codes.INPUT_TOO_COMPLEX,
    name="input-too-complex",
    title="The file is too large or nests too deeply to parse safely",
    message="not parsed: {detail}",
    hint="Split the expression into named parts, or build large tables at run time",
    phase="analysis",
    seed="input that would crash or hang the parser is refused with a diagnostic",
    doc=DOC,
    raised_by=("pto_transpile/driver.py",),
)

"""PTO087: a `pl` op called with arguments its signature does not bind."""

import libcst as cst

from pto_api.signatures import misbinding
from pto_transpile import codes
from pto_transpile.rules._spelling import analysed_functions
from pto_transpile.rules.rule import Rule

#: the sections, which take nothing at all
_SECTIONS = (("section_cube",), ("section_vector",))


def check(ctx):
    file = ctx.file
    for fn in analysed_functions(file):
        for call in file.find(fn, cst.Call):
            path = file.pl.path(call.func)
            if path in _SECTIONS and call.args:
                # (a starred or keyword argument too: Python evaluates it, the transform and the check
                # read a section by its name alone, probe h162's `pl.section_vector((e := 0))`)
                yield call, {"call": file.source.code(call.func), "wrong": "takes no arguments", "_hint": "section"}
                continue
            if not path or any(a.star for a in call.args):
                continue  # (`*args`, `**kw`: what they hold is not known here)
            positional = sum(1 for a in call.args if a.keyword is None)
            keywords = [a.keyword.value for a in call.args if a.keyword is not None]
            wrong = misbinding(".".join(path), positional, keywords)
            if wrong is not None and not wrong.startswith("has no parameter"):  # (unknown-keyword's, PTO074)
                yield call, {"call": file.source.code(call.func), "wrong": wrong}


DOC = """\
## What it checks
A `pl` op called with arguments that do not bind to its parameters as Python binds them:
an operand missing (`pl.matmul_acc(acc, left, right)`: it takes `dst, acc_in, lhs, rhs`),
more operands than it takes, a keyword-only parameter it requires left out
(`pl.system.set_cross_core(pipe=...)` without `event_id=`), or one parameter given both by
position and by keyword. The parameters are those of PyPTO's API reference for each op.
A keyword the op does not take at all is PTO074's, but for the sections: `pl.section_cube()`
and `pl.section_vector()` take no arguments of any kind (a starred one included), since
Python would evaluate what they are given and the transform reads a section by its name.

## Why it matters for pipelining
PyPTO raises `TypeError` on such a call when the kernel is compiled, so the kernel is wrong
before it is pipelined; and the analysis reads each operand by its place (which tile an op
reads and which it writes), so a call missing one would be read as touching the wrong tiles.
A file with this error is not analysed further.

## Example
```python
acc = acc_db.next()
pl.matmul_acc(acc, left, right)
pl.muls(y, x)
```

## Use instead
```python
acc = acc_db.next()
pl.matmul_acc(acc, acc, left, right)
pl.muls(y, x, 0.5)
```
"""

RULE = Rule(
    code=codes.OP_ARGUMENTS,
    name="op-arguments",
    title="A `pl` op is called with arguments it does not take",
    message="`{call}(...)` {wrong}",
    hint="Give `{call}` its operands in the order its signature lists them",
    hints={"section": "Write `with {call}():`, with nothing between the parentheses; compute what was there in a "
                      "statement of its own"},
    phase="file",
    check=check,
    seed="every op is called with its documented operands",
    doc=DOC,
)

import libcst as cst

from pto_transpile import codes
from pto_transpile.rules import _examples as ex
from pto_transpile.rules._picks import picks_outside_loops
from pto_transpile.rules.rule import Rule


def check(ctx):
    first: dict[str, cst.BaseStatement] = {}
    for pick in picks_outside_loops(ctx):
        if pick.target is None:
            continue
        if pick.target in first and first[pick.target] is not pick.stmt:
            yield pick.small, {"target": pick.target, "line": ctx.source.line_of(first[pick.target])}
        first.setdefault(pick.target, pick.stmt)


DOC = """\
## What it checks
Outside the pipeline loop, the same variable is assigned a slot more than once
(`w = b_l1.current()` ... `w = d_l1.current()`).

## Why it matters for pipelining
A slot picked outside the loop and passed to a stage is carried to the delayed stage as a
slot index tracked per variable. When one variable takes two slots, the stages would all
receive the last one, while the serial kernel used each pick for its own load; the
pipelined kernel would silently compute with the wrong tile.

## Example
```python
    w = b_l1.current()
    pl.load(w, b, [0, 0])
    w = d_l1.current()
    pl.load(w, d, [0, 0])
```

## Use instead
```python
    w_b = b_l1.current()
    pl.load(w_b, b, [0, 0])
    w_d = d_l1.current()
    pl.load(w_d, d, [0, 0])
```
"""

#: the cube stage multiplies two weights loaded once, before the loop
_MM = '''\
@pl.pipeline.stage
def mm(ki, w_b, w_d, left_db, right_db, acc_db, x_db):
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, w_b)
    pl.move(right, w_d)
    pl.matmul(acc, left, right)
    x = x_db.next()
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)'''

_PARAMS = """\
b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
d: pl.Tensor[[TILE, TILE], pl.DT_FP32],
out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],"""

_DECLS = "\n".join([
    ex.CUBE_DECLS,
    ex.textwrap.indent(ex.group("b_l1", "Mat", "0x8000", "[2]", None, None, "[TILE, TILE]"), "    "),
    ex.textwrap.indent(ex.group("d_l1", "Mat", "0xC000", "[3]", None, None, "[TILE, TILE]"), "    "),
])


def _kernel(picks: str, call: str) -> str:
    return ex.kernel(mm=_MM, params=_PARAMS, cube_decls=_DECLS + "\n" + ex.textwrap.indent(picks, "    "),
                     loop=ex.loop(ex.cube(call), ex.vector()))


INVALID = (
    _kernel("w = b_l1.current()\npl.load(w, b, [0, 0])\nw = d_l1.current()  # E: PTO024\npl.load(w, d, [0, 0])",
            "mm(ki, w, w, left_db, right_db, acc_db, x_db)"),
)

VALID = (
    _kernel("w_b = b_l1.current()\npl.load(w_b, b, [0, 0])\nw_d = d_l1.current()\npl.load(w_d, d, [0, 0])",
            "mm(ki, w_b, w_d, left_db, right_db, acc_db, x_db)"),
)


RULE = Rule(
    code=codes.REPEATED_SLOT_PICK,
    name="repeated-slot-pick",
    title="One variable takes a slot twice outside the pipeline loop",
    message="`{target}` already took a slot at line {line}; a variable may take a slot only once",
    hint="Use a separate variable for each slot you need",
    check=check,
    seed="a variable takes a tile only once outside the pipeline loop; use one variable per tile",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)

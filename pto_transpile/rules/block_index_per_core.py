import libcst as cst

from pto_transpile import codes
from pto_transpile.read.model import CUBE, VECTOR
from pto_transpile.read.reader import section_of
from pto_transpile.read.walk import blocks, statements_of
from pto_transpile.rules.rule import Rule


def check(ctx):
    file = ctx.file
    for kernel in file.kernels:
        sections = {section_of(w, file.pl) for w in file.find(kernel.node, cst.With)}
        if not {CUBE, VECTOR} <= sections:
            continue  # a cube-only or vector-only kernel: the index means one thing on every core
        for stmt in _outside_sections(statements_of(kernel.node.body), file.pl):
            divided = {op.left for op in file.find(stmt, cst.BinaryOperation)
                       if isinstance(op.operator, cst.FloorDivide) and _calls(op.right, "get_subblock_num", file.pl)}
            # `(pl.get_block_idx() - pl.get_subblock_idx()) // pl.get_subblock_num()`: the block too
            divided |= {left.left for left in divided if isinstance(left, cst.BinaryOperation)
                        and isinstance(left.operator, cst.Subtract) and _calls(left.right, "get_subblock_idx", file.pl)}
            # `divmod(pl.get_block_idx(), pl.get_subblock_num())[0]`, `int(idx / num)`: maybe the block,
            # in a form the check does not read; not a kernel shown wrong (probe h121)
            other_form = any(_calls(c, "get_subblock_num", file.pl) for c in file.find(stmt, cst.Call))
            for call in file.find(stmt, cst.Call):
                if file.pl.path(call.func) == ("get_block_idx",) and call not in divided:
                    claim = (": the check reads the block index only as `pl.get_block_idx() // pl.get_subblock_num()`, "
                             "and cannot tell whether this is it" if other_form else
                             ": the serial kernel is already wrong")
                    yield call, {"kernel": kernel.name, "call": file.source.code(call), "claim": claim}


def _calls(node, name: str, pl) -> bool:
    """Is `node` a call of `pl.<name>()`?"""
    return isinstance(node, cst.Call) and pl.path(node.func) == (name,)


def _outside_sections(stmts, pl):
    """The simple statements of a kernel body that run on every core (not in a section)."""
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield stmt
        elif isinstance(stmt, cst.With) and section_of(stmt, pl) is not None:
            continue
        elif isinstance(stmt, cst.BaseCompoundStatement):
            for block in blocks(stmt):
                yield from _outside_sections(block, pl)


DOC = """\
## What it checks
A cube/vector kernel (one with both `pl.section_cube()` and `pl.section_vector()` blocks)
reads `pl.get_block_idx()` outside the sections, where every core runs it, without
dividing by `pl.get_subblock_num()`.

## Why it matters for pipelining
In a cube/vector kernel each block has one cube core and two vector cores, and
`pl.get_block_idx()` counts the vector cores one by one: the cube core of block `b` reads
`b`, its vector cores read `2 * b` and `2 * b + 1`. A block index taken from it makes the
cube and the vector cores of one block work on different data (and run loops over it a
different number of times), so the serial kernel is already wrong; the pipelined one can
only be as wrong. `pl.get_block_idx() // pl.get_subblock_num()` is the block on every core.
Inside a section the per-core value may be what you want, and is not reported.

## Example
```python
core_id = pl.get_block_idx()
```

## Use instead
```python
core_id = pl.get_block_idx() // pl.get_subblock_num()
```
"""

RULE = Rule(
    code=codes.BLOCK_INDEX_PER_CORE,
    name="block-index-per-core",
    title="A cube/vector kernel takes its block index from `pl.get_block_idx()` alone",
    message="`{call}` differs between the cube and the vector cores of one block in `{kernel}` (the cube reads "
            "b, its vector cores 2b and 2b+1){claim}",
    hint="Write `pl.get_block_idx() // pl.get_subblock_num()` for the block index",
    phase="file",
    check=check,
    seed="in a cube/vector kernel the block index every core uses is pl.get_block_idx() // pl.get_subblock_num()",
    doc=DOC,
)

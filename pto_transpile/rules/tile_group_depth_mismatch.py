from collections import ChainMap

import libcst as cst

from pto_transpile import codes
from pto_transpile.read.consteval import ConstEvaluator
from pto_transpile.read.meaning import Meaning, Value
from pto_transpile.rules.rule import Rule


def check(ctx):
    for name, buf in ctx.kernel.buffers.items():
        node = next((a.value for a in buf.call.args
                     if isinstance(a.keyword, cst.Name) and a.keyword.value == "depth"), None)
        if name != buf.name or node is None or not buf.mutex_ids:
            continue  # an alias of a group is judged once, where it is declared
        n = len(buf.mutex_ids)
        if buf.depth is not None:
            if buf.depth != n:
                yield node, {"buffer": buf.name, "depth": buf.depth, "n": n}
            continue
        # a depth of the tiling key (`depth=Deep + 1`): each instance the JIT compiles
        for key, depth in _per_instance(ctx, node):
            if depth != n:
                shown = ", ".join(f"{k}={v}" for k, v in key.items())
                yield node, {"buffer": buf.name, "depth": f"{depth} (in the instance {shown})", "n": n}
                break


def _per_instance(ctx, node):
    """(tiling key, depth) for each instance in which `node` folds to a whole number."""
    found = ctx.file.instances(ctx.kernel)
    for key in found.keys if found.known else ():
        values: dict[str, Meaning] = {k: Value(v) for k, v in key.items()}
        evaluator = ConstEvaluator(ChainMap(values, ctx.file.names.meanings), ctx.file.pl.path,
                                   hidden=frozenset(ctx.kernel.kinds))
        depth = evaluator.try_eval(node, None)
        if isinstance(depth, int) and not isinstance(depth, bool):
            yield key, depth


DOC = """\
## What it checks
A tile group is given both `depth=` and `mutex_ids=`, and the depth is not the number of
mutex ids.

## Why it matters for pipelining
PyPTO takes a group's tile count from `depth`, or from the length of `mutex_ids` when the
depth is left out, and refuses a group whose two counts differ. Every sync the transform
derives rests on that count: iteration `i` uses tile `i % tiles`, and a write waits for the
reader of the same tile `tiles` iterations earlier. A count the compiler would not accept
gives syncs for a group that does not exist.

## Example
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], depth=1, fwd_ids=[0, 1], bwd_ids=[2, 3])
```

## Use instead
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
```
(or `depth=2`, the number of mutex ids).
"""


RULE = Rule(
    code=codes.TILE_GROUP_DEPTH_MISMATCH,
    name="tile-group-depth-mismatch",
    title="A tile group's depth is not the number of its mutex ids",
    message="tile group `{buffer}` has depth={depth} but {n} mutex_ids",
    hint="Leave `depth=` out (the tile count is then the number of mutex ids), or give it {n}",
    check=check,
    seed="a tile group's depth, when given with mutex_ids, equals the number of mutex ids",
    doc=DOC,
)

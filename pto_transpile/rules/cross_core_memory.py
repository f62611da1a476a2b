from pto_api.memory import CROSS_CORE_SPACES
from pto_transpile import codes
from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        if buf.memory is None:
            yield buf.memory_node or buf.call, {"buffer": buf.name, "space": "an unresolvable memory space"}
        elif buf.memory not in CROSS_CORE_SPACES:
            yield buf.memory_node or buf.call, {"buffer": buf.name, "space": f"`{buf.memory}`"}


DOC = """\
## What it checks
A cross-core buffer (one with `fwd_ids`/`bwd_ids`) is declared in a memory space other
than UB (`pl.MemorySpace.Vec`) or L1 (`pl.MemorySpace.Mat`), e.g. in `Acc`, `Left` or
`Right`, or its `target_memory` cannot be resolved.

## Why it matters for pipelining
A cross-core buffer is written on one core and read on the other. Only UB and L1 can be
handed between the cube and vector cores; `Acc`, `Left` and `Right` are private to the
cube, so the vector stage could never read the tile the `set`/`wait` hand over.

## Example
```python
x_db = pl.make_tile_group(
    type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
    addrs=0x4000, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3],
)
```

## Use instead
```python
    type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
# and in the cube stage: pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)
```
"""


RULE = Rule(
    code=codes.CROSS_CORE_BUFFER_MEMORY,
    name="cross-core-buffer-memory",
    title="A cross-core buffer is not in UB (Vec) or L1 (Mat)",
    message="cross-core buffer `{buffer}` lives in {space}; cross-core buffers must be in UB "
            "(`pl.MemorySpace.Vec`) or L1 (`pl.MemorySpace.Mat`)",
    hint="Declare it with `target_memory=pl.MemorySpace.Vec` or `pl.MemorySpace.Mat` (move Acc results to Vec first)",
    check=check,
    seed="cross-core buffers live only in UB (Vec) or L1 (Mat)",
    doc=DOC,
)

from pto_api.memory import MEMORY_SPACES
from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    """Each slot of each tile group whose address the file fixes: aligned as its memory
    requires, and inside the memory's capacity (the table the emulator checks too)."""
    for buf in {id(b): b for b in ctx.kernel.buffers.values() if b.ranges and b.memory}.values():
        space = MEMORY_SPACES.get(buf.memory)
        if space is None:
            continue
        for i, (start, end) in enumerate(buf.ranges):
            if start < 0:
                problem = f"starts at {start:#x}, below the first byte of the memory"
            elif space.alignment > 1 and start % space.alignment:
                problem = f"starts at {start:#x}, which is not a multiple of {space.alignment} bytes"
            elif space.capacity is not None and end > space.capacity:
                problem = f"ends at {end:#x}, past the {space.capacity // 1024} KB of {space.hardware}"
            else:
                continue
            yield buf.call, {"buffer": buf.name, "slot": i, "memory": buf.memory, "problem": problem,
                             "alignment": space.alignment}
            break


DOC = """\
## What it checks
A tile group whose `addrs` the file fixes puts a slot at an address its memory does not
allow: below its first byte (a negative address), not a multiple of the memory's alignment
(UB and L1 32 bytes, L0A and L0B 512, L0C 64), or ending past the memory's capacity (UB 248
KB, L1 512 KB, L0A and L0B 64 KB).

## Why it matters for pipelining
Every later step trusts the addresses: the overlap analysis, the inserted syncs and the
soundness proof reason about the bytes each slot covers. A slot the hardware cannot place
where the file says is an error on the device however well the pipeline is synchronised,
and the emulator refuses it at the declaration.

## Example
```python
y_db = pl.make_tile_group(type=..., addrs=0x4010, mutex_ids=[12, 13])  # UB: 32-byte aligned
```

## Use instead
```python
y_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[12, 13])
```
"""


RULE = Rule(
    code=codes.TILE_OUTSIDE_MEMORY,
    name="tile-outside-memory",
    title="A tile group's slot is misaligned or past its memory",
    message="slot {slot} of tile group `{buffer}` in {memory} {problem}",
    hint="Place `{buffer}` at a multiple of {alignment} bytes whose slots all end inside the memory",
    check=check,
    seed="tile addresses are fixed by the author (make_tile_group addrs)",
    doc=DOC,
)

from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def _slot_ids(buf, i: int) -> frozenset:
    ids = buf.mutex_ids or ()
    if i >= len(ids):
        return frozenset()
    m = ids[i]
    return frozenset(m) if isinstance(m, (tuple, list)) else frozenset({m})


def check(ctx):
    bufs = list({id(b): b for b in ctx.kernel.buffers.values() if b.ranges and b.memory}.values())
    reported = set()
    for x, a in enumerate(bufs):
        for b in bufs[x:]:
            if a.memory != b.memory or id(b) in reported:
                continue
            synced = a.cross_core or b.cross_core
            for i, (s1, e1) in enumerate(a.ranges):
                clash = None
                for j, (s2, e2) in enumerate(b.ranges):
                    if (a is b and i >= j) or not (s1 < e2 and s2 < e1):
                        continue
                    if synced:  # address reuse: equal mutex ids are PTO029's, slot alignment is ours
                        if i != j:
                            clash = (j, "the inserted syncs follow tile i of one group to tile i of the other only")
                    elif not (_slot_ids(a, i) & _slot_ids(b, j)):
                        clash = (j, "they share no mutex id, so nothing orders their accesses on different pipes")
                    if clash:
                        break
                if clash:
                    reported.add(id(b))
                    j, why = clash
                    where = f"tile {j} of `{b.name}`" if a is not b else f"its tile {j}"
                    yield b.call, {
                        "a": a.name, "i": i, "where": where, "why": why, "memory": a.memory,
                        "_related": [(f"`{a.name}` is declared here", a.call)] if a is not b else [],
                    }
                    break


DOC = """\
## What it checks
Two tiles in one memory whose byte ranges overlap, where

- the two tiles share no mutex id (`mutex_ids` entries of their slots), or
- one of the groups is a cross-core buffer (or shares addresses with one) and the tiles are
  not the same slot number of both groups.

## Why it matters for pipelining
auto_mutex orders the accesses of one core to a tile through its mutex ids: a lock waits
for the previous holder of the id, on any pipe. Two groups overlapping on different ids
are independent as far as the hardware knows, so a load into one can run while a move
reads the other; once stages of different iterations interleave, that happens. Address
reuse of a cross-core buffer is synchronised slot by slot: tile `i` of one group is
assumed to lie on tile `i` of the other, and a group shifted into its neighbour's tile
breaks that assumption.

## Example
```python
    r_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[18, 19])
    nz_db = pl.make_tile_group(type=..., addrs=0x4400, mutex_ids=[20, 21])  # inside r_db's tiles
```

## Use instead
```python
    nz_db = pl.make_tile_group(type=..., addrs=0x6000, mutex_ids=[20, 21])   # its own bytes
    # or, to reuse r_db's bytes on purpose, the same addresses and the same mutex ids:
    nz_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[18, 19])
```
"""

RULE = Rule(
    code=codes.TILES_OVERLAP_UNORDERED,
    name="tiles-overlap-unordered",
    title="Overlapping tiles that nothing orders",
    message="{where} overlaps tile {i} of `{a}` in `{memory}`, but {why}",
    hint="Give the group its own addresses, or lay it exactly on the other group's tiles with the same mutex ids",
    phase="kernel",
    check=check,
    seed="buffers sharing addresses declare the same mutex ids: a mutex locks an address, "
         "different ids do not exclude each other",
    doc=DOC,
)

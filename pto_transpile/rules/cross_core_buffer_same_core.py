
from pto_transpile import codes
from pto_transpile.rules._walk import stage_users
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf, users in stage_users(ctx).items():
        if len(users) != 2:
            continue
        a, b = (ctx.loop.stages[i] for i in users)
        if a.section == b.section:
            yield b.call, {"buffer": buf, "a": a.func, "b": b.func, "core": a.section}


DOC = """\
## What it checks
The two stages using a cross-core buffer run on the same core (both in
`section_cube()` blocks, or both in `section_vector()` blocks).

## Why it matters for pipelining
`fwd_ids`/`bwd_ids` become cross-core `set`/`wait` pairs between the cube and the vector
core. Between two stages of one core there is nothing to hand over: the core runs them
in order, and `auto_mutex` already orders their accesses to a tile. Such ids would emit
flags that the other core never waits for (or waits for in vain).

## Example
```python
    r_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[18, 19], fwd_ids=[12, 13])
    ...
        act(sub_id, x_db, r_db, nz_db, p_db)  # vector, writes r
        ...
        st(ki, sub_id, out, y_db, r_db)  # vector, reads r
```

## Use instead
Keep `r` inside `act` (a local group used by one stage), or hand it to a stage of the
other core through a cross-core buffer. (Handing a local tile from one stage to a later
stage of the same core is refused too: when stages run ahead, the later stage would see
another iteration's tile.)
```python
    r_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[18, 19])  # no ids, used by `act` only
```
"""


RULE = Rule(
    code=codes.CROSS_CORE_BUFFER_SAME_CORE,
    name="cross-core-buffer-same-core",
    title="Both users of a cross-core buffer run on the same core",
    message="cross-core buffer `{buffer}` is used by `{a}` and `{b}`, both on the {core} core; it must "
            "hand data between cube and vector",
    hint="Drop fwd_ids/bwd_ids from `{buffer}` (same-core order comes from auto_mutex), or hand "
         "it to a stage of the other core",
    phase="loop",
    check=check,
    seed="the two stages of a cross-core buffer are a producer and a consumer, one on the cube "
         "core and one on the vector core",
    doc=DOC,
)

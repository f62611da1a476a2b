from pto_transpile import codes
from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        if buf.section is not None:
            yield buf.call, {"buffer": buf.name, "section": buf.section}


DOC = """\
## What it checks
A cross-core tile group (one with `fwd_ids`/`bwd_ids`) is declared inside a
`with pl.section_cube():` or `with pl.section_vector():` block.

## Why it matters for pipelining
A declaration inside a section exists only on that core. A cross-core buffer is used by
a stage on each core, and each core needs its own handle of it (with its own cursor) to
pick the same tile per iteration; declared on one core only, the other core's stage names
a group that does not exist there.

## Example
```python
    with pl.section_cube():
        x_db = pl.make_tile_group(type=..., mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
```

## Use instead
```python
    x_db = pl.make_tile_group(type=..., mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
    with pl.section_cube():
        ...
```
"""

RULE = Rule(
    code=codes.CROSS_CORE_BUFFER_IN_SECTION,
    name="cross-core-buffer-in-section",
    title="A cross-core buffer is declared inside a section",
    message="cross-core buffer `{buffer}` is declared inside a `section_{section}` block, so "
            "only the {section} core has it",
    hint="Declare `{buffer}` in the kernel body, outside any `with pl.section_*()` block",
    phase="kernel",
    check=check,
    seed="tile groups are declared in the kernel body; a cross-core buffer must exist on both cores",
    doc=DOC,
)

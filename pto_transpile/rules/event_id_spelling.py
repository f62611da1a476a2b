from pto_transpile import codes
from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        for ids in (buf.fwd, buf.bwd):
            if ids is not None and ids.problem:
                yield ids.problem_node or ids.node, {"buffer": buf.name, "keyword": ids.keyword, "detail": ids.problem}


DOC = """\
## What it checks
`fwd_ids` / `bwd_ids` of a cross-core buffer must be written either as a literal list (or
tuple) of integer literals, `fwd_ids=[0, 1]`, or as a name bound to such a list at module
level, `fwd_ids=X_FWD`. Elements computed from kernel variables, names that are not bound
outside the kernel, and expressions (calls, slices, concatenation) are rejected.

## Why it matters for pipelining
The transform must know every id at transform time: it picks `ids[task % len(ids)]` for
each iteration's `set`/`wait`, checks the ids against 0..15 and against the slot count,
and allocates the remaining free ids to address-reuse syncs. An id that is only known at
run time cannot be checked or kept apart from the ids the transform allocates.

## Example
```python
    first_id = 0
    x_db = pl.make_tile_group(..., fwd_ids=[first_id, first_id + 1], bwd_ids=[2, 3])
```

## Use instead
```python
X_FWD = [0, 1]  # module level

    x_db = pl.make_tile_group(..., fwd_ids=X_FWD, bwd_ids=[2, 3])
```
"""


RULE = Rule(
    code=codes.EVENT_ID_SPELLING,
    name="event-id-spelling",
    title="Event ids are not a literal integer list or a module-level name bound to one",
    message="cross-core buffer `{buffer}`: {keyword} {detail}",
    hint="Write the ids as a literal list such as `{keyword}=[0, 1]`, or as a name bound "
         "to such a list at module level",
    check=check,
    seed="fwd_ids/bwd_ids are written as a list of integers, or as a name bound to such a list outside the kernel",
    doc=DOC,
)

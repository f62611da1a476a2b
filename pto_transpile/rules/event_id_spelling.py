import libcst as cst

from pto_transpile import codes
from pto_transpile.read.effects import MUTATING_METHODS
from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        for ids in (buf.fwd, buf.bwd):
            if ids is None or not ids.problem:
                continue
            fields = {"buffer": buf.name, "keyword": ids.keyword, "detail": ids.problem}
            changed = _changed_at(ctx.file, ids.name) if ids.name else None
            if changed is not None:  # (probe h254: said not bound to a list, where a call changed the list)
                code = ctx.file.source.code(changed)
                line = ctx.file.source.span(changed).start.line
                fields.update(detail=f"is `{ids.name}`, a list that `{code}` at line {line} changes, so its ids are "
                                     "not the ones it is bound to when the kernel is compiled", name=ids.name,
                              _hint="changed", _related=[(f"`{ids.name}` changed here", changed)])
            yield ids.problem_node or ids.node, fields


def _changed_at(file, name: str) -> cst.CSTNode | None:
    """The first statement of the file that changes the list `name` in place (`X.reverse()`,
    `X[0] = 8`, `del X[0]`, `X += [2]`), if any."""
    for node in file.find(file.source.module, cst.Call):
        func = node.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == name \
                and func.attr.value in MUTATING_METHODS:
            return node
    for kind, target_of in ((cst.Assign, lambda n: [t.target for t in n.targets]),
                            (cst.AugAssign, lambda n: [n.target]), (cst.Del, lambda n: [n.target])):
        for node in file.find(file.source.module, kind):
            for target in target_of(node):
                base = target.value if type(target) is cst.Subscript else target if kind is cst.AugAssign else None
                if type(base) is cst.Name and base.value == name:
                    return node
    return None


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
    hints={"changed": "Bind `{name}` to the ids the buffer should use and remove the change, or write the ids as "
                      "a literal list such as `{keyword}=[0, 1]`"},
    check=check,
    seed="fwd_ids/bwd_ids are written as a list of integers, or as a name bound to such a list outside the kernel",
    doc=DOC,
)

from pto_transpile import codes
from pto_transpile.read.meaning import Unknown
from pto_transpile.read.modulenames import changed_in_place_at
from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        for ids in (buf.fwd, buf.bwd):
            if ids is None or not ids.problem:
                continue
            fields = {"buffer": buf.name, "keyword": ids.keyword, "detail": ids.problem}
            meaning = ctx.file.meaning(ids.name) if ids.name else None
            changed = _changed_at(ctx.file, ids.name) if ids.name else None
            # (probes h254, h255: said not bound to a list at module level, where it was, and a change of the
            # list, or of a list of that name, made the check read it as not fixed when the kernel is compiled)
            if changed is not None:
                line, code = changed
                fields.update(detail=f"is `{ids.name}`, a list the check takes as changed, since `{code}` at line "
                                     f"{line} changes a list of that name: its ids are not known to be the ones it "
                                     "is bound to when the kernel is compiled", name=ids.name, _hint="changed")
            elif isinstance(meaning, Unknown) and meaning.reason:
                fields.update(detail=f"is `{ids.name}`, which the check cannot take as fixed when the kernel is "
                                     f"compiled: {meaning.reason}", name=ids.name, _hint="changed")
            yield ids.problem_node or ids.node, fields


def _changed_at(file, name: str) -> tuple[int, str] | None:
    """The line, and its code, where the file first changes a list named `name` in place
    (`X.reverse()`, `X[0] = 8`, `del X[0]`), as the module's names are read (`modulenames`)."""
    text = file.source.text
    at = changed_in_place_at(name, text)
    if at is None:
        return None
    line = text.count("\n", 0, at) + 1
    return line, text.splitlines()[line - 1].strip()


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
    hints={"changed": "Bind `{name}` to the ids the buffer should use and change no list of that name in the file "
                      "(a function's own list of the same name counts too: rename it), or bind it to a tuple, or "
                      "write the ids as a literal list such as `{keyword}=[0, 1]`"},
    check=check,
    seed="fwd_ids/bwd_ids are written as a list of integers, or as a name bound to such a list outside the kernel",
    doc=DOC,
)

import libcst as cst

from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel
    for loop in k.loops:
        for s in loop.stages:
            for a in s.passed:
                name = a.value.value if isinstance(a.value, cst.Name) else None
                decls = k.structs.get(name) if name is not None else None
                if not decls or len(decls) < 2 or decls[0].is_array:
                    continue
                first = list(decls[0].fields)
                other = next((list(d.fields) for d in decls[1:] if set(d.fields) != set(first)), None)
                if other is not None:
                    yield a.value, {"name": name, "first": ", ".join(first), "other": ", ".join(other)}


DOC = """\
## What it checks
A `pl.struct(...)` passed to a stage is declared in more than one place with different
fields (`pos = pl.struct(row=0, col=0)` in one branch of a tiling-key test,
`pos = pl.struct(row=0)` in the other).

## Why it matters for pipelining
A struct argument reaches its delayed stage as the fields of its task's ctx entry, one
field per struct field, copied from the struct every iteration. The entry has one set of
fields for every instance of the kernel: a field one declaration leaves out cannot be
copied where the struct lacks it, and one the entry leaves out does not reach the stage.

## Example
```python
    if WIDE == 1:
        pos = pl.struct(row=0, col=0)
    else:
        pos = pl.struct(row=0)   # no `col`
```

## Use instead
```python
    if WIDE == 1:
        pos = pl.struct(row=0, col=0)
    else:
        pos = pl.struct(row=0, col=0)   # every field in every declaration
```
"""


RULE = Rule(
    code=codes.STRUCT_DECLARATIONS_DIFFER,
    name="struct-declarations-differ",
    title="A struct passed to a stage is declared with different fields in different places",
    message="struct `{name}` is passed to a stage, and its declarations give it different fields ({first}; "
            "{other}); its fields travel to the delayed stage as the ctx fields of one set",
    hint="Declare every field of `{name}` in every declaration (initialise the ones an instance does not use "
         "with a number of their type)",
    check=check,
    seed="each struct field passed to a delayed stage travels in a ctx field of its own",
    doc=DOC,
)

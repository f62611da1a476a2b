import libcst as cst

from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel
    for loop in k.loops:
        owner: dict[str, str] = {}  #: field -> the first struct passed to a stage that declares it
        for s in loop.stages:
            for a in s.passed:
                name = a.value.value if isinstance(a.value, cst.Name) else None
                if name is None or name not in k.structs or k.structs[name][0].is_array:
                    continue
                for field in k.structs[name][0].fields:
                    first = owner.setdefault(field, name)
                    if first != name and k.structs[first] is not k.structs[name]:  # (`st = cfg`: one struct)
                        yield a.value, {"field": field, "first": first, "second": name}
                        break


DOC = """\
## What it checks
Two different `pl.struct(...)` values passed to the stages of one pipeline loop declare a
field of the same name (`pos = pl.struct(row=...)` and `dst = pl.struct(row=...)`).

## Why it matters for pipelining
A struct argument reaches its delayed stage as the fields of its task's ctx entry, one
field per struct field, named as the struct names them. Two structs with a field of one
name would share that ctx field: the stage would read one struct's value as the other's.

## Example
```python
    pos = pl.struct(row=0)
    dst = pl.struct(row=0)   # `row` again
    for ki in pl.range(0, N):
        ...
            st(pos, dst, out, x_db)
```

## Use instead
```python
    pos = pl.struct(row=0)
    dst = pl.struct(dst_row=0)
```
"""


RULE = Rule(
    code=codes.STRUCTS_SHARE_FIELD,
    name="structs-share-field",
    title="Two structs passed to stages of one pipeline loop declare a field of the same name",
    message="struct `{second}` declares a field `{field}`, as struct `{first}` does; both are passed to stages of "
            "this pipeline loop, and a struct's fields travel to a delayed stage as ctx fields of their own names",
    hint="Give the fields of the structs passed to one loop's stages different names (`{second}.{second}_{field}`)",
    check=check,
    seed="each struct field passed to a delayed stage travels in a ctx field of its own",
    doc=DOC,
)

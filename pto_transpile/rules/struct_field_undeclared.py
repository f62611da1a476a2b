import libcst as cst

from pto_transpile import codes
from pto_transpile.read.walk import iter_nodes
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel
    stored = {id(t.target) for t in ctx.file.find(k.node.body, cst.AssignTarget)} | {
        id(t.target) for t in ctx.file.find(k.node.body, (cst.AugAssign, cst.AnnAssign))}
    seen: set[tuple[str, str]] = set()
    for node in iter_nodes(k.node.body, skip_functions=True):
        if type(node) is not cst.Attribute or type(node.value) is not cst.Name:
            continue
        decls = k.structs.get(node.value.value)
        if not decls or any(a.star for d in decls for a in d.call.args) or node.attr.value.startswith("__"):
            continue  # not a struct, one whose fields are spread from a dict (`**fields`), or Python's own
        declared = [f for d in decls for f in d.fields]
        if node.attr.value not in declared and (node.value.value, node.attr.value) not in seen:
            seen.add((node.value.value, node.attr.value))  # (once: the fix is at the declaration)
            yield node, {"name": node.value.value, "field": node.attr.value,
                         "fields": ", ".join(f"`{f}`" for f in dict.fromkeys(declared)),
                         "_message": "stored" if id(node) in stored else ""}


DOC = """\
## What it checks
The kernel sets or reads a field of a `pl.struct(...)` that the struct was not made with
(`st = pl.struct("Cfg", row=0)`, then `st.gain = 0.5`).

## Why it matters for pipelining
PyPTO compiles a struct to a C++ struct whose fields are the keyword arguments of
`pl.struct(...)`, each typed by its initial value; a field added later is not one of them,
and the kernel does not compile. The pipelined kernel hands a struct to its delayed stages
field by field through the ctx ring, one ctx field per declared field: a field added later
would not travel with its iteration.

## Example
```python
    st = pl.struct("Cfg", row=0)
    for i in pl.range(0, n_blocks):
        st.gain = (i % 3) * 0.5 + 0.25   # `gain` is not a field of `st`
```

## Use instead
```python
    st = pl.struct("Cfg", row=0, gain=0.0)
```
"""

RULE = Rule(
    code=codes.STRUCT_FIELD_UNDECLARED,
    name="struct-field-undeclared",
    title="A struct field is used that the struct was not made with",
    message="`{name}.{field}` is read, but `{field}` is not a field of struct `{name}` (made with {fields})",
    hint="Declare the field where the struct is made, with an initial value of its type "
         "(`pl.struct(..., {field}=0.0)` for a float, `=0` for an integer)",
    messages={
        "stored": "`{name}.{field}` is set, but `{field}` is not a field of struct `{name}` (made with {fields}): "
                  "a struct has the fields it is made with",
    },
    check=check,
    seed="a `pl.struct` has the fields it is made with (keyword arguments with initial values); fields are set "
         "and read, not added",
    doc=DOC,
)

import libcst as cst

from pto_transpile import codes
from pto_transpile.read.walk import parameters
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel.node
    seen = set()
    nodes = [p.name for p in parameters(k)] + ctx.file.find(k.body, cst.Name)
    for decl in (d for ds in ctx.kernel.structs.values() for d in ds):
        nodes += [a.keyword for a in decl.call.args if a.keyword is not None]
    for n in nodes:
        if n.value.startswith("_pl_") and n.value not in seen:
            seen.add(n.value)
            yield n, {"name": n.value}


DOC = """\
## What it checks
A name in the kernel (a variable, a parameter, a struct field) starts with `_pl_`.

## Why it matters for pipelining
The transform adds its own variables to the kernel: the ctx ring `_pl_ctx_arr`, the task
counter `_pl_task_id`, the per-delay ctx slots `_pl_ctx_0` / `_pl_ctx_negN`, lifted id
lists `_pl_fwd_ids_<buffer>`, overlap ids `_pl_overlap_ids_N`, outer-slot indices
`_pl_idx_<group>`, drain loop variables... All of them share the kernel's scope, so a user
name with that prefix could be silently overwritten by the generated code (typically after
copying code back from `pipeline_generated.py`).

## Example
```python
    with pl.section_vector():
        _pl_sub_id = pl.get_subblock_idx()
```

## Use instead
```python
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
```
"""


RULE = Rule(
    code=codes.RESERVED_NAME,
    name="reserved-name",
    title="A kernel name starts with the reserved `_pl_` prefix",
    message="`{name}` starts with `_pl_`, which is reserved for names the pipeline transform generates",
    hint="Rename `{name}` to something without the `_pl_` prefix",
    check=check,
    seed="names starting with `_pl_` are reserved for the transform",
    doc=DOC,
)

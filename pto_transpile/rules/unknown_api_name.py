import libcst as cst

from pto_api.names import GROUP_METHODS, PL_MEMBERS, PL_NAMES
from pto_transpile import codes
from pto_transpile.rules._spelling import analysed_functions
from pto_transpile.rules.rule import Rule
from pto_transpile.suggest import closest


def check(ctx):
    file = ctx.file
    groups = _group_names(file)
    for fn in analysed_functions(file):
        for node in file.find(fn, cst.Attribute):
            found = _pl_misspelling(file, node)
            if found is not None:
                yield node, found
        for call in file.find(fn, cst.Call):
            found = _method_misspelling(call, groups.get(fn, set()))
            if found is not None:
                yield call, found


def _pl_misspelling(file, node: cst.Attribute) -> dict | None:
    """`pl.matmull`, `pl.system.set_cross_cor`: a name `pl` lacks that is close to one it has."""
    path = file.pl.path(node)
    if not path:
        return None
    if len(path) == 1:
        known = PL_NAMES
    elif path[0] in PL_MEMBERS and len(path) == 2 and path[0] in PL_NAMES:
        known = PL_MEMBERS[path[0]]
    else:
        return None
    if path[-1] in known:
        return None
    near = closest(path[-1], known)
    if near is None:
        return None  # a name the tables do not model is left to the rules that need it
    written = file.source.code(node)
    return {"written": written, "owner": "`pl." + ".".join(path[:-1]) + "`" if len(path) > 1 else "`pl`",
            "suggestion": written[: len(written) - len(path[-1])] + near}


def _method_misspelling(call: cst.Call, groups: set[str]) -> dict | None:
    """`c_vec_db.nxt()` on a tile group: a slot picker spelt wrong."""
    node = call.func
    if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value in groups):
        return None
    if node.attr.value in GROUP_METHODS or call.args:
        return None
    near = closest(node.attr.value, GROUP_METHODS)
    if near is None:
        return None
    return {"written": f"{node.value.value}.{node.attr.value}()", "owner": f"tile group `{node.value.value}`",
            "attr": node.attr.value, "suggestion": f"{node.value.value}.{near}()", "_message": "method",
            "_hint": "method"}


def _group_names(file) -> dict[cst.CSTNode, set[str]]:
    """Per function: the names that hold a tile group there (a kernel's groups, and
    the parameters of stages that some kernel passes a group)."""
    out: dict[cst.CSTNode, set[str]] = {}
    for kernel in file.kernels:
        out.setdefault(kernel.node, set()).update(kernel.buffers)
        for call in file.find(kernel.node, cst.Call):
            stage = file.stages.get(call.func.value) if type(call.func) is cst.Name else None
            if stage is None:
                continue
            for position, arg in enumerate(call.args):
                if not (isinstance(arg.value, cst.Name) and arg.value.value in kernel.buffers):
                    continue
                name = arg.keyword.value if arg.keyword is not None else (
                    stage.params[position] if arg.star == "" and position < len(stage.params) else None)
                if name is not None:
                    out.setdefault(stage.node, set()).add(name)
    return out


DOC = """\
## What it checks
A name of the `pl` API that does not exist but is an edit or two from one that does:
`pl.matmull`, `pl.section_vectr`, `pl.system.set_cross_cor`, `pl.MemorySpace.Vecc`, or a
tile-group slot picker spelt wrong (`x_db.nxt()` for `x_db.next()`). Names the tool does
not model and that are close to none it knows are left alone (other rules judge them
where they matter).

## Why it matters for pipelining
The kernel cannot run. Worse, the analysis would misread it: an op it does not know has
no known reads and writes, a misspelt slot picker takes no slot, and the errors that follow
(a buffer with one user, an unprovable pipeline) point away from the typo. Those follow-on
checks are not run on a file with a misspelling.

## Example
```python
    pl.matmull(acc, left, right)
    x = x_db.nxt()
```

## Use instead
```python
    pl.matmul(acc, left, right)
    x = x_db.next()
```
"""

RULE = Rule(
    code=codes.UNKNOWN_API_NAME,
    name="unknown-api-name",
    title="A `pl` name or tile-group method is misspelt",
    message="`{written}`: {owner} has no such name; did you mean `{suggestion}`?",
    hint="Write `{suggestion}`",
    messages={"method": "{owner} has no method `{attr}`; did you mean `{suggestion}`?"},
    hints={"method": "Write `{suggestion}`: a tile group picks slots with next(), current(), previous() or [i]"},
    phase="file",
    check=check,
    seed="every name a kernel file takes from `pl` exists",
    doc=DOC,
)

import libcst as cst

from pto_transpile import codes
from pto_transpile.read.consteval import PlSymbol
from pto_transpile.read.meaning import Value
from pto_transpile.read.reader import SECTION_PATHS, section_of, section_of_item
from pto_transpile.read.walk import find
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel
    misshapen = [w for w in ctx.file.find(k.node, cst.With) if _section_kinds(w, ctx.file.pl) and _misshapen(w)]
    for w in misshapen:
        yield w, _shape_fields(w, ctx)
    for loop in k.loops:
        for s in loop.stages:
            if s.section == "with" and s.holder not in misshapen:
                alias = _section_alias(s.holder, ctx.file, k.node)
                yield s.call, {"stage": s.func} if alias is None else {
                    "stage": s.func, "header": _header(s.holder, ctx), "section": alias,
                    "_message": "alias", "_hint": "alias"}
    # a stage call buried deeper (a `with` inside the section, ...) is no stage of its loop
    # at all; calls under a runtime `if` are PTO007's
    known = {s.call for loop in k.loops for s in loop.stages}
    guarded = {c for node, _ in k.dynamic_stage_ifs for c in find(node, cst.Call)}
    # a one-line section whose header is reported above: its call waits for the header's fix
    told = {c for w in misshapen if isinstance(w.body, cst.SimpleStatementSuite) for c in find(w.body, cst.Call)}
    one_line = {c: section for loop in k.loops for stmt in loop.body if isinstance(stmt, cst.With)
                and isinstance(stmt.body, cst.SimpleStatementSuite)
                and (section := section_of(stmt, ctx.file.pl)) is not None for c in find(stmt.body, cst.Call)}
    for call, _loop in k.loop_stage_calls:
        if call in told:
            continue
        if call in one_line:
            yield call, {"stage": call.func.value, "section": one_line[call], "_message": "one_line",
                         "_hint": "one_line"}
        elif call not in known and call not in guarded:
            yield call, {"stage": call.func.value}


def _section_kinds(with_node: cst.With, pl) -> list[str]:
    """The kinds ("cube"/"vector") of the `pl.section_*()` calls among the items of `with_node`,
    wherever they stand: `with other(), pl.section_vector():` is a section `with` too."""
    return [kind for item in with_node.items if (kind := section_of_item(item, pl)) is not None]


def _section_alias(with_node, file, kernel: cst.FunctionDef) -> str | None:
    """"cube"/"vector" when a `with` calls a name the kernel or the module binds to
    `pl.section_*` (`sv = pl.section_vector`, then `with sv():`): the section under another
    name, which the transform does not read as one."""
    if not isinstance(with_node, cst.With) or len(with_node.items) != 1:
        return None
    call = with_node.items[0].item
    if type(call) is not cst.Call or type(call.func) is not cst.Name:
        return None
    name = call.func.value
    local = [a.value for a in file.find(kernel, cst.Assign)
             if any(type(t.target) is cst.Name and t.target.value == name for t in a.targets)]
    if local:  # the kernel's own binding, when all of its bindings name one section
        kinds = {SECTION_PATHS.get(file.pl.path(n) or ()) for n in local}
        return kinds.pop() if len(kinds) == 1 else None
    meaning = file.meaning(name)
    value = meaning.value if isinstance(meaning, Value) else None
    return SECTION_PATHS.get(value.path) if isinstance(value, PlSymbol) else None


def _misshapen(with_node: cst.With) -> bool:
    """Does a section `with` hold more than its one `pl.section_*()` call, or bind it `as` a name?
    PyPTO's section is one context manager that yields no value, and the emulator lowers the
    `with` to an `if` on the core: neither an `as` target nor a second item has a place in it."""
    return len(with_node.items) != 1 or with_node.items[0].asname is not None


def _header(with_node: cst.With, ctx) -> str:
    """The items of a `with` as written, between `with` and `:`."""
    code = ctx.source.code
    return ", ".join(code(item.item) + (f" as {code(item.asname.name)}" if item.asname else "")
                     for item in with_node.items)


def _shape_fields(with_node: cst.With, ctx) -> dict:
    """The message fields of a misshapen section `with`: its header, its first section's kind and
    what is wrong with it (an `as` target or the number of items)."""
    code = ctx.source.code
    header = f"with {_header(with_node, ctx)}:"
    kinds = _section_kinds(with_node, ctx.file.pl)
    others = [code(item.item) for item in with_node.items if section_of_item(item, ctx.file.pl) is None]
    asname = with_node.items[0].asname
    if len(with_node.items) == 1 and asname is not None:
        fault, rest = f"binds it to `{code(asname.name)}`", "; a section yields no value to bind"
    elif not others:
        fault, rest = f"opens {len(kinds)} sections", "; a `with` opens one section, and a stage runs in one"
    else:
        fault = f"holds {len(with_node.items)} context managers"
        rest = (f"; move `{'`, `'.join(others)}` out of the header (in the pipeline loop nothing but "
                "a section may wrap a stage call)")
    kind = kinds[0]
    return {"header": header, "section": kind, "fault": fault, "rest": rest, "_message": "shape", "_hint": "shape"}


DOC = """\
## What it checks
A stage call of the pipeline loop is the body of a `with` block that is not
`pl.section_cube()` / `pl.section_vector()` (for example a custom context manager); or a
section `with` anywhere in the kernel, in the pipeline loop or outside it, is not exactly
one `pl.section_*()` call: it binds the section `as` a name, or holds a second context
manager (`with pl.section_vector(), other():`).

## Why it matters for pipelining
Only the two section blocks tell the transform which core runs a stage. The rewritten loop
replaces each section by a guarded, delayed stage block with the cross-core `wait`s before
and `set`s after the call; an unknown `with` cannot be rebuilt around the delayed call and
gives no core. PyPTO's section is one context manager that yields no value: a name bound
`as` the section, or a second context manager in its header, has no counterpart in the
section the transform rebuilds, nor on the device.

## Example
```python
for ki in pl.range(0, N):
    with pl.no_sync():
        mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
```

## Use instead
```python
for ki in pl.range(0, N):
    with pl.section_cube():
        mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
```
"""


RULE = Rule(
    code=codes.STAGE_IN_PLAIN_WITH,
    name="stage-in-plain-with",
    title="A stage call or a section is in a `with` that is not one plain section",
    message="stage call `{stage}` is not directly inside a `pl.section_cube()`/`pl.section_vector()` block",
    hint="Put the stage call directly in a `with pl.section_cube():` or `with pl.section_vector():` block",
    messages={"one_line": "stage call `{stage}` shares its line with `with pl.section_{section}():`; the transform "
                          "rebuilds a section from the statements of its indented block",
              "alias": "stage call `{stage}` is in `with {header}:`, which is `pl.section_{section}()` under another "
                       "name; the transform knows a section by its `pl` name",
              "shape": "a section `with` takes exactly one `pl.section_*()` call and no `as`, but `{header}` "
                       "{fault}"},
    hints={"one_line": "Put the call on its own line under the `with`, indented: `with pl.section_{section}():` "
                       "then `    {stage}(...)`",
           "alias": "Write the header as `with pl.section_{section}():`",
           "shape": "Write the header as `with pl.section_{section}():`{rest}"},
    check=check,
    seed="stage calls are wrapped in `with pl.section_cube()` / `with pl.section_vector()` blocks",
    doc=DOC,
)

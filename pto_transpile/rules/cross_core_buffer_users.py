import libcst as cst

from pto_transpile import codes
from pto_transpile.read.kinds import SLOT_ACCESSORS
from pto_transpile.read.localnames import local_names
from pto_transpile.read.meaning import Unknown
from pto_transpile.read.walk import iter_nodes
from pto_transpile.rules._walk import stage_users, unknown_callee
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf, users in stage_users(ctx).items():
        stages = [ctx.loop.stages[i] for i in users]
        names = ", ".join(f"`{s.func}`" for s in stages)
        if len(users) == 1 and _given_to_unknown(ctx, buf):
            continue  # (a call of a name PTO070 says is not known may be the other stage: probe h242)
        if len(users) == 1:
            fields: dict = {}
            detail = f"is used only by {names} in this pipeline loop; it needs a producer and a consumer"
            packed = next((s for s in ctx.loop.stages if s not in stages and _packed(s.call, buf)), None)
            given = next((s for s in ctx.loop.stages if s not in stages and _given(s.call, buf)), None)
            known = {id(s.call) for s in ctx.loop.stages}
            buried = next((c for c in ctx.file.find(ctx.loop.node, cst.Call)
                           if id(c) not in known and type(c.func) is cst.Name and c.func.value in ctx.file.stages
                           and _given(c, buf)), None)
            if packed is not None:  # (probe h146: the help asked for what the kernel did)
                detail += (f"; `{packed.func}` is given it inside a tuple, list or dict, through which pto-transpile "
                           "does not follow a tile group's uses: pass it as an argument of its own")
            elif buried is not None:  # (probe h195: `_ = st(...) if c else None`, `assert st(...) is None`)
                detail += (f"; `{buried.func.value}` is given it in a call inside an expression or another "
                           "statement, which pto-transpile does not pipeline: write the stage call as the only "
                           "statement of its section")
            elif given is not None and (imported := _imported_callee(ctx.file, given.func)) is not None:
                # (probe h242: `from .common import epilogue`, the op in it, and the help asked for a pair)
                detail += (f"; `{given.func}` is given it and calls `{imported}`, a function imported from another "
                           "module, which pto-transpile does not read")
                fields = {"callee": imported, "_hint": "imported"}
            elif given is not None:  # (probe h192: `Ops.relu_into(y, c_vec)`, `relu_into(*args)`)
                # (probe h219: `s, d = c_vec, y; pl.relu(d, s)` was told to do the op in the stage, as it did)
                detail += (f"; `{given.func}` is given it, but none of the ops pto-transpile follows there touches it: "
                           "an op reaches a tile of it where its operand is the name bound by `x = group.next()` "
                           "(or `.current()`) or a plain alias of that name, given to a `pl` op called by its name "
                           "or to a plain function of the file as an argument of its own; a tile passed on through "
                           "tuple unpacking, a `for` target, an item of a container, a conditional or `and`/`or` "
                           "expression, `getattr(pl, ...)`, a method of a class or a `*` argument is not seen: give "
                           "the op that name")
            yield stages[0].call, {"buffer": buf, "detail": detail, **fields}
        elif len(users) > 2:
            detail = f"is used by {len(users)} stages ({names}); one buffer carries one producer/consumer pair"
            yield stages[2].call, {"buffer": buf, "detail": detail}


def _given_to_unknown(ctx, name: str) -> bool:
    """Does the loop give `name` to a call of a module name whose function is not known (PTO070)?"""
    local = local_names(ctx.file, ctx.kernel.node)
    return any(unknown_callee(ctx.file, call.func, local) and _given(call, name)
               for call in ctx.file.find(ctx.loop.node, cst.Call))


def _imported_callee(file, stage: str) -> str | None:
    """The first function a stage's body gives a tile slot (a name bound by `x = g.next()` or
    `.current()`) that an import binds (another module's function)."""
    fn = file.stages[stage].node if stage in file.stages else None
    if fn is None:
        return None
    slots = {t.target.value for node in file.find(fn, cst.Assign) for t in node.targets
             if type(t.target) is cst.Name and type(node.value) is cst.Call and type(node.value.func) is cst.Attribute
             and node.value.func.attr.value in SLOT_ACCESSORS}
    for call in file.find(fn, cst.Call):
        func = call.func
        if not any(type(arg.value) is cst.Name and arg.value.value in slots for arg in call.args):
            continue
        name = func.value if type(func) is cst.Name else func.value.value \
            if type(func) is cst.Attribute and type(func.value) is cst.Name else None
        meaning = file.meaning(name) if name is not None and file.pl.path(func) is None else None
        if isinstance(meaning, Unknown) and meaning.imported:
            return file.source.code(func)
    return None


def _given(call: cst.Call, name: str) -> bool:
    """Does `call` give `name` as an argument of its own?"""
    return any(type(arg.value) is cst.Name and arg.value.value == name and not arg.star for arg in call.args)


def _packed(call: cst.Call, name: str) -> bool:
    """Does `call` give `name` inside a tuple, list or dict argument (`(proj_db, res_db)`)?"""
    return any(type(node) is cst.Name and node.value == name
               for arg in call.args if isinstance(arg.value, (cst.Tuple, cst.List, cst.Dict))
               for node in iter_nodes(arg.value))


DOC = """\
## What it checks
A cross-core buffer (declared with `fwd_ids`/`bwd_ids`) is used by exactly one stage of a
pipeline loop, or by more than two. It must be used by exactly two stages: one producer,
one consumer.

## Why it matters for pipelining
Ids belong to the buffer, and one buffer carries one producer/consumer pair: the `set`
after the producer and the `wait` before the consumer use `ids[task % len(ids)]`. With
one user there is no handover to synchronise (the ids are wrong, or the other user is in
another loop, which the per-loop analysis cannot see). With three users, the third would
consume the same `set` events as the second, and one of them would wait forever.

## Example
```python
x_db = pl.make_tile_group(...)  # mm1 -> act, and also read by st
    with pl.section_vector():
        st(ki, sub_id, out, x_db, y_db)
```

## Use instead
```python
# one tile group per producer/consumer pair; st reads only y_db
    with pl.section_vector():
        st(ki, sub_id, out, y_db)
```
"""


RULE = Rule(
    code=codes.CROSS_CORE_BUFFER_USER_COUNT,
    name="cross-core-buffer-user-count",
    title="A cross-core buffer is not used by exactly two stages",
    message="cross-core buffer `{buffer}` {detail}",
    hint="Declare one tile group per producer/consumer pair, and pass each to exactly one cube and one vector stage",
    hints={"imported": "Define `{callee}` in this file (its body as it is), or write its ops in the stage: "
                       "pto-transpile follows a tile's uses through the file's own functions only"},
    phase="loop",
    check=check,
    seed="a cross-core buffer is used by exactly two stages",
    doc=DOC,
)

import libcst as cst

from pto_api.names import PL_KEYWORDS
from pto_api.ops import op_keywords
from pto_transpile import codes
from pto_transpile.rules._spelling import analysed_functions
from pto_transpile.rules.rule import Rule
from pto_transpile.suggest import closest


def check(ctx):
    file = ctx.file
    calls = [c for fn in analysed_functions(file) for c in file.find(fn, cst.Call)]
    for call in calls:
        path = file.pl.path(call.func)
        if not path:
            continue
        fixed = PL_KEYWORDS.get(path)
        known = fixed if fixed is not None else op_keywords(path[0]) if len(path) == 1 else None
        if known is None:
            continue
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value in known:
                continue
            near = closest(arg.keyword.value, known)
            if fixed is None and near is None:
                continue  # a data op's keywords are not all known: only a near misspelling is sure
            fields = {"keyword": arg.keyword.value, "call": file.source.code(call.func),
                      "known": ", ".join(f"`{k}`" for k in sorted(known))}
            if near is not None:
                fields.update(suggestion=near, _message="near", _hint="near")
            elif not known:
                fields.update(_message="none", _hint="none")
            yield arg.keyword, fields


DOC = """\
## What it checks
A keyword argument that the call does not take, in the calls whose signatures are fixed:
`@pl.jit(...)`, `pl.pipeline.PipelineConfig(...)`, `pl.make_tile_group(...)`,
`pl.TileType(...)`, `pl.make_tile(...)`, `pl.set_validshape(tile, shape)`, the `pl.system`
sync calls, and `pl.range(...)` (which takes start, end and step by position only). A keyword an edit or two from a real
one is named as its misspelling. In a data op (`pl.move`, `pl.load`, `pl.store`,
`pl.cast`, ...) a keyword is reported when it is such a near misspelling of one the op
takes (`acc_to_vec_modee=`, `offset=` for `offsets=`).

## Why it matters for pipelining
The real functions raise `TypeError` on such a call, and reading past it would be worse: a
misspelt `fwd_id=` leaves the buffer without forward event ids (the sync analysis then
reports a handover without `fwd_ids`), a misspelt `PipelineConfig(preloads=1)` would
silently pipeline at the default preload, a misspelt `acc_to_vec_mode=` would move the
accumulator in the default mode, and `pl.range(0, n, step=2)` would be pipelined with the
step left out. A file with this error is not analysed further.

## Example
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], fwd_id=[0, 1], bwd_ids=[2, 3])
@pl.jit(pipeline=pl.pipeline.PipelineConfig(preloads=1))
pl.move(x, acc, acc_to_vec_modee=pl.AccToVecMode.DualModeSplitM)
for ki in pl.range(0, N, step=1):
```

## Use instead
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
@pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=1))
pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)
for ki in pl.range(0, N, 1):
```
"""

RULE = Rule(
    code=codes.UNKNOWN_KEYWORD,
    name="unknown-keyword",
    title="A `pl` call is given a keyword it does not take",
    message="`{call}` takes no keyword `{keyword}` (it takes {known})",
    hint="Remove `{keyword}=`, or write one of the keywords `{call}` takes",
    messages={"near": "`{call}` takes no keyword `{keyword}`; did you mean `{suggestion}`?",
              "none": "`{call}` takes no keyword arguments: `{keyword}=` is not one"},
    hints={"near": "Write `{suggestion}=`", "none": "Give the value by position, without `{keyword}=`"},
    phase="file",
    check=check,
    seed="the calls whose signatures are fixed are given only the keywords they take",
    doc=DOC,
)

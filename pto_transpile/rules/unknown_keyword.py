import libcst as cst

from pto_api.names import PL_KEYWORDS
from pto_transpile import codes
from pto_transpile.rules import _examples as ex
from pto_transpile.rules._spelling import analysed_functions
from pto_transpile.rules.rule import Rule
from pto_transpile.suggest import closest


def check(ctx):
    file = ctx.file
    calls = [c for fn in analysed_functions(file) for c in file.find(fn, cst.Call)]
    for call in calls:
        path = file.pl.path(call.func)
        known = PL_KEYWORDS.get(path) if path else None
        if known is None:
            continue
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value in known:
                continue
            fields = {"keyword": arg.keyword.value, "call": file.source.code(call.func),
                      "known": ", ".join(sorted(known))}
            near = closest(arg.keyword.value, known)
            if near is not None:
                fields.update(suggestion=near, _message="near", _hint="near")
            yield arg.keyword, fields


DOC = """\\
## What it checks
A keyword argument that the call does not take, in the calls whose signatures are fixed:
`@pl.jit(...)`, `pl.pipeline.PipelineConfig(...)`, `pl.make_tile_group(...)` and
`pl.TileType(...)`. A keyword an edit or two from a real one is named as its misspelling.

## Why it matters for pipelining
The real functions raise `TypeError` on such a call, and reading past it would be worse: a
misspelt `fwd_id=` leaves the buffer without forward event ids (the sync analysis then
reports a handover without `fwd_ids`), and a misspelt `PipelineConfig(preloads=1)` would
silently pipeline at the default preload. A file with this error is not analysed further.

## Example
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], fwd_id=[0, 1], bwd_ids=[2, 3])
@pl.jit(pipeline=pl.pipeline.PipelineConfig(preloads=1))
```

## Use instead
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
@pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=1))
```
"""

INVALID = (
    ex.kernel(x_db=ex.X_DB.replace("    fwd_ids=[0, 1],", "    fwd_id=[0, 1],  # E: PTO074")),
    ex.kernel(decorator="@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preloads=1))  # E: PTO074"),
    ex.kernel(decorator="@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1), "
                        "mode=3)  # E: PTO074"),
)

VALID = (
    ex.kernel(),
    ex.kernel(decorator="@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1, sync_only=False))"),
)

RULE = Rule(
    code=codes.UNKNOWN_KEYWORD,
    name="unknown-keyword",
    title="A `pl` call is given a keyword it does not take",
    message="`{call}` takes no keyword `{keyword}` (it takes {known})",
    hint="Remove `{keyword}=`, or write one of the keywords `{call}` takes",
    messages={"near": "`{call}` takes no keyword `{keyword}`; did you mean `{suggestion}`?"},
    hints={"near": "Write `{suggestion}=`"},
    phase="file",
    check=check,
    seed="the calls whose signatures are fixed are given only the keywords they take",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)

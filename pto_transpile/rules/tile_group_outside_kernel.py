import libcst as cst

from pto_transpile.rules._walk import calls_in
from pto_transpile.rules.base import Rule


def check(file):
    kernels = {id(k) for k in file.all_jit_kernels}
    for stmt in file.source.module.body:
        if not isinstance(stmt, cst.FunctionDef) or id(stmt) in kernels:
            continue
        for call in calls_in(stmt):
            if file.pl.path(call.func) == ("make_tile_group",):
                kind = "stage" if stmt.name.value in file.stages else "function"
                yield call, {"function": stmt.name.value, "kind": kind}


RULE = Rule(
    code="PTO020",
    name="tile-group-outside-kernel",
    title="A tile group is declared outside the kernel body",
    message="{kind} `{function}` declares a tile group with `pl.make_tile_group()`; declarations belong in the kernel body",
    hint="Declare the tile group in the kernel body and pass it to `{function}` as an argument",
    phase="file",
    check=check,
    seed="跨核 Buffer 和核内 Buffer 的 make_tile_group 声明必须写在 kernel 函数体内",
)

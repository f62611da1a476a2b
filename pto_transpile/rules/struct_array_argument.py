import libcst as cst

from pto_transpile.rules.base import Rule


def check(ctx):
    k = ctx.kernel
    for loop in k.loops:
        for s in loop.stages:
            for arg in s.positional:
                v = arg.value
                base = v.value if isinstance(v, cst.Subscript) else v
                if isinstance(base, cst.Name) and any(d.is_array for d in k.structs.get(base.value, ())):
                    yield v, {"name": base.value, "stage": s.func}


RULE = Rule(
    code="PTO038",
    name="struct-array-argument",
    title="A `pl.struct_array()` value is passed to a stage",
    message="`{name}` comes from `pl.struct_array()` and is passed to stage `{stage}`",
    hint="Declare the stage's struct argument with `pl.struct(...)`; struct arrays cannot travel in the pipeline ctx",
    check=check,
    seed="stage 函数如果有结构体参数 请使用 pl.struct() 声明 不支持 pl.struct_array()",
)

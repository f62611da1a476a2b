import libcst as cst

from pto_transpile.rules._walk import all_names
from pto_transpile.rules.base import Rule


def check(ctx):
    k = ctx.kernel.node
    seen = set()
    nodes = [p.name for p in k.params.params] + all_names(k.body)
    for decl in (d for ds in ctx.kernel.structs.values() for d in ds):
        nodes += [a.keyword for a in decl.call.args if a.keyword is not None]
    for n in nodes:
        if n.value.startswith("_pl_") and n.value not in seen:
            seen.add(n.value)
            yield n, {"name": n.value}


RULE = Rule(
    code="PTO040",
    name="reserved-name",
    title="A kernel name starts with the reserved `_pl_` prefix",
    message="`{name}` starts with `_pl_`, which is reserved for names the pipeline transform generates",
    hint="Rename `{name}` to something without the `_pl_` prefix",
    check=check,
    seed="以 _pl_ 开头的变量名为框架保留 kernel 内不要使用",
)

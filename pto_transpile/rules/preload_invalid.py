from pto_transpile.rules.base import Rule


def check(ctx):
    spec = ctx.kernel.preload
    node = spec.node if spec.node is not None else ctx.kernel.jit_decorator
    if spec.problem:
        yield node, {"detail": spec.problem}
        return
    if spec.is_sequence and not spec.values:
        yield node, {"detail": "preload is an empty sequence"}
    for v in spec.values or ():
        if isinstance(v, bool) or not isinstance(v, int):
            yield node, {"detail": f"preload must be an int, got {type(v).__name__}: {v!r}"}
        elif v < 0:
            yield node, {"detail": f"preload must be >= 0, got {v}"}


RULE = Rule(
    code="PTO005",
    name="preload-invalid",
    title="`preload` is not a non-negative int (or a non-empty list of them)",
    message="{detail}",
    hint="Use `PipelineConfig(preload=N)` with N >= 0 (0 keeps the serial loop), or one such value per pipeline loop",
    check=check,
    seed="preload 取值必须大于等于 0",
)

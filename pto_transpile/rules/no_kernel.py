from pto_transpile.rules.base import Rule


def check(file):
    if not file.kernels:
        yield file.source.module, {}


RULE = Rule(
    code="PTO003",
    name="no-kernel",
    title="The file defines no `@pl.jit` kernel",
    message="no `@pl.jit` kernel in this file, so there is nothing to pipeline",
    hint="Decorate the kernel function with `@pl.jit(...)` and import `pypto_pro.language`",
    phase="file",
    check=check,
    seed="(tool) the input must hold a kernel",
)

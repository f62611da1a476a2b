from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    file = ctx.file
    for kernel in file.kernels:
        if not (kernel.loops or kernel.pipeline_keyword is not None or kernel.stray_stage_calls):
            continue  # only the kernels pto-transpile rewrites must be proven for every instance
        found = file.instances(kernel)
        if not found.known:
            yield found.node or kernel.node.name, {"kernel": kernel.name, "problem": found.problem,
                                                   "_hint": found.kind}


DOC = """\
## What it checks
The instances of a kernel with a tiling key (`@pl.jit(tiling_key=Key)`) cannot be listed:
the fields' `values` are not compile-time integer lists (or the key class is not one of
this file), more than 64 combinations of the values pass the class's `is_valid(self, key)`
(or more than 64 are left when `is_valid` cannot be evaluated statically), or `is_valid`
accepts none. Each combination is an instance: the JIT compiles the kernel once per key,
with the fields as constants.

## Why it matters for pipelining
The generated file holds one kernel for every instance (branches on key fields keep their
source form), so the pipeline must be proven for each of them: an instance may take a
branch that puts a stage or a sync elsewhere. Instances that cannot be listed cannot be
proven.

## Example
```python
class Key:
    Mode = TilingKeyField(bits=4, values=[m for m in range(16)])   # not a list the check can read
    BlockM = TilingKeyField(bits=8, values=[16, 32, 64, 128, 256])
```

## Use instead
```python
class Key:
    Mode = TilingKeyField(bits=4, values=[0, 1, 2, 3])
    BlockM = TilingKeyField(bits=8, values=[16, 32, 64, 128, 256])

    def is_valid(self, key):
        mode, block_m = key
        return mode == 0 or block_m == 128
```
"""


RULE = Rule(
    code=codes.TILING_KEY_INSTANCES,
    name="tiling-key-instances",
    title="The instances of a kernel's tiling key cannot be listed",
    message="the tiling-key instances of kernel `{kernel}` cannot be listed, so its pipeline cannot be proven "
            "for each: {problem}",
    hint="Narrow the fields' `values`, or add `is_valid(self, key)` returning False for the combinations "
         "the kernel is never launched with (at most 64 instances are checked)",
    hints={"not-static": "Declare the key class in this file, each field as `TilingKeyField(bits=..., "
                         "values=[...])` with integer literals or module-level integer constants",
           "none-valid": "Make `is_valid(self, key)` accept the combinations the kernel is launched with",
           "too-many": "Narrow the fields' `values`, or add `is_valid(self, key)` returning False for the "
                       "combinations the kernel is never launched with (at most 64 instances are checked)"},
    phase="file",
    check=check,
    seed="a pipelined kernel is proven for every instance of its tiling key, so the instances must be listable",
    doc=DOC,
)

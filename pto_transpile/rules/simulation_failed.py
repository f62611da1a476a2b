from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
`pto-transpile --simulate`: the emulated NPU ran the serial kernel and the pipelined one
(or a hand-pipelined kernel with hardware semantics) on the same inputs, and they differ,
deadlock, race, leave an event unconsumed, or the run failed. The position is the kernel's
`def`; the simulation report printed above it names the lines involved. Reported by the
CLI with exit status 1, in every `--format`, and the output is not written.

## Why it matters for pipelining
The emulator is the second, independent check behind the static proof: a difference means
the pipelined kernel would compute something else on the hardware.

## Example
```python
# pto-transpile kernel.py --simulate    (the pipelined kernel races)
```

## Use instead
```python
# read the lines the report names; run without --simulate to see the generated code
```
"""

# no example kernels: produced by the CLI, not by transpile(): see tests/rules/test_rules.py NO_EXAMPLES


RULE = Rule(
    code=codes.SIMULATION_FAILED,
    name="simulation-failed",
    title="The emulator finds the kernel wrong",
    message="the emulator finds {what} wrong: {detail}",
    hint="Read the simulation report above for the lines involved; {written}",
    phase="analysis",
    seed="a kernel written under --simulate computes what the serial kernel computes on the emulator",
    doc=DOC,
    raised_by=("pto_transpile/output/run.py",),
)

from pto_transpile import codes
from pto_transpile.rules.rule import Rule
from pto_transpile.soundness.proof import HINTS

DOC = """\
## What it checks
After the kernel is pipelined, pto-transpile proves the result computes what the serial
kernel computes, without trusting its own emitter: it reads the generated kernel back and
runs both kernels on an abstract model of the NPU (no data; the AIC and both AIVs, each
pipe, every tile and GM region an op touches, every inserted `set`/`wait`, mutex and
barrier). The pipelined kernel is written only when

- it cannot deadlock, every `set` is consumed by a `wait` and no event counter overflows;
- no two accesses to the same bytes race (at least one writes, and no sync, mutex, barrier or
  pipe order puts one before the other);
- every read sees exactly the writes it sees in the serial kernel, every stage invocation
  receives the same scalar arguments, and every element of GM ends with the value of the same
  write (two stores that overlap in part and swap places are a difference).

Anything it cannot prove is this error, naming the two accesses (stage, task, op, pipe,
core) it cannot order or the read whose value differs.

## Why it matters for pipelining
Pipelining reorders a user's code across iterations and cores. A reordering that a rule
does not foresee (a GM tensor handed between stages, state kept in a tile across
iterations, two buffers on the same event id) gives a kernel that races or computes other
numbers with no error on the device. The tool refuses whenever it cannot show the result is
the same program.

## Example
```python
@pl.pipeline.stage
def st(ki, sub_id, a, x_db):
    x = x_db.next()
    # writes the rows of `a` that the cube stage loads in the next iteration: GM is never synchronised
    pl.store(a, x, [((ki + 1) % N) * TILE + sub_id * HALF, 0])
```

## Use instead
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    x = x_db.next()
    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])
```
"""

RULE = Rule(
    code=codes.PIPELINE_NOT_PROVEN,
    name="pipeline-not-proven",
    title="The pipelined kernel is not proven to compute what the serial kernel computes",
    message="the pipelined kernel is not proven equivalent to the serial one: {detail}",
    hint=("Hand data between stages only through cross-core tile groups and keep no state in tiles across "
          "iterations; the message names the two accesses to order"),
    hints=HINTS,
    phase="analysis",
    seed="a tool that reorders a user's code writes it only when it can show the result is the same program",
    doc=DOC,
    raised_by=("pto_transpile/soundness/proof.py",),
)

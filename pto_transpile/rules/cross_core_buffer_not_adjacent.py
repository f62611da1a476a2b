from pto_transpile import codes
from pto_transpile.rules._walk import stage_users
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf, users in stage_users(ctx).items():
        if len(users) != 2 or users[1] - users[0] == 1:
            continue
        a, b = (ctx.loop.stages[i] for i in users)
        if a.section == b.section:
            continue
        yield b.call, {"buffer": buf, "a": a.func, "b": b.func, "n": users[1] - users[0] - 1}


DOC = """\
## What it checks
The producer and the consumer of a cross-core buffer are not neighbouring stages of the
pipeline loop (other stages run between them), e.g. a skip connection from the first cube
stage to the last vector stage.

## Why it matters for pipelining
Delays grow along the chain of stages, so data handed over several stages stays in
flight for more iterations (here x_db would need three tiles: PTO043), and its set/wait
interleave with the syncs of the stages in between. Handing data on stage by stage keeps
every buffer a one-step channel.

## Example
```python
        mm1(ki, a, b_slot, a_l1, left_db, right_db, acc_db, x_db)  # cube: writes x
        act(ki, sub_id, a, r_db, nz_db, p_db)                      # vector
        mm2(b_slot, p_db, left_db, right_db, acc_db, y_db)         # cube
        st(ki, sub_id, out, x_db, y_db)  # vector: reads x, two stages later
```

## Use instead
```python
# let act consume x_db and pass what st needs on through p_db / y_db
```
"""


RULE = Rule(
    code=codes.CROSS_CORE_BUFFER_NOT_ADJACENT,
    name="cross-core-buffer-not-adjacent",
    title="A cross-core buffer is handed between stages that are not neighbours",
    message="cross-core buffer `{buffer}` is handed from `{a}` to `{b}` with {n} stage(s) in between",
    hint="Hand the data on through the stages in between, one buffer per neighbouring pair",
    phase="loop",
    check=check,
    seed="a cross-core buffer is handed between consecutive stages",
    doc=DOC,
)

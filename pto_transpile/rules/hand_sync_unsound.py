from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.read.pipelined import BY_HAND, pipelined_as
from pto_transpile.rules.rule import Rule
from pto_transpile.soundness.check import check_hand_written
from pto_transpile.soundness.proof import HINTS, problem_fields

#: The fix per kind of problem, in terms of the author's own syncs (a hand-pipelined kernel
#: has no `fwd_ids` or preload to adjust).
HAND_HINTS = {
    "race": "Order the two accesses with your own syncs: after the {first_op} on {first_pipe} of {first_core}, "
            "a set on {first_pipe} (`set_cross_core` to the other core, `sync_src` on the same core), and before "
            "the {second_op}, the matching wait on {second_pipe} of {second_core}; one of the two is missing, or "
            "stands on the wrong side of its access",
    "deadlock": "Each wait named here needs a set the other core raises first: add the missing `set_cross_core` "
                "(or prime the release events before the loop), or remove the wait that has no set",
    "unit_flag": "Give every matmul and store of an Acc tile a `phase=`, Partial but for the last matmul and the "
                 "last store of the tile, which take Final, or give none of them a phase",
    "unbalanced": "Give every set a wait that consumes it (drain the release events after the loop) or remove the "
                  "set",
    "overflow": "Wait for this event before raising it again: a counter holds only so many pending sets",
    "event_id": "Keep every event id within the hardware's range: pick it from a list of ids by a residue of the "
                "loop variable (`EV_FULL[t % 2]`)",
    "wait_pipes": "Wait for one event id on one pipe of a core: where the data is read on several pipes, wait on "
                  "the scalar pipe (`pipe=pl.PipeType.S`), which holds back all of the core's later work",
    "stray": HINTS["stray"],  # (no sync of the author's orders bytes a function reaches past its tile)
    "barrier_core": HINTS["barrier_core"],
    "section_outside": HINTS["section_outside"],
    "drift": "Wait for every event in the iterations that raise it (and drain after the loop only what the last "
             "iterations raise), so that the events pending stay as many whatever the trip count",
}


def findings(file, kernel, undecided: bool):
    """The problems of `kernel`'s own syncs: those the check proves, or (`undecided`) what it
    could not decide."""
    for problem in check_hand_written(file, kernel):
        if (problem.kind == "undecided") == undecided:
            fields = {"kernel": kernel.name, **problem_fields(problem)}
            if problem.kind not in HAND_HINTS:
                del fields["_hint"]  # the rule's own hint
            if problem.accesses:
                (c1, p1, o1), (c2, p2, o2) = problem.accesses
                fields.update(first_core=c1, first_pipe=p1, first_op=f"`{o1}`", second_core=c2, second_pipe=p2,
                              second_op=f"`{o2}`")
            yield problem.node, fields


def hand_pipelined(file):
    for kernel in file.kernels:
        how = pipelined_as(kernel, file)
        if how is not None and how.startswith(BY_HAND):
            yield kernel


def check(ctx):
    for kernel in hand_pipelined(ctx.file):
        yield from findings(ctx.file, kernel, undecided=False)


DOC = """\
## What it checks
A kernel pipelined by hand (no `pipeline=`; it calls `set_cross_core` and
`wait_cross_core`, or `sync_src`/`sync_dst`, itself or in a function it calls) is left as
written, but its own syncs are judged: the kernel is
run on the same abstract model of the NPU the soundness check uses (the AIC and both AIVs,
each pipe, mutexes, every set and wait) and any deadlock, unbalanced event counter,
counter overflow or race between two accesses it proves is an error (exit 1, so a
pre-commit `--check` stops it). What the model cannot decide is PTO077, a warning.

## Why it matters for pipelining
A missing or misplaced wait in a hand-written pipeline computes wrong numbers only
sometimes on the device; nothing else reports it. The emulator (`--simulate`) shows it on
one run; this check reports it without running the kernel.

## Example
```python
        with pl.section_vector():
            if t >= 1:
                # the wait for the cube's data is missing
                consume(before.row, sub_id, out, x_db, r_db)
```

## Use instead
```python
        with pl.section_vector():
            if t >= 1:
                pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL[(t - 1) % 2])
                consume(before.row, sub_id, out, x_db, r_db)
```
"""

RULE = Rule(
    code=codes.HAND_SYNC_UNSOUND,
    name="hand-sync-unsound",
    title="The syncs of a hand-pipelined kernel are wrong",
    message="the hand-written syncs of `{kernel}` are not sound: {detail}",
    hint="Order the two accesses the message names with your own syncs: a set on the earlier access's pipe "
         "after it, the matching wait on the later access's pipe before it",
    hints=HAND_HINTS,
    phase="file",
    severity=Severity.ERROR,
    check=check,
    seed="the syncs of a hand-pipelined kernel are checked like the generated ones",
    doc=DOC,
)

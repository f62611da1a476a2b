"""Places a pipeline loop meets again at any distance, which the trip-count argument's window must
reach: docs/design.md, "For every trip count", the paragraph on `W`.

The runs of the proof are drawn for hazards at most the ring's length of tasks apart. A GM place
that does not move with the loop (a workspace) or an on-chip tile reached by two ops on pipes that
no mutex and no sync after the later op orders is met again in later iterations, however far apart:
where a run shows one, the proof runs again with the window at least the loop's period
(`check._revisited_past`). Found by probes h240, h243, h244, h246 and h247, each an accepted kernel
that raced on the emulator past the counts run.
"""

from __future__ import annotations

from typing import Any

from pto_transpile.soundness.events import Trace


def met_again(accesses: list[tuple]) -> bool:
    """Do two of these (op, write) accesses of one place in a loop come from different ops, one a
    write? In a longer run the same ops meet again in other iterations, at any distance: the pair
    of one iteration in the runs made (a load and a store at `ki % 8 == 7`) is the pair 8 tasks
    apart in a run of 16 (probe h244). One op's accesses run on one pipe of a core, in order,
    however far apart (`last` written at `ki == n - 1` of each outer iteration)."""
    ops: dict = {}  #: op -> does it write
    for op, write in accesses:
        ops[op] = ops.get(op, False) or write
    return len(ops) > 1 and any(ops.values())


def tiles_met_again(trace: Trace) -> set[str]:
    """The on-chip tiles that the kernel writes by one op and reaches by another on another pipe, the
    two holding no mutex in common (a plain `pl.make_tile` tile has none), where nothing after the
    later op in its task makes the earlier op's pipe wait for it: a `sync_dst` from the later op's
    pipe to the earlier's after it, taking a set issued after it (each wait takes the oldest set
    pending: probe h247, a set primed before the loop), or `bar_all`. Such a pair meets again in
    later iterations at any distance, as a GM workspace does (probe h244: `keep` loaded at `ki % 8 ==
    7` after the `pl.add` reading it, V to MTE2 synced, and read again 8 tasks later). FlashAttention's
    `o_f16`, cast, stored and handed back to V by the author's own sync, is closed in every task.
    The tasks are the stages' and the loop body's code between them (code before the first task or
    after the last runs once); a kernel pipelined by hand has none, and its pairs are all open."""
    out: set[str] = set()
    for events in trace.events:
        taken = _sets_taken(events)
        earlier: dict[tuple, set] = {}  #: memory -> (op, pipe, mutex, write, r0, r1, c0, c1) of ops before
        seen: set = set()  #: what `judged` holds, of the ops already judged
        by_hand = not any(ev.kind == "op" and ev.task >= 0 for ev in events)
        for group in _task_groups(events):
            # (by hand, one group: a sync later in the run may close an iteration long after, probe h247)
            closing = [set() for _ in group] if by_hand else _closing_after(group, taken)
            for at, (_, ev) in enumerate(group):
                if ev.kind != "op":
                    continue
                mine = [(f, write) for feet, write in ((ev.reads, False), (ev.writes, True)) for f in feet
                        if f.key[0] != "GM"]
                # (an op of a later task alike in all that decides, after the same ops, decides alike)
                judged = (ev.node, ev.pipe, tuple(ev.mutex), tuple(mine), frozenset(closing[at]), len(earlier),
                          sum(map(len, earlier.values())))
                if not mine or judged in seen:
                    continue
                seen.add(judged)
                for f, write in mine:
                    for node, pipe, mutex, write2, r0, r1, c0, c1 in earlier.get(f.key, ()):
                        if (write or write2) and node is not ev.node and pipe != ev.pipe \
                                and not mutex & set(ev.mutex) and f.r0 < r1 and r0 < f.r1 and f.c0 < c1 \
                                and c0 < f.c1 and not closing[at] & {(ev.pipe, pipe), ("ALL", "")}:
                            out.add(f.label)
                for f, write in mine:
                    earlier.setdefault(f.key, set()).add((ev.node, ev.pipe, frozenset(ev.mutex), write,
                                                          f.r0, f.r1, f.c0, f.c1))
    return out


def _sets_taken(events: list) -> dict[int, int]:
    """For each `sync_dst` of a core (by its index), the index of the `sync_src` it takes: the
    oldest of its pipes and event id still pending."""
    pending: dict[tuple, list[int]] = {}
    taken: dict[int, int] = {}
    for at, ev in enumerate(events):
        if ev.kind == "sync_src":
            pending.setdefault((ev.pipe, ev.wait_pipe, ev.event_id), []).append(at)
        elif ev.kind == "sync_dst":
            waiting = pending.get((ev.pipe, ev.wait_pipe, ev.event_id))
            if waiting:
                taken[at] = waiting.pop(0)
    return taken


def _task_groups(events: list) -> list[list[tuple[int, Any]]]:
    """A core's (index, event)s, one list per task of a stage and one per stretch of the loop body's
    own code between them (probe h246), in the order they ran; a sync belongs to the group of the
    op before it. Code before the first task and after the last runs once and is left out; with no
    task at all (a kernel pipelined by hand), the whole run is one group."""
    tasks = [at for at, ev in enumerate(events) if ev.kind == "op" and ev.task >= 0]
    if not tasks:
        return [list(enumerate(events))]
    # (the syncs after the last task's last op are that task's: FlashAttention's hand-back of `o_f16`)
    end = next((at for at in range(tasks[-1] + 1, len(events)) if events[at].kind == "op"), len(events))
    groups: list[list] = []
    task: tuple | None = None
    for at in range(tasks[0], end):
        ev = events[at]
        if ev.kind == "op":
            key = (ev.stage, ev.task) if ev.task >= 0 else ("", -1)
            if key != task:
                task = key
                groups.append([])
        groups[-1].append((at, ev))
    return groups


def _closing_after(group: list[tuple[int, Any]], taken: dict[int, int]) -> list[set]:
    """For each event of a group, the (set pipe, wait pipe) of each `sync_dst` after it in the group
    that takes a set issued after it (a set before it orders only the work issued before the set:
    probe h246), and ("ALL", "") for a `bar_all` there."""
    out: list[set] = []
    dsts: list[tuple[int, tuple]] = []  #: (index of the set it takes, (set pipe, wait pipe)) of the waits after
    later: set = set()  #: ("ALL", "") once a `bar_all` follows
    for at, ev in reversed(group):
        out.append({pipes for src, pipes in dsts if src > at} | later)
        if ev.kind == "sync_dst" and at in taken:
            dsts.append((taken[at], (ev.pipe, ev.wait_pipe)))
        elif ev.kind == "bar" and ev.pipe == "ALL":
            later = {("ALL", "")}
    return out[::-1]

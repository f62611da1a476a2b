"""Whether the syncs of a loop pipelined by hand stay within the hardware's counters for every
trip count, from one period of its steady iterations: each counter balanced (as many sets as
waits), and no core raising events for another without waiting for anything that core raises
(else it may run ahead without bound). Either way the events pending would grow with the trip
count past the counter's depth at some count the check's runs never reach."""

from __future__ import annotations

from pto_api.effects import COUNTER_DEPTH, barrier_kinds
from pto_transpile.soundness.events import CORE_KIND, CORES, SET_RECEIVERS, WAIT_SENDERS


def refusal(events: list, start: list[int], end: list[int], length: int, label: str,
            balance: bool = True, ahead: bool = True) -> str | None:
    """Why the period of `length` iterations of the loop over `label` that each core's events
    `start[c]:end[c]` hold makes the pending events grow with the trip count; None when it does
    not. Without `balance`, only a core running ahead (`unthrottled`) is looked for; without
    `ahead`, only the balance."""
    net = sync_balance(events, start, end) if balance else {}
    drift = next(((k, n) for k, n in sorted(net.items(), key=repr) if n), None)
    if drift is not None:
        (what, *_), n = drift
        more = f"raise {n} more {what}" if n > 0 else f"wait for {-n} more {what}"
        return (f"every {length} iteration(s) of the loop over `{label}` {more} than they "
                f"{'wait for' if n > 0 else 'raise'}: the events pending at its end grow with its trip count and "
                f"overflow the hardware counter ({COUNTER_DEPTH}) or leave a wait unmatched at some count; consume "
                "every event in the iterations that raise it")
    runs_ahead = unthrottled(events, start, end) if ahead else None
    if runs_ahead is None:
        return None
    sender, receiver, eid = runs_ahead
    return (f"in the loop over `{label}`, {CORES[sender]} raises event id {eid} for {CORES[receiver]} but never "
            f"waits for anything {CORES[receiver]} raises: it may run ahead without bound, and the sets pending "
            f"grow with the trip count past the hardware counter ({COUNTER_DEPTH}); make {CORES[sender]} wait for "
            f"a release from {CORES[receiver]} in every iteration (primed before the loop)")


def sync_balance(events: list, start: list[int], end: list[int]) -> dict[tuple, int]:
    """Sets less waits per counter, over each core's events `start[c]:end[c]`: cross-core
    counters by (sender, receiver, event id), as the hardware keeps them, and `sync_src` less
    `sync_dst` per (core, pipes, event id)."""
    net: dict[tuple, int] = {}
    for core, evs in enumerate(events):
        for ev in evs[start[core]:end[core]]:
            if ev.kind == "set":
                for r in SET_RECEIVERS[core]:
                    k: tuple = (f"sets of event id {ev.event_id} from {CORES[core]} to {CORES[r]}", core, r,
                                ev.event_id)
                    net[k] = net.get(k, 0) + 1
            elif ev.kind == "wait":
                for s in WAIT_SENDERS[core]:
                    k = (f"sets of event id {ev.event_id} from {CORES[s]} to {CORES[core]}", s, core, ev.event_id)
                    net[k] = net.get(k, 0) - 1
            elif ev.kind in ("sync_src", "sync_dst"):
                k = (f"`sync_src` of id {ev.event_id} on {CORES[core]}", core, ev.pipe, ev.wait_pipe, ev.event_id)
                net[k] = net.get(k, 0) + (1 if ev.kind == "sync_src" else -1)
    return net


def unthrottled(events: list, start: list[int], end: list[int]) -> tuple[int, int, int] | None:
    """(sender, receiver, event id) of a cross-core set in each core's events `start[c]:end[c]`
    whose sender waits there for nothing the receiver raises (and passes no barrier): nothing
    then holds it back, and its sets pile up as far as it runs ahead; None when there is none."""
    waits_on: dict[int, set[int]] = {core: set() for core in range(len(events))}
    for core, evs in enumerate(events):
        for ev in evs[start[core]:end[core]]:
            if ev.kind == "wait":
                waits_on[core] |= set(WAIT_SENDERS[core])
            elif ev.kind == "barrier":  # every core the barrier joins
                waits_on[core] |= {c for c in range(len(events)) if CORE_KIND[c] in (barrier_kinds(ev.pipe) or ())}
    for core, evs in enumerate(events):
        for ev in evs[start[core]:end[core]]:
            if ev.kind == "set":
                for r in SET_RECEIVERS[core]:
                    if r not in waits_on[core]:
                        return core, r, ev.event_id
    return None

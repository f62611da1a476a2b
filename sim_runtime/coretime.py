"""When each op of one core runs: a front end issuing in program order into per-pipe queues.

A core's scalar front end issues every instruction in program order, one every
`issue` cycles, into the queue of its pipe (MTE2, MTE1, M, FIX on the AIC; MTE2, V, MTE3
on an AIV; S for scalar work). Each pipe runs its queue in order, and the pipes run at
the same time, so a load on MTE2 overlaps an independent vector op on V. An op starts
when its pipe is free, its issue slot has come, and everything it is ordered after is
done: earlier ops sharing an auto_mutex id, the op that set the Acc unit flag a `phase=`
call waits for, the flags (`sync_dst`) and cross-core waits queued before it on its pipe,
`bar_all`. These are exactly the orders the race detector
(`races.py`) knows, so timing never orders what the race detector leaves unordered.

Scalar work (`S`: getval/setval, a wait on the S pipe) holds the front end until it is
done; the front end stalls too when the queue of a pipe is full (`queue_depth`).
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

from pto_api import SCALAR_PIPE
from sim_runtime.costs import COSTS

#: The pipe whose work the front end itself waits for.
SCALAR = SCALAR_PIPE


@dataclass
class CoreTime:
    """The timing state of one core (cycles since launch)."""

    issue_cost: int = COSTS.issue
    queue_depth: int = COSTS.queue_depth
    #: when the front end issues its next instruction
    issue: int = 0
    #: when each pipe finishes the work queued on it so far
    pipe_free: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    #: start times of the ops still counted in each pipe's queue (its last `queue_depth` ops)
    queued: dict[str, deque] = field(default_factory=lambda: defaultdict(deque))
    #: when the last op touching each auto_mutex id (or unlocking it) finished
    mutex_free: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    #: `sync_src` flags not consumed yet: (set pipe, wait pipe, id) -> times they are raised
    flags: dict[tuple, deque] = field(default_factory=lambda: defaultdict(deque))

    def _issue_into(self, pipe: str) -> int:
        """Issue one instruction into `pipe`'s queue; the time it is issued."""
        q = self.queued[pipe]
        at = self.issue
        if len(q) >= self.queue_depth:  # the queue is full: wait until its oldest op starts
            at = max(at, q.popleft())
        self.issue = at + self.issue_cost
        return at

    def _queue(self, pipe: str, start: int) -> None:
        self.queued[pipe].append(start)

    def op(self, pipe: str, cost: int, mutex=(), after: int = 0) -> tuple[int, int]:
        """An op of `cost` cycles on `pipe` touching `mutex` ids, waiting for an Acc unit flag
        set by an op that ended at `after`: its (start, end)."""
        at = self._issue_into(pipe)
        start = max([at, self.pipe_free[pipe], after] + [self.mutex_free[m] for m in mutex])
        end = start + cost
        self.pipe_free[pipe] = end
        self._queue(pipe, start)
        for m in mutex:
            self.mutex_free[m] = end
        if pipe == SCALAR:
            self.issue = max(self.issue, end)
        return start, end

    def set_flag(self, pipe: str) -> int:
        """A set on `pipe`: it fires once the work issued on `pipe` before it is done."""
        at = self._issue_into(pipe)
        fired = max(at, self.pipe_free[pipe])
        self.pipe_free[pipe] = fired
        self._queue(pipe, fired)
        return fired

    def wait(self, pipe: str, released: int, latency: int) -> tuple[int, int]:
        """A wait on `pipe` whose event was raised at `released`: it holds back later work on
        `pipe` (all work, for the scalar pipe) until the event has arrived. Its (start, end)."""
        at = self._issue_into(pipe)
        start = max(at, self.pipe_free[pipe])
        end = max(start, released + latency)
        self.pipe_free[pipe] = end
        self._queue(pipe, start)
        if pipe == SCALAR:
            self.issue = max(self.issue, end)
        return start, end

    def sync_src(self, set_pipe: str, wait_pipe: str, eid: int) -> None:
        self.flags[(set_pipe, wait_pipe, eid)].append(self.pipe_free[set_pipe])

    def sync_dst(self, set_pipe: str, wait_pipe: str, eid: int) -> None:
        """Later work on `wait_pipe` (all work, for the scalar pipe, which stalls the issue at it,
        as the race detector orders it) starts once the flag is raised."""
        raised = self.flags[(set_pipe, wait_pipe, eid)].popleft()
        self.pipe_free[wait_pipe] = max(self.pipe_free[wait_pipe], raised)
        if wait_pipe == SCALAR:
            self.issue = max(self.issue, raised)

    def mutex_lock(self, pipe: str, mid: int) -> None:
        self.pipe_free[pipe] = max(self.pipe_free[pipe], self.mutex_free[mid])

    def mutex_unlock(self, pipe: str, mid: int) -> None:
        self.mutex_free[mid] = max(self.mutex_free[mid], self.pipe_free[pipe])

    def bar_all(self) -> None:
        """Every pipe after all the work issued so far."""
        done = self.done()
        for p in list(self.pipe_free):
            self.pipe_free[p] = done

    def done(self) -> int:
        """When everything issued so far has finished."""
        return max([self.issue] + list(self.pipe_free.values()))

    def resume_all(self, at: int) -> None:
        """After a barrier released at `at`: the front end and every pipe start from there."""
        self.issue = max(self.issue, at)
        for p in list(self.pipe_free):
            self.pipe_free[p] = max(self.pipe_free[p], at)
        for q in self.queued.values():
            q.clear()

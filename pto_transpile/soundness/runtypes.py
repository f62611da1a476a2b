"""What a run of the abstract interpreter (`interp.py`) is set up with, carries and stops with.

The configuration of one run (`Config`) and its budgets, the frame a core executes (`Ctx`), the
refusal (`CannotModel`), the signals `return`/`break`/`continue` leave a frame or a loop with,
and a `pl.range` whose bounds vary between runs (`SymRange`). Every part of the interpreter
uses them; check.py, the tests and the scripts import them through `interp.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from pto_transpile.soundness.uniform import NonUniform

#: Statements one check may execute before it gives up (hostile or huge loops).
STEP_BUDGET = 400_000
#: Statements a run of a kernel with static sizes may take before the check calls it long and
#: proves it at representative trip counts instead (`check._long_static`); FlashAttention at
#: 256 x 512 runs about 600 in its serial kernel.
LONG_RUN = 5_000


class CannotModel(Exception):
    """The run cannot be followed statically; `node` is where, `reason` says why."""

    def __init__(self, reason: str, node: cst.CSTNode | None = None, kind: str = "unmodelled"):
        super().__init__(reason)
        self.reason = reason
        self.node = node
        #: "unmodelled"; "dynamic" for a size known only at run time; "runtime" for what another
        #: value known only at run time decides where the check needs a compile-time one;
        #: "construct" for Python the check does not run (a call it cannot resolve); "stride"
        #: for a GM tensor's strides changed in the kernel
        self.kind = kind
        #: the reason speaks of the author's kernel, where a run of the generated one found it: said
        #: without "(in the generated kernel)"
        self.in_source = False


class FunctionReturn(Exception):
    """A `return` leaving the function frame, with its value (`node`: the statement)."""

    def __init__(self, value: Any, node: cst.CSTNode | None = None):
        self.value, self.node = value, node


class LoopBreak(Exception):
    """A `break` leaving the innermost loop (`node`: the statement)."""

    def __init__(self, node: cst.CSTNode | None = None):
        self.node = node


class LoopContinue(Exception):
    """A `continue` ending the innermost loop's iteration (`node`: the statement)."""

    def __init__(self, node: cst.CSTNode | None = None):
        self.node = node


@dataclass
class Ctx:
    """One core executing one function frame."""

    core: int
    env: dict
    scope: tuple | None = None  #: ("stage", name, number) inside a stage invocation
    counter: list = field(default_factory=lambda: [0])
    may: int = 0
    #: the blocks singled out by the tests whose branch this is (`if core_id == 0:`)
    one_block: tuple = ()
    #: names of this frame a `del` unbound (and nothing bound again): reading one raises
    deleted: set = field(default_factory=set)

    def child(self, env: dict, scope=None, counter=None) -> Ctx:
        return Ctx(self.core, env, scope if scope is not None else self.scope,
                   counter if counter is not None else self.counter, self.may, self.one_block)


@dataclass
class Config:
    scalars: dict = field(default_factory=dict)  #: scalar kernel parameter -> value
    block_num: int = 1
    #: trip-count roots (`("param", name)` or a `pl.DYNAMIC` expression's origin) -> value
    trips: dict = field(default_factory=dict)
    #: each trip-count root -> the value that gives its loop no iteration (from discovery)
    zeros: dict = field(default_factory=dict)
    #: find the trip-count roots: scalar parameters are trip counts to be, loops over a
    #: `pl.DYNAMIC` expression run at `DISCOVERY_TRIPS`
    discover: bool = False
    #: a discovery run that only finds the trip-count roots: what runs under a condition it cannot
    #: decide (a test on a root before its loop binds it) is followed without being judged
    roots_only: bool = False
    #: the period the trip counts were chosen for: a run that finds a rotation not dividing it
    #: (one the discovery runs missed) is refused
    period: int = 0
    #: the distance in tasks a hazard may span that the trip counts were drawn for (`_Bounds.window`):
    #: a run that writes a GM place again, further apart than that, is run again (`_revisited_past`)
    window: int = 0
    #: the same per trip-count root of an inner loop: the period of its own iterations
    #: (`Rotations.loop_period`), which divides `period`
    loop_periods: dict = field(default_factory=dict)
    #: trip-count root -> the `k` of the residues `root % k` the counts were chosen for (each class
    #: run past the bound, `check._trip_configs`): a run that takes another is refused
    root_periods: dict = field(default_factory=dict)
    #: trip-count roots of the outer loops whose counts were chosen for iterations that are all
    #: alike (no test singles out the first or the last: `_Bounds.steady_pair`); a run finding
    #: such a test is refused
    alike: frozenset = frozenset()
    #: a long static kernel run at representative counts: each root's count in the kernel
    real_trips: dict = field(default_factory=dict)
    #: a run at representative counts standing for a block's share of a per-core range's tasks:
    #: root -> (the share, every task of the range), for the words of a refusal
    shares: dict = field(default_factory=dict)
    #: the run of the kernel's own sizes a representative run stands for, followed instead where
    #: the representative one is outside the argument for every count (`check._judge_runs`)
    whole: Any = None
    #: follow static tensor dimensions as symbols too (`pl.DYNAMIC` ones always are): a
    #: kernel whose static loops run long is checked at representative trip counts
    symbolic_dims: bool = False
    #: the trip-count roots of per-core ranges (`Uniform.per_core_roots`), found by discovery
    per_core_roots: frozenset = frozenset()
    #: a per-core range over a static count runs, on block b of B, ceil((M - b) / B) of the M
    #: tasks it runs on one block: the runs of the proof (`per_core_checked`) give each such range
    #: every count up to M, here by M (`Loops._dynamic_for`); a range whose M is not here runs
    #: all M and asks for the other counts (`Uniform.cut_values`)
    per_core_counts: dict = field(default_factory=dict)
    per_core_checked: bool = False
    #: module constants followed as trip-count roots (`("const", name)`), as scalar parameters are
    symbolic_names: frozenset = frozenset()
    #: trip-count root -> (first, length): one period of steady iterations of its loop, in a run
    #: whose count is the argument's bound, where sets and waits must balance (`Loops._sync_drift`)
    steady: dict = field(default_factory=dict)
    #: the same for the serial kernel of an auto-pipelined one (`_Bounds.serial_steady`)
    serial_steady: dict = field(default_factory=dict)
    #: (the most credits of one counter the discovery run found primed ahead, `check._primed`;
    #: the scalars it ran at), which the trip counts of this run were drawn from; None where no
    #: discovery drew them. A run at other scalars whose kernel primes more is refused (probe h81)
    primed: tuple | None = None
    #: statements this run may take; past `LONG_RUN`-sized budgets the run is "long", not refused
    step_budget: int = STEP_BUDGET
    #: GM tensor -> its shape, for a run that follows one launch (tests/semantics/footprints.py):
    #: a tile grid's count is then read from them (`Uniform.grid`) where the proof, which holds
    #: for every count, takes a stand-in
    sizes: dict = field(default_factory=dict)


#: the trip count a discovery run gives each loop over a `pl.DYNAMIC` expression
DISCOVERY_TRIPS = 3

#: The tiling-key instance being proven (key field -> value; `instance`): the JIT compiles one
#: kernel per instance, with the fields as compile-time names in every function of the file.
#: Read by each interpreter when it is made, so the worker processes a proof forks see it too.
INSTANCE: dict[str, int] = {}


@contextmanager
def instance(key: dict[str, int]) -> Iterator[None]:
    """Every run made inside proves the kernel instance `key`."""
    global INSTANCE
    before, INSTANCE = INSTANCE, dict(key)
    try:
        yield
    finally:
        INSTANCE = before


@dataclass
class SymRange:
    """`pl.range(start, stop, step)` where some bound varies between runs (a `Sym`)."""

    start: Any
    stop: Any
    step: Any


def nonuniform(exc: NonUniform, node) -> CannotModel:
    """The refusal of `exc`, at the access it names first (else at `node`), with the hint of its kind."""
    return CannotModel(f"{exc.what}, so the check cannot prove {exc.claim}; to make it provable, {exc.fix}",
                       node if exc.node is None else exc.node, kind=exc.kind)

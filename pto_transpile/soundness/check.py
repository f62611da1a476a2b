"""Prove the generated kernel computes what the serial kernel computes, or say why not.

Both kernels are run by the abstract interpreter on the same configuration: the serial one
with sequential meaning, the generated one with hardware meaning (cores ordered only by the
emitted syncs, pipes by mutexes and pipe order). The generated kernel is accepted when

* it cannot deadlock, every set is consumed by a wait and no event counter overflows;
* no two conflicting accesses race (neither is ordered before the other);
* every read sees exactly the writes it sees in the serial kernel (reads are matched by the
  stage, the stage's invocation number on its core and the op's position in it, so a tile
  that a local cursor places elsewhere is still the same read);
* every stage invocation receives the same scalar arguments, and GM ends with the same writes.

Nothing here trusts the emitter: the generated kernel is read back as code.
"""

from __future__ import annotations

import heapq
import itertools
import math
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import libcst as cst

from pto_api import SCALAR_PIPE
from pto_api.effects import COUNTER_DEPTH
from pto_api.memory import integer_argument_fault, scalar_int_values
from pto_api.scalars import INT_FIELD
from pto_transpile.read.consteval import PlSymbol
from pto_transpile.read.kinds import declared_int_type
from pto_transpile.read.meaning import Unknown, unknown_reasons, unknown_words
from pto_transpile.read.unpacking import divmod_operations
from pto_transpile.read.walk import iter_nodes, parameters
from pto_transpile.soundness import parallel, progress, runtypes
from pto_transpile.soundness.events import (
    AIV0,
    AIV1,
    CORES,
    INF,
    PAST_ITS_END,
    SYNC_KINDS,
    WAIT_SENDERS,
    Event,
    Foot,
    Invocation,
    Trace,
)
from pto_transpile.soundness.hiddenclasses import hidden_class
from pto_transpile.soundness.interp import (
    LONG_RUN,
    STEP_BUDGET,
    CannotModel,
    Config,
    Interpreter,
)
from pto_transpile.soundness.longrun import longest_loop, looks_long
from pto_transpile.soundness.opevents import ELEMENT_UNPLACED, SHAPE_UNPLACED, SPILL_NOTE
from pto_transpile.soundness.order import (
    Outcome,
    eager_counts,
    pending_at_waits,
    run_concurrent,
    run_sequential,
    twin_races,
)
from pto_transpile.soundness.params import INT64, declared_integer, int_range, pl_dtype, sampled_default
from pto_transpile.soundness.plchanges import pl_change
from pto_transpile.soundness.revisits import tiles_met_again
from pto_transpile.soundness.rotations import live_lengths, outer_period
from pto_transpile.soundness.runtypes import nonuniform
from pto_transpile.soundness.tilingdata import scalar_ranges, tiling_field_least, tiling_field_types
from pto_transpile.soundness.uniform import EMPTY_COUNT, INDEX, PER_CORE_COUNT, TESTED_BY
from pto_transpile.soundness.uniform import KINDS as NONUNIFORM_KINDS
from pto_transpile.soundness.values import (
    UNKNOWN,
    Opaque,
    OriginSym,
    StructV,
    TensorV,
    describe_origin,
    evaluate_origin,
    is_unknown,
    nonnegative,
    quotient_parameters,
    root_words,
    trip_leaves,
)

#: Problems reported per kernel: the first few explain the bug, the rest repeat it.
MAX_PROBLEMS = 4
#: The most tasks a per-core range over a static count may give one block: the check runs it at
#: every count from 0 (`Config.per_core_counts`), a run each.
MAX_PER_CORE_TASKS = 64
#: The most tasks of a per-core range over a static count the check gives its shares run by run
#: before it tries the count as a size known only at run time (`_for_every_size`): a run each of
#: 0 .. M tasks costs about M * M / 2 tasks, the argument for every count about as many for M
#: near its bound (2Z + L, 7 to 15), and a dozen runs besides (FlashAttention with 16 static
#: query tiles and run-time keys: 86 s share by share, 9 s for every count; the seed demo over 4
#: tasks: 5 runs, 0.17 s, against 11 runs, 0.48 s)
MAX_SHARES_RUN_BY_RUN = 8
#: The iterations of its longest static loop that a kernel proven for run-time values may run
#: over all its runs (each run follows the loop whole) before it is proven for every size first
#: (`_long_loops_by_value`), where a loop runs at most about 15 iterations a run, in a few dozen
#: runs
MAX_STATIC_LOOP_BY_VALUE = 256
#: The most runs the shares of per-core ranges over static counts may add to one proof (a range of
#: M tasks adds M for each run of the other counts; two such ranges of M1 and M2 tasks about M1 x M2).
MAX_PER_CORE_RUNS = 256
#: Values tried for scalar kernel parameters the check cannot know. Trip counts among them:
#: empty, one iteration, shorter than the ring, about as long, longer than every rotation;
#: offsets among them: 0 and 1 put an access on its own or the next iteration's row, where
#: tasks in flight together meet. Each parameter takes every value; several parameters take
#: different values in each trial (an address `x + a - b` is tried with a != b), and equal
#: values in one more. This is a sample, not a proof for every value, but for GM offsets (judged
#: symbolically) and tests affine in one parameter (split at their roots: `_run_all`).
SCALAR_TRIALS = (2, 0, 1, 3, 5, 11)
#: Counts an outer loop of run-time trip count is run at, at least; it also runs at every count
#: up to `_Bounds.outer`, which passes both boundary zones and every phase of what it carries
#: (an inner loop: every count up to `_Bounds.inner`).
OUTER_TRIPS = (0, 1, 2, 3)
#: Most concrete runs the trip-count argument may take for one kernel.
MAX_TRIP_RUNS = 600
#: Most sets of scalar parameter values added where tests on them change outcome (each is
#: run at every trip count the kernel needs).
MAX_CUT_RUNS = 200
#: Most runs in a row, each added by a test of the one before, that move one parameter the same
#: way (up, or down): a test whose root follows the value run (`while k < d:` asks for d + 1 at
#: every d) would add runs up to `MAX_CUT_RUNS`, each longer than the last.
MAX_CHASE = 3
#: rounds of a proof whose runs prime more credits than its trip counts were drawn for, each run
#: again with those (`_with_credits`)
CREDIT_ROUNDS = 3
#: Trip counts `_probe_far` runs a chased parameter at, the fewest tasks first.
FAR_PROBES = 4
#: The shares of a per-core range over a long static count whose representatives a proof at
#: representative counts lists (`_long_static`): every count up to this, past which a share's
#: representative repeats with the period
MAX_SHARE_SCAN = 4096
#: The most pairs (triples, ...) of shares of several such ranges listed: 1,201 x 1,203 took 40 s
MAX_SHARE_PAIRS = 20_000


@dataclass
class Problem:
    kind: str  #: race, twin, value, argument, output, deadlock, unbalanced, overflow, unmodelled, ...
    detail: str
    node: cst.CSTNode | None
    related: list = field(default_factory=list)  #: (message, node)
    #: for a race: (core, pipe, op) of the earlier and of the later access
    accesses: tuple = ()
    #: named only when no run shows a more precise problem (`Uniform.unplaced`: a write whose
    #: place is not known, which another run may show as the race it is)
    deferred: bool = False
    #: for a "credits" problem: the most credits a run primed (`_more_credits`)
    credits: int = 0
    #: for a "window" problem: the distance in tasks a hazard may span (`_revisited_past`)
    window: int = 0


def _each_instance(file, kernel, prove: Callable[[], list[Problem]]) -> list[Problem]:
    """`prove` for every tiling-key instance the JIT compiles the kernel for (the fields bound
    as compile-time names, `runtypes.instance`): the problems of the first that has any. A
    kernel whose instances cannot be listed (PTO071 says why) is proven once, its fields unknown.
    The instances after the first, refused, are proven too, up to the first proven, only to say
    whether the refusal is one instance's (study ux2: a refusal of every instance that named the
    first sent its author looking for a bug of that instance)."""
    found = file.instances(kernel)
    keys: tuple[dict[str, int], ...] = found.keys or ({},)
    for at, key in enumerate(keys):
        with runtypes.instance(key):
            problems = prove()
        if problems:
            undecided = tuple(key.values()) in found.undecided
            if len(keys) > 1 and not undecided:
                # (those before it are proven, each named: probe h222, of three the middle one was not)
                first = _first_proven(keys[1:], prove) if not at else None
                proven = keys[:at] if at else (first,) if first is not None else ()
                return _of_instance(problems, key, bool(proven), False, proven)
            return _of_instance(problems, key, len(keys) > 1, undecided)
    return []


def _first_proven(keys: tuple[dict[str, int], ...], prove: Callable[[], list[Problem]]) -> dict[str, int] | None:
    """The first of `keys` whose instance `prove` finds no problem in, or None."""
    for key in keys:
        with runtypes.instance(key):
            if not prove():
                return key
    return None


def _of_instance(problems: list[Problem], key: dict[str, int], several: bool, undecided: bool,
                 proven: tuple[dict[str, int], ...] = ()) -> list[Problem]:
    """`problems`, the first naming the tiling-key instance they were shown in when another
    instance is proven (`proven`, named too) or some instance's `is_valid` could not be evaluated,
    and saying so where that is this instance: an instance the JIT may never compile (probe h122:
    the author was told to change accesses right in every instance). A refusal of every instance
    names none (study ux2: naming the first sent its author looking for a bug of that instance)."""
    if not (several or undecided) or not key:
        return problems
    words = ", ".join(f"{name}={value}" for name, value in key.items())
    note = f" (in the tiling-key instance {words}"
    if undecided:
        note += (", kept because the check could not evaluate `is_valid` for it, which it follows only as plain "
                 "statements (assignments, `if` tests, `return` of comparisons): if `is_valid` rules this instance "
                 "out, write it so")
    if proven:
        parts = [", ".join(f"{name}={value}" for name, value in k.items()) for k in proven]
        if len(parts) > 1:
            parts = [f"({p})" if len(k) > 1 else p for p, k in zip(parts, proven, strict=True)]
            note += f"; the instances {', '.join(parts[:-1])} and {parts[-1]} are proven"
        else:
            note += f"; the instance {parts[0]} is proven"
    return [replace(problems[0], detail=problems[0].detail + note + ")"), *problems[1:]]


def check_kernel(file, kernel, generated: cst.FunctionDef, generated_pl=None) -> list[Problem]:
    """Problems of `generated` against `kernel.node`; empty when they are proven equivalent."""
    changed = _changes_pl(file, kernel) or _stale_header(file, kernel) or _default_outside(file, kernel) \
        or _hidden_class(file, kernel)
    if changed is not None:
        return [changed]
    return _each_instance(file, kernel, lambda: _check_kernel(file, kernel, generated, generated_pl))


def _hidden_class(file, kernel) -> Problem | None:
    """The kernel reaches a class whose methods reach `pl` and which the check does not follow,
    or an object the file's code made that way (`hiddenclasses`)."""
    found = hidden_class(file, kernel)
    if found is None:
        return None
    name, line, what = found
    if what == "object":
        return Problem("construct", f"`{kernel.name}` reaches `{name}` (line {line}), made at module level by a call "
                                    "of code that runs `pl` ops: what it is, and what Python runs when the kernel "
                                    "uses it (a subscript, a truth test, an attribute read, a call), the check does "
                                    "not know; make the code a function of the file the kernel calls by name",
                       kernel.node)
    return Problem("construct", f"`{kernel.name}` reaches `{name}` (line {line}), a class whose methods run `pl` ops "
                                "or reach them through the file's functions, which Python may run where the check does "
                                "not look (making an instance, a subscript, a truth test, an attribute read, a builtin "
                                "handed the class): make them functions of the file called by name, or "
                                "`@staticmethod`s of a class nothing can replace (no base, metaclass or decorator, a "
                                "body of `@staticmethod`s and constants, its name used only as `Class.member`, "
                                f"`staticmethod` not rebound), called as `{name}.method(...)`",
                   kernel.node)


def _stale_header(file, kernel) -> Problem | None:
    """The kernel's `def` reads a name the module binds to another value afterwards: Python
    evaluated its decorators' arguments, its parameters' defaults and their annotations when
    the `def` ran (`@pl.jit(auto_mutex=AM)`, `d: int = D`, `a: pl.Tensor[[ROWS, TILE], ...]`),
    while the check reads the module's names as they end (`ModuleNames.stale_headers`)."""
    stale = file.names.stale_headers.get(kernel.node)
    if not stale:
        return None
    names = ", ".join(f"`{n}`" for n in stale)
    return Problem("stale", f"the `def` of `{kernel.name}` reads {names} in a decorator, a parameter's default "
                            "or an annotation, and the module binds it to another value or changes it after the "
                            "`def`: Python evaluated them when the `def` ran, the check reads the value the module "
                            "ends with", kernel.node)


def _default_outside(file, kernel) -> Problem | None:
    """A parameter's default that is no value of its declared integer type (`d: pl.DT_UINT8 =
    300`, `d: int = 2 ** 70`): the check proves the kernel for the type's values, which are all
    a launch passes (`--arg` and the emulator refuse others), and the default is none of them."""
    for p in parameters(kernel.node):
        declared = declared_int_type(p, file.pl.path)
        if declared is None or p.default is None:
            continue
        value = file.evaluator.try_eval(p.default, None)
        fault = integer_argument_fault(declared, value) if isinstance(value, (int, float)) else None
        if fault is not None:
            code = file.source.code(p.default)
            return Problem("construct", f"the default of `{p.name.value}` (`{code}`) is no value of {declared}, the "
                                        f"type it is declared: {fault}; give it a default among those values",
                           p.default)
    return None


def _changes_pl(file, kernel) -> Problem | None:
    """The file changes the `pl` module or hands a namespace of it on (`plchanges`)."""
    found = pl_change(file)
    if found is None:
        return None
    return Problem("construct", f"{found[1]}, and the check reads every `pl` op as PyPTO's: leave the module and "
                                "the names imported from it as they are (give another value another name, call a "
                                "function of the file instead)", kernel.node)


def _check_kernel(file, kernel, generated: cst.FunctionDef, generated_pl=None) -> list[Problem]:
    return _options_noted(file, kernel, _check_pipeline(file, kernel, generated, generated_pl))


def _options_noted(file, kernel, problems: list[Problem]) -> list[Problem]:
    """`problems`, a race among them saying why the mutexes ordered nothing, where the JIT's
    options were given as `**OPTS` the check could not read (auto_mutex then taken as off)."""
    unread = _options_unread(file, kernel)
    if not unread:
        return problems
    note = (f"; `@pl.jit(**{unread})` could not be read as constants, so the check takes `auto_mutex` as off and "
            f"the tiles' mutex ids as ordering nothing: give `auto_mutex=` in the decorator itself, not in `{unread}`")
    return [replace(p, detail=p.detail + note) if p.kind in _MUTEX_ORDERED else p for p in problems]


#: what the interpreter raises for a defect of the kernel, not a limit of the check: a kernel pipelined
#: by hand is shown wrong by it (PTO068), not left unchecked (PTO077)
DEFECT_KINDS = ("event_id", "drift", "barrier_core", "section_outside")

#: the kinds of problem a race makes, which mutexes the check did not read might have ordered
_MUTEX_ORDERED = ("race", "race_body", "race_core", "race_core_tile", "anywhere", "anywhere_shape", "twin", "stray")


def _check_pipeline(file, kernel, generated: cst.FunctionDef, generated_pl=None) -> list[Problem]:
    auto_mutex = _auto_mutex(file, kernel)
    functions = [(kernel.node, None), (generated, generated_pl)]

    def prove(credits: int, window: int) -> list[Problem]:
        longer = _once(lambda: _long_static(file, kernel, functions, auto_mutex, hand=False, credits=credits,
                                            window=window))
        configs = _trip_configs(file, kernel, functions, auto_mutex, longer=longer, credits=credits, window=window)
        if isinstance(configs, Problem):
            return [configs]
        symbolic = _once(lambda: _trip_configs(file, kernel, functions, auto_mutex, symbolic=True, credits=credits,
                                               window=window))
        return _run_all(configs, lambda c, cuts: _check_one(file, kernel, generated, generated_pl, c, auto_mutex,
                                                             cuts), longer, kernel.name, _tested_by_while(file, kernel),
                        symbolic, _long_loops_by_value(file, kernel, configs))

    return _with_credits(prove)


def _with_credits(prove: Callable[[int, int], list[Problem]]) -> list[Problem]:
    """`prove(credits, window)` with the trip counts drawn for the most credits any of its runs
    primed (`_more_credits`): the discovery run finds them at a few tasks and the first sample of
    the scalars, where a run at another trip count or value may prime more (`range(8 if n % 2 == 0
    else 1)`, probe h82). Each round that a run primes more is run again with those, until none
    does (or `CREDIT_ROUNDS` rounds: the credits still grow, and the last round names them). The
    same for the distance a hazard may span (`window`, `_revisited_past`): a GM place the loop
    writes again, which the discovery run may not have reached."""
    credits = window = 0
    for _ in range(CREDIT_ROUNDS):
        problems = prove(credits, window)
        more = max((p.credits for p in problems if p.kind == "credits"), default=0)
        wider = max((p.window for p in problems if p.kind == "window"), default=0)
        if more <= credits and wider <= window:
            return problems
        credits, window = max(credits, more), max(window, wider)
    return problems


def check_hand_written(file, kernel) -> list[Problem]:
    """Races, deadlock and unbalanced events in a kernel the author pipelined by hand: its
    own syncs, judged with hardware semantics (there is no serial kernel to compare with).
    What the check proves comes back as its kind; what it cannot decide as "undecided",
    saying what it could not follow (a race that only a runtime condition may avoid, or a
    construct the model does not follow). Worked out once per kernel: two rules ask."""
    known = file.caches.hand_written.get(kernel.node)
    if known is None:
        known = file.caches.hand_written[kernel.node] = _hand_written_problems(file, kernel)
    return known


def _hand_written_problems(file, kernel) -> list[Problem]:
    changed = _changes_pl(file, kernel) or _stale_header(file, kernel) or _default_outside(file, kernel) \
        or _hidden_class(file, kernel)
    if changed is not None:
        return [replace(changed, kind="undecided", detail=f"the check cannot follow this: {changed.detail}")]
    problems = _each_instance(file, kernel, lambda: _check_hand_written(file, kernel))
    return _options_noted(file, kernel, _unlisted_instances(file, kernel, problems))


_CANNOT_FOLLOW = "the check cannot follow this: "


def _unlisted_instances(file, kernel, problems: list[Problem]) -> list[Problem]:
    """`problems` of a hand-pipelined kernel whose tiling-key instances cannot be listed (proven
    once, its fields unknown): what the check could not follow is first of all the key, which
    PTO071 names for a kernel pto-transpile pipelines (probe h171: a test of a field was said
    undecidable, beside words that the check decides tests of tiling-key fields)."""
    found = file.instances(kernel)
    if found.known or not problems or problems[0].kind != "undecided":
        return problems
    then = problems[0].detail.removeprefix(_CANNOT_FOLLOW)
    detail = (f"{_CANNOT_FOLLOW}the tiling-key instances cannot be listed, so each field is followed as any value it "
              f"may take: {found.problem} (then: {then})")
    return [replace(problems[0], detail=detail), *problems[1:]]


def _check_hand_written(file, kernel) -> list[Problem]:
    auto_mutex = _auto_mutex(file, kernel)
    functions = [(kernel.node, None)]

    def prove(credits: int, window: int) -> list[Problem]:
        longer = _once(lambda: _long_static(file, kernel, functions, auto_mutex, hand=True, credits=credits,
                                            window=window))
        configs = _trip_configs(file, kernel, functions, auto_mutex, hand=True, longer=longer, credits=credits,
                                window=window)
        if isinstance(configs, Problem):
            return [configs]
        symbolic = _once(lambda: _trip_configs(file, kernel, functions, auto_mutex, hand=True, symbolic=True,
                                               credits=credits, window=window))
        return _run_all(configs, lambda c, cuts: _check_alone(file, kernel, c, auto_mutex, cuts), longer,
                        kernel.name, _tested_by_while(file, kernel), symbolic,
                        _long_loops_by_value(file, kernel, configs))

    problems = _with_credits(prove)
    # more cases than the check runs: its own syncs are not shown wrong, only not followed
    return [replace(p, kind="undecided", detail=f"the check cannot follow this: {p.detail}")
            if p.kind in ("cases", "cases_while", "credits", "window", "period") else p for p in problems]


def _once(make: Callable[[], object]) -> Callable[[], object]:
    """`make`, computed at the first call and remembered: the representative configurations are
    asked for before the first run when the loops look long, and again if a run turns out long."""
    memo: list = []

    def once() -> object:
        if not memo:
            memo.append(make())
        return memo[0]

    return once


def _tested_by_while(file, kernel) -> Callable[[str], tuple[str, cst.While] | None]:
    """For a parameter's name: the first `while` of the kernel whose test reads it (its test's
    code and the loop), if any."""
    def find(name: str) -> tuple[str, cst.While] | None:
        for loop in file.find(kernel.node, cst.While):
            if any(type(n) is cst.Name and n.value == name for n in iter_nodes(loop.test)):
                return file.source.code(loop.test), loop
        return None
    return find


def _run_all(configs: list[Config], check, longer, kernel: str = "",
             tested_by_while: Callable[[str], tuple[str, cst.While] | None] = lambda _name: None,
             symbolic: Callable[[], object] | None = None, every_size_first: bool = False) -> list[Problem]:
    """The problems of the first configuration that has any. A run of static sizes that turns
    out long is proven at representative trip counts instead (`longer`), or, outside the
    conditions of that argument, followed to its end as far as the step budget allows; if
    that fails too, the construct that kept the argument out is named. A run whose tests on a
    sampled parameter change outcome around some value (`Uniform.cut`) adds the runs at those
    values (docs/design.md, "For every value of a parameter"). How many runs are judged is
    reported as they are (`progress`), and once more, all of them, when the proof ends. Runs
    added one after another, each by a test of the one before, that move a parameter the same
    way more than `MAX_CHASE` times are a test whose root follows the value run (`_chased`).
    A per-core range over a static count of more than `MAX_SHARES_RUN_BY_RUN` tasks, and with
    `every_size_first` the whole kernel, is proven for every size first (`symbolic`,
    `_for_every_size`)."""
    try:
        if every_size_first and symbolic is not None:
            if _for_every_size(symbolic, check, longer, kernel, tested_by_while) == []:
                return []
            symbolic = None  # refused at some size, or outside the argument: its own sizes, run by run
        return _judge_runs(configs, check, longer, kernel, tested_by_while, symbolic)
    finally:
        progress.report(kernel, len(configs), len(configs))


def _too_long_to_follow(instead: Problem) -> Problem:
    """Why a run of static sizes too long to follow to its end is not proven at representative trip
    counts either: both said, since the loops the argument's words call "of run-time trip count" are
    static here (probe h117: a static kernel of 10,000 tasks refused as if the count were not)."""
    detail = (f"its loops are static but run past the {STEP_BUDGET:,} steps the check follows, and proving them "
              f"at a few trip counts instead, as for every count, does not hold: {instead.detail}")
    return replace(instead, detail=detail, kind="long_static" if instead.kind == "nonuniform" else instead.kind)


def _judge_runs(configs: list[Config], check, longer, kernel: str,
                tested_by_while: Callable[[str], tuple[str, cst.While] | None],
                symbolic: Callable[[], object] | None = None) -> list[Problem]:
    queue = list(configs)
    seen = {_config_key(c) for c in queue}
    #: a run added by a test (`_config_key`) -> (parameter, +1 or -1, the values of the runs in a row
    #: that moved it so)
    chase: dict[tuple, tuple[str, int, tuple[int, ...]]] = {}
    passed = {id(configs[i]): cuts for i, cuts in parallel.passed_runs(
        configs, check, lambda done: progress.report(kernel, done, len(configs))).items()}
    judged = 0
    shares = 0  #: runs added for the shares of per-core ranges over static counts
    #: the problems of the proof for every size (`_for_every_size`), named where the shares
    #: are too many to run one by one
    any_size: list[Problem] = []
    deferred: list[Problem] = []  #: the first run's problems named only if no run shows another
    tested: dict[str, str] = {}  #: sampled value -> the code of a test that cut it (`Uniform.tested_by`)
    while queue:
        config = queue.pop(0)
        cuts: set = set()
        if id(config) in passed:  # judged on a worker process: it passed
            cuts, problems = passed[id(config)], []
        else:
            problems = check(config, cuts)
        judged += 1
        if problems and problems[0].kind == "long":
            instead = longer()
            if isinstance(instead, list):  # each with this run's samples of the scalar parameters
                whole = replace(config, step_budget=STEP_BUDGET)
                problems = _run_all([replace(c, scalars=config.scalars, whole=whole) for c in instead], check,
                                    lambda: None, kernel)
            else:
                problems = check(replace(config, step_budget=STEP_BUDGET), cuts)
                if problems and problems[0].kind == "size" and isinstance(instead, Problem):
                    problems = [_too_long_to_follow(instead)]
        if problems and config.whole is not None and (problems[0].kind in NONUNIFORM_KINDS
                                                      or problems[0].kind == "undecided"):
            # outside the argument at representative counts (`N_TILES < 1000` of a static count, probe h232;
            # "undecided" in a kernel pipelined by hand, probe h238):
            # the run of the kernel's own sizes, followed as far as the step budget allows, has the verdict
            # (with this run's samples and shares: runs added by the cuts of a whole run carry the first one's
            # whole run, probe h236, where `d == 37` was judged by the run at d = 2)
            followed = check(replace(config.whole, scalars=config.scalars, per_core_counts=config.per_core_counts),
                             cuts)
            problems = [_too_long_to_follow(problems[0])] if followed and followed[0].kind in ("size", "long") \
                else followed
        # the values of the run (probe h253: `if flag > 0:` skipped the barrier between two loops at
        # `flag` = 0, and the refusal asked for the barrier the kernel had)
        shown = [f"`{name}` = {value}" for name, value in sorted(config.scalars.items())
                 if not name.startswith("<") and not (problems and f"`{name}`" in problems[0].detail)] \
            + _shares(config)  # (a value the message names already is its subject, not the run's)
        if problems and shown and "(shown with" not in problems[0].detail:
            problems[0] = replace(problems[0], detail=f"{problems[0].detail} (shown with {', '.join(shown)})")
        if problems and all(p.deferred for p in problems):
            deferred = deferred or problems
            problems = []
        if problems:
            return problems
        many = [value for name, value in cuts if name == PER_CORE_COUNT and value > MAX_SHARES_RUN_BY_RUN]
        if many and symbolic is not None:
            found = _for_every_size(symbolic, check, longer, kernel, tested_by_while)
            if found == []:  # proven for every size; what the runs so far deferred still stands
                return deferred
            # outside the argument for every count, or wrong at some size: each share, run by run
            symbolic, any_size = None, found or []
        for tasks in sorted(value for name, value in cuts if name == PER_CORE_COUNT):
            if tasks > MAX_PER_CORE_TASKS:
                return _at_some_size(any_size) or [Problem(
                    "per_core_static", f"a per-core range runs {tasks} tasks of a static count on one block; the "
                    f"check runs each count a block can take, up to {MAX_PER_CORE_TASKS}", None)]
            for count in range(tasks):  # each share a block of some launch runs (this run ran all)
                more = replace(config, per_core_counts={**config.per_core_counts, tasks: count})
                if _config_key(more) not in seen:
                    seen.add(_config_key(more))
                    queue.append(more)
                    shares += 1
            if shares > MAX_PER_CORE_RUNS:  # several ranges over static counts: every pair of shares
                return _at_some_size(any_size) or [Problem(
                    "per_core_static", "the per-core ranges over static counts need more runs than the "
                                f"check makes ({MAX_PER_CORE_RUNS}): one per share of their tasks a block can take, "
                                "for each run of the other counts (each pair of shares, with two such ranges)", None)]
        for origin, count in sorted((value for name, value in cuts if name == EMPTY_COUNT), key=repr):
            # a count the loop runs no iteration at either, told apart from this run's by a test
            if origin in config.trips and config.trips[origin] != count:
                more = replace(config, trips={**config.trips, origin: count},
                               steady={k: v for k, v in config.steady.items() if k != origin},
                               serial_steady={k: v for k, v in config.serial_steady.items() if k != origin})
                if _config_key(more) not in seen:
                    seen.add(_config_key(more))
                    queue.append(more)
        tested.update(value for name, value in cuts if name == TESTED_BY and value[0] not in tested)
        scalar_cuts = [cut for cut in cuts if cut[0] not in (EMPTY_COUNT, TESTED_BY)]
        for name, value in sorted(scalar_cuts, key=lambda cut: (cut[0], cut[1] < 0, abs(cut[1]))):  # natural first
            if name in config.scalars and config.scalars[name] != value:
                more = replace(config, scalars={**config.scalars, name: value})
                if _config_key(more) not in seen:
                    seen.add(_config_key(more))
                    queue.append(more)
                    step = chase.get(_config_key(config))
                    way = 1 if value > config.scalars[name] else -1
                    values = (*step[2], value) if step is not None and step[:2] == (name, way) \
                        else (config.scalars[name], value)
                    chase[_config_key(more)] = (name, way, values)
                    if len(values) > MAX_CHASE + 1:
                        return _probe_far(configs, check, name, values) or [_chased(name, values,
                                                                                   tested_by_while(name))]
        if len({key[0] for key in seen}) > MAX_CUT_RUNS + len(configs):
            names = sorted({name for name, _ in scalar_cuts if name != PER_CORE_COUNT}) or sorted(config.scalars)
            codes = sorted({tested[n] for n in names if n in tested})
            tests = f" (`{'`, `'.join(codes[:3])}`{', ...' if len(codes) > 3 else ''})" if codes else ""
            return [Problem("cases", f"the tests on {', '.join(f'`{n}`' for n in names)}{tests} split their values "
                                     f"into more cases than the check runs ({MAX_CUT_RUNS})", None)]
        if queue and id(queue[0]) not in passed:
            progress.report(kernel, judged, judged + len(queue))
    return deferred


def _long_loops_by_value(file, kernel, configs: list[Config]) -> bool:
    """Do the runs of a kernel proven for values known only at run time (a `pl.DYNAMIC`
    dimension, a scalar parameter: runs at many trip counts and samples) follow its longest static
    loop for more than `MAX_STATIC_LOOP_BY_VALUE` iterations in all? Each run follows such a loop
    to its end, where the proof for every size takes it at a few counts (FlashAttention with
    run-time query rows and 64 static KV tiles: 43 runs, 22 s, against 4 s). A kernel of static
    sizes only is not proven by value (its long loops are proven at representative counts,
    `_long_static`)."""
    by_value = bool(configs) and not configs[0].symbolic_dims and configs[0].step_budget != LONG_RUN
    return by_value and len(configs) * longest_loop(file, kernel, _static_dims(file, kernel)) \
        > MAX_STATIC_LOOP_BY_VALUE


def _for_every_size(symbolic: Callable[[], object], check, longer, kernel: str,
                     tested_by_while: Callable[[str], tuple[str, cst.While] | None]) -> list[Problem] | None:
    """Is the kernel proven with its static sizes followed as sizes known only at run time
    (`_trip_configs(symbolic=True)`)? Those runs prove it for every size, its own among them, and
    a per-core range over such a size for every share a block takes (docs/design.md, "Per-core
    shares"), in the runs the argument for every trip count makes instead of one for each of the
    M + 1 shares of its static count: their problems, empty when proven; None outside that
    argument. A kernel outside it, or wrong at some other size, is not refused for it: its own
    sizes are then proven share by share (`_at_some_size`)."""
    configs = symbolic()
    if not isinstance(configs, list):
        return None
    return _judge_runs(configs, check, longer, kernel, tested_by_while)


def _at_some_size(problems: list[Problem]) -> list[Problem]:
    """The problems of the proof for every size, when the shares of a static count are too many
    to run one by one: the kernel is refused either way, and they name what to change (two
    accesses, or the construct that keeps it out of the argument for every count), where the
    count of shares alone would only say that there are too many."""
    if not problems or problems[0].kind == "long":
        return []
    note = " (with the static sizes taken as sizes known only at run time: the per-core range's shares are too " \
           "many to run one by one)"
    return [replace(problems[0], detail=problems[0].detail + note), *problems[1:]]


def _probe_far(configs: list[Config], check, name: str, values: tuple[int, ...]) -> list[Problem]:
    """The problems of the first run, at the `FAR_PROBES` smallest trip counts of `configs`, with
    `name` moved past the values a chase reached (`_chased`) by more than the hardware counter's
    depth: a defect that grows with the repetitions the parameter sets (the sets a `while` around
    the pipeline loop lets pile up where it runs few tasks) shows there, and is named rather than
    the chase. The kernel is refused either way; this only picks the message."""
    far = values[-1] + (COUNTER_DEPTH + 1) * (1 if values[-1] > values[0] else -1)
    trips: dict = {}
    for config in configs:
        if name in config.scalars:
            trips.setdefault(_config_key(config)[1], config)
    cheapest = sorted(trips.values(), key=lambda c: sum(v for v in c.trips.values() if isinstance(v, int)))
    for config in cheapest[:FAR_PROBES]:
        problems = check(replace(config, scalars={**config.scalars, name: far}), set())
        if problems and not all(p.deferred for p in problems) and problems[0].kind != "long":
            return problems
    return []


def _chased(name: str, values: tuple[int, ...], loop: tuple[str, cst.While] | None) -> Problem:
    """The refusal of a parameter whose runs each asked for the next value beyond their own
    (`values`, in the order they were asked): a test whose root moves with the parameter, as
    the test of a `while` loop that repeats as many times as the parameter says, has a root at
    each of its values, so the pieces the check runs (docs/design.md, "For every value of a
    parameter") go on to `MAX_CUT_RUNS` values, each run longer than the last (probe h75's
    `while k < d:` in a `for`: 8 runs per value, hours)."""
    shown = ", ".join(str(v) for v in values[:-1])
    way = "larger" if values[1] > values[0] else "smaller"
    detail = (f"the runs at `{name}` = {shown} each asked for a {way} value of `{name}` than their own (the last "
              f"{values[-1]}), a test changing outcome beyond each: its values split into more cases than the check "
              "runs")
    if loop is None:
        return Problem("cases", detail, None)
    test, node = loop
    return Problem("cases_while", f"{detail}; `while {test}:` tests `{name}`, and its test changes outcome where the "
                                  f"loop ends, at a repetition `{name}` sets, so each value is a case of its own", node)


def _shares(config: Config) -> list[str]:
    """The runs' per-core shares in words: which count of a per-core range over a static count
    a block took in the run a problem was found in (`Config.per_core_counts`)."""
    return [f"a block running {count} of the {tasks} tasks of a per-core range" for tasks, count in
            sorted(config.per_core_counts.items()) if count < tasks]


def _config_key(config: Config) -> tuple:
    return (tuple(sorted(config.scalars.items())), tuple(sorted(config.trips.items(), key=repr)),
            tuple(sorted(config.per_core_counts.items())))


def _check_alone(file, kernel, config: Config, auto_mutex: bool, cuts: set) -> list[Problem]:
    interp = _serial_interpreter(file, kernel, config, auto_mutex, True)
    try:
        trace = interp.run()
    except CannotModel as exc:
        if exc.kind == "long":
            return [Problem("long", exc.reason, kernel.node.name)]
        if exc.kind in DEFECT_KINDS:
            return [Problem(exc.kind, exc.reason, _input_node(file, exc.node, kernel))]
        return [Problem("undecided", f"the check cannot follow this: {exc.reason}",
                        _input_node(file, exc.node, kernel))]
    cuts |= interp.uniform.cut_values()
    outcome = run_concurrent(trace, twins_race=True)
    maybe = [r for r in outcome.races if r.earlier_foot.may or r.later_foot.may]
    outcome.races = [r for r in outcome.races if not (r.earlier_foot.may or r.later_foot.may)]
    report = _Report(file, kernel, Trace(), trace, Outcome(), outcome, config, alone=True)
    problems = report.problems() or _drawn_elsewhere(kernel, config, trace, interp) or _unplaced(interp, kernel)
    if not problems and maybe:
        race = maybe[0]
        problems = [Problem("undecided", f"{report.who(race.later)} and {report.who(race.earlier)} touch "
                                         f"`{race.later_foot.label}` unordered if a condition or index the "
                                         "check cannot decide lets both happen",
                            report.node_of(race.later), [("the other access", report.node_of(race.earlier))])]
    return problems


def _check_one(file, kernel, generated, generated_pl, config: Config, auto_mutex: bool,
               cuts: set) -> list[Problem]:
    config = replace(config, per_core_checked=True)  # a run of the proof, which gives each block its count
    first = _serial_interpreter(file, kernel, config, auto_mutex, False)
    try:
        serial = first.run()
    except CannotModel as exc:
        return [Problem(exc.kind, exc.reason, _input_node(file, exc.node, kernel))]
    interp = Interpreter(file, generated, config, auto_mutex)
    interp.rotation_margin = None  # its stages are the serial kernel's, checked there
    if generated_pl is not None:
        interp.pl = generated_pl
    try:
        piped = interp.run()
    except CannotModel as exc:
        return [Problem(exc.kind, exc.reason if exc.in_source else f"{exc.reason} (in the generated kernel)",
                        kernel.node.name)]
    cuts |= first.uniform.cut_values() | interp.uniform.cut_values()
    s, p = run_sequential(serial), run_concurrent(piped)
    return _Report(file, kernel, serial, piped, s, p, config).problems() \
        or _drawn_elsewhere(kernel, config, serial, first, interp) or _unplaced(first, kernel)


def _drawn_elsewhere(kernel, config: Config, trace: Trace, *runs: Interpreter) -> list[Problem]:
    """A run that shows no problem of its own where the kernel leaves the conditions its trip
    counts were drawn for (`_more_credits`, `_spread_elsewhere`): deferred, so that a run
    showing a defect of the kernel names it instead."""
    found = _more_credits(config, trace, kernel) or _revisited_past(config, kernel, *runs) \
        or _spread_elsewhere(config, kernel, *runs)
    return [] if found is None else [found]


def _revisited_past(config: Config, kernel, *runs: Interpreter) -> Problem | None:
    """A run that writes a GM place again in a loop of run-time trip count, at a place that does
    not move with the loop (a workspace, a residue of the loop variable: `Uniform.revisited`),
    where its trip counts were drawn for hazards at most `W` (the ring) tasks apart: two such
    accesses on pipes nothing orders race however far apart, and the first pair of two phases
    may stand up to the period `L` apart (probe h240: a store at `ki % 8 == 7` and a load at
    `ki % 8 == 6`, first meeting at 15 tasks, past the 14 run). Deferred, carrying the window
    `L`, which the proof runs again with (`_with_credits`)."""
    if not config.period or config.window >= config.period:
        return None
    # (the tiles of the serial kernel's run: the pipelined kernel runs the same stages, and no tile op of its own)
    revisited = sorted({t for run in runs for t in run.uniform.revisited}) or sorted(tiles_met_again(runs[0].trace))
    if not revisited:
        return None
    return Problem("window", f"`{revisited[0]}` is written again at one place in a loop of run-time trip count, so "
                             f"two of its accesses may stand up to {config.period} tasks apart, the period, past the "
                             f"{config.window} the check's trip counts were drawn for", kernel.node.name,
                   deferred=True, window=config.period)


def _more_credits(config: Config, trace: Trace, kernel) -> Problem | None:
    """A run that primes more credits (`_primed_ahead`) than its trip counts were drawn
    for (`Config.primed`, the most sets pending at once in the discovery run, `_primed`): the core
    they free runs further ahead
    than the runs reach, at another value of a scalar (`range(8 if d == 7 else 1)`, probe h81)
    or another trip count (`range(8 if n % 2 == 0 else 1)`, probe h82). Deferred, carrying the
    credits, which the proof runs again with (`_with_credits`)."""
    if config.primed is None:
        return None
    credits, _ = config.primed
    here = _primed_ahead(trace)
    if here <= credits:
        return None
    values = ", ".join(f"`{k} = {v}`" for k, v in sorted(config.scalars.items()))
    return Problem("credits", f"a run{' at ' + values if values else ''} primes {here} credits of one event ahead of "
                              f"the other core's waits (sets of it in a row, no wait between), against {credits} the "
                              "check's trip counts were drawn for, and more in each run drawn for those: the core they "
                              "free runs further ahead than the runs reach", kernel.node.name, deferred=True,
                   credits=here)


def _primed_ahead(trace: Trace) -> int:
    """Credits a core primes ahead, whatever the trip count: the most sets of one event it
    raises in a row, with no wait between them (`for _ in range(DEPTH): set_cross_core(...)`
    before the loop, in a stage's first task), and the most sets of one counter pending where a
    wait for it comes, in the order the statements ran (`order.pending_at_waits`: credits raised
    one by one, each after a handshake or a barrier, probe h84). The most pending at once when
    every wait is taken as soon as it can be (`_primed`) also counts what the core the credits
    free raises on other counters as it runs ahead, which grows with the run."""
    most = pending_at_waits(trace.events)
    raised: Counter = Counter()  #: (core, event id) -> its sets in a row
    for ev in heapq.merge(*trace.events, key=lambda e: e.seq):  # in the order the statements ran
        if ev.kind in ("wait", "barrier"):
            for key in [k for k in raised if k[0] == ev.core]:
                del raised[key]
            if ev.kind == "wait":  # the other core taking a set ends the row (probe h104: an author's
                for sender in WAIT_SENDERS[ev.core]:  # event set and waited once a task, beside a tile
                    raised.pop((sender, ev.event_id), None)  # group, was counted as sets in a row)
        elif ev.kind == "set":
            raised[(ev.core, ev.event_id)] += 1
            most = max(most, raised[(ev.core, ev.event_id)])
    return most


def _spread_elsewhere(config: Config, kernel, *runs: Interpreter) -> Problem | None:
    """A loop of run-time trip count that is a per-core range in this run but not in the
    discovery run its trip counts were drawn from (`Config.per_core_roots`): at `d = 7` of
    `pl.range(core_id if d == 7 else 0, n, num_cores if d == 7 else 1)`, a test's piece, each
    block runs only its share of the count, which the runs follow as the whole count (probe h81)."""
    if not config.zeros:  # no discovery drew this run's counts
        return None
    seen = sorted((root for run in runs for root in run.uniform.per_core_roots_seen
                   if root not in config.per_core_roots), key=repr)
    if not seen:
        return None
    at = config.primed[1] if config.primed is not None else {}
    values = ", ".join(f"`{k} = {v}`" for k, v in sorted(config.scalars.items()) if at.get(k, v) != v)
    where = f"at {values}" if values else "at trip counts other than the discovery run's"
    return Problem("nonuniform", f"{where}, the loop up to {root_words(seen[0])} is a per-core range (each block "
                                 "runs its share of the count), and in the run the check's trip counts were drawn "
                                 "from a loop every block runs whole: the check follows the count one way; spread "
                                 "the loop over the blocks, or not, whatever the scalars", kernel.node.name,
                   deferred=True)


def _serial_interpreter(file, kernel, config: Config, auto_mutex: bool, hand: bool) -> Interpreter:
    """The interpreter of a run of the kernel as written: a hand-pipelined kernel's own syncs
    judged alone, or the serial original of a kernel the transform pipelines."""
    if hand:
        interp = Interpreter(file, kernel.node, replace(config, per_core_checked=True), auto_mutex)
        interp.rotation_margin = 0  # its own prefire and drain tests
        # its own ring entries hold the numbers of the beats in flight (`now.row`), each a beat's
        # value; a plain number one keeps across beats (`ring[0].cnt + 1`) is carried, as anywhere
        interp.own_arrays = "numbers"
        return interp
    # the serial kernel's syncs run in its order (sequential sections): its steady periods are
    # looked at for the author's syncs balancing, the generated kernel's for a core running
    # ahead (`Loops._sync_drift`)
    interp = Interpreter(file, kernel.node, replace(config, per_core_checked=True, steady=config.serial_steady),
                         auto_mutex)
    interp.own_arrays = True
    return interp


def _unplaced(interp: Interpreter, kernel) -> list[Problem]:
    """`Uniform.unplaced`, once a run shows no other problem."""
    exc = interp.uniform.unplaced()
    if exc is None:
        return []
    refusal = nonuniform(exc, kernel.node.name)
    return [Problem(refusal.kind, refusal.reason, kernel.node.name, deferred=exc.deferred)]


def _while_around_pipeline(kernel) -> cst.While | None:
    """The `while` loop around a pipeline loop's opening and closing syncs, if any. The transform
    opens a pipeline (its prefired sets) before its outermost enclosing `for` and closes it (the
    drain and the closing waits) after it; a `while` around that `for`, or around the pipeline
    loop itself, repeats both at every repetition, and nothing in a repetition that runs few tasks
    holds the setting core back from the next repetition's sets."""
    for loop in kernel.loops:
        outside = loop.ancestors[:loop.ancestors.index(loop.outer)] if loop.outer in loop.ancestors else loop.ancestors
        found = [a for a in outside if isinstance(a, cst.While)]
        if found:
            return found[-1]
    return None


class _Report:
    def __init__(self, file, kernel, serial: Trace, piped: Trace, s: Outcome, p: Outcome, config: Config,
                 alone: bool = False):
        self.file, self.kernel = file, kernel
        self.serial, self.piped = serial, piped
        self.s, self.p = s, p
        self.config = config
        self.alone = alone  #: a kernel judged on its own: nothing to compare with
        self.by_ident = {(ev.core, ev.ident): ev for core in serial.events for ev in core}
        self.out: list[Problem] = []
        self._seen: set = set()

    def problems(self) -> list[Problem]:
        self._deadlock()
        self._balance()
        self._wait_pipes()
        self._races()
        self._scalar_gm()
        if self.alone:  # the concurrent run already set the vector cores' copies against each other
            return self.out[:MAX_PROBLEMS]
        self._twin_races()
        self._arguments()
        if not self.out:
            self._fields()
        if not self.out:  # a race or a wrong argument already explains any value that differs
            self._values()
        if not self.out:
            self._scalars()
        if not self.out:
            self._shapes()
        if not self.out:
            self._outputs()
        return self.out[:MAX_PROBLEMS]

    def add(self, kind: str, detail: str, node, related=(), key=None, accesses: tuple = ()) -> None:
        key = key if key is not None else (kind, id(node))
        if key in self._seen:
            return
        self._seen.add(key)
        suffix = self._config_note()
        self.out.append(Problem(kind, detail + suffix, node if node is not None else self.kernel.node.name,
                                [(m, n) for m, n in related if n is not None], accesses))

    def _config_note(self) -> str:
        # (the tiling-key instance is named once, by `_of_instance`: probe h238 saw it twice)
        parts = [f"{k}={v}" for k, v in sorted(self.config.scalars.items())]
        real = self.config.real_trips
        shares = self.config.shares
        parts += [f"{root_words(k)} = {v}" + (f" for a block's share of {shares[k][0]} of its {shares[k][1]} tasks"
                                              if k in shares else f" for its {real[k]}" if real.get(k, v) != v else "")
                  for k, v in self.config.trips.items()]
        parts += _shares(self.config)
        if not parts:
            return ""
        stands = any(real.get(k, v) != v for k, v in self.config.trips.items())
        why = ": a count with the same boundary zones, phases and residue, which stands for it" if stands else ""
        return f" (shown with {', '.join(parts)}{why})"

    # --- description helpers ----------------------------------------------------------------
    def node_of(self, ev: Event) -> cst.CSTNode | None:
        """The input file's node for an event of either run (generated code maps back by identity)."""
        twin = self.by_ident.get((ev.core, ev.ident))
        return _input_node(self.file, (twin or ev).node, None)

    def who(self, ev: Event) -> str:
        """An access as a person finds it: the stage and task, or the kernel body's line (two
        loads of the body on one pipe would read the same otherwise)."""
        where = f"stage `{ev.stage}` (task {ev.task}{self._loop_words(ev)})" if ev.stage else "the kernel body"
        if not ev.stage:
            node = _input_node(self.file, (self.by_ident.get((ev.core, ev.ident)) or ev).node, None)
            if node is not None:
                where += f" at line {self.file.source.span(node).start.line}"
        return f"{where}, `{_op_name(ev)}` on {ev.pipe} of {CORES[ev.core]}"

    def writers(self, ids: tuple, outcome: Outcome) -> str:
        """The writes a read may see, or an element may hold, in the order they wrote."""
        if not ids:
            return "no write (the initial contents)"
        parts = []
        for wid in ids:
            ev = outcome.writers.get(wid)
            parts.append(self.who(ev) if ev is not None else str(wid))
        return "; then ".join(parts)

    # --- the checks ---------------------------------------------------------------------------
    def _deadlock(self) -> None:
        if not self.p.deadlock:
            return
        hung = [ev for ev in self.p.deadlock if ev.flag]
        for ev in hung:  # the cause: whatever other cores wait for, this core no longer sends
            self.add("unit_flag", "the pipelined kernel hangs: " + self._flag_hang(ev), self.node_of(ev))
        if hung:
            return
        parts = []
        for ev in self.p.deadlock:
            nxt = _next_op(self.piped, ev)
            before = f" before stage `{nxt.stage}` (task {nxt.task})" if nxt is not None and nxt.stage else ""
            parts.append(f"{CORES[ev.core]} waits on event id {ev.event_id} ({ev.pipe}){before}")
        self.add("deadlock", "the pipelined kernel deadlocks: " + "; ".join(parts), self.kernel.node.name)

    def _flag_hang(self, ev: Event) -> str:
        """A `phase=` call that finds its Acc unit flag at the other value: only its core's later
        ops could change it (`order._Concurrent.step`)."""
        region, waits, _, phase = ev.flag
        value, _, setter = self.p.unit_flags.get((ev.core, region), (1 - waits, None, None))
        by = f"set by {self.who(setter)}" if setter is not None else "its value at launch"
        return (f"{self.who(ev)} with `phase={phase}` waits for the unit flag of Acc bytes [{region[1]}, "
                f"{region[2]}) to be {waits}, but it is {value} ({by}); only a later op of {CORES[ev.core]} could "
                "change it (the last matmul and the last store of an Acc region take Final)")

    def _scalar_gm(self) -> None:
        """Refuse a scalar-pipe access of GM that another core or pipe writes or reads without a
        `pl.system.dcci` of the tensor between it and the sync that orders the two. The scalar pipe
        reads and writes GM through its core's data cache, which PyPTO makes consistent across
        cores and pipes only by `dcci`: a read may see the line an earlier task's read brought in
        (a workspace slot read every two tasks), and a write stay in the cache (probe h140). The
        dcci must stand after the last sync before a read and before the first sync after a write."""
        order: dict[tuple, int] = {}  #: each event's place on its core, made at the first scalar access
        for rid, writers in self.p.reaching.items():
            read, foot = self.p.read_events[rid]
            if foot.key[0] != "GM":
                continue
            for wid in writers:
                write = self.p.writers.get(wid)
                if write is None or (write.core, write.pipe) == (read.core, read.pipe) \
                        or SCALAR_PIPE not in (read.pipe, write.pipe):
                    continue
                if not order:
                    order = {(ev.core, ev.ident): i for events in self.piped.events for i, ev in enumerate(events)}
                tensor = foot.key[1]
                if read.pipe == SCALAR_PIPE and not self._dcci_between(read.core, order[(read.core, read.ident)], -1,
                                                                       foot):
                    self._cache_problem(read, write, tensor, "read")
                    return
                written = next((f for f in write.writes if f.key == foot.key), foot)
                if write.pipe == SCALAR_PIPE and not self._dcci_between(write.core, order[wid], 1, written):
                    self._cache_problem(write, read, tensor, "write")
                    return

    def _dcci_between(self, core: int, at: int, step: int, foot: Foot) -> bool:
        """Is there a `dcci` on `core` reaching the scalar access of `foot` (the whole cache, or the
        line of its element) from event `at` towards the nearest sync event (backwards for `step`
        -1, forwards for 1)?"""
        events = self.piped.events[core]
        element = (foot.r0, foot.c0) if foot.r1 == foot.r0 + 1 and foot.c1 == foot.c0 + 1 else None
        i = at + step
        while 0 <= i < len(events):
            ev = events[i]
            if ev.kind == "dcci" and ev.values[0] == foot.key[1] and ev.values[1] in (None, element):
                return True
            if ev.kind in SYNC_KINDS:
                return False
            i += step
        return False

    def _cache_problem(self, scalar: Event, other: Event, tensor: str, verb: str) -> None:
        where = "before it, after the sync that orders the two" if verb == "read" else \
            "after it, before the sync that orders the two"
        self.add("cache", f"{self.who(scalar)} {verb}s GM `{tensor}` through the scalar pipe's data cache, and "
                 f"{self.who(other)} {'wrote' if verb == 'read' else 'reads'} those bytes, with no "
                 f"`pl.system.dcci({tensor}, ...)` of the whole cache or of the line at that element on "
                 f"{CORES[scalar.core]} {where}: the cache may hold an older line (PyPTO makes the data cache "
                 "consistent across cores and pipes only by `dcci`)",
                 self.node_of(scalar), [(f"the other access: {self.who(other)}", self.node_of(other))],
                 key=("cache", tensor))

    def _wait_pipes(self) -> None:
        """Refuse waits of one core on one event id on two pipes. Each pipe runs its waits when it
        reaches them, and the counter gives a set to whichever wait runs first, while the run takes
        them in program order: a later task's wait on an idle pipe could take the set raised for an
        earlier task's wait on a busy one (probe h140)."""
        first: dict[tuple[int, int], Event] = {}
        for events in self.piped.events:
            for ev in events:
                if ev.kind != "wait":
                    continue
                seen = first.setdefault((ev.core, ev.event_id), ev)
                if seen.pipe == ev.pipe:
                    continue
                node_a, node_b = _input_node(self.file, seen.node, None), _input_node(self.file, ev.node, None)
                where = "".join(f" ({p} at line {self.file.source.span(n).start.line})" if n is not None else f" ({p})"
                                for p, n in ((seen.pipe, node_a), (ev.pipe, node_b)))
                self.add("wait_pipes", f"{CORES[ev.core]} waits for event id {ev.event_id} on two pipes{where}: each "
                         "pipe runs its waits when it reaches them, and the counter gives a set to whichever runs "
                         "first, so a wait may take the set raised for the other", node_b or node_a,
                         key=("wait_pipes", ev.core, ev.event_id))
                return

    def _balance(self) -> None:
        which = "the kernel" if self.alone else "the pipelined kernel"
        for text in _both_vector_cores(self.p.unbalanced)[:2]:
            self.add("unbalanced", f"{which} leaves event counters unbalanced: {text}",
                     self.kernel.node.name, key=("unbalanced", text))
        for ev in self.p.overflow[:1]:
            detail = (f"more than {COUNTER_DEPTH} sets of event id {ev.event_id} from {CORES[ev.core]} can be pending "
                      "at once, which overflows the hardware counter")
            wrapper = _while_around_pipeline(self.kernel)
            if wrapper is None:
                self.add("overflow", detail, self.kernel.node.name)
                continue
            self.add("overflow_while", f"{detail}: the pipeline loop runs inside `while "
                     f"{self.file.source.code(wrapper.test)}:`, so the sets that open it and the waits that close it "
                     "run at every repetition, and a repetition whose pipeline loop runs too few tasks to make "
                     f"{CORES[ev.core]} wait lets it set again before the previous repetition's sets are waited for",
                     wrapper)

    def _races(self) -> None:
        for race in self.p.races:
            a, b = race.earlier, race.later
            na, nb = self.node_of(a), self.node_of(b)
            verb_b = "writes" if race.later_foot in b.writes else "reads"
            verb_a = "writes" if race.earlier_foot in a.writes else "reads"
            anywhere = _anywhere(race.later_foot, race.earlier_foot)
            if anywhere:
                anywhere += _unknown_names(self.file, [n for n in (nb, na) if n is not None]) \
                    or self._unknown_arguments([(b, nb), (a, na)])
            shared = "" if a.stage or b.stage else self._shared_event_id()
            unordered = "nothing surely orders the two" if shared else \
                "nothing orders the two (no set/wait pair, mutex or barrier between these pipes)"
            detail = (f"{self.who(b)} {verb_b} `{race.later_foot.label}` while {self.who(a)} {verb_a} "
                      f"`{race.earlier_foot.label}`, and {unordered}" + anywhere + shared)
            picked = next((e for e in (b, a) if e.picked_mutex), None)
            if picked is not None:  # (probe h130: the help named tile groups and stages, which it had)
                detail += (f"; {self.who(picked)} uses a tile picked by a value the check does not decide, among "
                           "tiles of different auto_mutex ids, and holds only the ids every one of them has")
            shaped = any(SHAPE_UNPLACED in f.unplaced for f in (race.later_foot, race.earlier_foot) if f.r1 == INF)
            linear = any(ELEMENT_UNPLACED in f.unplaced for f in (race.later_foot, race.earlier_foot) if f.r1 == INF)
            kind = ("anywhere_shape" if shaped else "anywhere_element" if linear else "anywhere") \
                if anywhere and not self.alone \
                else "stray" if PAST_ITS_END in race.later_foot.label or PAST_ITS_END in race.earlier_foot.label \
                else "mutex_off" if self._mutex_off(race, a, b) \
                else "shared_event_id" if shared \
                else "picked_mutex" if picked is not None \
                else "loops" if self._loops_apart(a, b) \
                else ("race_core" if self._gm_race(race) else "race_core_tile") \
                if not self.alone and _one_invocation(a, b) \
                else "race_tasks" if not self.alone and a.stage and a.stage == b.stage and a.core == b.core \
                else "twin" if not self.alone and a.stage and a.stage == b.stage and {a.core, b.core} == {AIV0, AIV1} \
                else "after_loop" if not self.alone and any(self._after_pipeline_loop(e) for e in (a, b)) \
                else "race_body" if not self.alone and not (a.stage and b.stage) else "race"
            self.add(kind, detail, nb, [(f"the other access: {self.who(a)}", na)],
                     key=("race", frozenset((id(na), id(nb)))),
                     accesses=tuple((CORES[e.core], e.pipe, _op_name(e)) for e in sorted((a, b), key=_program_order)))
            if len(self.out) >= MAX_PROBLEMS:
                return

    def _mutex_off(self, race, a: Event, b: Event) -> bool:
        """Is `race` two ops of one core on a tile of a kernel that turns auto_mutex off, which
        would order them (study ux1: the help asked for hand-written flags, never naming the
        option)?"""
        if a.core != b.core or race.later_foot.key[0] == "GM" or race.earlier_foot.key[0] == "GM":
            return False
        # (options the check could not read are named by `_options_noted` instead)
        return not _auto_mutex(self.file, self.kernel) and not _options_unread(self.file, self.kernel)

    def _shared_event_id(self) -> str:
        """Words for a wait of the kernel's own that a set the transform makes for a tile group may
        meet: the same event id, set by the other kind of core (probe h138: a handshake before the
        loop on an id of a group's `bwd_ids` was met by the prefire's set, and the refusal said
        nothing orders the two accesses, although the kernel's own pair stands between them)."""
        made = {(ev.core, ev.event_id) for events in self.piped.events for ev in events
                if ev.kind == "set" and _input_node(self.file, ev.node, None) is None}
        for events in self.piped.events:
            for ev in events:
                node = _input_node(self.file, ev.node, None) if ev.kind == "wait" else None
                if node is None or not any((sender, ev.event_id) in made for sender in WAIT_SENDERS[ev.core]):
                    continue
                groups = [f"`{name}` (`{ids.keyword}`)" for name, buffer in self.kernel.buffers.items()
                          for ids in (buffer.fwd, buffer.bwd) if ids is not None and ev.event_id in (ids.values or ())]
                declared = f", which tile group {' and '.join(groups)} declares too" if groups else ""
                return (f"; the kernel's own wait at line {self.file.source.span(node).start.line} takes event id "
                        f"{ev.event_id}{declared}: the pipeline sets that id for the group (before the loop, in it "
                        "and in the drain), and one of those sets may meet this wait before the kernel's own set")
        return ""

    def _unknown_arguments(self, accesses: list[tuple[Event, cst.CSTNode | None]]) -> str:
        """Words for a stage parameter an access of unknown place reads whose value the serial
        run did not compute: the argument the kernel's call gives it (`finish(int(f), ...)`),
        which the access's own offsets, already in the form the help asks for, do not show."""
        for ev, node in accesses:
            inv = self._serial_invocations.get((ev.core, ev.stage, ev.task)) if ev.stage else None
            stage = self.file.stages.get(ev.stage) if inv is not None else None
            if node is None or stage is None or inv is None or type(inv.node) is not cst.Call:
                continue
            read = {n.value for n in self.file.find(node, cst.Name)}
            for param, value in inv.args:
                given = _argument_for(inv.node, stage.node, param) if param in read and is_unknown(value) else None
                if given is not None:
                    code = self.file.source.code(given)
                    return (f"; the stage's `{param}` is `{code}` where the kernel calls `{ev.stage}`, a value the "
                            "check does not compute (pass the loop variable, or integer arithmetic of it, not "
                            "through a float or a call the check does not follow)")
        return ""

    def _loops_apart(self, a: Event, b: Event) -> bool:
        """Are `a` and `b` in stages of two different pipeline loops of the kernel? Stages hand
        data through tile groups within a loop; between two loops only a barrier orders them."""
        loops = [self._loops_of(ev) for ev in (a, b)]
        return all(len(found) == 1 for found in loops) and loops[0] != loops[1]

    def _loop_words(self, ev: Event) -> str:
        """", of the loop at line N" for a stage more than one pipeline loop calls (its task numbers
        run on from one loop to the next), "" otherwise."""
        if sum(1 for loop in self.kernel.loops if any(call.func == ev.stage for call in loop.stages)) < 2:
            return ""
        found = self._loops_of(ev)
        if len(found) != 1:
            return ""
        return f", of the loop at line {self.file.source.span(self.kernel.loops[found.pop()].node).start.line}"

    def _loops_of(self, ev: Event) -> set[int]:
        """The pipeline loops whose calls may have run `ev`'s stage invocation: the one whose call
        the serial run's invocation of that number made (probe h138: one stage called in two loops
        was in both), else every loop that calls the stage."""
        inv = self._serial_invocations.get((ev.core, ev.stage, ev.task))
        loops = {i for i, loop in enumerate(self.kernel.loops) for call in loop.stages if call.func == ev.stage}
        by_call = {i for i in loops for call in self.kernel.loops[i].stages
                   if inv is not None and call.call is inv.node}
        return by_call or loops

    @cached_property
    def _serial_invocations(self) -> dict[tuple, Invocation]:
        """(core, stage, number) -> the serial run's stage invocation."""
        return {(i.core, i.stage, i.number): i for i in self.serial.invocations}

    @staticmethod
    def _gm_race(race) -> bool:
        """Do the two accesses of `race` meet in GM (else on a tile of the core)?"""
        return any(foot.region[0] == "GM" for foot in (race.earlier_foot, race.later_foot))

    def _twin_races(self) -> None:
        """The same op on both vector cores meeting in shared memory: a race of the serial
        kernel itself, which no sync can order (both copies run at once)."""
        for race in twin_races(self.serial):
            a, b = race.earlier, race.later
            node = self.node_of(a)
            verb_a = "writes" if any(f.region == race.earlier_foot.region for f in a.writes) else "reads"
            verb_b = "writes" if any(f.region == race.later_foot.region for f in b.writes) else "reads"
            may = (" if a condition the check cannot decide lets both run it" if race.earlier_foot.may else "") + (
                " where the valid shapes known only at run time let both reach the same elements"
                if race.earlier_foot.window and SPILL_NOTE not in race.earlier_foot.label else "")
            detail = (f"{self.who(a)} {verb_a} `{race.earlier_foot.label}` while the same op on {CORES[b.core]} "
                      f"{verb_b} `{race.later_foot.label}`{may}: both vector cores run it at once, in the serial "
                      "kernel too, and no sync orders them")
            self.add("twin", detail, node, key=("twin", id(node)),
                     accesses=tuple((CORES[e.core], e.pipe, _op_name(e)) for e in (a, b)))
            if len(self.out) >= MAX_PROBLEMS:
                return

    def _arguments(self) -> None:
        piped = {(i.core, i.stage, i.number): i for i in self.piped.invocations}
        for inv in self.serial.invocations:
            twin = piped.get((inv.core, inv.stage, inv.number))
            if twin is None:
                self.add("argument", f"stage `{inv.stage}` runs {inv.number + 1} time(s) on {CORES[inv.core]} in the "
                                     "serial kernel but fewer in the pipelined one", inv.node, key=("count", inv.stage))
                continue
            diff = _argument_difference(inv.args, twin.args)
            if diff is not None and self.piped.conversions:
                # the ring's field is of another type than what it carries: the transform's doing
                field_name, (given, held, kind) = next(iter(self.piped.conversions.items()))
                self.add("ring_type", f"stage `{inv.stage}` (task {inv.number}) on {CORES[inv.core]} receives {diff}: "
                                      f"the ctx ring carries `{field_name}` in a field of {_kind_words(kind)}, which "
                                      f"holds {_shown(held)} where {_shown(given)} is stored", inv.node,
                         key=("argument", inv.stage))
            elif diff is not None:
                self.add("argument", f"stage `{inv.stage}` (task {inv.number}) on {CORES[inv.core]} receives {diff}",
                         inv.node, key=("argument", inv.stage))
        counts = {(i.core, i.stage) for i in self.serial.invocations}
        serial = {(i.core, i.stage, i.number) for i in self.serial.invocations}
        for inv in self.piped.invocations:
            if (inv.core, inv.stage) not in counts or (inv.core, inv.stage, inv.number) not in serial:
                self.add("argument", f"stage `{inv.stage}` runs more often on {CORES[inv.core]} in the pipelined "
                                     "kernel than in the serial one", self.kernel.node.name, key=("count+", inv.stage))
                break

    def _values(self) -> None:
        for rid, seen in self.s.reaching.items():
            got = self.p.reaching.get(rid)
            ev, foot = self.s.read_events[rid]
            if got is None:
                self.add("value", f"{self.who(ev)} reads `{foot.label}` in the serial kernel, but the pipelined kernel "
                                  "never makes this read", self.node_of(ev), key=("missing", id(ev.node)))
            elif got == seen and foot.key[0] == "GM" and _region(self.p.read_events[rid][1]) != _region(foot):
                # the same writes, or none (the initial contents), seen at another place of the tensor
                pfoot = self.p.read_events[rid][1]
                self.add("value", f"{self.who(ev)} reads `{foot.label}` in the serial kernel but `{pfoot.label}` in "
                                  "the pipelined one", self.node_of(ev), key=("value", id(ev.node)))
            elif got != seen:
                pev, pfoot = self.p.read_events[rid]
                detail = (f"{self.who(ev)} reads `{pfoot.label}`: in the serial kernel it sees "
                          f"{self.writers(seen, self.s)}, in the pipelined kernel {self.writers(got, self.p)}")
                extra = [self.p.writers[w] for w in sorted(set(got) - set(seen), key=str)[:2] if w in self.p.writers]
                related = [(f"a write it sees when pipelined: {self.who(w)}", self.node_of(w)) for w in extra]
                kind = "after_loop" if self._after_pipeline_loop(ev) else "value"
                self.add(kind, detail, self.node_of(ev), related, key=("value", id(ev.node)))
            if len(self.out) >= MAX_PROBLEMS:
                return

    def _after_pipeline_loop(self, ev: Event) -> bool:
        """Is `ev` an access of the kernel's own code after a pipeline loop, in the body of the
        loop around it? Pipelined, the pipeline runs on across that outer loop's iterations, its
        drain after the outer loop: such code runs before the delayed stages of the last tasks."""
        node = self.node_of(ev)
        if ev.stage or node is None:
            return False
        line = self.file.source.span(node).start.line
        # (after the loop's body: its `else:` runs after it too, `rewrite._else_body`)
        return any(self.file.source.span(loop.node.body).end.line < line <= self.file.source.span(loop.outer).end.line
                   for loop in self.kernel.loops if loop.nested)

    def _fields(self) -> None:
        """Each field of a struct the kernel's own code reads (outside stages) holds what it holds
        serially: a stage given the struct writes its task's ctx entry when pipelined, so a field
        it sets is lost to the code after it, whatever that code does with it."""
        for key, (value, node) in self.serial.fields.items():
            twin = self.piped.fields.get(key)
            if twin is None:
                continue  # read at a place the pipelined kernel runs otherwise (its own code)
            got = twin[0]
            if (_compared(value) and not _same(value, got)) or (value is UNKNOWN and _compared(got)):
                code = self.file.source.code(node) if _input_node(self.file, node, None) is node else "a field"
                self.add("value", f"the kernel body reads `{code}` = {value!r} in the serial kernel but {got!r} in "
                                  "the pipelined one: a stage given the struct sets that field in its task's ctx "
                                  "entry when pipelined, and the kernel's own struct keeps the older value; hand the "
                                  "value on through a tile or GM, or set the field outside the stages",
                         _input_node(self.file, node, self.kernel), key=("field", key[1]))
                if len(self.out) >= MAX_PROBLEMS:
                    return

    def _shapes(self) -> None:
        """Each stage op uses tiles whose valid shapes were set where its serial twin's were
        (`Event.shapes`): which task sized a tile decides how much of it the op moves or computes,
        which the footprints (the largest a shape may be) do not show."""
        for core in self.piped.events:
            for ev in core:
                twin = self.by_ident.get((ev.core, ev.ident)) if ev.shapes else None
                if twin is None or twin.shapes == ev.shapes:
                    continue
                serial, piped = next((a, b) for a, b in zip(twin.shapes, ev.shapes, strict=False) if a != b)
                self.add("value", f"{self.who(twin)} uses a tile whose valid shape {_set_by(serial)} set in the serial "
                                  f"kernel but {_set_by(piped)} in the pipelined one: set a tile's valid shape in the "
                                  "stage that uses it, in every task, before the op", self.node_of(twin),
                         key=("shape", id(twin.node)))
                if len(self.out) >= MAX_PROBLEMS:
                    return

    def _scalars(self) -> None:
        """Each op computes with the scalars its serial twin computes with (`Event.values`): a
        value kept in the kernel's own struct by a stage given it, read after the loop, is
        another number when pipelined (the stage wrote the field of its ctx entry)."""
        for core in self.piped.events:
            for ev in core:
                twin = self.by_ident.get((ev.core, ev.ident)) if ev.values else None
                if twin is None:
                    continue
                for i, (a, b) in enumerate(zip(twin.values, ev.values, strict=False)):
                    if (_compared(a) and not _same(a, b)) or (a is UNKNOWN and _compared(b)):
                        self.add("value", f"{self.who(twin)} computes with {a!r} in the serial kernel but {b!r} in the "
                                          f"pipelined one (its scalar operand #{i + 1})", self.node_of(twin),
                                 key=("scalar", id(twin.node)))
                        break
                if len(self.out) >= MAX_PROBLEMS:
                    return

    def _outputs(self) -> None:
        for key, seen in self.s.final.items():
            got = self.p.final.get(key, ())
            if got == seen:
                continue
            r0, r1, c0, c1, serial, piped = _first_difference(seen, got)
            events = [o.writers[w] for o, ws in ((self.s, serial), (self.p, piped)) for w in ws if w in o.writers]
            inexact = any(f.window for ev in events for f in ev.writes if f.key == key)
            note = (" (a write whose extent is known only at run time, a valid shape or an offset, counts as "
                    "reaching all it may reach, and as overwriting none of it)") if inexact else ""
            added = [ev for ev in events for f in ev.writes if f.key == key and f.atomic]
            if added and len(added) == len(events):
                self.add("rounded_adds", f"`{key[1]}[{r0}:{r1}, {c0}:{c1}]` is summed in another order: atomic "
                                         "additions of one core, which round or truncate otherwise in another order; "
                                         f"the serial kernel adds {self.writers(serial, self.s)}, the pipelined kernel "
                                         f"{self.writers(piped, self.p)}", self.kernel.node.name, key=("output", key))
                return
            self.add("output", f"`{key[1]}[{r0}:{r1}, {c0}:{c1}]` ends with different contents: the serial kernel "
                               f"leaves {self.writers(serial, self.s)} there, the pipelined kernel "
                               f"{self.writers(piped, self.p)}{note}",
                     self.kernel.node.name, key=("output", key))
            return


def _both_vector_cores(texts: list[str]) -> list[str]:
    """`texts` with two that differ only in naming AIV0 and AIV1 said once, of both (the two
    vector cores run one code: a hand-written imbalance shows on each)."""
    out: list[str] = []
    for text in texts:
        twin = text.replace("AIV0", "AIV1")
        if "AIV0" in text and twin in texts:
            out.append(text.replace("AIV0", "AIV0 and AIV1"))
        elif not ("AIV1" in text and text.replace("AIV1", "AIV0") in texts):
            out.append(text)
    return out


def _region(foot: Foot) -> tuple:
    return foot.key, foot.r0, foot.r1, foot.c0, foot.c1


def _first_difference(a: tuple, b: tuple) -> tuple:
    """The first rectangle where two `order.contents` disagree, with the writers of each there."""
    def at(bands: tuple, r: int, c: int) -> tuple:
        for r0, r1, runs in bands:
            if r0 <= r < r1:
                for c0, c1, who in runs:
                    if c0 <= c < c1:
                        return who
        return ()

    rows = sorted({r for band in a + b for r in band[:2]})
    for r0, r1 in zip(rows, rows[1:], strict=False):
        cols = sorted({c for band in a + b if band[0] <= r0 < band[1] for run in band[2] for c in run[:2]})
        for c0, c1 in zip(cols, cols[1:], strict=False):
            x, y = at(a, r0, c0), at(b, r0, c0)
            if x != y:
                return r0, r1, c0, c1, x, y
    raise AssertionError("the contents differ but no element does")


def _anywhere(*feet: Foot) -> str:
    """Why a race names a whole tensor: where an access lands was not known (an offset computed
    from a value known only at run time), so it may be anywhere in it."""
    whole = sorted({f.label for f in feet if f.key[0] == "GM" and f.r1 == INF})
    if not whole:
        return ""
    shaped = sorted({f.unplaced for f in feet if f.key[0] == "GM" and f.r1 == INF and f.unplaced})
    why = "; ".join(shaped) if shaped else \
        "an offset computed from a value known only at run time, such as a `pl.min` of a `pl.DYNAMIC` dimension"
    return f"; where {' and '.join(f'`{w}`' for w in whole)} is reached is not known ({why}), so the check takes " \
        "every element"


def _unknown_names(file, nodes: list) -> str:
    """The module names an access mentions (else the top-level statement around it) that the check cannot
    know (handed to a call it does not run, rebound where it cannot tell which binding holds, ...),
    each with the reason: the usual cause of a place not known in a kernel of static sizes."""
    found = unknown_reasons(file, nodes) or unknown_reasons(file, [file.source.statement_of(n) for n in nodes])
    return unknown_words(found)


def _one_invocation(a: Event, b: Event) -> bool:
    """Are `a` and `b` ops of one stage invocation on two pipes of its core? Only that core's own
    syncs order them, as they do in the serial kernel (probe h138: the help said to keep the two
    accesses in one stage, where they were)."""
    return bool(a.stage) and (a.core, a.stage, a.task) == (b.core, b.stage, b.task) and a.pipe != b.pipe


def _argument_for(call: cst.Call, fn: cst.FunctionDef, param: str) -> cst.BaseExpression | None:
    """The argument `call` gives `fn`'s parameter `param`: by keyword, or by position among
    the arguments before any starred one; None when it takes its default or a starred one."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == param:
            return arg.value
    positional = [*fn.params.posonly_params, *fn.params.params]
    index = next((i for i, p in enumerate(positional) if p.name.value == param), None)
    given = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            break
        given.append(arg.value)
    return given[index] if index is not None and index < len(given) else None


def _op_name(ev: Event) -> str:
    return ev.op if ev.op in ("getval", "setval") or not ev.op.isidentifier() else (
        f"pl.{ev.op}" if ev.kind == "op" and not ev.op[0].isupper() else ev.op)


def _program_order(ev: Event) -> int:
    """Where an access stands in the kernel as written (the order the author's syncs follow),
    not in the order one run of the model happened to take them."""
    return ev.seq


def _next_op(trace: Trace, ev: Event) -> Event | None:
    events = trace.events[ev.core]
    start = events.index(ev)
    return next((e for e in events[start:] if e.kind == "op"), None)


def _argument_difference(serial: tuple, piped: tuple) -> str | None:
    """The first parameter whose value differs, described; None when all agree. Numbers are
    compared by value, data read at run time (`Opaque`) by the read it comes from."""
    others = dict(piped)
    for param, a in serial:  # every stage invocation's every argument: the words only for a difference
        b = others.get(param, UNKNOWN)
        if isinstance(a, StructV):
            if not isinstance(b, StructV):
                return f"a struct as `{param}` in the serial kernel but not in the pipelined one"
            for f, v in a.fields.items():
                w = b.fields.get(f, UNKNOWN)
                if _compared(v) and not _same(v, w):
                    return f"field `{f}` of `{param}` = {v!r} in the serial kernel but {w!r} in the pipelined one"
                if v is UNKNOWN and _compared(w):
                    return (f"field `{f}` of `{param}` as a value the check cannot compute in the serial kernel but "
                            f"{w!r} in the pipelined one")
        elif _compared(a) and not _same(a, b):
            return f"`{param}` = {a!r} in the serial kernel but {b!r} in the pipelined one"
        elif a is UNKNOWN and _compared(b):
            return f"`{param}` as a value the check cannot compute in the serial kernel but {b!r} in the pipelined one"
        elif isinstance(a, TensorV) and not _same_tensor(a, b):
            return f"tensor `{a.name}` as `{param}` in the serial kernel but something else in the pipelined one"
    return None


def _same_tensor(a: TensorV, b) -> bool:
    """The same tensor parameter: a dimension the check cannot know (`pl.DYNAMIC`) is named by
    its origin, a fresh value in each run."""
    return (isinstance(b, TensorV) and (a.name, a.elem, len(a.shape)) == (b.name, b.elem, len(b.shape))
            and all(_same(x, y) if isinstance(x, Opaque) else x == y for x, y in zip(a.shape, b.shape, strict=True)))


def _set_by(where: tuple) -> str:
    """Who set a tile's valid shape, by `ValidShapes.provenance`, in words."""
    if not where or where[0] is None:
        return "its declaration (or code before the loop)"
    place = where[0]
    return f"stage `{place[1]}` in task {place[2]}" if place[0] == "stage" else "kernel-body code in the loop"


def _kind_words(kind: str) -> str:
    """A ctx field's kind (`pto_api.scalars`) in words."""
    return "integers (initialised with an int)" if kind == INT_FIELD else f"`pl.{kind}`"


def _shown(value) -> str:
    """A value in a message: a number as Python prints it, a run-time value by what it is computed from."""
    return repr(value) if isinstance(value, (int, float)) and not isinstance(value, Opaque) \
        else describe_origin(value.origin) if isinstance(value, Opaque) else "another value"


def _compared(v) -> bool:
    return _scalar(v) or isinstance(v, Opaque)


def _same(a, b) -> bool:
    """One value in both runs: run-time data by the read it comes from, numbers of one kind and
    bit for bit (`-0.0` is not `0.0`: `1 / x` tells them apart; `True` is not `1`, nor `2` `2.0`:
    `str` and `isinstance` do)."""
    if isinstance(a, Opaque):
        return isinstance(b, Opaque) and (a.origin == b.origin or _at_iteration(a.origin) == _at_iteration(b.origin))
    if not _scalar(b) or _kind(a) is not _kind(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    return a == b


def _at_iteration(origin: Any) -> Any:
    """A run-time value's origin with each number of a loop variable or counter (`math.sqrt(i + 1)`)
    as its number at the iteration: the serial and the pipelined kernel run different loops, whose
    variables the forms name apart, and a stage handed another iteration's value gets another number."""
    if isinstance(origin, OriginSym) and origin.form and all(var[0] in INDEX for var, _ in origin.form):
        return ("at iteration", int(origin))
    if isinstance(origin, tuple):
        return tuple(_at_iteration(part) for part in origin)
    return origin


def _kind(v) -> type:
    """bool, int (a `Sym` too: a number the run follows with its form) or float."""
    return bool if isinstance(v, bool) else float if isinstance(v, float) else int


def _scalar(v) -> bool:
    return isinstance(v, (int, float, bool)) and not is_unknown(v)


def _input_node(file, node, kernel) -> cst.CSTNode | None:
    """`node` if the input file holds it (positions exist only there), else a fallback."""
    if node is not None:
        try:
            file.source.span(node)
            return node
        except KeyError:
            pass
    return kernel.node.name if kernel is not None else None


def _auto_mutex(file, kernel) -> bool:
    """Whether the JIT orders ops by their tiles' mutex ids: on unless `auto_mutex=` is given
    a false value (`False`, `0`, `None`), and off where the value cannot be computed (read from
    the environment), which orders nothing the run may not order."""
    call = kernel.jit_decorator.decorator
    if isinstance(call, cst.Call):
        for a in call.args:  # given by its name, wherever (a dict that gives it too is a TypeError)
            if a.keyword is not None and a.keyword.value == "auto_mutex":
                value = file.evaluator.try_eval(a.value, _NOT_KNOWN)
                return value is not _NOT_KNOWN and _truth(value)
        for a in call.args:
            if a.star == "**":  # `**OPTIONS`: what it holds, when it can be read
                options = file.evaluator.try_eval(a.value, _NOT_KNOWN)
                if not isinstance(options, dict):
                    return False
                if "auto_mutex" in options:
                    return _truth(options["auto_mutex"])
    return True


def _truth(value) -> bool:
    """A plain value's truth; False for a `pl` constant, whose truth the model does not know (an
    IntEnum member of value 0, `pl.TilePad.null`, is false: probe h178), so the option is off."""
    return not isinstance(value, PlSymbol) and bool(value)


_NOT_KNOWN = object()


def _options_unread(file, kernel) -> str:
    """The code of a `**OPTIONS` of the kernel's `@pl.jit` that the check could not read (and
    no `auto_mutex=` given beside it), or ""."""
    call = kernel.jit_decorator.decorator
    if not isinstance(call, cst.Call) or any(a.keyword is not None and a.keyword.value == "auto_mutex"
                                             for a in call.args):
        return ""
    for a in call.args:
        if a.star == "**" and not isinstance(file.evaluator.try_eval(a.value, _NOT_KNOWN), dict):
            return file.source.code(a.value)
    return ""


def _gm_annotation(file, param: cst.Param) -> cst.Subscript | None:
    """The `pl.Tensor[...]`/`pl.Ptr[...]` annotation of a GM parameter (None for a scalar)."""
    ann = param.annotation.annotation if param.annotation is not None else None
    if isinstance(ann, cst.Subscript) and file.pl.path(ann.value) in (("Tensor",), ("Ptr",)):
        return ann
    return None


def _configs(file, kernel, reads: tuple = ()) -> list[Config]:
    """The samples of the kernel's integer scalar parameters (and tiling-data fields), and of
    the GM `reads` its own code takes once for the whole run (`OpEvents._read_value`)."""
    unknown = []
    for p in parameters(kernel.node):  # floating-point ones are data (`Interpreter._params`), not sampled
        types = tiling_field_types(file, p)
        if types is not None:
            unknown += [f"{p.name.value}.{f}" for f, t in types.items() if t != "float"]
        elif _gm_annotation(file, p) is None and sampled_default(file, p) and declared_integer(file, p, file.pl.path):
            unknown.append(p.name.value)
    unknown += reads
    if not unknown:
        return [Config()]
    n = len(SCALAR_TRIALS)
    ranges = scalar_ranges(file, kernel.node)

    def trial(name: str, i: int) -> int:
        """The `i`-th sample, within the values the scalar's type holds (probe h193: `k: pl.DT_BOOL`
        was run at 2, and refused as shown there)."""
        least, most = ranges.get(name, INT64)
        value = SCALAR_TRIALS[i % n]
        return value if least <= value <= most else least + (value - least) % (most - least + 1)

    configs = [Config({name: trial(name, k + j) for j, name in enumerate(unknown)}) for k in range(n)]
    if len(unknown) > 1:
        configs.append(Config({name: trial(name, n - 2) for name in unknown}))
    return configs


def _has_runtime_dims(file, kernel) -> bool:
    """Does a GM parameter have a dimension known only at run time (`pl.DYNAMIC`, a pointer)?"""
    for p in parameters(kernel.node):
        ann = _gm_annotation(file, p)
        if ann is not None:
            items = [e.slice.value for e in ann.slice if isinstance(e.slice, cst.Index)]
            dims = file.evaluator.try_eval(items[0], None) if items else None
            if not isinstance(dims, (list, tuple)) or not all(
                    isinstance(d, int) and not isinstance(d, bool) for d in dims):
                return True
    return False


def _splits_by_blocks(file, kernel) -> bool:
    """Does the kernel body divide by the block count or take a remainder of it (`chunk = (N +
    num_cores - 1) // num_cores`)? With static sizes the result is still known only at run time,
    and a loop it bounds is found by a discovery run."""
    body = kernel.node.body
    counts: set[str] = set()
    assigns = file.find(body, cst.Assign)
    while True:  # names bound to the block count, also through other names (`nc = num_cores`)
        more = {t.target.value for a in assigns for t in a.targets if isinstance(t.target, cst.Name)
                and (_is_block_count(file, a.value) or type(a.value) is cst.Name and a.value.value in counts)}
        if more <= counts:
            break
        counts |= more

    def by_count(node: cst.BaseExpression) -> bool:
        return _is_block_count(file, node) or isinstance(node, cst.Name) and node.value in counts

    divisions = file.find(body, cst.BinaryOperation)
    for call in file.find(body, cst.Call):  # `divmod(N, num_cores)`: both operators
        if type(call.func) is cst.Name and call.func.value == "divmod":
            divisions += divmod_operations(call) or ()
    return any(type(op.operator) in (cst.FloorDivide, cst.Modulo) and by_count(op.right) for op in divisions)


def _is_block_count(file, node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and file.pl.path(node.func) == ("get_block_num",)


def _reads_gm(file, kernel) -> bool:
    """Does the kernel body read a GM element (`t[i]`, `pl.getval(t, i)`)? Its value may bound
    a loop (`n = lens[0]`), which only a discovery run finds."""
    gm = {p.name.value for p in parameters(kernel.node) if _gm_annotation(file, p) is not None}
    for node in file.find(kernel.node.body, (cst.Subscript, cst.Call)):
        if type(node) is cst.Subscript and type(node.value) is cst.Name and node.value.value in gm:
            return True
        if isinstance(node, cst.Call) and file.pl.path(node.func) == ("getval",):
            return True
    return False


@dataclass
class _Found:
    """What the discovery runs of the serial and the generated kernel found."""

    roots: dict = field(default_factory=dict)  #: trip-count root -> its value giving 0 iterations
    outer: set = field(default_factory=set)
    nested: set = field(default_factory=set)
    periods: set = field(default_factory=set)
    #: period -> what takes it (`Uniform.period_sources`)
    period_sources: dict = field(default_factory=dict)
    rings: set = field(default_factory=set)
    depths: set = field(default_factory=set)
    #: the most credits of one counter the author's own syncs raise ahead in the serial kernel (`_primed`)
    primed: int = 0
    #: the distance in tasks a hazard may span, where a run of an earlier round found a GM place
    #: written again (`_revisited_past`); 0: the ring's
    window: int = 0
    #: trip-count root -> the zeros of the loops over it, where they differ (`pl.range(0, n)` and
    #: `pl.range(0, n + 1)`): `roots` holds the first loop's
    zeros: dict = field(default_factory=dict)
    #: roots found in GM offsets -> the code of the first such offset and its op (`Uniform.in_address`)
    in_address: dict = field(default_factory=dict)
    #: trip-count roots a block's chunk start is scaled by (`core_id * my_n`): their order against
    #: other counts decides whether blocks meet, which representative counts need not keep
    chunk_roots: set = field(default_factory=set)
    #: label -> origin of each GM read taken once for the whole run, sampled as a parameter is
    gm_reads: dict = field(default_factory=dict)
    #: trip-count root -> the period of its loop's own iterations (`Rotations.loop_period`)
    loop_periods: dict = field(default_factory=dict)
    #: outer loop's root -> what its iterations move (`Rotations.outer_rotations`)
    rotations: dict = field(default_factory=dict)
    #: trip-count root -> the lcm of the `k` of every residue `root % k` (`Uniform.root_periods`)
    root_periods: dict = field(default_factory=dict)
    #: the lengths of the rotations that join the periods (renamed ones do not: `live_lengths`)
    live: set = field(default_factory=set)
    #: trip-count roots of the loops whose first or last iteration a test singles out
    edged: set = field(default_factory=set)
    #: trip-count roots of per-core ranges (`Uniform.per_core_roots`)
    per_core_roots: set = field(default_factory=set)

    def one_inner(self) -> dict:
        """Outer loop's root -> its inner loop's root, for the outer loops around exactly one
        loop of run-time trip count that are themselves in no other."""
        outers = Counter(o for o, _ in self.nested)
        inner_roots = {i for _, i in self.nested}
        return {o: i for o, i in self.nested if outers[o] == 1 and o not in inner_roots}


def _discover(file, kernel, functions: list, auto_mutex: bool, scalars: dict, hand: bool,
              symbolic_dims: bool = False, symbolic_names: frozenset = frozenset()) -> _Found | Problem:
    """Run each function once with its loops of run-time trip count at a few iterations."""
    found = _Found()
    for fn, pl in functions:
        trips: dict = {}
        tried: list[dict] = []  #: the counts each run was given: a run asked for again settles nothing
        while True:
            if trips in tried:
                return Problem("unmodelled", "the check's discovery run asks to be run again at the counts it was "
                                             f"run at ({_counts_words(trips)}), so it never settles (please report "
                                             "this kernel)", kernel.node.name)
            tried.append(dict(trips))
            interp = _discovery_run(file, fn, pl, Config(dict(scalars), trips=dict(trips), discover=True,
                                                         symbolic_dims=symbolic_dims, symbolic_names=symbolic_names),
                                    auto_mutex)
            try:
                interp.run()
                unbound = set(interp.trips) - set(trips)
                if any(_holds(origin, root) for origin in interp.opaque_residues for root in unbound):
                    # a residue of a root taken before its loop (`r = n % 4 == 3` above `pl.range(0, n)`):
                    # of a run-time value then, a residue of the root once bound from the start (probe h83)
                    trips = dict(interp.trips)
                    continue
                if interp.short_roots:  # a loop over a root from further on ran too few iterations
                    trips = {**interp.trips, **interp.short_roots}
                    continue
                break
            except CannotModel as exc:
                more = _roots_first(file, fn, pl, interp, trips, auto_mutex)
                if more is not None:
                    trips = more
                    continue
                where = "" if pl is None or exc.in_source else " (in the generated kernel)"
                node = _input_node(file, exc.node, kernel) if pl is None else kernel.node.name
                if hand and exc.kind not in DEFECT_KINDS:
                    return Problem("undecided", f"the check cannot follow this: {exc.reason}", node)
                return Problem(exc.kind, exc.reason + where, node)
        uni = interp.uniform
        for var, zero in uni.roots.items():
            found.roots.setdefault(var[1], zero)
        for var, zeros in uni.root_zeros.items():
            found.zeros.setdefault(var[1], set()).update(zeros)
        found.outer.update(v[1] for v in uni.outer)
        if pl is None:  # the serial kernel's reads: the generated one reads them where it does
            found.gm_reads.update((label, origin) for label, (origin, read) in interp.gm_reads.items()
                                  if read not in interp.gm_writes)
        found.nested.update((a[1], b[1]) for a, b in uni.nested)
        found.edged.update(v[1] for v in uni.edged)
        found.per_core_roots |= uni.per_core_roots_seen
        found.periods |= uni.periods
        found.period_sources = {**uni.period_sources, **found.period_sources}
        found.rings |= uni.rings
        found.depths |= uni.depths
        if hand:  # credits raised ahead let the other core run as many tasks ahead as a group's slots
            found.depths.add(_primed(interp.trace))
        if hand or pl is None:  # the author's own credits in a kernel the transform pipelines (its only
            # syncs in the serial kernel) let the core that waits for them run as far ahead in the
            # generated one, past the ctx ring where no tile group holds it back (probe h80)
            found.primed = max(found.primed, _primed(interp.trace))
        for v, at in uni.in_address.items():
            if v[0] == "size":
                found.in_address.setdefault(v[1], at)
        found.chunk_roots.update(v[1] for v in uni.chunk_roots if v[0] == "size")
        for origin, period in uni.rot.loop_periods(groups=interp.rotation_margin is not None).items():
            found.loop_periods[origin] = math.lcm(found.loop_periods.get(origin, 1), period)
        for origin, period in uni.root_periods.items():
            found.root_periods[origin] = math.lcm(found.root_periods.get(origin, 1), period)
        for origin, parts in uni.rot.outer_rotations(groups=interp.rotation_margin is not None).items():
            found.rotations[origin] = found.rotations.get(origin, []) + parts
        found.live |= live_lengths(uni.rot, groups=interp.rotation_margin is not None)
    # the residues of a trip count join the period (`n % 2`: its runs must meet each); those of a
    # scalar parameter the discovery run followed as a size but that bounds no loop (`d % 1024 ==
    # 0` of an alignment) are the sampled parameter's, whose tests are cut where they change
    found.root_periods = {origin: k for origin, k in found.root_periods.items() if origin in found.roots}
    # a root whose values are one residue class modulo k (`max(reps, 0) * 2`) is run at those values
    # alone, and k joins its period as a residue the kernel takes would: a longer run stands for
    # one of the class (`_stride`)
    for origin in found.roots:
        stride = _stride(file, kernel, origin)
        if stride is not None:
            found.root_periods[origin] = math.lcm(found.root_periods.get(origin, 1), stride[0])
    found.periods |= set(found.root_periods.values())
    return found


def _counts_words(trips: dict) -> str:
    """`n` = 3, ... of a discovery run's trip counts, for a message."""
    return ", ".join(f"{root_words(root)} = {count}" for root, count in trips.items()) or "none bound"


def _primed(trace) -> int:
    """The most sets of one counter pending at once in the discovery run, every wait taken as
    soon as it can be (`order.eager_counts`): credits a hand-written pipeline primes (`for _ in
    range(DEPTH): set_cross_core(...)`, before its loop or after a first handshake), each letting
    the core that waits for them run one task further ahead, as one slot of a tile group does."""
    return eager_counts(trace.events, trace.cores)[1]


def _discovery_run(file, fn, pl, config: Config, auto_mutex: bool) -> Interpreter:
    interp = Interpreter(file, fn, config, auto_mutex)
    if pl is not None:
        interp.pl = pl
        interp.rotation_margin = None
    return interp


def _roots_first(file, fn, pl, failed: Interpreter, trips: dict, auto_mutex: bool) -> dict | None:
    """The trip-count roots to bind from the start of a discovery run that failed, or None. A
    loop bound is a root only once its loop is met; code before that uses it (`if n % 2 == 0:`
    around the priming `set_cross_core` of `pl.range(0, n + 1)`) sees a value it cannot decide.
    The roots the failed run met, else those of a run that follows such code undecided."""
    if set(failed.trips) - set(trips):
        return dict(failed.trips)
    if failed.config.roots_only:
        return None
    finder = _discovery_run(file, fn, pl, replace(failed.config, roots_only=True), auto_mutex)
    try:
        finder.run()
    except CannotModel:
        pass
    return dict(finder.trips) if set(finder.trips) - set(trips) else None


@dataclass
class _Bounds:
    """The trip-count argument's numbers (docs/design.md, "For every trip count").

    A task whose neighbourhood (the tasks at most `W` before or after it) reaches the fill
    (`F` tasks) or the end of the run is in a boundary zone of `zone = F + W` tasks at either
    end; every other task is steady, and a steady task behaves as every steady task of its
    phase modulo `L`. A run of `T >= 2 * zone` tasks holds the start zone of every longer run
    and the end zone of every run congruent to it modulo `L`; a run of `T >= 2 * zone + L`
    tasks holds a steady task of every phase as well."""

    ring: int  #: R, tasks in flight
    period: int  #: L
    zone: int  #: F + W, with F = R - 1 and W = R (or L, `window`)
    #: W, the distance in tasks a hazard may span: the ring's, or, where the loop writes a GM
    #: place again at any distance (`_revisited_past`), at least the period L: the first pair of
    #: two phases stands at most L apart, and a pair further apart is ordered when the pair of the
    #: same phases L closer is (the later access follows its like L tasks before on its own pipe)
    window: int = 0
    #: the period of an inner loop's own iterations (`Rotations.loop_period`: what its
    #: iterations move), which divides L
    inner_period: int = 0
    #: outer loop's root -> what its iterations move, by the inner trip count
    #: (`Rotations.outer_rotations`); an outer loop not there repeats with L
    rotations: dict = field(default_factory=dict)
    #: the period of the rotations that are not renamed (`_Found.live`), which divides L: what
    #: an outer loop repeats with when its inner loop is too short to measure
    whole: int = 0
    #: trip-count root -> the `k` of its residues (`n % k`): a loop's counts cover each of them
    root_periods: dict = field(default_factory=dict)
    #: outer loop's root -> the root of its one inner loop, for the outer loops whose
    #: iterations are alike: one inner loop, itself in no other, and no test singling out the
    #: first or the last iteration (`steady_pair`)
    pairs: dict = field(default_factory=dict)
    #: trip-count roots of the loops whose first or last iteration a test singles out
    edged: frozenset = frozenset()

    def __post_init__(self) -> None:
        self.window = self.window or self.ring

    @classmethod
    def of(cls, found: _Found, generated: bool) -> _Bounds:
        # tasks in flight: the generated kernel's ctx ring; a hand-pipelined kernel has none, and
        # its buffers let a task run at most one rotation of its deepest group ahead
        ring = max(max(found.rings), found.primed + 1) if found.rings and generated \
            else max(max(found.depths, default=1), found.primed) + 1
        period = math.lcm(*found.periods) if found.periods else 1
        # a root that bounds an inner loop as well as the outer one (an n x n grid) counts for both
        shared = {o for o, i in found.nested if o == i}
        inner = [p for root, p in found.loop_periods.items() if root not in found.outer or root in shared]
        inner += [p for root, p in found.root_periods.items() if root not in found.outer]
        inner_period = math.lcm(*inner) if inner and generated else period
        whole = math.lcm(1, *found.live) if generated else period
        inners = Counter(i for _, i in found.nested)
        pairs = {o: i for o, i in found.one_inner().items() if inners[i] == 1 and o not in found.edged}
        window = max(ring, found.window)
        return cls(ring, period, (ring - 1) + window, window, inner_period if period % inner_period == 0 else period,
                   dict(found.rotations) if generated else {}, whole if period % whole == 0 else period,
                   dict(found.root_periods), pairs, frozenset(found.edged))

    @property
    def paired(self) -> int:
        """The fewest tasks of an inner loop whose outer loop's runs of two iterations hold
        every situation of a longer run (`steady_pair`): `Z + W + 2`, the last task of the first
        iteration (`n - 1`) out of the reach of a task whose neighbourhood holds no boundary."""
        return self.zone + self.window + 2

    def alike(self, root, inner: int | None) -> bool:
        """Are the iterations of the outer loop `root`, whose inner loop runs `inner` tasks, all
        alike but where the boundaries lie (docs/design.md, "Alike outer iterations")? Nothing
        rotates with a period (`L = 1` for both loops) and no test singles out the outer loop's
        first or last iteration: a task's situation is then where the start zone, the end zone
        (`Z` tasks each) and the crossings from one outer iteration to the next (every `inner`
        tasks) lie around it."""
        return (root in self.pairs and inner is not None and inner >= 1 and self.inner_period == 1
                and self.outer_period(root, inner) == 1)

    def steady_pair(self, root, inner: int | None) -> bool:
        """Does a run of two iterations of such an outer loop hold every situation of a run of
        more? With `inner >= Z + W + 2` tasks (`paired`), two iterations hold the start zone and
        the end zone with no crossing in reach, the crossing between them with no zone in reach,
        and a task whose neighbourhood holds no boundary at all."""
        return self.alike(root, inner) and inner is not None and inner >= self.paired

    @property
    def inner(self) -> int:
        """Every inner count up to this one (included) is run for a loop of run-time trip
        count: together they hold every start zone, every end zone at every phase and a
        steady task of every phase, which is all a longer run holds."""
        return 2 * self.zone + self.inner_period

    def outer_period(self, root, inner: int | None) -> int:
        """The period of an outer loop's iterations whose inner loop runs `inner` tasks: the
        order of what one of them moves the state by (`rotations.outer_period`), else L."""
        if root not in self.rotations or inner is None:
            return self.period
        period = math.lcm(outer_period(self.rotations[root], inner, self.whole or self.period),
                          self.root_periods.get(root, 1))
        return period if self.period % period == 0 else self.period

    def drawn(self, found: _Found, trips: dict) -> dict:
        """The fields of a run at `trips` that say what its counts were drawn for (`Config`): the
        periods, the residues and the alike outer loops a run checks it meets."""
        return dict(trips=trips, period=self.period, window=self.window, per_core_roots=frozenset(found.per_core_roots),
                    loop_periods=self.loop_periods(found, trips), alike=frozenset(self.pairs),
                    root_periods=dict(found.root_periods))

    def loop_periods(self, found: _Found, trips: dict) -> dict:
        """The period each loop's runs were chosen for at `trips` (`Config.loop_periods`)."""
        out = {root: self.inner_period for root in found.roots if root not in found.outer}
        for out_root, inner_root in found.nested:
            if out_root in trips and inner_root in trips and out_root in self.rotations:
                out[out_root] = self.outer_period(out_root, trips[inner_root] - found.roots[inner_root])
            if out_root == inner_root:  # one root bounds both loops: the runs were chosen for the inner's period too
                out[out_root] = math.lcm(out.get(out_root, 1), self.inner_period)
        return out

    def serial_steady(self, found: _Found, trips: dict) -> dict:
        """`steady` for the serial kernel of an auto-pipelined one (`Config.serial_steady`): its
        sections run in order, so every iteration but the first and the last is steady, and the
        author's own syncs there must balance in a whole period `L` (their event ids rotating
        with it), in a run that has one."""
        out = {root: (1, self.period) for root in found.roots
               if root not in found.outer and root in trips and trips[root] - found.roots[root] >= self.period + 2}
        for o, i in found.nested:
            if o in trips and i in trips:
                period = self.outer_period(o, trips[i] - found.roots[i])
                if trips[o] - found.roots[o] >= period + 2:
                    out[o] = (1, period)
        return out

    def steady(self, found: _Found, trips: dict) -> dict:
        """Each inner loop's period of steady iterations at `trips` (`Config.steady`): the one
        after its start zone, in a run of at least the bound `inner` (`2Z + L`) tasks. For a
        kernel pipelined by hand, whose `L` is the whole period (every event id's rotation in
        it); a generated kernel's syncs balance by construction, its renamed rotations (its
        event ids among them) left out of the inner loop's `L`."""
        out = {root: (self.zone, self.inner_period) for root in found.roots
               if root not in found.outer and root in trips and trips[root] - found.roots[root] >= self.inner}
        # an outer loop: a period of its iterations past the `reach` at its start, in a run that
        # has as many after them (its inner loop at this run's count): pending events that grow
        # by the outer iteration overflow at some count of it as surely as by the inner one
        for o, i in found.nested:
            if o in trips and i in trips:
                inner = trips[i] - found.roots[i]
                reach, period = self.reach(inner), self.outer_period(o, inner)
                if trips[o] - found.roots[o] >= 2 * reach + period:
                    out[o] = (reach, period)
        return out

    def reach(self, inner: int | None) -> int:
        """The outer iterations at either end that hold a task of a boundary zone or whose
        neighbourhood reaches one, for an inner loop of `inner` tasks (None: it has none, or
        they are at least `zone + W`)."""
        if inner is None or inner == 0 or inner >= self.zone + self.window:
            return 1  # no task, or the tasks of the first and last iteration hold both zones
        return -(-(self.zone + self.window) // inner)

    def outer(self, inner: int | None, root=None) -> int:
        """The same for an outer loop whose inner loop runs `inner` tasks: `reach` iterations
        at each end and one period of steady outer iterations between them (`outer_period`)."""
        if self.alike(root, inner):
            # two zones and a task of every place between crossings: `T >= 2Z + inner` tasks,
            # or two iterations (`steady_pair`)
            assert inner is not None
            return 2 if self.steady_pair(root, inner) else -(-2 * self.zone // inner) + 1
        # a loop whose first or last iteration a test singles out: its steady iterations differ
        # from both, and two of them side by side are a situation of their own (the last task of
        # one beside the first of the next, neither the first nor the last iteration)
        steady = self.outer_period(root, inner) + (1 if root in self.edged else 0)
        return max(max(OUTER_TRIPS), 2 * self.reach(inner) + steady)

    def subsumed(self, count: int, outer: bool, inner: int | None = None, root=None) -> bool:
        """A count whose run holds no situation the run one period longer does not: exactly
        both boundary zones and no steady task (`2Z` tasks, `2 * reach` outer iterations). The
        longer run, among those run, has the same start zone, the same end zone (its count is
        congruent modulo the period) and steady tasks besides (docs/design.md, "For every
        trip count")."""
        if not outer:
            return count == 2 * self.zone
        if root in self.edged:
            # its first and last iterations differ from the others, and only a run this short
            # puts them side by side (the last task of the first beside the first of the last)
            return False
        period = self.outer_period(root, inner)
        return count == 2 * self.reach(inner) and self.outer(inner, root) == count + period

    def held_by_pair(self, count: int, inner: int, root) -> bool:
        """Does the run of two iterations of `paired` tasks (`steady_pair`) hold every situation
        of the run of `count` iterations of the outer loop `root` of `inner` tasks each?"""
        return count >= 2 and inner > self.paired and self.steady_pair(root, inner)

    def inner_representative(self, trips: int, outer_trips: int, root) -> int:
        """The representative count of the one inner loop of the outer loop `root` (`pairs`)
        when the outer loop runs `outer_trips` iterations: two outer iterations of `paired`
        tasks hold every situation of a run of more iterations and tasks (`steady_pair`)."""
        if outer_trips >= 2 and self.steady_pair(root, trips) and self.steady_pair(root, self.paired):
            return self.paired
        return self.representative(trips, False)

    def representative(self, trips: int, outer: bool, inner: int | None = None, root=None) -> int:
        """The count whose one run stands for a run of `trips` iterations: `trips` itself below
        `low + L`, where `low` is the bound above (a run of `low` iterations or more holds both
        boundary zones and a steady task or iteration of every phase); past it the count in
        `[low, low + L)` with the same residue modulo the period, which keeps the phase of the
        end zone and of what the loop carries on."""
        low = self.outer(inner, root) if outer else self.inner
        period = self.outer_period(root, inner) if outer else self.inner_period
        if trips < low + period:
            return trips
        return low + (trips - low) % period


def _phases_past_limit(found: _Found, b: _Bounds, extra: dict, where) -> Problem | None:
    """A loop of run-time trip count in no other is run at every count from its zero up to
    `b.inner` and the residues of its own count (`extra`), an outer loop at every count up to
    `b.outer` of each count of its inner loop: one run per count, past the run limit when a
    period is long. Refused before the counts are listed, which for `% (2 ** 70)` would never
    end, naming what makes the period that long."""
    below = {o: min(min(found.zeros.get(o, {zero})), 0) for o, zero in found.roots.items()}  # counts < 0 not run
    for o in found.roots:
        least = b.inner + extra[o] + below[o]  # but for both zones alone (`subsumed`)
        if o not in found.outer and least > MAX_TRIP_RUNS:
            return _too_long(found, b, o, least, b.inner_period, where)
    for out, inner in found.nested:
        if inner in found.outer:
            continue
        for n in range(-below[inner], b.inner + extra[inner] + 1):  # the inner counts run
            least = b.outer(n, out) + extra[out] + below[out] - 1  # outer counts 1 .. `b.outer` at this one
            if n != 2 * b.zone and least > MAX_TRIP_RUNS:
                return _too_long(found, b, out, least, b.outer_period(out, n), where)
    return None


def _too_long(found: _Found, b: _Bounds, root, least: int, period: int, where) -> Problem:
    return Problem("period", f"proving the loop of {root_words(root)} takes at least {least} runs (period {b.period}, "
                             f"ring {b.ring}), more than the check's limit of {MAX_TRIP_RUNS}: the check runs each "
                             f"phase of {_long_periods(found, period)}", where)


def _long_periods(found: _Found, period: int) -> str:
    """What takes the periods `period` is the lcm of, the longest first, as many as make it
    longer than the run limit alone (the whole `period` when nothing is known to take them)."""
    taken: list[str] = []
    lcm = 1
    for k in sorted((k for k in found.period_sources if k > 1 and period % k == 0), reverse=True):
        if lcm % k:
            taken.append(found.period_sources[k])
            lcm = math.lcm(lcm, k)
        if lcm > MAX_TRIP_RUNS:
            return " and ".join(taken)
    return f"a period of {period} iterations"


def _trip_configs(file, kernel, functions: list, auto_mutex: bool, hand: bool = False,
                  longer: Callable[[], object] | None = None, symbolic: bool = False,
                  credits: int = 0, window: int = 0) -> list[Config] | Problem:
    """The configurations to run: the scalar trials of `_configs`, and for loops whose trip
    count is known only at run time every trip count up to the bound of the argument in
    docs/design.md ("For every trip count"): inner loops 0 .. `_Bounds.inner`, outer loops
    0 .. `_Bounds.outer` of each inner count, but for the counts a longer run covers
    (`_Bounds.subsumed`). A discovery run of each function finds those loops, the period L (every
    `% k` of a loop variable or counter, every tile group's depth) and the ctx ring."""
    base = _configs(file, kernel)
    unknown = frozenset(_range_constants(file, kernel, known=False))
    if symbolic:  # static sizes and loop-bounding constants followed as run-time sizes too
        unknown |= frozenset(_range_constants(file, kernel))
    elif not unknown and not _has_runtime_dims(file, kernel) and not _reads_gm(file, kernel) \
            and not _splits_by_blocks(file, kernel):
        # every trip count is static: run it; a run that turns out long (`_run_all`) is
        # proven at representative trip counts instead, and so is one whose loop bounds
        # already say it is long (`longrun`), without the first attempt; with each sample of
        # the scalar parameters, where it has some
        long = looks_long(file, kernel, _static_dims(file, kernel))
        instead = longer() if long and longer is not None else None
        if isinstance(instead, list):
            return [replace(c, scalars=b.scalars, whole=replace(b, step_budget=STEP_BUDGET)) for b in base
                    for c in instead]
        if not base[0].scalars:
            return [replace(base[0], step_budget=LONG_RUN)]
        if long:  # too long to run at each sample: its static sizes followed as run-time sizes
            symbolic = True
            unknown |= frozenset(_range_constants(file, kernel))
    found = _discover(file, kernel, functions, auto_mutex, base[0].scalars, hand, symbolic_dims=symbolic,
                      symbolic_names=unknown)
    if isinstance(found, Problem):
        return found
    found.primed = max(found.primed, credits)  # what a run of an earlier round primed (`_with_credits`)
    found.window = max(found.window, window)
    roots = found.roots
    # a read a trip count is computed from (`my_n = (counts[0] - core_id + ...) // num_cores`) is
    # part of that root, which names it: sampled, the count would be a number, not the root
    reads = tuple(sorted(label for label, origin in found.gm_reads.items()
                         if not any(_holds(root, origin) for root in roots)))
    if reads:  # values read from GM once, used other than as a trip count: sampled as parameters are
        base = _configs(file, kernel, reads)
    if not roots:  # (with `symbolic`, no per-core range over a static count to prove for every count)
        return base if not symbolic else Problem("nonuniform", "no trip count to follow", kernel.node.name)
    where = kernel.node.name
    for origin in roots:
        if origin in found.in_address:
            code, op = found.in_address[origin]
            detail = (f"`{code}` reaches GM at an offset that depends on {root_words(origin)}, the trip count of a "
                      "loop, so the check cannot prove the loop for every trip count; to make it provable, compute "
                      "GM offsets from the loop variable only (`ki * TILE`), and after the loop from the tensor's own "
                      "dimension (`x.shape[0] - TILE` for its last tile), not from the number of iterations")
            where = _input_node(file, op, kernel)
            # a hand-pipelined kernel outside the argument is not shown wrong: it is not checked
            return Problem("undecided", f"the check cannot follow this: {detail}", where) if hand \
                else Problem("nonuniform", detail, where)
    # two loops bounded by different expressions of one dimension (`x.shape[0] // 32` and
    # `x.shape[0] // 64`) are enumerated as if independent: every pair of counts the dimension
    # gives is among the pairs run, and the argument holds for each loop whatever the other does
    b = _Bounds.of(found, len(functions) > 1)
    ring, period = b.ring, b.period
    # an outer loop runs through both of its boundary zones and every phase of what it carries,
    # more of its iterations when the inner loops are short (filtered per inner count below)
    outer, nested = found.outer, found.nested
    # a loop whose run-time count's residues the kernel takes (`n % 16 == 15`) behaves as one loop per
    # residue class: each class needs its own run past the bound, where the counts up to the bound hold
    # only one count of each class, maybe short of it (probe h83: the class of 15 run at n = 15 alone,
    # 15 tasks, and the race it holds needs a task 15); the counts go `k - 1` further
    extra = {o: found.root_periods.get(o, 1) - 1 for o in roots}
    too_long = _phases_past_limit(found, b, extra, where)
    if too_long is not None:
        return too_long
    inner_top = max((b.inner + extra[o] for o in roots if o not in outer), default=b.inner)
    longest = max((b.outer(n, o) + extra[o] for n in range(inner_top + 1) for o in outer), default=0)
    # a root that cannot be negative (`a.shape[0] // 32`) is not run below 0, where a loop to
    # `root + 1` would run no iteration: no launch has such a count
    # A loop that runs no iteration is the same at every count at or below its zero but for the
    # residues the kernel takes of its root (`n % 2`, `Uniform.root_periods`): the counts just
    # below the zero give each of them (`n = -1` for a parameter, `n = 0` for `pl.range(0, n - 1)`)
    # loops over one count from different starts (`pl.range(0, n)`, `pl.range(0, n + 1)`): the
    # counts run give each of them every count from its zero up (probe h82: a loop from another
    # start than the first ran no task in any run)
    shifted = {o: max(found.zeros.get(o, {roots[o]})) - min(found.zeros.get(o, {roots[o]})) for o in roots}
    if any(shifted[o] and (o in outer or any(o in pair for pair in nested)) for o in roots):
        o = next(o for o in roots if shifted[o] and (o in outer or any(o in pair for pair in nested)))
        return Problem("nonuniform", f"loops over {root_words(o)} run different numbers of iterations at one size "
                                     f"(they run none from {root_words(o)} = "
                                     f"{' and '.join(str(z) for z in sorted(found.zeros[o]))} on), one of them in or "
                                     "around another loop of run-time trip count: the check follows nested loops over "
                                     "one count only when they run as many iterations; give the loop that runs fewer "
                                     "a count of its own (another dimension, or a scalar parameter)", where)
    low = {o: min(found.zeros.get(o, {roots[o]})) for o in roots}
    least = {o: _least_value(file, kernel, o) for o in roots}
    most = {o: _greatest_value(o) for o in roots}
    tops = {o: low[o] + (longest if o in outer else b.inner + extra[o]) + shifted[o] for o in roots}
    taken = {o: _stride(file, kernel, o) or (1, 0) for o in roots}
    ranges = [[low[o] + t for t in range(-found.root_periods.get(o, 0), tops[o] - low[o] + 1)
               if (low[o] + t >= 0 or not nonnegative(o)) and least[o] <= low[o] + t <= most[o]
               and (low[o] + t - taken[o][1]) % taken[o][0] == 0] for o in roots]
    # a root whose every value is among the counts run (`min(x, 4)`) is proven count by count: no
    # steady period of its loop stands for longer runs (`Loops._sync_drift`; probe h119: a token
    # loop of at most 4 rounds was said to pend sets without bound)
    every = {o for o in roots if most[o] <= tops[o]}
    roots = {o: low[o] for o in roots}  # the counts below are taken from the first zero of each
    for o, counts in zip(roots, ranges, strict=True):
        if not counts:  # `pl.range(0, n + 20)`: at least 20 tasks at every size, none of the counts run (probe h82)
            top = longest if o in outer else b.inner + extra[o]
            return Problem("nonuniform", f"a loop of {root_words(o)} + {-roots[o]} iterations runs at least "
                                         f"{-roots[o]} at every size, past the {top} the check runs to prove it for "
                                         "every trip count; count it to the size itself (`pl.range(0, n)`) and add the "
                                         "offset to the loop variable", where)
    # a parameter a root is computed from (`n_rows // TILE`) is that run-time value, not a sample
    leaves = {p for origin in roots for p in quotient_parameters(origin)}
    fixed = {k: v for k, v in base[0].scalars.items() if ("param", k) not in roots and ("param", k) not in leaves}
    zeros = dict(roots)
    # an outer loop around one inner loop (itself in no other): its subsumed count is known
    single = found.one_inner()
    configs = []
    seen = set()
    for values in itertools.product(*ranges):
        trips = dict(zip(roots, values, strict=True))
        runs = {o: max(trips[o] - roots[o], 0) for o in roots}  # iterations each loop runs
        if any(runs[out] > b.outer(runs[inner], out) + extra[out] or b.held_by_pair(runs[out], runs[inner], out)
               for out, inner in nested):
            continue
        if any(b.subsumed(runs[o], False) for o in roots if o not in outer and not shifted[o]):
            continue
        if any(b.subsumed(runs[out], True, runs[inner], out) for out, inner in nested if out in single):
            continue
        # an outer loop that runs no iteration runs no inner loop: one run stands for all their
        # counts (the inner one at its zero, unless it takes residues of its own root)
        for out, inner in nested:
            if trips[out] <= roots[out] and inner not in found.root_periods:
                trips[inner] = roots[inner]
        key = tuple(trips.values())
        if key not in seen:
            seen.add(key)
            configs.append(Config(dict(fixed), zeros=zeros, symbolic_names=unknown, symbolic_dims=symbolic,
                                  steady=_but(b.steady(found, trips), every),
                                  serial_steady=_but(b.serial_steady(found, trips), every),
                                  primed=(found.primed, dict(base[0].scalars)), **b.drawn(found, trips)))
    count = len(configs) + len(base) - 1
    if count > MAX_TRIP_RUNS:
        return Problem("dynamic", f"proving the loops of run-time trip count takes {count} runs (period {period}, "
                                  f"ring {ring}), more than the check's limit of {MAX_TRIP_RUNS}: fewer loops of "
                                  "run-time trip count or shorter rotations (tile group depths, `% k`)", where)
    # three tasks of each loop, or the next count its root can give (`_stride`)
    middle = {o: roots[o] + shifted[o] + 3 + (taken[o][1] - roots[o] - shifted[o] - 3) % taken[o][0] for o in roots}
    for config in base[1:]:  # the other samples of the parameters that are not trip counts
        configs.append(Config({k: v for k, v in config.scalars.items() if ("param", k) not in roots
                               and ("param", k) not in leaves},
                              zeros=zeros, symbolic_names=unknown, symbolic_dims=symbolic,
                              primed=(found.primed, dict(base[0].scalars)), **b.drawn(found, dict(middle))))
    return configs




def _long_static(file, kernel, functions: list, auto_mutex: bool, hand: bool,
                 credits: int = 0, window: int = 0) -> list[Config] | Problem | None:
    """For a kernel whose sizes are all static but whose loops run long (FlashAttention at
    4096 x 32768): one run at representative trip counts, with the tensor dimensions followed
    as symbols, as for `pl.DYNAMIC` ones. Outside the argument's conditions, the reason (a
    Problem naming the construct) or None; then the real run is followed."""
    dims = _static_dims(file, kernel)
    names = _range_constants(file, kernel)
    found = _discover(file, kernel, functions, auto_mutex, {}, False, symbolic_dims=True,
                      symbolic_names=frozenset(names))
    if isinstance(found, Problem):
        if found.kind not in NONUNIFORM_KINDS:
            return None
        if hand:
            return replace(found, kind="undecided", detail=f"the check cannot follow this: {found.detail}")
        return found
    found.primed = max(found.primed, credits)  # (`_with_credits`)
    found.window = max(found.window, window)
    leaves = [leaf for origin in found.roots for leaf in set(trip_leaves(origin))]
    if not found.roots or found.in_address or found.chunk_roots or len(leaves) != len(set(leaves)) \
            or any(len(zeros) > 1 for zeros in found.zeros.values()):
        return None  # (loops over one count from different starts: the real run is followed)
    b = _Bounds.of(found, len(functions) > 1)
    counts: dict = {}
    for origin, zero in found.roots.items():
        stop = evaluate_origin(origin, dims, names)
        if stop is None:
            return None
        counts[origin] = max(stop - zero, 0)
    def representatives(counts: dict) -> dict:
        """Each root's representative count, inner loops first: an outer loop's depends on how many
        tasks its inner loops run (the shortest, when there are several)."""
        trips: dict = {}
        for origin in sorted(found.roots, key=lambda o: o in found.outer):
            inners = [trips[i] - found.roots[i] if i in trips else counts[i]
                      for o, i in found.nested if o == origin and i in counts]
            out = next((o for o, i in b.pairs.items() if i == origin), None)
            if out is not None:
                rep = b.inner_representative(counts[origin], counts[out], out)
            else:
                rep = b.representative(counts[origin], origin in found.outer, min(inners) if inners else None, origin)
            trips[origin] = found.roots[origin] + rep
        return trips

    whole = representatives(counts)
    if all(whole[o] - found.roots[o] == counts[o] for o in found.roots):
        return None
    # a per-core range's count is, on some launch, each block's share of it: every count from 0 to
    # the kernel's (docs/design.md, "Per-core shares"), each at its own representative (probe h237: the
    # one representative of the whole count stood for block 0 of one block, and a defect at a share of
    # another residue, or of one task, raced at 2 to 5 blocks)
    shared = sorted((o for o in found.roots if o in found.per_core_roots), key=repr)
    for o in shared:
        if counts[o] > MAX_SHARE_SCAN and representatives({**counts, o: MAX_SHARE_SCAN})[o] \
                - found.roots[o] == MAX_SHARE_SCAN:
            return None  # (shares past the scan not yet at their representatives: the real run is followed)
    choices = [sorted({*range(min(counts[o], MAX_SHARE_SCAN) + 1), counts[o]}) for o in shared]
    if math.prod(len(c) for c in choices) > MAX_SHARE_PAIRS:
        return None  # (two per-core ranges of thousands of tasks each: the real run is followed, probe h239)
    runs: dict[tuple, tuple[dict, dict]] = {}
    for values in itertools.product(*choices):
        each = {**counts, **dict(zip(shared, values, strict=True))}
        trips = representatives(each)
        runs.setdefault(tuple(sorted(trips.items(), key=repr)), (each, trips))
    return [Config(zeros=dict(found.roots), symbolic_dims=True, symbolic_names=frozenset(names),
                   real_trips={o: found.roots[o] + counts[o] for o in found.roots},
                   shares={o: (each[o], counts[o]) for o in shared if each[o] != counts[o]},
                   steady=b.steady(found, trips), serial_steady=b.serial_steady(found, trips),
                   primed=(found.primed, {}), **b.drawn(found, trips)) for each, trips in runs.values()]


def _but(steady: dict, every: set) -> dict:
    """The steady periods of the loops whose roots are not run at every value (`every`)."""
    return {root: window for root, window in steady.items() if root not in every}


def _greatest_value(origin) -> float:
    """The greatest value a trip-count root can take, where constants bound it: a `min` with one
    (`min(pl.getval(meta, 0), 4)` is at most 4), and a `max`, a product or quotient by a positive
    constant or a constant added to such a value; inf for any other root."""
    if type(origin) is int:
        return origin
    if not (isinstance(origin, tuple) and origin[:1] == ("op",) and len(origin) == 4):
        return math.inf
    origin = _constant_right(origin)
    if origin[1] in ("max", "min"):
        return (max if origin[1] == "max" else min)(_greatest_value(origin[2]), _greatest_value(origin[3]))
    if type(origin[3]) is int and origin[1] in ("add", "sub", "floordiv", "mul"):
        most = _greatest_value(origin[2])
        if most == math.inf:
            return most
        if origin[1] in ("floordiv", "mul"):
            if origin[3] <= 0:
                return math.inf
            return most // origin[3] if origin[1] == "floordiv" else most * origin[3]
        return most + (origin[3] if origin[1] == "add" else -origin[3])
    return math.inf


def _least_value(file, kernel, origin) -> float:
    """The least value a launch can give a trip-count root: that of the declared type of a scalar
    parameter or of a tiling-data field (`rounds: pl.DT_UINT8` is never -1, which the emulator
    refuses to launch with too; probe h117), the larger of a `max`'s and the smaller of a `min`'s
    (`max(pl.getval(meta, 0), 0)` is never -1: probe h118), 0 for an `abs` or a tensor dimension, the
    least of an element read of a GM tensor's integer dtype, a product or quotient by a positive
    constant or a constant added to such a value; -inf for any other root."""
    if type(origin) is int:
        return origin
    if isinstance(origin, tuple) and len(origin) == 4 and origin[:2] in (("op", "max"), ("op", "min")):
        pick = max if origin[1] == "max" else min
        return pick(_least_value(file, kernel, origin[2]), _least_value(file, kernel, origin[3]))
    if isinstance(origin, tuple) and len(origin) == 3 and origin[:2] == ("op", "abs"):
        return max(_least_value(file, kernel, origin[2]), 0)  # `abs(n)` (probe h119)
    if isinstance(origin, tuple) and len(origin) == 4 and origin[0] == "op":
        origin = _constant_right(origin)
    if isinstance(origin, tuple) and len(origin) == 4 and origin[0] == "op" and type(origin[3]) is int:
        # `rounds // 2`, `rounds + 1` of a count whose least value is known (probe h118)
        least = _least_value(file, kernel, origin[2])
        if least == -math.inf:
            return least
        if origin[1] == "floordiv" and origin[3] > 0:
            return least // origin[3]
        if origin[1] == "mul" and origin[3] > 0:
            return least * origin[3]
        if origin[1] in ("add", "sub"):
            return least + (origin[3] if origin[1] == "add" else -origin[3])
    if isinstance(origin, tuple) and origin[:1] == ("shape",):
        return 0  # a tensor dimension (`min(meta.shape[0], 4)` is never -1: probe h119)
    if isinstance(origin, tuple) and origin[:2] == ("read", "GM") and origin[-1][:1] == ("at",):
        # an element of a GM tensor of an integer dtype (`meta: pl.Tensor[[8], pl.DT_UINT32]`: probe h119)
        param = next((p for p in parameters(kernel.node) if p.name.value == origin[-1][1]), None)
        ann = _gm_annotation(file, param) if param is not None else None
        dtype = ann.slice[1].slice if ann is not None and len(ann.slice) == 2 else None
        values = scalar_int_values(pl_dtype(file, dtype.value, file.pl.path)) if isinstance(dtype, cst.Index) else None
        if values is not None:
            return values[0]
    if isinstance(origin, tuple) and len(origin) == 2 and origin[0] == "param":
        name, _, attr = origin[1].partition(".")
        param = next((p for p in parameters(kernel.node) if p.name.value == name), None)
        if param is None:
            return -math.inf
        if attr:
            field_least = tiling_field_least(file, param, attr)
            return -math.inf if field_least is None else field_least
        if declared_integer(file, param, file.pl.path):
            return int_range(param, file.pl.path, file)[0]
    return -math.inf


def _constant_right(origin: tuple) -> tuple:
    """`("op", "mul", 2, x)` as `("op", "mul", x, 2)`: a sum or product with the constant on the left
    (`2 * min(n, 4)`, probe h123), read as the one with it on the right."""
    if origin[1] in ("add", "mul") and type(origin[2]) is int and type(origin[3]) is not int:
        return ("op", origin[1], origin[3], origin[2])
    return origin


def _stride(file, kernel, origin) -> tuple[int, int] | None:
    """`(k, c)` when every value a trip-count root can take is `c` modulo `k > 1`: a product of an
    integer run-time value by a constant (`max(reps, 0) * 2` is even), a constant added to one, a
    `max`/`min` of such values and constants of their class. None for any other root: it is run at
    every count (probe h120: a hand kernel balanced at the even counts its loop can run was refused
    at 1)."""
    if not (isinstance(origin, tuple) and len(origin) == 4 and origin[0] == "op"):
        return None
    op, a, b = origin[1:]
    if op == "mul":
        scale, value = (b, a) if type(b) is int else (a, b) if type(a) is int else (0, None)
        if abs(scale) < 2 or not _integral(file, kernel, value):
            return None
        k, c = _stride(file, kernel, value) or (1, 0)
        return abs(scale) * k, scale * c % (abs(scale) * k)
    if op in ("add", "sub") and type(b) is int or op == "add" and type(a) is int:
        value, shift = (a, b) if type(b) is int else (b, a)
        inner = _stride(file, kernel, value)
        return None if inner is None else (inner[0], (inner[1] + (-shift if op == "sub" else shift)) % inner[0])
    if op in ("max", "min"):
        strides = {_stride(file, kernel, x) for x in (a, b) if type(x) is not int}
        stride = strides.pop() if len(strides) == 1 else None
        if stride is None:
            return None
        k, c = stride
        return (k, c) if all((x - c) % k == 0 for x in (a, b) if type(x) is int) else None
    return None


def _integral(file, kernel, origin) -> bool:
    """Is every value of the run-time value `origin` an integer: a tensor dimension, a scalar,
    tiling-data field or GM element of an integer type (those whose least value is known), and
    sums, products, quotients, residues, `max`, `min` and `abs` of such values?"""
    if type(origin) is int:
        return True
    if isinstance(origin, tuple) and origin[:1] == ("op",):
        return origin[1] in ("add", "sub", "mul", "floordiv", "mod", "max", "min", "abs") \
            and all(_integral(file, kernel, x) for x in origin[2:])
    return _least_value(file, kernel, origin) > -math.inf


def _static_dims(file, kernel) -> dict:
    """Each GM tensor parameter's static dimensions."""
    dims = {}
    for p in parameters(kernel.node):
        ann = _gm_annotation(file, p)
        items = [e.slice.value for e in ann.slice if isinstance(e.slice, cst.Index)] if ann is not None else []
        value = file.evaluator.try_eval(items[0], None) if items else None
        if isinstance(value, (list, tuple)):
            dims[p.name.value] = tuple(value)
    return dims


def _range_constants(file, kernel, known: bool = True) -> dict:
    """Module names the kernel body bounds a `pl.range` with (`pl.range(0, N_ITER)`): with
    `known`, the constants and their values (followed as trip-count roots when the run is
    long); else the names whose value cannot be known statically (bound under a runtime `if`,
    imported from another module, ...), which are trip counts known only at run time, like a
    scalar parameter."""
    found: dict = {}
    for call in file.find(kernel.node, cst.Call):
        if file.pl.path(call.func) != ("range",) or not call.args or len(call.args) > 3:
            continue
        stop = call.args[0 if len(call.args) == 1 else 1].value
        if isinstance(stop, cst.Name):
            stop = _alias(file, kernel, stop)  # `nt = NT`, then `pl.range(0, nt)`
        if not known and _imported_attribute(file, stop):  # `pl.range(0, config.NT)`
            found[file.source.code(stop)] = None
            continue
        if known:  # `pl.range(0, SEQ // TILE)`, `N - 1`: the constant the count is computed from (probe h232)
            stop = _counted_name(file, stop)
        if not isinstance(stop, cst.Name):
            continue
        if known and stop.value in file.constants:
            value = file.evaluator.try_eval(stop, None)
            if isinstance(value, int) and not isinstance(value, bool):
                found[stop.value] = value
        elif not known and isinstance(file.names.meanings.get(stop.value), Unknown):
            found[stop.value] = None  # bound under a run-time `if`, imported (`from .config import N`), ...
    return found


def _counted_name(file, stop: cst.BaseExpression) -> cst.BaseExpression:
    """The name a loop's stop computes its count from by whole numbers (`SEQ // TILE`, `N - 1`,
    `N // 2 + 1` name `SEQ` and `N`), else the stop itself."""
    while type(stop) is cst.BinaryOperation and type(stop.operator) in (cst.FloorDivide, cst.Add, cst.Subtract):
        by = file.evaluator.try_eval(stop.right, None)
        if type(by) is not int or type(stop.operator) is cst.FloorDivide and by <= 0:
            return stop
        stop = stop.left
    return stop


def _alias(file, kernel, name: cst.Name) -> cst.BaseExpression:
    """What a kernel-body name bound once, by a plain `x = NAME` or `x = module.NAME`, stands for
    (an imported trip count given a local name); else the name itself."""
    values = [a.value for a in file.find(kernel.node.body, cst.Assign)
              if any(isinstance(t.target, cst.Name) and t.target.value == name.value for t in a.targets)]
    if len(values) != 1 or not isinstance(values[0], (cst.Name, cst.Attribute)) \
            or _rebound_elsewhere(file, kernel, name.value):
        return name
    return values[0]


def _rebound_elsewhere(file, kernel, name: str) -> bool:
    """Is `name` bound in the kernel body other than by one plain assignment (a parameter, a loop
    target, an augmented or annotated assignment, a `with ... as`, a `:=`)?"""
    if any(p.name.value == name for p in parameters(kernel.node)):
        return True
    for node in file.find(kernel.node.body, (cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName, cst.NamedExpr)):
        target = node.name if isinstance(node, cst.AsName) else node.target
        if any(n.value == name for n in file.find(target, cst.Name)):
            return True
    return False


def _imported_attribute(file, node) -> bool:
    """`module.NAME` of a module the file imports (`import config`): a value known only at run
    time, as an imported name is."""
    return (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
            and isinstance(file.names.meanings.get(node.value.value), Unknown)
            and file.names.meanings[node.value.value].imported and file.pl.path(node) is None)


def _holds(origin, part) -> bool:
    """Does the run-time value `origin` (a nested tuple) hold `part`, or is it `part`?"""
    return origin == part or isinstance(origin, tuple) and any(_holds(o, part) for o in origin)

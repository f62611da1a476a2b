"""Is a loop of run-time trip count uniform in its loop variable? (the conditions of the
trip-count argument, docs/design.md "For every trip count").

The soundness check runs one concrete configuration. For a pipeline loop whose trip count is
known only at run time (a `pl.DYNAMIC` dimension, a scalar parameter) it runs every trip count
up to a bound and claims the result for every trip count. That claim needs the loop body to be
*uniform*: the loop variable, the counters carried across iterations and the trip count may
enter the kernel only as

* GM offsets affine in the loop variable or a counter (`ki * TKV + c`), with every access of a
  written tensor at the same stride and its tiles within one stride (so accesses of different
  iterations never overlap, whatever the trip count and the number of blocks);
* boundary tests that single out only the first or only the last iteration (`ki == 0`,
  `ki > 0`, `ki == kv_tiles - 1`, `ki < n - 1`) or only the empty loop (`n > 0`);
* residues `x % k` with a static `k` (periodic: `k` joins the period), and masks `x & m` of a
  number `m >= 0`, the residue `x % 2**b` (`b` the bits of `m`) masked;
* stage arguments and struct fields passed through unchanged.

Values are `Sym` integers: the concrete number of this run plus a form, the coefficient of each
variable the number depends on. Variables are `("loop", id)` (a loop variable), `("carried",
name)` (a counter `x = x + c` carried across iterations), `("size", origin)` (a trip count:
`("param", name)` or the origin of a `pl.DYNAMIC` expression), `("core", name)` (the block
index and count) and `("derived", n, roots)` (anything else computed from sizes and cores).
Whatever falls outside raises `NonUniform`, naming the construct and what would make it provable.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from pto_transpile.soundness.events import INF
from pto_transpile.soundness.params import INT64
from pto_transpile.soundness.revisits import met_again
from pto_transpile.soundness.rotations import Rotations
from pto_transpile.soundness.values import Opaque, Sym, nonnegative, root_words, shifted

#: the coordinates of a tile grid, `x // n` and `x % n` of a loop variable (`Uniform.grid`)
GRID = "grid"
INDEX = ("loop", "carried", GRID)
#: the stand-in count of a grid whose count the run has no number for, in half of the runs
#: (`Uniform.grid`): more tiles than any run has, so that every tile is in one row
GRID_WIDE = 1 << 20
#: the block index in a test a choice names (`pysubset._by_block`): a block value
INDEX_TERM = ("block", "index")
#: the last block's index, `num_cores - 1`, there
LAST_TERM = ("block", -1, "count")
#: the longest period of residue tests on a parameter that the check runs every residue of;
#: tests on longer ones stay sampled
MAX_RESIDUE_PERIOD = 64


#: What a refusal about the blocks says the check cannot prove.
ON_BLOCKS = "the kernel on more than one block"
#: The kinds of problem a NonUniform is reported as (`NonUniform.kind`).
KINDS = frozenset({"nonuniform", "blocks", "cases", "offsets"})


class NonUniform(Exception):
    """The loop body uses a loop variable, counter or trip count outside the conditions."""

    def __init__(self, what: str, fix: str, claim: str = "the loop for every trip count", at: Any = None,
                 kind: str | None = None):
        super().__init__(what)
        self.what, self.fix, self.claim = what, fix, claim
        #: the kind of problem when the claim does not tell it (`kind`)
        self._kind = kind
        #: the access to point at (from `at`, a `Said`, or set by the raiser), else the caller's node
        self.node: Any = getattr(at, "node", None)
        #: named only if no run shows a more precise problem (`check.Problem.deferred`)
        self.deferred = False

    @property
    def kind(self) -> str:
        """The kind of problem, for its hint: the blocks, a scalar's values (its tests, or the GM
        offsets it moves: "offsets") or a loop's trip counts."""
        if self._kind is not None:
            return self._kind
        return "blocks" if self.claim == ON_BLOCKS else \
            "cases" if self.claim.startswith("the kernel for every value") else "nonuniform"


class Said:
    """An access's code, printed only when a message names it, with its node for the caret."""

    __slots__ = ("node", "_code_of")

    def __init__(self, node: Any, code_of: Callable[[Any], str]) -> None:
        self.node, self._code_of = node, code_of

    def __call__(self) -> str:
        return self._code_of(self.node)


#: the name a request for the other counts of a per-core range over a static count carries among
#: `Uniform.cut_values` (no parameter has it: it is not an identifier)
PER_CORE_COUNT = "<per-core tasks>"
#: the name of a cut (`cut_values`) whose value is (trip-count root, a count that empties its loop)
EMPTY_COUNT = "<empty trip count>"
#: the name of a cut (`cut_values`) whose value is (sampled value, the code of a test on it that
#: cuts its values): words for a refusal of too many cases, never a run
TESTED_BY = "<tested by>"


@dataclass
class Loop:
    """One loop of run-time trip count, as it runs now."""

    key: tuple  #: its variable, ("loop", id(node))
    label: str  #: the loop variable's name, for messages
    start: int
    step: int
    trips: int
    root: Any  #: the size variable its stop is (`("size", origin)`), or None
    per_core: bool  #: start or step come from the block index or count
    stop_form: tuple = ()  #: the stop's form and constant: `ki < stop` holds in every iteration
    stop_const: int = 0
    #: each core's start, as (form, constant): a per-core range starts at its block index,
    #: which each core computes for itself
    starts: tuple = ()
    #: the block's chunk start it starts at (`pl.range(start, end)`, `Uniform.opaque_chunk`), or None
    chunk: Any = None
    #: the value of its root that gives it no iteration (its own: another loop over the same
    #: count may start elsewhere), or None
    zero: int | None = None
    #: a per-core range's step where it is not the block count: the form and constant of the
    #: host's core count the blocks that go on are below (`Loops.host_step`), the step `i +
    #: used_cores >= n` tests the last iteration by
    host_step: tuple = ()


@dataclass
class Access:
    tensor: str
    write: bool
    coords: tuple  #: per coordinate: (linear part, constant, extent) or None when not affine
    #: the access's code, printed only when a message names it (`text`)
    code: Callable[[], str]
    #: per coordinate: the scalar kernel parameters in it (`("scalar", name)`, or a value
    #: derived from them) with their coefficients: the part that moves with their values
    shift: tuple = ()
    #: the barriers passed before it (`OpEvents._epoch`: of every core, and of its own kind), made
    #: the phase it is judged in by `_phases`
    epoch: Any = 0
    may: bool = False  #: made under a condition the check follows both ways
    #: "before"/"after" when made outside every loop of run-time trip count, before any of them
    #: began or after one did; "" inside one
    outside: str = ""
    node: Any = None  #: the op's statement, where a message points
    #: the loops of run-time trip count it is made in, outermost first (`Loop.key`)
    inside: tuple = ()

    @property
    def text(self) -> str:
        return self.code()

    @property
    def tensor_epoch(self) -> tuple:
        return (self.tensor, self.epoch)


@dataclass
class Uniform:
    """What one run learnt: periods, trip roots, the GM accesses to judge at the end."""

    discover: bool = False
    #: stage calls of a generated kernel running: their tests of a trip count are the serial
    #: kernel's, judged in its run with the loops around them (a drain runs them after the loop)
    replayed: int = 0
    periods: set = field(default_factory=set)
    #: period -> what takes it, first seen (`ki % 7`, a tile group of 7 slots), for a message
    #: naming a period too long to run every phase of, or one the discovery run did not see
    period_sources: dict = field(default_factory=dict)
    #: trip-count root -> the lcm of every `k` of a residue `root % k` taken of it
    root_periods: dict = field(default_factory=dict)
    #: size variable -> {loop key: its period} of the loops over it that ran to their end: what
    #: they left may depend on the count's phase, a residue of it for a later loop over it
    left_periods: dict = field(default_factory=dict)
    rings: set = field(default_factory=set)  #: lengths of struct arrays (the ctx ring)
    depths: set = field(default_factory=set)  #: slot counts of tile groups
    roots: dict = field(default_factory=dict)  #: size variable -> its value giving 0 iterations
    #: size variable -> the value giving 0 iterations of each loop over it (`roots` holds the first's)
    root_zeros: dict = field(default_factory=dict)
    outer: set = field(default_factory=set)  #: roots of loops that contain another dynamic loop
    nested: set = field(default_factory=set)  #: (outer root, inner root) of dynamic loops one inside the other
    #: size variables found in GM offsets (discovery) -> the code of the first such offset and its op
    in_address: dict = field(default_factory=dict)
    #: size variables of the chunk starts found in GM offsets (`core_id * my_n`, discovery)
    chunk_roots: set = field(default_factory=set)
    loops: dict = field(default_factory=dict)  #: ("loop", id) -> Loop, while it runs
    values: dict = field(default_factory=dict)  #: variable -> its current value
    accesses: list = field(default_factory=list)
    active: list = field(default_factory=list)  #: the dynamic loops running, outermost first
    derived: int = 0
    #: (operator, operands) -> the derived variable of that operation (`_derive`)
    derived_by_operation: dict = field(default_factory=dict)
    stalled: set = field(default_factory=set)  #: counters seen unchanged over an iteration
    #: some blocks return early (`if core_id >= n: return`, `PythonSubset._early_return`)
    early_exit: bool = False
    #: what the block index of every block that goes on is below, by such a return (`core_id <
    #: used_cores`), as (form, constant) (`pysubset._stay_below`): a per-core range may step by it
    #: (`Loops.host_step`)
    blocks_below: set = field(default_factory=set)
    #: loop variable -> the loop's step in this run (`_step_of`)
    loop_steps: dict = field(default_factory=dict)
    #: counter -> every step it took over an iteration, on any core (the last iteration's too)
    counter_steps: dict = field(default_factory=dict)
    scalar_values: dict = field(default_factory=dict)  #: sampled scalar parameter -> this run's value
    #: sampled scalar parameter -> the least and greatest value it can take (INT64 when not given)
    scalar_ranges: dict = field(default_factory=dict)
    #: a scalar parameter followed as a trip-count root (`("param", name)`) -> this run's value
    param_values: dict = field(default_factory=dict)
    #: parameter -> the roots of this run's tests affine in it (`cut`)
    scalar_roots: dict = field(default_factory=dict)
    #: parameter -> {(a, c, k): residues around the roots of this run's tests on `(a * d + c) % k`}
    scalar_residues: dict = field(default_factory=dict)
    #: derived variable -> (parameter, a, c, k) for `(a * d + c) % k`
    residues_of: dict = field(default_factory=dict)
    #: tests on sampled parameters outside the argument (text -> the parameters in it)
    unsettled: dict = field(default_factory=dict)
    #: sampled value -> {the code of a test that cut its values: the roots it cut them at} (`cut`,
    #: `TESTED_BY`: the test of most roots names the cases, probe h253)
    tested_by: dict = field(default_factory=dict)
    #: tests of the block index or count (`core_id == 1`), each followed both ways
    block_tests: list = field(default_factory=list)
    #: what rotates, for the period of each loop (`rotations.Rotations`)
    rot: Rotations = field(default_factory=Rotations)
    #: the residue being taken picks an entry of a certified sequence (`Rotations.pick_residues`)
    pick_index: bool = False
    #: the kernel spreads its work over the blocks: a per-core range, or a GM access whose place
    #: moves with the block (`block_write`)
    spread: bool = False
    #: the epochs of the records are phases already (`_phases`)
    phased: bool = False
    #: the variables of the per-core ranges (`pl.range(core_id, n, num_cores)`), one value per block
    per_core: set = field(default_factory=set)
    #: the trip-count roots of per-core ranges (origins): each block runs its own share of the
    #: count, so anything but the range's own count that reads the root is refused (`_whole_count`);
    #: from the discovery run, which gathers them in `per_core_roots_seen`
    per_core_roots: frozenset = frozenset()
    per_core_roots_seen: set = field(default_factory=set)
    #: per-core root -> the start, step and zero of the first per-core range over it (`_per_core_share`)
    per_core_shapes: dict = field(default_factory=dict)
    #: the tasks (at one block) of the per-core ranges over a static count this run met whose
    #: other counts no run has taken yet (`Config.per_core_counts`): asked for by `cut_values`
    per_core_static: set = field(default_factory=set)
    #: tests that tell apart counts giving a loop no iteration (the root's variable, the test's
    #: `t * n + c`, the loop's zero): each side run as a case of its own (`cut_values`)
    empty_cuts: set = field(default_factory=set)
    #: (tensor, code) of each GM write whose place does not depend on the block (`block_write`)
    shared_writes: list = field(default_factory=list)
    #: (tensor, code) of each GM write at a place the run cannot follow (`block_write`)
    unplaced_writes: list = field(default_factory=list)
    #: ((tensor, epoch), code) of each GM read at a place the run cannot follow (`block_read`)
    unplaced_reads: list = field(default_factory=list)
    #: ((tensor, epoch), rectangle, code) of each GM read whose place does not depend on the block
    shared_reads: list = field(default_factory=list)
    #: (tensor, epoch) of every GM write
    written: set = field(default_factory=set)
    #: GM tensors a loop of run-time trip count writes at a place that does not move with it (the same
    #: place, or a residue of the loop variable): two accesses there may meet however far apart
    #: their tasks are (`check._revisited_past`)
    revisited: set = field(default_factory=set)
    #: GM tensor -> (op, write) of each of its accesses in such a loop at places the run does not place
    #: (an element, the whole tensor: `OpEvents._record_gm`)
    loose: dict = field(default_factory=dict)
    #: ((tensor, epoch), blocks, rectangle, code) of each such write under tests singling out `blocks`
    guarded_writes: list = field(default_factory=list)
    #: ((tensor, epoch), rectangle, code) of each atomic add every block makes at one place
    #: (`block_atomic`): they commute with each other, with nothing else
    shared_atomics: list = field(default_factory=list)
    #: (tensor, epoch) -> (code, rectangle) of each plain GM access there (`block_read`,
    #: `block_write`): the rectangle of a place every block names, None for a block's own
    #: place (other blocks reach others) or a place not known
    plain: dict = field(default_factory=dict)
    #: a block's chunk start (`core_id * my_n`, `_block_times_constant`) -> what it steps by from
    #: one block to the next in this run
    block_steps: dict = field(default_factory=dict)
    #: a block's chunk start by a run-time size (`core_id * chunk`, `opaque_chunk`) -> (the
    #: size's origin, what the start steps by per unit of it from one block to the next)
    block_bounds: dict = field(default_factory=dict)
    #: such a chunk start -> the run-time value it is, for arithmetic with other run-time values
    #: (`min(chunk, n - start)`)
    chunk_values: dict = field(default_factory=dict)
    #: (tensor, code, step) of each GM access offset by a chunk start that leaves its block's chunk
    chunk_breaks: list = field(default_factory=list)
    #: size variables of the loops whose first or last iteration a test singles out (`ki == 0`,
    #: `t == core_id`, `ki == n - 1`): their iterations are not all alike (`_Bounds.steady_pair`)
    edged: set = field(default_factory=set)
    #: each tile grid (`grid`: the loop variable's form and constant, the count's key) -> `k` when
    #: its count is a floor quotient `D // k` of a run-time size (no row holds more than `D // k`
    #: tiles of `k` elements), else None
    grids: dict = field(default_factory=dict)
    #: the grids whose row (`idx // n`) the run computed: a column alone (`ki % p`) is a residue by a
    #: run-time value, as a message names it
    grid_rows: set = field(default_factory=set)

    # --- a tile grid ------------------------------------------------------------------------
    def grid(self, fn, left: Any, right: Any, wide: bool = False, count: int | None = None) -> Sym | None:
        """`x // n` or `x % n`, with `x` affine in the variable of a loop and `n` a count known
        only at run time, the same on every block and through the run (a size, a quotient of
        one, a parameter): a coordinate of the tile grid the loop walks (`i = idx // n_tiles`,
        `j = idx % n_tiles`), a variable of its own. Two iterations have different `x`, hence
        different `(x // n, x % n)` for every `n >= 1`, so an access placed by both
        coordinates along two axes keeps them apart (`_grid_apart`); the coordinates may enter
        nothing else (tests, residues, indices are refused). The run computes them with its own
        value of `n` (`count` when the run follows one launch); where it has none, with a
        stand-in, 1 or (`wide`) `GRID_WIDE`: nothing else
        depends on it, and each makes one coordinate differ from task to task (the row with 1,
        the column with the other), so that a coordinate a stage receives from another task than
        serially differs from the serial one in the runs of one kind or the other. None for
        anything else."""
        if not walks_grid(fn, left):
            return None
        key = _grid_count(right)
        if key is None:
            return None
        n = int(right) if isinstance(right, Sym) else count if count is not None else GRID_WIDE if wide else 1
        if n <= 0:
            return None
        gid = (left.form, left.const, key)
        self.grids.setdefault(gid, _floor_bound(right))
        if fn is operator.floordiv:
            self.grid_rows.add(gid)
        value = int(left) // n if fn is operator.floordiv else int(left) % n
        return Sym(value, (((GRID, gid, "q" if fn is operator.floordiv else "r"), 1),), False, 0, value)

    def _grid_apart(self, accs: list[Access]) -> bool:
        """Do the accesses keep different iterations apart by the two coordinates of one tile
        grid: along one axis every one at `q * s0 + c` and along another at `r * s1 + c'`, each
        axis's tiles within one stride? Distinct iterations differ in `q` or in `r`. An axis
        other than the first must also hold the row: from 0 to at most `s1` past `r * s1`, with
        the grid's count a floor quotient `D // k`, `k >= s1` (the last tile ends by `n * s1 <=
        D`; a longer row would run on into the next one, another iteration's)."""
        axes = range(min(len(a.coords) for a in accs))
        for a0 in axes:
            q = _grid_axis(accs, a0, "q")
            if q is None:
                continue
            for a1 in axes:
                r = _grid_axis(accs, a1, "r") if a1 != a0 else None
                if r is None or r[0][1] != q[0][1]:
                    continue
                (_, gid, _), s1, lo, hi = r
                if a1 == 0:
                    return True
                k = self.grids.get(gid)
                if k is not None and 0 < s1 <= k and lo >= 0 and hi <= s1:
                    return True
        return False

    def period_source(self, k: int, words: Callable[[], str]) -> None:
        """Record what takes the period `k` (`words()`, asked once per period of a run): a
        period too long for the check, or one a later run finds that the discovery run missed,
        names it."""
        if k not in self.period_sources:
            self.period_sources[k] = words()

    # --- arithmetic -----------------------------------------------------------------------
    def binop(self, fn, left: Any, right: Any, value: Any, text: Callable[[], str]) -> Any:
        """`value = fn(left, right)` computed concretely; its form, or NonUniform. `text()` is
        the expression's code, asked for only by a message (the code of a node is printed the
        first time it is asked for)."""
        # (`_form` and `_residue` of each operand, with one type test each)
        left_sym, right_sym = isinstance(left, Sym), isinstance(right, Sym)
        lf: tuple = left.form if left_sym else ()
        rf: tuple = right.form if right_sym else ()
        lres = left.residue if left_sym else False
        rres = right.residue if right_sym else False
        if not isinstance(value, int) or isinstance(value, bool):
            # a float of a residue (`1.0 + ki % 2`) takes one value per residue, as a test of the
            # residue choosing it would (`2.0 if ki % 2 == 1 else 1.0`): periodic, kept as the value
            if _index(lf) and not lres or _index(rf) and not rres:
                # `i * 0.5`: a value of its own for each iteration, as a value read from GM is (probe
                # h103): the data operand of an op takes it, a test on it is followed both ways,
                # and a place computed from it is refused as one of a run-time value
                return Opaque(("op", fn.__name__, int(left) if left_sym else left, int(right) if right_sym else right))
            return value
        if fn is operator.add or fn is operator.sub:
            if (lres or rres) and (_index(lf) and not lres or _index(rf) and not rres):
                residue = lf if lres else rf
                if residue and not _index(residue):
                    # `ki + d % 2`: a residue of a parameter or size, the same in every iteration
                    # (probe h221: told to keep residues apart from offsets, with no form that works)
                    raise NonUniform(f"`{text()}` adds a residue of a value known only at run time (a parameter or "
                                     "a size, `x % k`) to a value that grows with the loop variable: the check "
                                     "follows residues as values that repeat with the loop",
                                     "compute the residue before the launch and pass it as a scalar parameter of its "
                                     "own (`shift: pl.DT_INT32`), which the check places as a run-time offset")
                raise NonUniform(f"`{text()}` adds a residue to a value that grows with the loop variable",
                                 "keep residues (`x % k`) apart from offsets")
            if (lres or rres) and (lf and not lres or rf and not rres):
                # `ki % 2 + n`: periodic in neither the loop variable nor anything else, and its
                # form (that of `ki` and `n`) would say it grows with both
                raise NonUniform(f"`{text()}` adds a residue to a value known only at run time (a trip count, a "
                                 "parameter, the block index or a value read from GM)",
                                 "keep residues (`x % k`) apart from values known only at run time: for a GM "
                                 "workspace of several slots per block, give each slot a tensor of its own, picked "
                                 "by the residue (`(ws_a, ws_b)[j % 2]`) and offset by the run-time value alone")
            sign = 1 if fn is operator.add else -1
            form = _add(lf, rf, sign)
            if lres and rres and len(form) < len({v for v, _ in lf} | {v for v, _ in rf}):
                # `(ki % 4) + (-ki % 4)` (0, 4, 4, 4, ...): residues do not cancel as their variables do
                form = _depends(lf, rf)
            const = (left.const if left_sym else int(left)) + sign * (right.const if right_sym else int(right))
            return Sym(value, form, lres or rres, const,
                       (left.moving if left_sym else 0) + sign * (right.moving if right_sym else 0))
        if lres and rres:
            # `(ki % 7) * (ki % 7)`, `(ki & 15) << (ki % 3)`: any function of values periodic in the
            # loop variables is periodic with the lcm of their periods, which those residues joined;
            # its form names what it depends on, no term cancelling another (`(ki % 4) * (-ki % 4)`)
            return Sym(value, _depends(lf, rf), True)
        if fn is operator.mul:
            if left_sym and right_sym:  # (`_times_blocks` and `_block_times_constant` ask both)
                by_blocks = _times_blocks(left, right)
                if by_blocks is None:
                    by_blocks = _times_blocks(right, left)
                if by_blocks is not None:
                    return by_blocks
                chunk = next(((b, o) for b, o in ((left, right), (right, left)) if _block_times_constant(b, o)),
                             None)
                if chunk is not None:
                    # `core_id * my_n` (a block's first tile of contiguous chunks): 0 at block 0 for
                    # every trip count, one constant through each block's run, the same variable
                    # wherever it is computed (its factors name it)
                    factors = tuple(sorted(((_form(x), _const(x)) for x in (left, right)), key=repr))
                    var = ("derived", factors, frozenset(_roots(lf) | _roots(rf)), "block")
                    block, other = chunk
                    self.block_steps[var] = block.form[0][1] * int(other)
                    return Sym(value, ((var, 1),))
            if not rf or not lf:
                k = int(right) if not rf else int(left)
                sym = right if rf else left
                return Sym(value, tuple([(v, c * k) for v, c in (lf or rf) if c * k]), lres or rres,
                           _const(sym) * k, _moving(sym) * k)
            if _loop_times_count(lf, rf) and not any(var in self.roots for var, _ in lf + rf if var[0] == "size"):
                # `i * d` of a parameter that bounds no loop: a stride known only at run time (probe h121)
                raise NonUniform(f"`{text()}` multiplies a loop variable by a value known only at run time, a stride "
                                 "the check does not follow for every value",
                                 "make the stride a compile-time constant (a module constant, or a tiling-key field "
                                 "with a value for each stride the kernel is compiled for)")
            if _loop_times_count(lf, rf):
                raise NonUniform(f"`{text()}` multiplies a loop variable by a trip count (the flat index of a tile "
                                 "grid, `i * n + j`), which the check does not follow for every count",
                                 "walk the tiles with one loop over their flat index, and read the coordinates back "
                                 "from it (`for t in pl.range(core_id, m * n, num_cores):`, then `i = t // n`, `j = t "
                                 "% n`, the row `t * TILE` of a tensor whose rows are the tiles one after another, as "
                                 "a batch of sequences flattened into rows), or address the grid in two dimensions, "
                                 "the loop variables each in its own (`[i * TILE + r, j * TILE]` of a `[M * TILE, N * "
                                 "TILE]` tensor)")
            return self._derive(value, lf, rf, text, "multiplies two values that vary", (fn, left, right))
        if fn in (operator.mod, operator.floordiv) and (on_grid(lf) or on_grid(rf)):
            raise NonUniform(f"`{text()}` divides a coordinate of a tile grid (`idx // n`, `idx % n`) or takes its "
                             "residue: a value the check does not follow for every count of the grid",
                             "use the grid's coordinates only in GM offsets (`i * TILE`, `j * TILE`); to take a "
                             "residue of one, walk the grid with two nested loops (`for i in pl.range(core_id, "
                             "m_tiles, num_cores):` around `for j in pl.range(0, n_tiles):`)")
        if fn is operator.mod:
            per_core = [self.loops[v].label for v, _ in lf if v in self.loops and self.loops[v].per_core]
            if _index(lf) and any(is_block_value(var) for var, _ in lf):
                # `(t + core_id) % 2`: which residue a beat takes depends on the block, which the
                # run follows at block 0 only
                raise NonUniform(f"`{text()}` takes a residue of the loop variable moved by the block index or count, "
                                 "whose residues differ between blocks",
                                 "take residues of the iterations counted from the loop's start (`(i - start) % 2` "
                                 "in `pl.range(start, stop)`, where `start` holds the block's offset), or of a "
                                 "counter (`j = j + 1` in the loop, then `j % 2`)")
            if _index(lf) and any(var[0] not in INDEX for var, _ in lf):
                # `(ki + d) % 7`: which residue an iteration takes depends on `d`, which the run
                # follows at its own value only
                raise NonUniform(f"`{text()}` takes a residue of the loop variable moved by a value known only at "
                                 "run time (a parameter, a size or a value read from GM), whose residues differ "
                                 "from one value to the next", "take residues of the loop variable itself (`ki % 7`), "
                                 "or compute the place from the loop variable and the value without a residue")
            if any(var[-1] == "blocks" for var, _ in lf):
                # `(t * num_cores) % 2` alternates with one block and is constant with two
                raise NonUniform(f"`{text()}` takes a residue of a loop variable times the block count, whose "
                                 "residues depend on the number of blocks",
                                 "take residues of the loop variable itself (`t % 2`)")
            if per_core and not rf:
                # `t % 2` of `pl.range(core_id, n, num_cores)`: t moves by the block count, so
                # which residues a block sees depends on how many blocks there are
                raise NonUniform(f"`{text()}` takes a residue of `{per_core[0]}`, the variable of a per-core range, "
                                 "whose residues on each block depend on the number of blocks",
                                 "where it picks a slot, count the block's own iterations with a counter (`j = j + 1` "
                                 "in the loop, then `j % k`: the residue of the block's iteration, not of the row "
                                 f"`{per_core[0]}`) or let a tile group's `next()` pick the slot; a residue of "
                                 f"`{per_core[0]}` itself is not followed")
            if not rf and int(right) > 0 and (_index(lf) or lres):
                self.periods.add(int(right))
                self.period_source(int(right), lambda: f"`{text()}`")
                (self.rot.pick_residues if self.pick_index else self.rot.residues).add((lf, int(right)))
                return Sym(value, lf, True)
            if not rf and int(right) > 0 and lf and not lres and all(v[0] == "size" for v, _ in lf):
                self._whole_count([v for v, _ in lf], text, "takes a residue of")
                # `n % 2` of a trip count (a software pipeline's drain picks its event ids by it):
                # the same in every iteration, and periodic in the count, whose runs cover every
                # residue once `k` joins the period of the loop it bounds (`root_periods`; of a
                # value the discovery run follows as a size that bounds no loop, `d % 1024` of a
                # scalar parameter, it joins no period: `check._discover`)
                k = int(right)
                self.period_source(k, lambda: f"`{text()}`")
                for var, _ in lf:
                    self.root_periods[var[1]] = math.lcm(self.root_periods.get(var[1], 1), k)
                return Sym(value, lf, True)
            derived = self._derive(value, lf, rf, text, "takes a residue by a value that varies" if rf
                                   else f"takes a residue by {int(right)}, a number below 1", (fn, left, right))
            now = self.scalar_values.get(lf[0][0][1]) if len(lf) == 1 and lf[0][0][0] == "scalar" else None
            if not rf and int(right) > 0 and isinstance(now, int):
                ((var, a),) = lf
                self.residues_of[derived.form[0][0]] = (var[1], a, int(left) - a * now, int(right))
            return derived
        if lres and not rf or rres and not lf:
            # `cur ^ 1`, `(ki % 4) // 2`: any function of a value periodic in the loop variables
            # and a number is periodic with it
            return Sym(value, lf or rf, True)
        if fn is operator.floordiv:
            k = int(right)
            core_only = bool(lf) and all(var[0] == "core" for var, _ in lf)
            if not rf and k > 0 and (_index(lf) or core_only) and not lres and all(c % k == 0 for _, c in lf):
                return Sym(value, tuple((v, c // k) for v, c in lf), False, _const(left) // k, _moving(left) // k)
            if _index(lf) and not rf:
                # `idx // 4` beside `idx % 4`: a grid of a static count of columns
                raise NonUniform(f"`{text()}` divides the loop variable by a number: a value neither affine nor "
                                 "periodic in the loop variable",
                                 "for the row of a grid of tiles with a static number of columns, walk the grid "
                                 "with two nested loops (`for i in pl.range(core_id, m_tiles, num_cores):` around "
                                 f"`for j in pl.range(0, {int(right)}):`); for a residue of the quotient "
                                 f"(`(x // {int(right)}) % m` of the loop variable `x`), take the residue first, which "
                                 f"is periodic: `(x % ({int(right)} * m)) // {int(right)}`; else use the loop variable "
                                 "only in affine GM offsets, boundary tests and residues `% k`")
            return self._derive(value, lf, rf, text, "divides the loop variable", (fn, left, right))
        return self._derive(value, lf, rf, text, "applies this operator to the loop variable", (fn, left, right))

    def _derive(self, value: int, lf: tuple, rf: tuple, text: Callable[[], str], what: str,
                operation: tuple) -> Sym:
        """A variable of its own for a value computed from run-time values other than affinely
        (`d % 2`, `n // num_cores`). The same operation on the same operands is the same variable
        wherever it is computed (probe h221: `d % 2` passed in each iteration was a new value each
        time, so one store's offsets were said to differ between iterations); operands periodic in
        the loop or moving with it are not the same value from one iteration to the next."""
        if _index(lf) or _index(rf):
            raise NonUniform(f"`{text()}` {what}: a value neither affine nor periodic in the loop variable",
                             "use the loop variable only in affine GM offsets (`ki * TILE + c`), boundary tests "
                             "(`ki == 0`, `ki == n - 1`) and residues `% k` with a static `k`")
        roots = frozenset(_roots(lf) | _roots(rf))
        key = _operation_key(*operation)
        var = None if key is None else self.derived_by_operation.get(key)
        if var is None:
            self.derived += 1
            var = ("derived", self.derived, roots)
            if key is not None:
                self.derived_by_operation[key] = var
        return Sym(value, ((var, 1),))

    def negate(self, value: Sym) -> Sym:
        return Sym(-int(value), tuple((v, -c) for v, c in value.form), value.residue, -value.const, -value.moving)

    # --- tests ------------------------------------------------------------------------------
    def test(self, left: Any, right: Any, result: bool, text: str, op=operator.ne) -> bool:
        """A comparison between `left` and `right` (one of them a `Sym`): allowed when it only
        singles out the first iteration, the last or the empty loop; else NonUniform."""
        if any(isinstance(v, float) and not v.is_integer() for v in (left, right)):
            # (probe h102: `n <= -0.5` was read as `n <= 0`, its empty side `n = -1` never run)
            raise NonUniform(f"`{text}` compares a value that varies between runs with a number that is not whole",
                             "compare with a whole number (`n <= -1` for `n <= -0.5`)")
        diff = self.binop(operator.sub, left, right, int(left) - int(right), lambda: text)
        if not isinstance(diff, Sym) or diff.residue:
            return result  # periodic in the loop variable: its period is in `periods`
        form = dict(diff.form)
        index = {v: c for v, c in form.items() if v[0] in INDEX}
        rest = {v: c for v, c in form.items() if v[0] not in INDEX}
        fix = ("test the loop variable only against the first or the last iteration (`ki == 0`, `ki > 0`, "
               "`ki == n - 1`, `ki < n - 1`), or make the condition periodic (`ki % 2 == 0`)")
        if index:
            if on_grid(tuple(index.items())):
                if all(v[0] != GRID or v[2] == "r" and v[1] not in self.grid_rows for v in index):
                    # `ki % p == 1` of a scalar `p`: a residue of a period known only at run time, a column
                    # of a grid as the check reads it (probe h240: no grid, and told to walk one)
                    raise NonUniform(f"`{text}` tests a residue of the loop variable by a value known only at run "
                                     "time, which singles out iterations with a period the check does not follow "
                                     "for every value", "take the residue by a compile-time constant (`ki % P` with "
                                     "`P` a module constant, or a tiling-key field with a value for each period); for "
                                     "the column of a grid of tiles, walk the grid with two nested loops (`for i in "
                                     "pl.range(core_id, m_tiles, num_cores):` around `for j in pl.range(0, "
                                     "n_tiles):`), whose first and last iterations the check follows")
                raise NonUniform(f"`{text}` tests a coordinate of a tile grid (`idx // n`, `idx % n`), which singles "
                                 "out iterations the check does not follow for every count of the grid",
                                 "use the grid's coordinates only in GM offsets; to test one, walk the grid with two "
                                 "nested loops (`for i in pl.range(core_id, m_tiles, num_cores):` around `for j in "
                                 "pl.range(0, n_tiles):`), whose first and last iterations the check follows")
            if len(index) > 1 or next(iter(index))[0] != "loop":
                raise NonUniform(f"`{text}` tests a counter carried across iterations or several loop variables",
                                 fix)
            ((var, a),) = index.items()
            loop = self.loops.get(var)
            if loop is not None and loop.chunk is not None and rest.get(loop.chunk) == a and loop.root in rest:
                # `i < end` from a chunk start: on every block the stop is the start plus the
                # trip count, so the test is one of the task's place `u` against the count
                del rest[loop.chunk]
            if (loop is not None and rest == {v: -a * c for v, c in loop.stop_form}
                    and diff.const == -a * loop.stop_const):
                return result  # the loop variable against the loop's own stop: the same in every iteration
            if loop is not None and loop.per_core and _last_of_per_core(loop, rest, a):
                # `i + num_cores >= n` in `pl.range(core_id, n, num_cores)`: x = i + B - n is in
                # [0, B) at the block's last iteration and below 0 at the others, B any block count
                # (a host's count of `HOST` cores, a number, is in the difference's constant)
                e = diff.const + a * loop.stop_const - (a * loop.host_step[1] if loop.host_step else 0)
                # (a host count that is a number U: x is in [0, U) at the last iteration, probe h147's `i ==
                # n - 1` after `if core_id != 0: return`, U = 1)
                blocks = loop.host_step[1] if loop.host_step and not loop.host_step[0] else None
                last = _settled(op, e, a) if blocks is None else _settled_within(op, e, a, blocks)
                if last and _settled(op, e - a, -a):
                    return self._edge(loop, result)
                step = "num_cores" if not loop.host_step else str(blocks) if blocks is not None else "used_cores"
                raise NonUniform(f"`{text}` singles out iterations other than the last of a per-core range",
                                 f"test the block's last iteration as `i + {step} >= n` (or `i + {step} < n` for the "
                                 "others)" + (", the range's step for `used_cores`" if step == "used_cores" else ""))
            start = next((c for f, c in loop.starts if f and rest == {v: -a * k for v, k in f}), None) \
                if loop is not None and loop.per_core else None
            if start is not None:
                # `t == core_id` in `pl.range(core_id, n, num_cores)`: t - start is j * B (j the
                # iteration, B >= 1 the block count), so the test singles out the first iteration
                # when its outcome is one for every j * B >= 1
                if _settled(op, a + a * start + diff.const, a):
                    return self._edge(loop, result)
                raise NonUniform(f"`{text}` singles out iterations other than the first of a per-core range",
                                 "test the loop variable only against the loop's start (`t == core_id`, "
                                 "`t > core_id`)")
            if loop is not None and loop.per_core and loop.root is None and (rest or diff.const):
                # a static count: the runs give the block each share with the stop still the whole
                # count, so no test against it but `t < stop` reads a block's own iterations
                raise NonUniform(f"`{text}` tests the variable of a per-core range over a static count against "
                                 "other than its start: the check runs each share of the tasks a block can take, "
                                 "with the count still the whole count, which such a test does not follow",
                                 "give the count a `pl.DYNAMIC` dimension and loop over the block's own count, "
                                 "`my_n = (n - core_id + num_cores - 1) // num_cores` with `for k in pl.range(0, "
                                 "my_n):` and `t = core_id + k * num_cores`, testing `k` (`k == my_n - 1` for the "
                                 "block's last task)")
            if loop is None or loop.per_core or loop.step != 1:
                raise NonUniform(f"`{text}` tests the variable of a loop that does not count by 1 from a "
                                 "static start (a per-core range)",
                                 "test it only against the loop's start (`t == core_id` in `pl.range(core_id, n, "
                                 "num_cores)`: its first iteration on every core)")
            if not rest:
                d1 = a * (loop.start + 1) + diff.const  # the difference at the second iteration
                if _settled(op, d1, a):
                    return self._edge(loop, result)
                raise NonUniform(f"`{text}` singles out iterations other than the first", fix)
            zero = loop.zero if loop.zero is not None else self.roots.get(loop.root)
            if loop.root is not None and rest == {loop.root: -a} and zero is not None:
                # at the last iteration but one: ki = start + T - 2 and the root is T + zero
                d1 = a * (loop.start - zero - 2) + diff.const
                if _settled(op, d1, -a):
                    return self._edge(loop, result)
                lag = (" (a pipeline's lag of more than one beat, a loop of `n + k` beats whose producer stops at "
                       "`n`, is not followed: the check proves a lag of one beat, `n + 1`)") if zero <= -2 else ""
                raise NonUniform(f"`{text}` singles out iterations other than the last{lag}", fix)
            raise NonUniform(f"`{text}` compares the loop variable with a value that is not its trip count", fix)
        sizes = {v: c for v, c in rest.items() if self._trip_dependent(v)}
        if not sizes:
            self.cut(rest, diff, text)
            return result  # block index, sampled parameters: this run's values (cut where they flip)
        if len(sizes) == 1 and len(rest) == 1:
            ((var, t),) = sizes.items()
            self._whole_count([var], lambda: text, "tests")
            if var[0] == "size" and var in self.roots:
                # for each loop over the count: the value that gives it no iteration, and every one below it;
                # a test inside loops over it runs only where each of them runs an iteration, so only
                # against their zero (`n > 0` in the stage of `pl.range(0, n)` beside `pl.range(0, n + 1)`)
                inside = {loop.zero for loop in self.active if loop.root == var and loop.zero is not None}
                zeros = {max(inside)} if inside else self.root_zeros.get(var) or {self.roots[var]}
                if all(_settled(op, t * (zero + 1) + diff.const, t) for zero in zeros):  # one iteration, and above
                    for zero in zeros:
                        if not self._empty_settled(op, var, t * zero + diff.const, t, zero):
                            # `assert n >= 0`: the empty counts on each side of the test, run as cases
                            self.empty_cuts.add((var, t, diff.const, zero))
                    return result
        if self.discover or self.replayed:
            return result
        raise NonUniform(f"`{text}` tests a trip count other than for the empty loop", self._empty_test(sizes))

    def _empty_test(self, sizes: dict) -> str:
        """The help of a test on a trip count other than the empty loop's: test it against the
        value that empties its loop, which is 0 only for a loop counting to the size itself
        (`pl.range(0, n + 2)` is empty at `n = -2`, probe h83)."""
        zeros = {z for var in sizes if var in self.roots for z in self.root_zeros.get(var) or {self.roots[var]}}
        if len(sizes) != 1 or len(zeros) != 1 or zeros == {0}:
            return "test the trip count only against 0 (`n > 0`)"
        ((var, _),) = sizes.items()
        (zero,) = zeros
        shown = f" for the loop's `n`, `pl.range(0, n + {-zero})`" if zero < 0 else ""
        return f"test {root_words(var[1])} only against {zero}, where its loop runs no iteration (`n > {zero}`{shown})"

    def _whole_count(self, variables: list, text: Callable[[], str], what: str) -> None:
        """Refuse a test or a residue of the trip count of a per-core range (`n > 0`, `n % 2` with
        `pl.range(core_id, n, num_cores)`): at B blocks, block b runs ceil((n - b) / B) of the n
        tasks, which is n in the runs the check makes (one block) and another count on every block
        past one; a value of n itself says nothing of the block's own count, whose runs the check
        makes (a block with no task while n > 0, an odd count while n is even)."""
        if self.discover:
            return
        for var in variables:
            if var[0] == "size" and var[1] in self.per_core_roots:
                raise NonUniform(f"`{text()}` {what} {root_words(var[1])}, the trip count of a per-core range: "
                                 "each block runs only its share of it (block b of B: ceil((n - b) / B) tasks), "
                                 "which the check follows as the loop's own count",
                                 "loop over the block's own count instead, `my_n = (n - core_id + num_cores - 1) "
                                 "// num_cores` with `for k in pl.range(0, my_n):` and `t = core_id + k * "
                                 "num_cores`, and test or take residues of `my_n`")

    def _edge(self, loop: Loop | None, result: bool) -> bool:
        """A test that singles out the first or the last iteration of `loop`: remembered."""
        if loop is not None and loop.root is not None:
            self.edged.add(loop.root)
        return result

    def _empty_settled(self, op, var: tuple, d0: int, t: int, zero: int) -> bool:
        """Is `op(d, 0)` the same for every value of the root `var` that gives the loop no
        iteration (`d0` at its zero, `t` per unit)? Those are the values from the zero down to 0
        for a root no launch makes negative (`nonnegative`), down without end for another; the
        check runs one of them (and one per residue it takes), so a test must not tell them apart
        (`if n + 2 <= 0:` is true at n = -2 and false at n = -1, both loops empty)."""
        if not nonnegative(var[1]):
            return _settled(op, d0, -t)
        return len({bool(op(d0 - t * k, 0)) for k in range(max(zero, 0) + 1)}) <= 1

    def _empty_sides(self, var: tuple, t: int, c: int, zero: int) -> range:
        """The values of root `var` around the root of `t * n + c` that empty its loop (at or
        below `zero`; not below 0 for a root no launch makes negative): the test keeps its outcome
        on each piece they split the empty counts into, and runs of each piece stand for all of it,
        as for a sampled parameter; `k` of them on each side where the kernel takes residues `% k`
        of the root, one of each residue (probe h102: `n % 3 == 1 and n < -5`, true at -8, -11, ...,
        none of which the runs at -6, -5 and -4 were)."""
        root = Fraction(-c, t)
        k = self.root_periods.get(var[1], 1)
        low = 0 if nonnegative(var[1]) else math.floor(root) - k
        return range(max(math.floor(root) - k, low), min(math.ceil(root) + k, zero) + 1)

    def cut(self, rest: dict, diff: Any, text: str) -> None:
        """Remember a test on one sampled parameter `d` (the rest of `diff`'s form) for
        `cut_values`: its root when it is affine in `d` (`a * d + c OP 0`), its period when it
        tests a residue of `d` (`(a * d + c) % k`). A test on several parameters, or on another
        value computed from one, is outside the argument: `finish` refuses it."""
        scalars = [var for var in rest if _scalar(var)]
        if not scalars:
            return
        if len(rest) != 1 or scalars[0][0] != "scalar" and scalars[0] not in self.residues_of:
            names = sorted({scalar_name(var) for var in scalars})
            self.unsettled.setdefault(text, names)
            return
        ((var, a),) = rest.items()
        if var in self.residues_of:  # a test on r = (a * d + c) % k: its root in r, as below
            name, ra, rc, k = self.residues_of[var]
            now = self.scalar_values[name]
            root = Fraction(a * ((ra * now + rc) % k) - int(diff), a)
            near = range(max(math.floor(root) - 1, 0), min(math.ceil(root) + 2, k))
            self.scalar_residues.setdefault(name, {}).setdefault((ra, rc, k), set()).update(near)
            self.tested_by.setdefault(name, {}).setdefault(text, set()).add((k, root))
            return
        now = self.scalar_values.get(var[1]) if var[0] == "scalar" else None
        if not isinstance(now, int) or isinstance(now, bool) or not a:
            return
        # diff(d) = int(diff) + a * (d - now) is 0 at the root
        root = Fraction(a * now - int(diff), a)
        self.scalar_roots.setdefault(var[1], set()).add(root)
        self.tested_by.setdefault(var[1], {}).setdefault(text, set()).add(root)

    def cut_values(self) -> set:
        """(parameter, value) pairs the check must run too, so that every piece of the
        parameter's values on which this run's tests keep their outcomes is run (docs/design.md,
        "For every value of a parameter"): around each root `r` of an affine test, floor(r) - 1
        .. ceil(r) + 1 (a value on each side and at `r`); for tests on one residue `(a * d + c)
        % k`, values giving each residue around their roots, in every piece between the affine
        roots (each piece's values nearest to 0); for tests on
        several residues, values of every residue modulo the lcm of their periods (up to
        `MAX_RESIDUE_PERIOD`; past it they stay sampled)."""
        out: set = {(PER_CORE_COUNT, tasks) for tasks in self.per_core_static}
        out.update((TESTED_BY, (name, max(tests, key=lambda t: len(tests[t]))))
                   for name, tests in self.tested_by.items())
        out.update((EMPTY_COUNT, (var[1], v)) for var, t, c, zero in self.empty_cuts
                   for v in self._empty_sides(var, t, c, zero))
        for name, roots in self.scalar_roots.items():
            for root in roots:
                lo, hi = math.floor(root), math.ceil(root)
                least, most = self.scalar_ranges.get(name, INT64)
                out.update((name, v) for v in range(lo - 1, hi + 2) if least <= v <= most)
        for name, tests in self.scalar_residues.items():
            roots = sorted(self.scalar_roots.get(name, set()))
            if len(tests) == 1:
                (((a, c, k), residues),) = tests.items()
                period = k // math.gcd(a, k)
                forms = [(a, c, k, r) for r in residues]
            else:
                period = math.lcm(*(k // math.gcd(a, k) for a, _, k in tests))
                if period > MAX_RESIDUE_PERIOD:
                    continue  # refused by `finish`
                forms = [(1, 0, period, r) for r in range(period)]
            # every piece between this run's roots, not only the one holding this run's value: a
            # test reached only on some residues (`d % 7 == 3 and d > 5`) cuts pieces that the
            # runs at other residues never see
            least, most = self.scalar_ranges.get(name, INT64)
            bounds = [Fraction(least - 1), *roots, Fraction(most + 1)]
            for below, above in zip(bounds, bounds[1:], strict=False):
                # the piece's value nearest to 0: the same for every run that finds the same
                # tests, so they ask for the same values and the search ends
                low, high = math.floor(below) + 1, math.ceil(above) - 1
                if low > high:
                    continue
                anchor = min(max(0, low), high)
                for a, c, k, r in forms:  # the values nearest to the anchor that give the residue, in the piece
                    out.update((name, v) for v in _nearest(anchor, period, a, c, k, r) if low <= v <= high)
        return out

    def piece_bounds(self, value: Any) -> tuple[int | None, int | None] | None:
        """The least and greatest value `a * d + c` (`value`, affine in one sampled parameter
        `d`) takes on the piece of `d`'s values this run stands for (between the roots of the
        tests seen so far; later tests only narrow it), None at either end where the piece
        reaches the end of the parameter's range; None for any other value. Docs: "For every value of a
        parameter"."""
        form = _form(value)
        if len(form) != 1 or form[0][0][0] != "scalar" or _residue(value):
            return None
        ((var, a),) = form
        now = self.scalar_values.get(var[1])
        if not isinstance(now, int):
            return None
        roots = self.scalar_roots.get(var[1], set())
        if now in roots:
            return int(value), int(value)
        below = max((r for r in roots if r < now), default=None)
        above = min((r for r in roots if r > now), default=None)
        c = int(value) - a * now
        lo = None if below is None else a * (math.floor(below) + 1) + c
        hi = None if above is None else a * (math.ceil(above) - 1) + c
        return (lo, hi) if a > 0 else (hi, lo)

    def _trip_dependent(self, var: tuple) -> bool:
        """Does `var` change with a trip count in the run of block 0? (The block index times a
        trip count, `_block_times_constant`, is 0 there: it moves the other blocks alike.)"""
        if var[0] == "size":
            return True
        return var[0] == "derived" and var[-1] != "block" and any(r[0] == "size" for r in var[2])

    # --- GM offsets -------------------------------------------------------------------------
    def gm_access(self, tensor: str, offsets: list, extents: tuple, write: bool, text: Callable[[], str],
                  epoch: Any = 0, may: bool = False, node: Any = None) -> None:
        """Record a GM access for `finish`; `text()` is its code and `node` its op, for a message."""
        coords: list = []
        shifts: list = []
        self.moves_with_block(offsets)
        for o, e in zip(offsets, extents, strict=True):
            form = _form(o)
            self._within_chunk(tensor, o, e, text)
            if self.discover:
                self.chunk_roots.update(r for v, _ in form if v[0] == "derived" and v[-1] == "block"
                                        for r in v[2] if r[0] == "size")
            trip = [v for v, _ in form if v[0] not in INDEX and self._trip_dependent(v)]
            if trip:
                if self.discover:
                    for r in (r for v in trip for r in ([v] if v[0] == "size" else v[2])):
                        self.in_address.setdefault(r, (text(), node))
                else:
                    raise NonUniform(f"the GM offset `{text()}` depends on the trip count",
                                     "compute GM offsets from the loop variable only (`ki * TILE`), not from the "
                                     "number of iterations")
            # what moves the access with a parameter or with the block (`core_id * T`, `num_cores`):
            # accesses of one tensor that move differently meet for some value
            shifts.append(_by_repr([(v, c) for v, c in form if run_time_var(v)]))
            if _residue(o):
                coords.append(None)
                continue
            linear = _by_repr([(v, c) for v, c in form if v[0] in INDEX])
            const = int(o) - _moving(o)
            coords.append((linear, const, e))
        outside = "" if self.active else "after" if self.loops else "before"
        self.accesses.append(Access(tensor, write, tuple(coords), text, tuple(shifts), epoch, may, outside, node,
                                    tuple(loop.key for loop in self.active)))

    def _within_chunk(self, tensor: str, offset: Any, extent: int, text: Callable[[], str]) -> None:
        """An offset by a block's chunk start (`core_id * my_n * T + j * T`) keeps the blocks apart
        when, at block 0 (where the start is 0), it stays within one step of the start: `[0, step)`
        with its extent. Remembered for `finish` when it leaves it, or mixes in another block term."""
        starts = [(v, c) for v, c in _form(offset) if v[0] == "derived" and v[-1] == "block"]
        if not starts:
            return
        (var, coefficient), *more = starts
        others = [v for v, _ in _form(offset) if v != var and (is_block_value(v) or v[-1] == "blocks"
                                                                or v in self.per_core)]
        bound = self.block_bounds.get(var)
        if bound is not None:
            size, per = bound
            step = abs(coefficient * per)
            if more or others or not self._within_sized_chunk(offset, var, size, step, extent):
                self.chunk_breaks.append((tensor, text, f"{step} times the chunk size"))
            return
        step = abs(coefficient * self.block_steps.get(var, 0))
        if more or others or not 0 <= int(offset) or int(offset) + extent > step:
            self.chunk_breaks.append((tensor, text, step))

    def _within_sized_chunk(self, offset: Any, chunk: tuple, size: Any, step: int, extent: int) -> bool:
        """`start * step + k * j + c` with the start `core_id * chunk` by a run-time size
        (`opaque_chunk`): within block 0's chunk `[0, step * chunk)` for every value of the size
        when `j` is the variable of a loop from 0 whose stop is exactly a bound at most the chunk
        (`_at_most`: `chunk`, `min(chunk, ...)`, the remainder of the last block; for a loop from
        the start, `_ends_by`: `min(start + chunk, ...)`), `0 <= k <= step` and
        `0 <= c`, `c + extent <= step`. The furthest task, `j = chunk - 1`, then ends within
        `step * chunk` for every chunk from 1 up (with no task, the access is not made)."""
        index = [(v, c) for v, c in _form(offset) if v[0] in INDEX]
        if len(index) != 1 or index[0][0][0] != "loop":
            return False
        (var, k), = index
        loop = self.loops.get(var)
        if loop is None or loop.start != 0 or loop.step != 1 or loop.root is None \
                or loop.stop_form != ((loop.root, 1),) or loop.stop_const:
            return False  # `pl.range(0, cnt + 1)`: one task past the bound
        if loop.chunk is not None:  # `pl.range(start, end)`: `end - start` is at most the chunk
            start = self.chunk_values[chunk]
            if loop.chunk != chunk or not _ends_by(loop.root[1], start.origin, size):
                return False
        elif not (_at_most(loop.root[1], size) or _end_less_start(loop.root[1], self.chunk_values[chunk], size)):
            return False
        # a move by a parameter the same on every block (`(start + st + i) * T`, `start = starts[0]`)
        # moves every block's chunk alike: the place within the chunk is what is left
        values = {**{("scalar", name): v for name, v in self.scalar_values.items()},
                  **{("size", origin): v for origin, v in self.param_values.items()}}
        moves = [(v, c) for v, c in _form(offset) if v[0] == "scalar" or v[0] == "size" and v[1][:1] == ("param",)]
        if any(var not in values for var, _ in moves):
            return False
        const = int(offset) - _moving(offset) - sum(c * int(values[var]) for var, c in moves)
        return 0 <= k <= step and 0 <= const and const + extent <= step

    def opaque_chunk(self, block: Sym, size: Any, value: Any) -> Sym | None:
        """`core_id * chunk`, the block index (block 0 in the run) times a run-time size the same
        on every block and through the run (`size`, an `Opaque` computed from `pl.DYNAMIC`
        dimensions and the block count, not the block index): the block's chunk start, 0 at
        block 0. A variable of its own, named by the size, that steps by the size from one block
        to the next (`_within_sized_chunk`); `value` is the run-time value it also is. None for
        any other product."""
        origin = getattr(size, "origin", None)
        if not (isinstance(block, Sym) and len(block.form) == 1 and block.form[0][0] == BLOCK
                and block.form[0][1] > 0 and not block.const and not block.residue and int(block) == 0
                and _same_on_every_block(origin)):
            return None  # `-core_id * chunk` steps down: its chunks are not `[start, start + chunk)`
        var = ("derived", ((block.form, 0), ("size", origin)), frozenset({BLOCK}), "block")
        self.block_bounds[var] = (origin, block.form[0][1])
        self.chunk_values[var] = value
        return Sym(0, ((var, 1),))

    def balanced_chunk(self, start: Any, extra: Any, value: Any) -> Sym | None:
        """`core_id * base + min(core_id, rem)` with `base = n // num_cores` and `rem = n %
        num_cores`: the start of a balanced split, where the first `rem` blocks take one task more.
        Block `b` takes `[b * base + min(b, rem), (b + 1) * base + min(b + 1, rem))`, one range after
        the other, of `base + 1` tasks below `rem` and `base` from there (`_balanced_length`). A
        chunk start of its own whose size is that length (`("op", "balanced", n, num_cores)`), 0 at
        block 0; `start` is `core_id * base` (`opaque_chunk`), `extra` the `min`; None for any
        other sum."""
        form = _form(start)
        if not (len(form) == 1 and form[0][1] == 1 and not start.const and not start.residue
                and isinstance(extra, Opaque)):
            return None
        bound = self.block_bounds.get(form[0][0])
        split = _split(bound[0]) if bound is not None and bound[1] == 1 else None
        if split is None or not _is_min_of_index_and(extra.origin, ("op", "mod", *split)):
            return None
        return self._balanced_start(split, value)

    def balanced_choice(self, value: Opaque) -> Sym | None:
        """A balanced split's start written as a choice (`if core_id < rem: start = core_id * (base
        + 1)`, `else: start = core_id * base + rem`): the chunk start `balanced_chunk` makes of
        `core_id * base + min(core_id, rem)`, which it equals on every block; None for any other
        choice."""
        _, _, test, below, rest = value.origin
        if not (isinstance(rest, tuple) and len(rest) == 4 and rest[:2] == ("op", "add")
                and isinstance(rest[2], tuple) and len(rest[2]) == 4 and rest[2][:2] == ("op", "mul")):
            return None
        index, base = rest[2][2:]
        split = _split(base)
        if split is None or not _is_block_index(index) or rest[3] != ("op", "mod", *split) \
                or test != ("lt", INDEX_TERM, rest[3]) or below != ("op", "mul", index, ("op", "add", base, 1)):
            return None
        return self._balanced_start(split, value)

    def floor_split(self, start: Any, count: Any, value: Any) -> Sym | None:
        """`core_id * n // num_cores` (`start`, the chunk start `core_id * n` of `opaque_chunk`,
        divided by the block count, whose mark is `count`): the start of a floor split, where
        block `b` takes `[b * n // B, (b + 1) * n // B)`, one range after the other (`(b + 1) *
        n // B` is the next block's start, `_next_floor_start`). A chunk start of its own whose
        size is that length (`("op", "floorsplit", n, num_cores)`), 0 at block 0; `value` is its
        run-time value; None for any other quotient."""
        form = _form(start)
        if not (len(form) == 1 and form[0][1] == 1 and not start.const and not start.residue
                and isinstance(count, Opaque) and count.origin[-1] == "count"):
            return None
        bound = self.block_bounds.get(form[0][0])
        if bound is None or bound[1] != 1 or isinstance(bound[0], tuple) and bound[0][:2] in (
                ("op", "balanced"), ("op", "floorsplit")):
            return None
        return self._sized_start(("op", "floorsplit", bound[0], count.origin), value)

    def _balanced_start(self, split: tuple, value: Any) -> Sym:
        """The chunk start of a balanced split of `n` over the blocks (`split`, `(n, num_cores)`),
        whose run-time value is `value`: its size is the block's length."""
        return self._sized_start(("op", "balanced", *split), value)

    def _sized_start(self, size: tuple, value: Any) -> Sym:
        """A block's chunk start whose chunk is `size` long (a balanced or floor split's length),
        0 at block 0, whose run-time value is `value`."""
        var = ("derived", ((((BLOCK, 1),), 0), ("size", size)), frozenset({BLOCK}), "block")
        self.block_bounds[var] = (size, 1)
        self.chunk_values[var] = value
        return Sym(0, ((var, 1),))

    def chunk_value(self, value: Any) -> Any:
        """The run-time value a chunk start by a run-time size is (`opaque_chunk`), or None."""
        form = _form(value)
        if len(form) == 1 and form[0][1] == 1 and not value.const and not value.residue:
            return self.chunk_values.get(form[0][0])
        return None

    def block_write(self, tensor: str, offsets: Any, foot: Any, blocks: tuple, epoch: Any,
                    text: Callable[[], str]) -> None:
        """A GM write whose place does not depend on the block (no block index, block value or
        per-core loop variable in its offsets) is remembered: in a kernel that spreads its work
        over the blocks, every block writes that place (`finish`), unless a test singles out the
        one block that does (`blocks`, `if core_id == 0:`); two such writes of the same place
        under tests of different blocks are two blocks writing it."""
        self._note_plain(tensor, epoch, offsets, foot, text)
        parts = _placed(offsets)
        if parts is None and not blocks and self._same_place_on_every_block(offsets):
            # `(N % num_cores) * T`: a place the run cannot follow but every block computes alike
            self.shared_writes.append((tensor, text))
            return
        if parts is None:
            # a place not known (data, a value the run cannot follow): another block may write
            # it; under a test singling out one block, anywhere in the tensor
            if blocks:
                self.guarded_writes.append(((tensor, epoch), frozenset(blocks), (0, INF, 0, INF), text))
            else:
                self.unplaced_writes.append((tensor, text))
            return
        if self.moves_with_block(parts):
            return
        if blocks:
            self.guarded_writes.append(((tensor, epoch), frozenset(blocks), (foot.r0, foot.r1, foot.c0, foot.c1), text))
        else:
            self.shared_writes.append((tensor, text))

    def _same_place_on_every_block(self, offsets: Any) -> bool:
        """Offsets of run-time values the same on every block (`N % num_cores`, a shape) and of
        numbers the run follows that no block value moves: every block writes that place."""
        parts = list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
        return all(
            (isinstance(o, Opaque) and _same_on_every_block(o.origin))
            or (type(o) is int)
            or (isinstance(o, Sym) and not o.residue and not any(
                self._block_var(v) or v[0] == "derived" and not block_only(v) for v, _ in o.form))
            for o in parts)

    def unplaced(self) -> NonUniform | None:
        """A GM write at a place the run cannot follow, in a kernel that gives each block a chunk
        by a run-time size (`opaque_chunk`): offsets by the chunk start that meet other run-time
        values (`start + chunk + j`, the next block's chunk) are such places, and nothing keeps
        another block away from them; in any kernel whose blocks do different work, a write whose
        place is computed from the block other than by adding and scaling (`min(core_id, 1)`) is
        one too. Asked after the run's races, which name a write of unknown place more precisely
        when there is one."""
        self._phases()
        if not (self.spread or self.block_tests):
            return None
        # a chunk size read from GM (`counts[0]`) is the same on every block only while no block writes it
        reads = set().union(*(_reads_in(size) for size, _ in self.block_bounds.values()))
        rewritten = sorted(reads & {tensor for tensor, _ in self.written})
        if rewritten:
            return NonUniform(f"the blocks' chunk size is read from `{rewritten[0]}`, which the kernel writes: a block "
                              "that reads it after another block's write takes another chunk",
                              "read the chunk size from a tensor the kernel does not write, or pass it as a "
                              "parameter", claim=ON_BLOCKS)
        if self.unplaced_writes:  # `spread` or `block_tests`: blocks do different work
            tensor, text = self.unplaced_writes[0]
            kernel = "that gives each block a chunk" if self.block_bounds or self.block_steps else \
                f"whose blocks may take different ways (`{self.block_tests[0]}`)" if self.block_tests else \
                "that spreads its work over the blocks"
            refusal = NonUniform(f"`{tensor}` is written at a place the check cannot follow (`{text()}`), in a "
                                 f"kernel {kernel}: it cannot tell that no other block writes there",
                                 "offset the write by the chunk start and the task's place in the chunk (`start + "
                                 "j`), with the chunk start in a form the check follows (`start = core_id * chunk`, "
                                 "the last block taking the rest; or a balanced split, `start = core_id * base + "
                                 "min(core_id, rem)`), make it an atomic add, or write it from one block (`if "
                                 "core_id == 0:`)",
                                 claim=ON_BLOCKS, at=text)
            # in a kernel that only spreads its work, another run may show the write as a race
            refusal.deferred = not (self.block_bounds or self.block_steps or self.block_tests)
            return refusal
        read = next(((key, text) for key, text in self.unplaced_reads if key in self.written), None)
        if read is not None:
            (tensor, _), text = read
            return NonUniform(f"`{tensor}` is read at a place the check cannot follow (`{text()}`) while the blocks "
                              "write it: it cannot tell that no other block writes there meanwhile",
                              "read it at a place computed from the block and the loop variables, or after "
                              "`pl.system.sync_all()` once every block has written it",
                              claim=ON_BLOCKS, at=text)
        return None

    def block_read(self, tensor: str, offsets: Any, foot: Any, epoch: Any, text: Callable[[], str]) -> None:
        """A GM read, remembered for `finish` and `unplaced` when its place is not known or does not
        depend on the block: every block reads there, while one block may write it."""
        self._note_plain(tensor, epoch, offsets, foot, text)
        parts = _placed(offsets)
        if parts is None:
            self.unplaced_reads.append(((tensor, epoch), text))
        elif not self.moves_with_block(parts):
            self.shared_reads.append(((tensor, epoch), (foot.r0, foot.r1, foot.c0, foot.c1), text))

    def _note_plain(self, tensor: str, epoch: Any, offsets: Any, foot: Any, text: Callable[[], str]) -> None:
        parts = _placed(offsets)
        placed = parts is not None and not self._block_moves(parts)
        rect = (foot.r0, foot.r1, foot.c0, foot.c1) if placed else None
        self.plain.setdefault((tensor, epoch), []).append((text, rect))

    def block_atomic(self, tensor: str, offsets: Any, foot: Any, blocks: tuple, epoch: Any,
                     text: Callable[[], str]) -> None:
        """A GM atomic add. At a place that moves with the block it is each block's own, judged
        as any write by the per-block rules (`finish`); under a test singling out one block, as
        that block's write (`block_write`). Else every block adds there: the additions commute
        with each other, but a plain read or write of the tensor between the same barriers, by
        any block, meets the other blocks' additions unordered (`finish`)."""
        parts = _placed(offsets)
        if parts is not None and self.moves_with_block(parts):
            return
        rect = (foot.r0, foot.r1, foot.c0, foot.c1) if parts is not None else (0, INF, 0, INF)
        if blocks:  # one block's additions: against every block's reads (`finish`), not plain themselves
            self.guarded_writes.append(((tensor, epoch), frozenset(blocks), rect, text))
            return
        self.shared_atomics.append(((tensor, epoch), rect, text))

    def moves_with_block(self, offsets: list | tuple) -> bool:
        """Do these GM offsets depend on the block (`spread` when they do)?"""
        moves = self._block_moves(offsets)
        self.spread |= moves
        return moves

    def _block_moves(self, offsets: list | tuple) -> bool:
        """`moves_with_block` without noting the kernel spreads its work."""
        # the block count alone moves every block's place alike (`(num_cores - 1) * T`): not a move
        return any(isinstance(o, Sym) and any(self._block_var(v) for v, _ in o.form) for o in offsets)

    def _block_var(self, var: tuple) -> bool:
        """Does `var` take other values on other blocks: the block index in it, the variable of a
        per-core range (or a loop variable times the block count), or a coordinate of a tile grid
        walked by a per-core range (`Uniform.grid`: its loop variable is the key's form's)?"""
        if var[0] == GRID:
            var = var[1][0][0][0]
        return _per_block(var) or var[-1] == "blocks" or var in self.per_core

    def _phases(self) -> None:
        """Each access's epoch `(mix, kind, count)` (`OpEvents._epoch`: barriers of every core
        passed, its core's kind, barriers of that kind passed) made the phase it is judged in: two
        accesses of a tensor on either side of a `sync_all` of every core are ordered, and so are
        two on either side of a `sync_all(core_type=AIV_ONLY)` when only vector cores reach that
        tensor between the barriers of every core (every vector core of every block waits there),
        likewise the cube cores; a barrier of one kind orders nothing across the other. So a
        tensor reached by one kind of core in a phase of every core is judged per barrier of that
        kind, any other per barrier of every core. Done once."""
        if self.phased:
            return
        self.phased = True
        raw = [key for key in self.written] + [a.tensor_epoch for a in self.accesses] \
            + [key for key, *_ in (*self.unplaced_reads, *self.shared_reads, *self.guarded_writes,
                                   *self.shared_atomics)] + list(self.plain)
        kinds: dict[tuple, set] = {}
        for tensor, epoch in raw:
            if isinstance(epoch, tuple):
                kinds.setdefault((tensor, epoch[0]), set()).add(epoch[1])

        def phase(key: tuple) -> tuple:
            tensor, epoch = key
            if not isinstance(epoch, tuple):
                return key
            return (tensor, epoch[::2] if len(kinds[(tensor, epoch[0])]) == 1 else epoch[:1])

        self.written = {phase(k) for k in self.written}
        self.accesses = [replace(a, epoch=phase(a.tensor_epoch)[1]) for a in self.accesses]
        self.unplaced_reads = [(phase(k), *rest) for k, *rest in self.unplaced_reads]
        self.shared_reads = [(phase(k), *rest) for k, *rest in self.shared_reads]
        self.guarded_writes = [(phase(k), *rest) for k, *rest in self.guarded_writes]
        self.shared_atomics = [(phase(k), *rest) for k, *rest in self.shared_atomics]
        plain: dict = {}
        for k, seen in self.plain.items():
            plain.setdefault(phase(k), []).extend(seen)
        self.plain = plain

    def finish(self) -> None:
        """Every tensor written between two barriers of every core: its accesses there of
        different iterations never overlap. (Accesses on either side of such a barrier are
        ordered in the serial and the pipelined kernel alike, whatever their distance.) Every
        test on a sampled parameter is one the check splits (`cut_values`)."""
        # (an access the run cannot place may meet any of the tensor's accesses, placed ones too: probe h243)
        placed: dict[str, list] = {}
        for acc in self.accesses:
            if not acc.outside and acc.tensor in self.loose:
                placed.setdefault(acc.tensor, []).append((acc.node, acc.write))
        self.revisited |= {tensor for tensor, seen in self.loose.items() if met_again(seen + placed.get(tensor, []))}
        self._phases()
        for text, names in self.unsettled.items():
            words = ", ".join(f"`{n}`" for n in names)
            raise NonUniform(f"`{text}` tests the run-time value of {words} in a way the check cannot split into "
                             "cases (several parameters at once, or a value computed from one other than "
                             "`a * d + c` or its residue `% k`)",
                             "test one parameter at a time, as `a * d + c` or `(a * d + c) % k` against a "
                             "constant, or make the value a tiling-key field (known when the kernel is compiled)",
                             claim=f"the kernel for every value of {words}")
        for name, tests in self.scalar_residues.items():
            period = math.lcm(*(k // math.gcd(a, k) for a, _, k in tests))
            if len(tests) > 1 and period > MAX_RESIDUE_PERIOD:
                raise NonUniform(f"the tests on residues of `{name}` repeat only every {period} values, more than "
                                 f"the check runs ({MAX_RESIDUE_PERIOD})",
                                 f"test residues of `{name}` by one modulus, or by moduli whose lcm is at most "
                                 f"{MAX_RESIDUE_PERIOD}",
                                 claim=f"the kernel for every value of `{name}`")
        written = {a.tensor for a in self.accesses if a.write}
        for tensor, text, step in self.chunk_breaks:
            if tensor in written:
                raise NonUniform(f"`{tensor}` is written, and `{text()}` reaches past its block's own chunk (the chunk "
                                 f"start `core_id * ...` steps {step} from one block to the next here): two blocks "
                                 "meet there",
                                 "keep each block within its chunk: `core_id * chunk + j` with `j` from 0 to "
                                 "`chunk - 1`, the other parts of the offset within one step",
                                 claim=ON_BLOCKS, at=text)
        for key, _, rect, text in self.guarded_writes:
            for other, seen, words in self.shared_reads:
                if other == key and _meet(rect, seen):
                    raise NonUniform(f"`{key[0]}` is written by one block (`{text()}`) and read by every block "
                                     f"(`{words()}`), which nothing orders",
                                     "put `pl.system.sync_all()` between the write and the reads, or read it "
                                     "in the writing block only", claim=ON_BLOCKS, at=words)
        # every block adds, whether or not the blocks split the work: a plain access by any block meets
        for key, rect, text in self.shared_atomics:
            # a plain access every block makes at a place it names meets the additions where
            # the two overlap; one at a block's own place or at a place not known, anywhere
            met = next((w for w, seen in self.plain.get(key, ()) if seen is None or _meet(rect, seen)), None)
            if met is not None:
                raise NonUniform(f"`{key[0]}` is added to atomically by every block (`{text()}`) and also read or "
                                 f"written otherwise (`{met()}`) between the same barriers: the other blocks' "
                                 "additions meet that access unordered",
                                 "put `pl.system.sync_all()` between the atomic adds and the other accesses of "
                                 f"`{key[0]}`, a barrier of every core that makes them (`core_type=AIV_ONLY` or "
                                 "`AIC_ONLY` orders one kind of core only)", claim=ON_BLOCKS, at=met)
        for i, (tensor, blocks, rect, text) in enumerate(self.guarded_writes):
            for other, others, seen, words in self.guarded_writes[i + 1:]:
                if other == tensor and others != blocks and _meet(rect, seen):
                    raise NonUniform(f"`{tensor[0]}` is written at the same place by two blocks (`{text()}` and "
                                     f"`{words()}`, each under a test singling out another block), which nothing "
                                     "orders", "write each place from one block, or put "
                                     "`pl.system.sync_all()` between the writes",
                                     claim=ON_BLOCKS, at=words)
        if (self.spread or self.block_tests) and self.shared_writes:
            # a test of the block whose outcome the run cannot settle sends blocks different ways:
            # their work differs (`k = 1 if core_id < 1 else 0` moving a read), and a place every
            # block writes is written with what each computed
            tensor, text = self.shared_writes[0]
            raise NonUniform(f"`{tensor}` is written at a place that does not depend on the block (`{text()}`), in a "
                             "kernel that spreads its work over the blocks: every block writes it there, and two "
                             "blocks race",
                             "offset the write by the block (`core_id * ...`, or a per-core range "
                             "`pl.range(core_id, n, num_cores)`), make it an atomic add, or write it from one block "
                             "(`if core_id == 0:`)",
                             claim=ON_BLOCKS, at=text)
        by_tensor: dict[tuple[str, int], list[Access]] = {}
        for acc in self.accesses:
            by_tensor.setdefault((acc.tensor, acc.epoch), []).append(acc)
        for (tensor, _epoch), accs in by_tensor.items():
            if not any(a.write for a in accs):
                continue
            shifted = {a.shift for a in accs}
            if len(shifted) > 1:
                # regions that move apart with a parameter's value meet for some value: the
                # run at the sampled values says nothing about the others
                moving = next(a for a in accs if any(a.shift))
                names = sorted({scalar_name(v) for a in accs for part in a.shift for v, _ in part})
                raise NonUniform(f"`{tensor}` is written, and its accesses are offset by the run-time value of "
                                 f"{', '.join(_quoted(n) for n in names)} differently (`{moving.text}`), so they "
                                 "overlap for some values",
                                 f"offset every access of `{tensor}` by the same expression of "
                                 f"{', '.join(_quoted(n) for n in names)}, or none",
                                 claim=f"the kernel for every value of {', '.join(_quoted(n) for n in names)}",
                                 kind="offsets")
            derived = next((a for a in accs for part in a.shift for v, _ in part if _derived_per_block(v)), None)
            if derived is not None:
                # `core_id % 8`, `core_id // 2`, `min(core_id, 1)`: the run follows block 0, and
                # two other blocks may take one value (blocks 0 and 8, 0 and 1) at some count
                raise NonUniform(f"`{tensor}` is written, and `{derived.text}` is placed by a value computed from the "
                                 "block index other than by scaling it: two blocks may take the same value there",
                                 f"place each block's accesses of `{tensor}` by the block index times a constant "
                                 "(`core_id * K`) or a per-core range (`pl.range(core_id, n, num_cores)`)",
                                 claim=ON_BLOCKS)
            self._blocks_apart(tensor, accs)
            if all(c is None or not c[0] for a in accs for c in a.coords):
                if met_again([(a.node, a.write) for a in accs if not a.outside]):
                    self.revisited.add(tensor)
                continue  # no access moves with the loop: the same regions every iteration
            if not self._kept_apart(accs):
                self._off_grid(tensor, accs)
                named = self._blamed(accs)
                texts = " and ".join(f"`{a.text}`" for a in named)
                why = (f"{texts} do not stay within one stride of each other" if len(named) == 2
                       else f"{texts} reaches past the stride the other accesses keep" if named
                       else f"its accesses (`{accs[0].text}`) do not keep different iterations apart")
                guarded = next((a for a in named if a.may), None) if self.block_tests else None
                if guarded is not None:
                    tests = ", ".join(f"`{t}`" for t in dict.fromkeys(self.block_tests))
                    why += (f"; `{guarded.text}` depends on {tests}, a test of the block index or count, which the "
                            "check follows both ways: it follows block 0, and another block may take what block 0 "
                            "does not")
                # (a loop variable times the block count is its loop's variable too)
                loops = [_loops_of([a]) for a in (named or accs)]
                if len(set().union(*loops)) > 1 and not any(len(x) > 1 for x in loops) or _in_loops_apart(named):
                    # each moves with its own loop, and no barrier separates the loops
                    raise NonUniform(f"`{tensor}` is accessed by two loops that no `pl.system.sync_all()` of the "
                                     f"cores accessing it separates ({texts or accs[0].text}): the later loop may "
                                     "reach it before the earlier one's accesses are done",
                                     "put `pl.system.sync_all(core_type=pl.SyncCoreType.MIX)` between the loops")
                fixed = next((a for a in named if a.outside), None)
                if fixed is not None and guarded is None:
                    # (a loop of the tensor's accesses running again after it: an outer loop around both)
                    # (before it in any phase: a barrier before the access leaves it in the phase of the next run)
                    every = [a for a in self.accesses if a.tensor == tensor]
                    at, here = every.index(fixed), accs.index(fixed)
                    raise _fixed_place(tensor, fixed, bool(_loops_of(every[:at]) & _loops_of(accs[here + 1:])))
                raise NonUniform(f"`{tensor}` is written in a loop of run-time trip count and {why}",
                                 f"access `{tensor}` in every stage at the same stride along one dimension "
                                 "(`ki * TILE + c`, with each tile inside one stride)"
                                 + (", whichever way the test of the block index goes" if guarded is not None else ""))

    def _blocks_apart(self, tensor: str, accs: list[Access]) -> None:
        """Accesses of a written tensor moved by the block index times a constant (`core_id * K`,
        the same in every access: `finish` checked that) keep the blocks apart when, at block 0,
        they reach less than `K` along that coordinate: at most `K` from the first element to
        the end of the last, with no loop variable of a loop of run-time trip count in them
        (`core_id * 2 + j` meets the next block once `j` passes 1), or the variable of the block's
        own beats times the block count with the step `K` (`(core_id + t * num_cores) * K`: the
        blocks' tiles interleave). A place computed from the block index otherwise (`core_id %
        8`) is refused before (`finish`); moves by the block count are not judged here."""
        for axis in range(min(len(a.coords) for a in accs)):
            shift = dict(accs[0].shift[axis]) if axis < len(accs[0].shift) else {}
            step = shift.get(BLOCK)
            count = shift.get(BLOCK_COUNT[0], 0)
            if step is None or set(shift) - {BLOCK, BLOCK_COUNT[0]} or any(a.coords[axis] is None for a in accs):
                continue
            for a in accs:
                linear, _, _ = a.coords[axis]
                # the block count in it only as whole steps of interleaved tiles: `(core_id + (t - 1) *
                # num_cores) * K`
                if count % step or (count and not linear) \
                        or any(var[-1] != "blocks" or abs(c) != abs(step) for var, c in linear):
                    raise NonUniform(f"`{tensor}` is written, and `{a.text}` moves with the block by {abs(step)} "
                                     "while a loop variable moves it further: once the loop runs long enough, two "
                                     "blocks meet there",
                                     "start each block's tasks at a chunk start that covers them (`core_id * n + j` "
                                     "with `j` from 0 to `n - 1`), or spread the tasks over the blocks "
                                     "(`pl.range(core_id, n, num_cores)`)",
                                     claim=ON_BLOCKS)
            lo = min(a.coords[axis][1] for a in accs)
            hi = max(a.coords[axis][1] + a.coords[axis][2] for a in accs)
            if hi - lo > abs(step):
                first = min(accs, key=lambda a: a.coords[axis][1])
                raise NonUniform(f"`{tensor}` is written, and its accesses move with the block by {abs(step)} but "
                                 f"reach {hi - lo} apart in one block's run (`{first.text}`): two blocks meet there",
                                 f"keep one block's accesses of `{tensor}` within {abs(step)} of each other, or move "
                                 "them with the block by what they reach",
                                 claim=ON_BLOCKS)

    def _off_grid(self, tensor: str, accs: list[Access]) -> None:
        """Refuse, naming the tile grid, a written tensor that a grid's coordinates place but do
        not keep apart (`_grid_apart`): placed by one coordinate only, by both along one axis,
        or along a later axis by a column count that need not fit the row."""
        grids = {v[1] for a in accs for c in a.coords if c for v, _ in c[0] if v[0] == GRID}
        if not grids:
            return
        axes = range(min(len(a.coords) for a in accs))
        rows = {q[0][1] for q in (_grid_axis(accs, a0, "q") for a0 in axes) if q is not None}
        fitted = [r for r in (_grid_axis(accs, a1, "r") for a1 in axes[1:]) if r is not None and r[0][1] in rows]
        if fitted:
            (_, gid, _), s1, lo, hi = fitted[0]
            k = self.grids.get(gid)
            what = (f"it places the columns at a stride that is not positive (`j * {s1}`), which the check does "
                    "not bound by the row" if s1 <= 0 else
                    "the grid's column count is not a floor quotient of a size (`width // TILE`), so its last tile "
                    "may reach past the end of a row" if k is None else
                    f"it places the columns {s1} apart (`j * {s1}`) while the grid counts columns of {k} elements, so "
                    "its last tiles reach past the end of a row" if s1 > k else
                    f"its tiles reach from {lo} to {hi} past `j * {s1}`, outside the {s1} elements of a column")
            raise NonUniform(f"`{tensor}` is written at places a tile grid (`idx // n`, `idx % n`) gives, and {what}: "
                             "the row runs on into the next one, another tile's",
                             "count the grid's columns as a floor quotient of the row's length (`n_tiles = "
                             "out.shape[1] // TILE`) and keep each tile within its column (`j * TILE` with tiles of "
                             "at most `TILE` columns)")
        text = next((a.text for a in accs if not _on_both(a)), accs[0].text)
        raise NonUniform(f"`{tensor}` is written at places a tile grid gives (`idx // n`, `idx % n`), and its accesses "
                         f"(`{text}`) are not each placed by both coordinates of one grid (`idx // n` and `idx % n` "
                         "by the same `n`) along an axis of its own, each tile within one stride: two tiles of the "
                         "grid reach a place in common",
                         f"place every access of `{tensor}` by the tile's row along one axis and its column along "
                         "another (`[i * TILE + ..., j * TILE]`)")

    def _kept_apart(self, accs: list[Access]) -> bool:
        return any(self._separates(accs, axis) for axis in range(min(len(a.coords) for a in accs))) \
            or self._grid_apart(accs)

    def _blamed(self, accs: list[Access]) -> list[Access]:
        """The accesses to name: the one without which the others keep different iterations
        apart, else the first two (by their text) that do not keep them apart together."""
        texts = list(dict.fromkeys(a.text for a in accs))
        first = {t: next(a for a in accs if a.text == t) for t in texts}
        alone = [t for t in texts if len(texts) > 2 and self._kept_apart([a for a in accs if a.text != t])]
        if len(alone) == 1:
            return [first[alone[0]]]
        for i, t in enumerate(texts):
            for u in texts[i:]:
                pair = [a for a in accs if a.text in (t, u)]
                if any(a.write for a in pair) and not self._kept_apart(pair):
                    return [first[t]] if t == u else [first[t], first[u]]
        return []

    def _separates(self, accs: list[Access], axis: int) -> bool:
        coords = [a.coords[axis] for a in accs]
        if any(c is None for c in coords):
            return False
        linears = {c[0] for c in coords}
        if len(linears) != 1:
            return False
        (linear,) = linears
        if len(linear) != 1 or linear[0][0] in self.stalled or linear[0][0][0] == GRID:
            return False  # one coordinate of a grid alone: iterations share it (`_grid_apart`)
        stride = abs(linear[0][1] * self._step_of(linear[0][0]))
        lo = min(c[1] for c in coords)
        hi = max(c[1] + c[2] for c in coords)
        return stride > 0 and hi - lo <= stride

    def _step_of(self, var: tuple) -> int:
        """How far `var` moves from one iteration to the next: a loop variable its step (a per-core
        range `pl.range(a * core_id, n, a * num_cores)` steps `a` at one block, `a * B` at B: its
        iterations on every block stay `a` apart, `_per_core_range`); a counter its
        step, when every iteration of the loops of run-time trip count that carry it steps it by
        the same amount on every core (`t = t + 1` in a static inner loop: the number of inner
        iterations; `counter_steps`), else 1, the least a counter that moves at all moves."""
        if var[0] == "loop":
            return self.loop_steps.get(var, 1)
        if var[0] != "carried":
            return 1
        steps = self.counter_steps.get(var, set())
        return abs(next(iter(steps))) if len(steps) == 1 and next(iter(steps)) else 1

    # --- the period and the bound -----------------------------------------------------------
    def period(self) -> int:
        return math.lcm(*self.periods) if self.periods else 1


def _in_loops_apart(named: list[Access]) -> bool:
    """Are two accesses made in two loops of run-time trip count with no loop around both (probe
    h252: a load at a fixed place in the second loop, moved by no loop variable, was told to keep
    the store's stride, where a barrier of both cores between the loops was missing)?"""
    if len(named) != 2 or not all(a.inside for a in named):
        return False
    a, b = named
    return not set(a.inside) & set(b.inside)  # (probe h253: two inner loops of one pipeline loop are not apart)


def _loops_of(accesses: list[Access]) -> set:
    """The loops of run-time trip count whose variables place `accesses`."""
    return {v[:2] for a in accesses for c in a.coords if c for v, _ in c[0] if v[0] == "loop"}


def _fixed_place(tensor: str, access: Access, again: bool = False) -> NonUniform:
    """Why an access outside every loop of run-time trip count, at a place no loop moves, keeps
    the loop of `tensor` from being proven: `Uniform.finish` judges the accesses of a tensor
    between two barriers together, and proves the loop for every trip count from the counts up
    to a bound only when they all keep one stride of it; the access outside it keeps none. A
    barrier of every core between the two puts them in different phases, judged apart (and
    ordered alike in the serial and the pipelined kernel). Where the loop runs again after the
    access (`again`: an outer loop around both), a barrier before the access leaves it in the
    phase of the loop's next run, and pipelined, each run's last tasks run after the access
    (probe h212: the help asked for the barrier the kernel had)."""
    if again and access.outside == "after":
        exc = NonUniform(f"`{tensor}` is written in a loop of run-time trip count, and `{access.text}`, after the "
                         "loop, accesses it at a place that does not move with the loop, while a loop around both "
                         f"runs the loop again after it with no barrier between: the check proves such a loop only "
                         f"when every access of `{tensor}` between two barriers keeps one stride of it, and pipelined, "
                         f"the stages of the loop's last tasks run after `{access.text}`, in the next run of the loop "
                         "or the drain",
                         "do that work in the last stage, under a test of the loop's last iteration (`if ki == n - "
                         "1:`), where the stage that writes it has run")
        exc.node = access.node
        return exc
    where = "before" if access.outside == "before" else "after"
    between = (f"between the accesses of `{tensor}` before the loop and the loop" if where == "before"
               else f"between the loop and the accesses of `{tensor}` after it")
    exc = NonUniform(f"`{tensor}` is written in a loop of run-time trip count, and `{access.text}`, {where} the "
                     f"loop, accesses it at a place that does not move with the loop, while the check proves such "
                     f"a loop only when every access of `{tensor}` between two barriers keeps one stride of it",
                     f"put `pl.system.sync_all()` {between}, so that each side is judged on its own")
    exc.node = access.node
    return exc


def _nearest(now: int, period: int, a: int, c: int, k: int, r: int) -> list[int]:
    """The values nearest to `now` at or above it and below it with `(a * v + c) % k == r`
    (the residue repeats with `period`); none when no value gives it. Solved as a congruence, not
    searched: a period of `10 ** 30` (`d % 10 ** 30 == 10 ** 29`) ran for ever (probe h174)."""
    if k == 0 or not (0 <= r < k if k > 0 else k < r <= 0):
        return []  # (Python's `%` gives no such residue)
    m = abs(k)
    g = math.gcd(a, m)
    rhs = (r - c) % m
    if rhs % g:
        return []
    step = m // g  #: the values that give it are one class modulo `step`
    first = rhs // g * pow(a // g, -1, step) % step if step > 1 else 0
    up = now + (first - now) % step
    return sorted({up, up - period} if up != now else {now})


#: the block count as the check models it (block 0 of one block)
BLOCK_COUNT = (("core", "get_block_num"), 1)
#: the block (`get_block_idx() // get_subblock_num()`), block 0 in the run
BLOCK = ("core", "block")


def block_words(var: tuple) -> str:
    """How a message names a block variable (as code, like a parameter's name)."""
    return "get_block_idx() // get_subblock_num()" if var == BLOCK else "get_block_num()" \
        if var == BLOCK_COUNT[0] else str(var[1])


def _times_blocks(index: Any, blocks: Any) -> Sym | None:
    """`t * num_cores` (`core_id + t * num_cores`: beat t's tile on its block): the loop
    variable or counter `t` times the block count B. One block is modelled, where it is `t`; for
    B blocks its steps are B times longer, so it is a variable of its own (`(var, "blocks")`),
    and a GM offset by it keeps different iterations apart whenever it does at B = 1. A test on
    it is refused (no loop counts it), and accesses by it and by `t` itself have different
    strides."""
    if not (isinstance(blocks, Sym) and blocks.form == (BLOCK_COUNT,) and not blocks.const and int(blocks) == 1):
        return None
    if not (isinstance(index, Sym) and index.form and not index.residue
            and all(var[0] in INDEX and var[0] != GRID and var[-1] != "blocks" for var, _ in index.form)):
        return None
    # `(t - 1) * num_cores`: the constant times the block count, a move with the block count
    count = ((BLOCK_COUNT[0], index.const),) if index.const else ()
    return Sym(int(index), tuple(((*var, "blocks"), c) for var, c in index.form) + count, False, 0, index.moving)


def _block_times_constant(block: Any, other: Any) -> bool:
    """`core_id * my_n`: the block index (block 0 in the run) times a value the same through the
    block's run (a trip count, a parameter; no loop variable or counter). Its value is 0 at
    block 0 whatever the trip count, and one constant on each other block: a GM offset by it
    moves every access of the block alike, as the block index does."""
    return (isinstance(block, Sym) and len(block.form) == 1 and block.form[0][0] == BLOCK and not block.const
            and not block.residue and isinstance(other, Sym) and bool(other.form) and not other.residue
            and not any(var[0] in INDEX or var[-1] == "blocks" or _per_block(var) or is_block_value(var)
                        for var, _ in other.form))


def may_differ_between_blocks(value: Any) -> bool:
    """Can a value the run compared differ from block to block: one computed from the block index
    or a per-core loop, a run-time value not the same on every block, one not known at all?"""
    if type(value) in (int, float, bool):
        return False
    if isinstance(value, Sym):
        return any(is_block_value(var) or var[0] in INDEX or var[0] == "derived" for var, _ in value.form)
    if isinstance(value, Opaque):
        return marks_block_index(value.origin) or not _same_on_every_block(value.origin)
    return True


def _same_on_every_block(origin: Any) -> bool:
    """Is a run-time value of this origin the same on every block: computed from tensor shapes,
    the block count and plain numbers only? (Not a value read from GM, which an index by the
    block may pick per block, nor one holding the block index, even inside `min`.)"""
    if type(origin) is int:
        return True
    if not isinstance(origin, tuple) or not origin:
        return False
    if origin[0] in ("shape", "param"):  # kernel arguments reach every block alike
        return True
    if origin[0] == "block":
        return origin[-1] == "count"
    if origin[0] == "read":  # an element of GM named by numbers (`counts[0]`), unless a block picks it
        return _read_tensor(origin) is not None and origin[-1] != "per block"
    if origin[0] == "op":
        return all(_same_on_every_block(part) for part in origin[2:])
    return False


def _placed(offsets: Any) -> list | None:
    """GM offsets as a list when every one is a number the run follows; None when a place is not known."""
    parts = list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
    return None if any(not isinstance(o, int) or isinstance(o, bool) for o in parts) else parts


def _meet(a: tuple, b: tuple) -> bool:
    """Do two rectangles `(r0, r1, c0, c1)` share an element?"""
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def _read_tensor(origin: tuple) -> str | None:
    """The GM tensor a read origin names by its element (`("read", "GM", ident, ("at", tensor,
    index))`), or None for any other read."""
    if len(origin) >= 4 and origin[1] == "GM" and isinstance(origin[3], tuple) and origin[3][:1] == ("at",):
        return origin[3][1]
    return None


def _reads_in(origin: Any) -> set:
    """The GM tensors whose elements a run-time value is computed from."""
    if not isinstance(origin, tuple) or not origin:
        return set()
    if origin[0] == "read":
        tensor = _read_tensor(origin)
        return {tensor} if tensor is not None else set()
    return set().union(*(_reads_in(part) for part in origin[1:])) if origin[0] == "op" else set()


def _at_most(origin: Any, size: Any) -> bool:
    """Is a run-time value of this origin at most the run-time size `size` on every block where it
    counts tasks: `size` itself, `min(size, ...)`, or `max(c, x)` with `c <= 0` and `x` at most
    `size` (it counts tasks only when it is `x`)? The length of a balanced split is its own
    size; a choice by the block (`chunk if core_id < num_cores - 1 else n - start`) is at most
    the size when what every block but the last takes is: no block comes after the last."""
    if origin == size or isinstance(size, tuple) and size[:2] == ("op", "balanced") \
            and _balanced_length(origin) == size[2:]:
        return True
    if isinstance(size, tuple) and size[:2] == ("op", "floorsplit") and origin == ("op", "floordiv", *size[2:]):
        return True  # `n // num_cores`: no block of a floor split of `n` takes fewer tasks
    if not (isinstance(origin, tuple) and origin[:1] == ("op",)):
        return False
    if origin[1] == "choose":
        least = _as_min(origin)
        if least is not None:
            return _at_most(least, size)
        below = _below_last(origin)
        return below is not None and _at_most(below, size)
    if origin[1] == "min":
        return any(_at_most(part, size) for part in origin[2:])
    if origin[1] == "max" and len(origin) == 4:
        a, b = origin[2:]
        return (type(a) is int and a <= 0 and _at_most(b, size)) or (type(b) is int and b <= 0 and _at_most(a, size))
    return False


def _ends_by(origin: Any, start: Any, size: Any) -> bool:
    """Is the stop of a loop from a chunk start (`start`, `Uniform.opaque_chunk`) at most the start
    plus the chunk `size` on every block: `start + x` with `x` at most the size, `(core_id + 1) *
    size`, or the `min` of values one of which is such?"""
    if not (isinstance(origin, tuple) and origin[:1] == ("op",)):
        return False
    if origin[1] == "choose":
        least, below = _as_min(origin), _below_last(origin)
        return (least is not None and _ends_by(least, start, size)) or (below is not None
                                                                       and _ends_by(below, start, size))
    if origin[1] == "min":
        return any(_ends_by(part, start, size) for part in origin[2:])
    if origin[1] == "add" and len(origin) == 4:
        a, b = origin[2:]
        return (a == start and _at_most(b, size)) or (b == start and _at_most(a, size)) \
            or _next_balanced_start(origin, size) or _start_plus(origin, start, size)
    if origin[1] == "floordiv" and len(origin) == 4:  # `(core_id + 1) * n // num_cores`
        return _next_floor_start(origin, size)
    if origin[1] == "mul" and len(origin) == 4:  # `(core_id + 1) * chunk`: the next block's start
        a, b = origin[2:]
        return (a == size and _next_block(b)) or (b == size and _next_block(a))
    return False


def _start_plus(origin: tuple, start: Any, size: Any) -> bool:
    """`start + base + (core_id < rem)`, a sum of three read left to right: the start plus the
    sum of the two others, at most the size (`(start + x) + y` is `start + (x + y)`)."""
    a, b = origin[2:]
    for first, second in ((a, b), (b, a)):
        inner = _addends(first)
        if start in inner:
            other = inner[1] if inner[0] == start else inner[0]
            return _at_most(("op", "add", other, second), size)
    return False


def _end_less_start(origin: Any, start: Any, size: Any) -> bool:
    """Is `origin` a count from the chunk start `start` (its run-time value) to an end at most
    one chunk `size` further (`end - start`, `_ends_by`): at most the size, as the stop of a
    loop from the start to that end is?"""
    return (isinstance(origin, tuple) and len(origin) == 4 and origin[:2] == ("op", "sub")
            and origin[3] == getattr(start, "origin", None) and _ends_by(origin[2], origin[3], size))


def _next_balanced_start(origin: tuple, size: Any) -> bool:
    """Is `origin` the next block's start in the balanced split whose chunk size is `size`:
    `(core_id + 1) * base + min(core_id + 1, rem)` (the operands either way round), which is this
    block's start plus its length (`Uniform.balanced_chunk`)?"""
    if not (isinstance(size, tuple) and size[:2] == ("op", "balanced") and len(origin) == 4
            and origin[1] == "add"):
        return False
    n, count = size[2:]
    base, rem = ("op", "floordiv", n, count), ("op", "mod", n, count)
    for product, least in (origin[2:], origin[3:1:-1]):
        if _op_of("mul", product, base, _next_block) and _op_of("min", least, rem, _is_next_index):
            return True
    return False


def _next_floor_start(origin: tuple, size: Any) -> bool:
    """Is `origin` the next block's start in the floor split whose chunk size is `size`:
    `(core_id + 1) * n // num_cores` (`Uniform.floor_split`)?"""
    if not (isinstance(size, tuple) and size[:2] == ("op", "floorsplit") and origin[3] == size[3]):
        return False
    return _op_of("mul", origin[2], size[2], _next_block)


def _op_of(name: str, origin: Any, operand: Any, other: Callable[[Any], bool]) -> bool:
    """Is `origin` the operation `name` of `operand` and a value `other` accepts, either way round?"""
    if not (isinstance(origin, tuple) and len(origin) == 4 and origin[:2] == ("op", name)):
        return False
    a, b = origin[2:]
    return (a == operand and other(b)) or (b == operand and other(a))


def _is_next_index(origin: Any) -> bool:
    """`core_id + 1` as it stands in a run-time value: itself, or its mark (`_next_block`)."""
    if isinstance(origin, Sym):
        return origin.form == ((BLOCK, 1),) and origin.const == 1 and not origin.residue
    return _next_block(origin)


def _below_last(origin: tuple) -> Any:
    """What every block but the last takes in a choice by the block (`chunk if core_id < num_cores
    - 1 else n - start`, `... if core_id == num_cores - 1 else chunk`), or None."""
    _, _, test, first, second = origin
    return first if test == ("lt", INDEX_TERM, LAST_TERM) else second if test == ("eq", INDEX_TERM, LAST_TERM) \
        else None


def _as_min(origin: tuple) -> tuple | None:
    """A choice that is the smaller of two values, as their `min`: `x - s if x < y else y - s` for
    any `s` (none, `end = start + chunk; if end > n: end = n`; the start, `cnt = chunk; if start +
    cnt > n: cnt = n - start`). None for any other choice."""
    _, _, test, first, second = origin
    if not (isinstance(test, tuple) and len(test) == 3 and test[0] == "lt"):
        return None
    _, x, y = test
    for s in [None, *_addends(x), *_addends(y)]:
        if first in _less(x, s) and second in _less(y, s):
            return ("op", "min", first, second)
    return None


def _addends(origin: Any) -> list:
    """The two parts of a sum's origin (`("op", "add", x, y)`), or none."""
    return list(origin[2:]) if isinstance(origin, tuple) and len(origin) == 4 and origin[:2] == ("op", "add") else []


def _less(origin: Any, part: Any) -> list:
    """The origins of `origin - part` (`origin` itself for no part): the difference, and the other
    addend when `origin` is a sum with `part`."""
    if part is None:
        return [origin]
    parts = _addends(origin)
    others = [parts[1 - i] for i in range(len(parts)) if parts[i] == part]
    return [("op", "sub", origin, part), *others]


def _split(base: Any) -> tuple | None:
    """`(n, num_cores)` of `base = n // num_cores` (the block count's mark, `pysubset._block_mark`)."""
    if isinstance(base, tuple) and len(base) == 4 and base[:2] == ("op", "floordiv") and _is_block_count(base[3]) \
            and _same_on_every_block(base[2]):  # not `n` chosen or read per block
        return base[2], base[3]
    return None


def _is_block_count(origin: Any) -> bool:
    return isinstance(origin, tuple) and len(origin) == 4 and origin[0] == "block" and origin[-1] == "count"


def _is_block_index(origin: Any) -> bool:
    """The block index as it stands in a run-time value: itself (`min(core_id, rem)`) or its mark."""
    if isinstance(origin, Sym):
        return origin.form == ((BLOCK, 1),) and not origin.const and not origin.residue
    return isinstance(origin, tuple) and len(origin) == 4 and origin[0] == "block" and origin[-1] == "index"


def _is_min_of_index_and(origin: Any, other: tuple) -> bool:
    """`min(core_id, other)` or `min(other, core_id)`."""
    if not (isinstance(origin, tuple) and len(origin) == 4 and origin[:2] == ("op", "min")):
        return False
    a, b = origin[2:]
    return (_is_block_index(a) and b == other) or (_is_block_index(b) and a == other)


def _balanced_length(origin: Any) -> tuple | None:
    """`(n, num_cores)` when `origin` is the task count of a block in a balanced split: `base + 1
    if core_id < rem else base` or `base + (1 if core_id < rem else 0)`, `base = n // num_cores`,
    `rem = n % num_cores`."""
    if not (isinstance(origin, tuple) and origin[:1] == ("op",)):
        return None
    if origin[1] == "choose":
        _, _, test, below, rest = origin
        split = _split(rest)
        if split is not None and below == ("op", "add", rest, 1) and test == ("lt", INDEX_TERM, ("op", "mod", *split)):
            return split
    if origin[1] == "add" and len(origin) == 4:
        for base, extra in (origin[2:], origin[3:1:-1]):
            split = _split(base)
            if split is not None and extra == ("op", "choose", ("lt", INDEX_TERM, ("op", "mod", *split)), 1, 0):
                return split
    return None


def _next_block(origin: Any) -> bool:
    """The origin of `core_id + 1` (`pysubset._block_mark`)."""
    return isinstance(origin, tuple) and len(origin) == 4 and origin[0] == "block" and origin[-1] == "index+1"


def _per_block(var: tuple) -> bool:
    """Does `var` differ from block to block (the block index in it, or in a run-time value it
    is computed from: `(n - core_id + num_cores - 1) // num_cores`)? A chunk start scaled by
    it would step by other amounts on other blocks than at block 0."""
    if var == BLOCK:
        return True
    if var[0] == "derived":
        return any(_per_block(r) for r in var[2])
    if var[0] == "size":
        return marks_block_index(var[1])
    return False


def marks_block_index(origin: Any) -> bool:
    """A run-time value's origin naming the block index (`pysubset._block_mark`: any block
    value but the block count; or a number of the run computed from it, `min(n, 2 - core_id)`)."""
    if isinstance(origin, Sym):
        return any(_per_block(var) for var, _ in origin.form)
    if not isinstance(origin, tuple) or not origin:
        return False
    if origin[0] == "read":  # a value read from GM at a place that depends on the block
        return origin[-1] == "per block"
    if origin[0] == "block":
        return origin[-1] != "count"
    return any(marks_block_index(part) for part in origin[1:])


def _by_repr(terms: list) -> tuple:
    """The terms sorted by their text, a canonical order (one term or none needs no sorting)."""
    return tuple(terms) if len(terms) < 2 else tuple(sorted(terms, key=repr))


def _form(value: Any) -> tuple:
    return value.form if isinstance(value, Sym) else ()


def _last_of_per_core(loop: Loop, rest: dict, a: int) -> bool:
    """Is `rest` (the difference's terms other than the loop variable's `a`) the step of the
    per-core range `loop` less its stop, `a * (c * B - n)`, the start `c * core_id`? The
    difference is then `a` times the distance from the next iteration to the stop."""
    if loop.root is None or loop.stop_form != ((loop.root, 1),) or not loop.starts:
        return False
    form = loop.starts[0][0]
    if len(form) != 1 or form[0][0] != BLOCK or form[0][1] <= 0:
        return False
    if loop.host_step:  # `pl.range(core_id, n, used_cores)`: `i + used_cores >= n`
        return rest == {**{var: a * c for var, c in loop.host_step[0]}, loop.root: -a}
    return rest == {BLOCK_COUNT[0]: a * form[0][1], loop.root: -a}


def _settled_within(op, d1: int, slope: int, count: int) -> bool:
    """Is `op(d, 0)` the same for every `d = d1 + slope * u`, u = 0 .. count - 1? (`slope` != 0)"""
    if count <= 1:
        return True
    if op in (operator.eq, operator.ne):
        return d1 % slope != 0 or not 0 <= -d1 // slope < count  # 0 is met at no u of the range
    if op in (operator.lt, operator.le, operator.gt, operator.ge):
        return bool(op(d1, 0)) == bool(op(d1 + slope * (count - 1), 0))  # monotone in d: as at both ends
    return False


def _settled(op, d1: int, slope: int) -> bool:
    """Is `op(d, 0)` the same for every `d = d1 + slope * u`, u = 0, 1, 2, ...? (`slope` != 0)"""
    if op in (operator.eq, operator.ne):
        return d1 > 0 if slope > 0 else d1 < 0  # never 0 again
    if op in (operator.lt, operator.le, operator.gt, operator.ge):
        far = 10 ** 18 if slope > 0 else -(10 ** 18)
        return bool(op(d1, 0)) == bool(op(far, 0))  # monotone in d: as at the start, as far away
    return False


def _const(value: Any) -> int:
    return value.const if isinstance(value, Sym) else int(value)


def _moving(value: Any) -> int:
    """What loop variables and counters contribute to `value` in this run."""
    return value.moving if isinstance(value, Sym) else 0


def _residue(value: Any) -> bool:
    return isinstance(value, Sym) and value.residue


def _loop_times_count(lf: tuple, rf: tuple) -> bool:
    """A loop variable (alone, scaled) times a trip-count root: `qi * NK` of a flat tile index,
    where `NK` bounds the inner loop (a module constant followed as a count of a long static
    kernel, or a run-time size)."""
    def loop_only(form: tuple) -> bool:
        return len(form) == 1 and form[0][0][0] == "loop"

    def count_only(form: tuple) -> bool:
        return bool(form) and all(v[0] == "size" for v, _ in form)

    return loop_only(lf) and count_only(rf) or loop_only(rf) and count_only(lf)


def _index(form: tuple) -> bool:
    for v, _ in form:  # a loop, not `any`: asked of every operand of every operation
        if v[0] in INDEX:
            return True
    return False


def run_time_var(var: tuple) -> bool:
    """A variable of a value's form that a run follows at one value: a scalar parameter's (or a
    value computed from one), the block index's or count's."""
    return _scalar(var) or is_block_value(var)


def _scalar(var: tuple) -> bool:
    """A scalar kernel parameter, or a value computed from one."""
    return var[0] == "scalar" or var[0] == "derived" and any(r[0] == "scalar" for r in var[2])


def _quoted(name: str) -> str:
    """A parameter's name as code; words that already quote their code as they are."""
    return name if "`" in name else f"`{name}`"


def _operation_key(fn, left: Any, right: Any) -> tuple | None:
    """What names an operation on run-time values (`_derive`): the operator and each operand's
    form and constant, or its number; None where an operand is periodic in the loop variables or
    moves with them (its value is not the same in every iteration)."""
    parts: list = []
    for operand in (left, right):
        if isinstance(operand, Sym):
            if operand.residue or operand.moving:
                return None
            parts.append((operand.form, operand.const))
        elif type(operand) is int:
            parts.append(operand)
        else:
            return None
    return (fn, *parts)


def _derived_per_block(var: tuple) -> bool:
    """A value computed from the block index other than by adding and scaling it (`core_id %
    8`, a variable of its own: `Uniform._derive`), not a chunk start (`core_id * my_n`)."""
    return var[0] == "derived" and len(var) == 3 and _per_block(var)


def is_block_value(var: tuple) -> bool:
    """The block index or count, or a value computed from them other than by adding and scaling
    (`core_id % 2`, `num_cores // 2`: a variable of its own at each computation)."""
    return var[0] == "core" or var[0] == "derived" and any(r[0] == "core" for r in var[2])


def block_only(var: tuple) -> bool:
    """`is_block_value`, computed from nothing else (no parameter, trip count or loop)."""
    return var[0] == "core" or var[0] == "derived" and bool(var[2]) and all(r[0] == "core" for r in var[2])


def scalar_name(var: tuple) -> str:
    """The words for a variable a run follows at one value (`run_time_var`): a parameter's name, the
    block's words, or a value computed from them."""
    if var[0] == "core":
        return block_words(var)
    if var[0] == "derived" and not any(r[0] == "scalar" for r in var[2]):
        return "a value computed from " + " and ".join(sorted(f"`{block_words(r)}`" for r in var[2] if r[0] == "core"))
    if var[0] == "scalar":
        return var[1]
    return next(r[1] for r in var[2] if r[0] == "scalar")


def roots_of(value: Any) -> set:
    """What a value varies with: the trip counts, block queries and parameters in its form."""
    return _roots(getattr(value, "form", ()))


def _roots(form: tuple) -> set:
    out: set = set()
    for v, _ in form:
        if v[0] in ("size", "core", "scalar"):
            out.add(v)
        elif v[0] == "derived":
            out.update(v[2])
    return out


def _depends(a: tuple, b: tuple) -> tuple:
    """The variables of two forms, each with a coefficient no sum cancels (the sum of their sizes):
    the form of a value computed from both other than by adding them."""
    out = {v: abs(c) for v, c in a}
    for v, c in b:
        out[v] = out.get(v, 0) + abs(c)
    return tuple(out.items())


def _add(a: tuple, b: tuple, sign: int) -> tuple:
    if not b and len(a) == 1:  # (a value plus a number: the commonest sum, as below without a dict)
        (v, c), = a
        return ((v, c),) if c else ()
    if not a and len(b) == 1:
        (v, c), = b
        c = 0 + sign * c
        return ((v, c),) if c else ()
    out = dict(a)
    get = out.get
    for v, c in b:
        out[v] = get(v, 0) + sign * c
    return tuple([(v, c) for v, c in out.items() if c])


def on_grid(form: tuple) -> bool:
    """Does a form hold a coordinate of a tile grid (`Uniform.grid`)?"""
    for v, _ in form:  # a loop, not `any`: asked of the operands of every division and test
        if v[0] == GRID:
            return True
    return False


def walks_grid(fn, left: Any) -> bool:
    """Is `fn(left, n)` a coordinate of a tile grid for some count `n` (`Uniform.grid`): `//` or
    `%` of a value affine in one loop variable (not scaled by the block count)? Asked first, so
    that what the grid needs of the run is computed only for such a value."""
    if fn not in (operator.floordiv, operator.mod) or not isinstance(left, Sym) or left.residue \
            or len(left.form) != 1:
        return False
    ((var, a),) = left.form
    return not (var[0] != "loop" or var[-1] == "blocks" or not a)


def _grid_count(count: Any) -> tuple | None:
    """The key of a count a tile grid divides by (`Uniform.grid`): a run-time value the same on
    every block and through the run, read from no GM tensor (a size, a quotient of one, a scalar
    parameter, a value computed from such); None for a plain number (`idx % 4` is a residue, and
    `idx // 4` is refused as before), the block index or count, or a value that moves."""
    if isinstance(count, Sym):
        if count.residue or not count.form or any(v[0] in INDEX or is_block_value(v) for v, _ in count.form):
            return None
        return ("sym", count.form, count.const)
    if isinstance(count, Opaque):
        origin = count.origin
        if not _same_on_every_block(origin) or marks_block_index(origin) or _reads_in(origin):
            return None
        return ("opaque", origin)
    return None


def _floor_bound(count: Any) -> int | None:
    """`k` when a grid's count is a floor quotient `D // k` of a tensor dimension or a scalar
    parameter `D` (`w.shape[1] // TILE`, less a constant), else None (a ceiling `(D + k - 1) // k`
    counts a last tile that may run past `D`)."""
    origin = count.origin if isinstance(count, Opaque) else None
    if isinstance(count, Sym) and count.form and len(count.form) == 1 and count.form[0][1] == 1 \
            and not count.const and count.form[0][0][0] == "size":
        origin = count.form[0][0][1]
    if not (isinstance(origin, tuple) and len(origin) == 4 and origin[:2] == ("op", "floordiv")
            and type(origin[3]) is int and origin[3] > 0):
        return None
    base, moved = shifted(origin[2])
    if moved > 0 or not (isinstance(base, tuple) and base[:1] in (("shape",), ("param",))):
        return None
    return origin[3]


def _grid_axis(accs: list[Access], axis: int, part: str) -> tuple | None:
    """`(var, stride, lo, hi)` when every access is placed along `axis` by one coordinate `part`
    of one grid times one stride, its tiles from `lo` to `hi` within one stride; else None."""
    coords = [a.coords[axis] for a in accs]
    if any(c is None for c in coords) or len({c[0] for c in coords}) != 1:
        return None
    linear = coords[0][0]
    if len(linear) != 1 or linear[0][0][0] != GRID or linear[0][0][2] != part or not linear[0][1]:
        return None
    (var, stride), = linear
    lo = min(c[1] for c in coords)
    hi = max(c[1] + c[2] for c in coords)
    return (var, stride, lo, hi) if hi - lo <= abs(stride) else None


def _on_both(access: Access) -> bool:
    """Is the access placed by a grid's row along one axis and by its column along another?"""
    parts = [c[0][0][0] for c in access.coords if c and len(c[0]) == 1 and c[0][0][0][0] == GRID]
    return any(p[2] == "q" and (GRID, p[1], "r") in parts for p in parts)

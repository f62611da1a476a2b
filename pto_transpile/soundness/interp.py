"""An abstract interpreter of one kernel: what each core does, without data.

It walks the kernel's syntax tree (never Python's `exec`): scalars are computed where they are
static, tile groups keep a cursor per core, and every block op, vector-function call and sync
becomes an event on the core that runs it, with the exact memory it touches. The AIC and both
AIVs run the kernel body in lockstep (plain statements on every core, a section on its cores),
so the event numbers (`Event.seq`) give the serial kernel's sequential order.

What cannot be decided statically is explicit: an unknown branch condition runs both branches
as "may" (its accesses may or may not happen), an unknown index picks "any of these tiles",
and anything the model cannot follow (a sync under a runtime condition, a loop of unknown trip
count around stages) stops the run with a reason, so the check refuses instead of guessing.
"""

from __future__ import annotations

import ast
import operator
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import libcst as cst

from pto_api.effects import (
    DEFAULT_BARRIER,
    DEFAULT_LAYOUT,
    acc_to_vec_targets,
    barrier_kinds,
    gm_extent,
    initial_cursor,
    initial_valid,
    pick_slot,
    slot_addresses,
)
from pto_api.memory import DTYPE_BITS
from pto_api.ops import DESCRIPTOR_ONLY_OPS, PIPE_CORES, move_pipe, op_pipe, op_roles, store_pipe
from pto_transpile.read import vfbody
from pto_transpile.read.consteval import AUGMENTED, BINOPS, MAX_ITEMS, PlSymbol, too_big
from pto_transpile.read.partial import Verbatim
from pto_transpile.read.printing import code_of as expression_code
from pto_transpile.soundness import vfextent
from pto_transpile.soundness.events import AIC, AIV0, AIV1, CORE_KIND, CORES, INF, Event, Foot, Invocation, Trace
from pto_transpile.soundness.tilefeet import ValidShapes, insert_feet
from pto_transpile.soundness.uniform import INDEX, Loop, NonUniform, Uniform
from pto_transpile.soundness.values import (
    UNKNOWN,
    AnyTileV,
    Builtin,
    FunctionV,
    GroupV,
    Opaque,
    StructV,
    Sym,
    Symbol,
    TensorV,
    TileTypeV,
    TileV,
    is_unknown,
    known,
)

#: Statements one check may execute before it gives up (hostile or huge loops).
STEP_BUDGET = 400_000
#: Statements a run of a kernel with static sizes may take before the check calls it long and
#: proves it at representative trip counts instead (`check._long_static`); FlashAttention at
#: 256 x 512 runs about 600 in its serial kernel.
LONG_RUN = 5_000
GM_WRITE_OPS = frozenset({"store", "store_tile"})
SYNC_OPS = frozenset({"set_cross_core", "wait_cross_core"})
PIPE_BARRIERS = {"bar_all": "ALL", "bar_m": "M", "bar_mte1": "MTE1", "bar_mte2": "MTE2", "bar_mte3": "MTE3",
                 "bar_fix": "FIX", "bar_v": "V"}


class CannotModel(Exception):
    """The run cannot be followed statically; `node` is where, `reason` says why."""

    def __init__(self, reason: str, node: cst.CSTNode | None = None, kind: str = "unmodelled"):
        super().__init__(reason)
        self.reason = reason
        self.node = node
        self.kind = kind  #: "unmodelled", or "dynamic" for a size known only at run time


class _Return(Exception):
    def __init__(self, value: Any):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass
class Ctx:
    """One core executing one function frame."""

    core: int
    env: dict
    scope: tuple | None = None  #: ("stage", name, number) inside a stage invocation
    counter: list = field(default_factory=lambda: [0])
    may: int = 0

    def child(self, env: dict, scope=None, counter=None) -> Ctx:
        return Ctx(self.core, env, scope if scope is not None else self.scope,
                   counter if counter is not None else self.counter, self.may)


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
    #: the period the trip counts were chosen for: a run that finds a rotation not dividing it
    #: (one the discovery runs missed) is refused
    period: int = 0
    #: follow static tensor dimensions as symbols too (`pl.DYNAMIC` ones always are): a
    #: kernel whose static loops run long is checked at representative trip counts
    symbolic_dims: bool = False
    #: module constants followed as trip-count roots (`("const", name)`), as scalar parameters are
    symbolic_names: frozenset = frozenset()
    #: statements this run may take; past `LONG_RUN`-sized budgets the run is "long", not refused
    step_budget: int = STEP_BUDGET


#: the trip count a discovery run gives each loop over a `pl.DYNAMIC` expression
DISCOVERY_TRIPS = 3


@dataclass
class SymRange:
    """`pl.range(start, stop, step)` where some bound varies between runs (a `Sym`)."""

    start: Any
    stop: Any
    step: Any


_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
    cst.In: lambda a, b: a in b, cst.NotIn: lambda a, b: a not in b,
    cst.Is: operator.is_, cst.IsNot: operator.is_not,
}
_BUILTINS = ("range", "len", "min", "max", "abs", "int", "float", "bool", "print", "isinstance")
_PYTHON_BUILTINS: dict[str, Callable[..., Any]] = {"len": len, "min": min, "max": max, "abs": abs, "int": int,
                                                   "float": float, "bool": bool}


def _elem_bytes(dtype: Any) -> int:
    if isinstance(dtype, Symbol) and dtype.leaf in DTYPE_BITS:
        return max(1, (DTYPE_BITS[dtype.leaf] + 7) // 8)
    return 4


class Interpreter:
    def __init__(self, file, fn: cst.FunctionDef, config: Config, auto_mutex: bool = True):
        self.file = file
        self.pl = file.pl
        self.fn = fn
        self.config = config
        self.auto_mutex = auto_mutex
        self.trace = Trace()
        self.seq = 0
        self.trips = dict(config.trips)
        self.uniform = Uniform(discover=config.discover)
        self.uniform.roots.update({("size", k): v for k, v in config.zeros.items()})
        self._carried: dict[int, tuple] = {}
        self.steps = 0
        self._budget = config.step_budget
        self._symbolic_names = config.symbolic_names
        self.cursors: list[dict[int, Any]] = [{}, {}, {}]
        self.valid = ValidShapes()
        self.stage_counts: list[Counter[str]] = [Counter(), Counter(), Counter()]
        self.code_counts: list[Counter[str]] = [Counter(), Counter(), Counter()]
        # per file: the serial and the generated kernel (stage bodies are the same nodes) and
        # every configuration share them; entries keep their node, so an id stays its own
        shared = file.__dict__.setdefault("_soundness_cache", {"code": {}, "vf": {}, "paths": {}, "strings": {},
                                                               "integers": {}, "globals": {}})
        if "extents" not in shared:
            shared["extents"] = vfextent.VectorFunctions(lambda name: _vf_source(file, name), self._vf_constant)
        self._extents: vfextent.VectorFunctions = shared["extents"]
        self._code: dict[int, tuple] = shared["code"]
        self._strings: dict[int, tuple] = shared["strings"]
        self._integers: dict[int, tuple] = shared["integers"]
        self._globals: dict[str, tuple] = shared["globals"]  #: name -> (is a module constant, value) outside any frame
        self._vf_roles: dict[str, dict[int, str]] = shared["vf"]
        self._paths: dict[int, tuple] = shared["paths"]
        self._functions = {**{n: FunctionV("helper", f) for n, f in file.helpers.items()},
                           **{n: FunctionV("vf", f) for n, f in file.vector_functions.items()},
                           **{n: FunctionV("stage", s.node) for n, s in file.stages.items()}}

    # entry ---------------------------------------------------------------------------------
    def run(self) -> Trace:
        ctxs = [Ctx(core, self._params(core)) for core in (AIC, AIV0, AIV1)]
        try:
            self.exec_block(self.fn.body.body, ctxs)
        except _Return:
            pass
        except (_Break, _Continue):
            raise CannotModel("`break`/`continue` outside a loop", self.fn) from None
        except RecursionError:
            raise CannotModel("the kernel nests too deeply to follow", self.fn) from None
        try:
            self.uniform.finish()
        except NonUniform as exc:
            raise _nonuniform(exc, self.fn.name) from None
        missed = sorted(p for p in self.uniform.periods if self.config.period and self.config.period % p)
        if missed:
            raise CannotModel(f"a rotation of length {missed[0]} shows only at some trip counts, after the check "
                              f"chose them for a period of {self.config.period}; make the kernel take every `% k` "
                              "and rotate every tile group in every iteration", self.fn.name, kind="nonuniform")
        return self.trace

    def _too_long(self, reason: str, node) -> CannotModel:
        """A run too long to follow: "long" while the check only probes whether it is (it then
        proves representative trip counts instead), "size" when it must follow the whole run."""
        return CannotModel(reason, node, kind="long" if self._budget < STEP_BUDGET else "size")

    def _params(self, core: int) -> dict:
        env: dict = {}
        for p in self.fn.params.params:
            name = p.name.value
            ann = p.annotation.annotation if p.annotation is not None else None
            if isinstance(ann, cst.Subscript) and self.pl.path(ann.value) == ("Tensor",):
                env[name] = self._tensor(name, ann)
            elif ("param", name) in self.trips:
                env[name] = Sym(self.trips[("param", name)], ((("size", ("param", name)), 1),))
            elif self.config.discover and p.default is None:
                env[name] = Sym(DISCOVERY_TRIPS, ((("size", ("param", name)), 1),))
            elif name in self.config.scalars:
                value = self.config.scalars[name]
                # a sampled value that also says where it came from: GM offsets by it are judged for
                # every value (`Uniform.finish`)
                sampled = isinstance(value, int) and not isinstance(value, bool) and not self.config.discover
                env[name] = Sym(value, ((("scalar", name), 1),)) if sampled else value
            elif p.default is not None:
                env[name] = self.file.evaluator.try_eval(p.default, UNKNOWN)
            else:
                env[name] = UNKNOWN
        return env

    def _tensor(self, name: str, ann: cst.Subscript) -> TensorV:
        items = [e.slice.value for e in ann.slice if isinstance(e.slice, cst.Index)]
        shape: tuple = ()
        elem = 4
        if items:
            dims = self.file.evaluator.try_eval(items[0], None)
            if isinstance(dims, (list, tuple)):
                static = not self.config.symbolic_dims
                shape = tuple(d if static and isinstance(d, int) and not isinstance(d, bool)
                              else Opaque(("shape", name, axis)) for axis, d in enumerate(dims))
        if len(items) > 1:
            elem = _elem_bytes(self._const(items[1]))
        return TensorV(name, shape, elem)

    def _const(self, node: cst.BaseExpression) -> Any:
        value = self.file.evaluator.try_eval(node, UNKNOWN)
        return _import_const(value)

    # statements ----------------------------------------------------------------------------
    def exec_block(self, stmts, ctxs: list[Ctx]) -> None:
        for stmt in stmts:
            if ctxs:
                self.exec_stmt(stmt, ctxs)

    def exec_stmt(self, stmt: cst.CSTNode, ctxs: list[Ctx]) -> None:
        self.steps += 1
        if self.steps > self._budget:
            raise self._too_long("the kernel runs too many statements to follow statically", stmt)
        method = _STATEMENTS.get(type(stmt))
        if method is None:
            raise CannotModel(f"`{type(stmt).__name__}` statements are not modelled", stmt)
        method(self, stmt, ctxs)

    def _simple_line(self, stmt: cst.SimpleStatementLine, ctxs: list[Ctx]) -> None:
        for small in stmt.body:
            method = _SMALL_STATEMENTS.get(type(small))
            if method is not None:  # pass, assert, import, global, nonlocal, del: nothing the check needs
                for ctx in ctxs:
                    method(self, small, ctx)

    def _expr(self, small: cst.Expr, ctx: Ctx) -> None:
        self.eval(small.value, ctx)

    def _assign(self, small: cst.Assign, ctx: Ctx) -> None:
        value = self.eval(small.value, ctx)
        for target in small.targets:
            self.assign(target.target, value, ctx)

    def _ann_assign(self, small: cst.AnnAssign, ctx: Ctx) -> None:
        if small.value is not None:
            self.assign(small.target, self.eval(small.value, ctx), ctx)

    def _return(self, small: cst.Return, ctx: Ctx) -> None:
        raise _Return(self.eval(small.value, ctx) if small.value is not None else None)

    def _def(self, stmt: cst.FunctionDef, ctxs: list[Ctx]) -> None:
        for ctx in ctxs:
            ctx.env[stmt.name.value] = FunctionV("helper", stmt)

    def exec_if(self, node: cst.If, ctxs: list[Ctx]) -> None:
        taken: dict[Any, list[Ctx]] = {True: [], False: [], None: []}
        for ctx in ctxs:
            taken[self.truth(self.eval(node.test, ctx), node.test)].append(ctx)
        if taken[True]:
            self.exec_block(node.body.body, taken[True])
        if taken[False] and node.orelse is not None:
            self._exec_orelse(node.orelse, taken[False])
        if taken[None]:
            for ctx in taken[None]:
                self._exec_may(ctx, lambda c: self.exec_block(node.body.body, [c]))
                if node.orelse is not None:
                    self._exec_may(ctx, lambda c: self._exec_orelse(node.orelse, [c]))

    def _exec_orelse(self, orelse, ctxs: list[Ctx]) -> None:
        if isinstance(orelse, cst.If):
            self.exec_if(orelse, ctxs)
        else:
            self.exec_block(orelse.body.body, ctxs)

    def _exec_may(self, ctx: Ctx, run: Callable[[Ctx], object]) -> None:
        """Run a branch that may or may not be taken: its accesses are marked `may`, and every
        name it binds is unknown afterwards unless the branch left it as it was."""
        before = dict(ctx.env)
        ctx.may += 1
        try:
            run(ctx)
        except (_Break, _Continue, _Return):
            raise CannotModel("`break`/`continue`/`return` under a condition the check cannot decide") from None
        finally:
            ctx.may -= 1
        for name, value in list(ctx.env.items()):
            if name not in before or before[name] is not value and before[name] != value:
                ctx.env[name] = UNKNOWN

    def exec_for(self, node: cst.For, ctxs: list[Ctx]) -> None:
        iters = [self.eval(node.iter, ctx) for ctx in ctxs]
        iters = [self._bind_trips(it, node) for it in iters]
        if any(isinstance(it, SymRange) for it in iters):
            self._dynamic_for(node, ctxs, iters)
            return
        seqs: list[list | None] = []
        for ctx, it in zip(ctxs, iters, strict=True):
            if isinstance(it, (range, list, tuple)):
                seqs.append(list(it))
            else:
                if ctx.scope is None or len(ctxs) > 1:
                    dims = _dynamic_dims(it)
                    if dims:
                        raise CannotModel(f"the trip count of this loop depends on {dims}, a size known only "
                                          "at run time", node.iter, kind="dynamic")
                    raise CannotModel("the trip count of this loop is not static", node.iter)
                seqs.append(None)
        known_seqs = [s for s in seqs if s is not None]
        if len(known_seqs) < len(seqs):
            ctx = ctxs[0]
            self.assign(node.target, UNKNOWN, ctx)
            self._exec_may(ctx, lambda c: self._loop_body(node, [c]))
            return
        if len({len(s) for s in known_seqs}) > 1:
            raise CannotModel("the cores run this loop a different number of times", node.iter)
        broke = False
        for i in range(len(known_seqs[0]) if known_seqs else 0):
            for ctx, s in zip(ctxs, known_seqs, strict=True):
                self.assign(node.target, s[i], ctx)
            if self._loop_body(node, ctxs):
                broke = True
                break
        if not broke and node.orelse is not None:
            self.exec_block(node.orelse.body.body, ctxs)

    def _bind_trips(self, it: Any, node: cst.For) -> Any:
        """A discovery run gives a loop over a `pl.DYNAMIC` expression `DISCOVERY_TRIPS`
        iterations and names the expression a trip-count root."""
        if not (self.config.discover and isinstance(it, Opaque) and it.origin[:2] == ("op", "range")):
            return it
        args = list(it.origin[2:])
        stop = args[0] if len(args) == 1 else args[1]
        start = 0 if len(args) == 1 else args[0]
        step = args[2] if len(args) == 3 else 1
        if not isinstance(stop, tuple) or isinstance(start, tuple) or isinstance(step, tuple):
            return it
        self.trips.setdefault(stop, DISCOVERY_TRIPS + (start if isinstance(start, int) else 0))
        return SymRange(start, Sym(self.trips[stop], ((("size", stop), 1),)), step)

    def _dynamic_for(self, node: cst.For, ctxs: list[Ctx], iters: list) -> None:
        """A loop whose trip count varies between runs: its variable is a `Sym`, counters
        carried across its iterations too, and its body must stay uniform (`uniform.py`)."""
        text = self._code_of(node.iter)
        if not all(isinstance(it, SymRange) for it in iters):
            raise CannotModel("the cores run this loop a different number of times", node.iter)
        uni = self.uniform
        first = iters[0]
        try:
            for it in iters:
                if (int(it.start), int(it.stop), int(it.step)) != (int(first.start), int(first.stop),
                                                                   int(first.step)):
                    raise CannotModel("the cores run this loop a different number of times", node.iter)
            root, per_core = self._loop_root(first, text)
        except NonUniform as exc:
            raise _nonuniform(exc, node.iter) from None
        r = range(int(first.start), int(first.stop), int(first.step))
        if len(r) > MAX_ITEMS:
            raise self._too_long("this loop runs too many iterations to follow", node)
        key = ("loop", id(node))
        label = self._code_of(node.target)
        stop = first.stop
        loop = Loop(key, label, int(first.start), int(first.step), len(r), root, per_core,
                    stop.form if isinstance(stop, Sym) else (), stop.const if isinstance(stop, Sym) else int(stop))
        for outer in uni.active:
            if outer.root is not None:
                uni.outer.add(outer.root)
                if root is not None:
                    uni.nested.add((outer.root, root))
        if root is not None:
            zero = int(first.stop) - len(r)
            uni.roots.setdefault(root, zero)
        saved = uni.loops.get(key)
        uni.loops[key] = loop
        uni.active.append(loop)
        carried, assigned = self._carried_names(node)
        previous: list[dict] = [{} for _ in ctxs]
        broke = False
        try:
            for v in r:
                uni.values[key] = v
                for ctx, prev in zip(ctxs, previous, strict=True):
                    self.assign(node.target, Sym(v, ((key, 1),), moving=v), ctx)
                    self._carry(ctx, carried, assigned, prev, node)
                if self._loop_body(node, ctxs):
                    broke = True
                    break
        finally:
            uni.active.pop()
            if saved is not None:
                uni.loops[key] = saved
        if broke:
            raise CannotModel("`break` out of a loop of run-time trip count", node)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body, ctxs)

    def _loop_root(self, rng: SymRange, text: str) -> tuple[Any, bool]:
        """The trip-count root a dynamic loop counts up to, and whether it is a per-core range."""
        forms = {part: (v.form if isinstance(v, Sym) else ()) for part, v in
                 (("start", rng.start), ("stop", rng.stop), ("step", rng.step))}
        if any(var[0] in INDEX for f in forms.values() for var, _ in f):
            raise NonUniform(f"the trip count of `{text}` depends on an enclosing loop variable or counter",
                             "give the inner loop a trip count that does not change between iterations")
        per_core = any(var[0] == "core" or var[0] == "derived" and any(r[0] == "core" for r in var[2])
                       for part in ("start", "step") for var, _ in forms[part])
        if forms["start"] and not per_core or forms["step"] and not per_core:
            raise NonUniform(f"the start or step of `{text}` varies between runs",
                             "start the loop at a constant (or the block index) and step by 1 (or the block count)")
        if not per_core and int(rng.step) != 1:
            raise NonUniform(f"`{text}` steps by {int(rng.step)}", "step a loop of run-time trip count by 1")
        stop = forms["stop"]
        if not stop:
            return None, per_core
        if len(stop) == 1 and stop[0][0][0] == "size" and stop[0][1] == 1:
            return stop[0][0], per_core
        raise NonUniform(f"the trip count of `{text}` is not a run-time size plus a constant",
                         "bound the loop by the parameter itself (`pl.range(0, n)`) or by one expression of a "
                         "`pl.DYNAMIC` dimension (`(k.shape[0] + TILE - 1) // TILE`)")

    def _carried_names(self, node: cst.For) -> tuple[dict, set]:
        """Names the loop body binds: the counters among them (`x = x + e`, `x += e`: None;
        `x = (x + e) % k`: k) and all of them."""
        hit = self._carried.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1], hit[2]
        counters: dict = {}
        assigned: set = set()
        for small in _small_statements(node.body):
            if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
                assigned.add(small.target.value)
                if isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
                    counters.setdefault(small.target.value, None)
                else:
                    counters[small.target.value] = "other"
            elif isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                for t in targets:
                    for name in _target_names(t):
                        assigned.add(name)
                        kind = self._counter_kind(name, small.value) if isinstance(t, cst.Name) else "other"
                        if kind == "other" or counters.get(name, kind) != kind:
                            counters[name] = "other"
                        else:
                            counters[name] = kind
        counters = {n: k for n, k in counters.items() if k != "other"}
        self._carried[id(node)] = (node, counters, assigned)
        return counters, assigned

    def _counter_kind(self, name: str, value) -> Any:
        """None for `name + e` / `e + name` / `name - e`, k for `(name + e) % k`, else "other"."""
        if isinstance(value, cst.BinaryOperation):
            if isinstance(value.operator, cst.Modulo):
                k = self.file.evaluator.try_eval(value.right, None)
                inner = value.left
                if isinstance(k, int) and not isinstance(k, bool) and k > 0 and self._counter_kind(name, inner) is None:
                    return k
                return "other"
            mine = [isinstance(x, cst.Name) and x.value == name for x in (value.left, value.right)]
            if isinstance(value.operator, cst.Add) and any(mine) and not all(mine):
                return None
            if isinstance(value.operator, cst.Subtract) and mine[0] and not mine[1]:
                return None
        return "other"

    def _carry(self, ctx: Ctx, counters: dict, assigned: set, prev: dict, node) -> None:
        """At an iteration's start: counters become `Sym`s of their own variable (stepping by
        the same amount every iteration); any other plain integer the body binds, and every
        integer field of a `pl.struct` the kernel holds, must be what it was at the previous
        iteration's start."""
        uni = self.uniform
        for name in sorted(assigned):
            value = ctx.env.get(name)
            if name in counters and isinstance(value, int) and not isinstance(value, bool):
                var = ("carried", name)
                k = counters[name]
                if isinstance(value, Sym) and any(v[0] == "loop" for v, _ in value.form) and not value.residue:
                    raise _nonuniform(NonUniform(f"counter `{name}` is set from the loop variable and carried",
                                                 "count with `x = x + c` from a value set before the loop"), node)
                if name in prev:
                    delta = int(value) - prev[name]
                    delta = delta % k if k is not None else delta
                    if delta == 0:
                        uni.stalled.add(var)
                    if prev.setdefault(("delta", name), delta) != delta:
                        raise _nonuniform(NonUniform(f"counter `{name}` steps by different amounts in different "
                                                     "iterations", f"step `{name}` by the same amount in every "
                                                     "iteration"), node)
                prev[name] = int(value)
                if k is not None:
                    uni.periods.add(k)
                ctx.env[name] = Sym(int(value), ((var, 1),), k is not None, 0, int(value))
            elif isinstance(value, (int, float)) and not isinstance(value, Sym):
                self._same_as_before(prev, name, value, f"`{name}`", node)
        for name, value in ctx.env.items():
            if isinstance(value, StructV) and value.origin == "struct":
                for f, v in value.fields.items():
                    if isinstance(v, (int, float)) and not isinstance(v, Sym):
                        self._same_as_before(prev, ("field", name, f), v, f"field `{name}.{f}`", node)

    @staticmethod
    def _same_as_before(prev: dict, key: Any, value: float, words: str, node) -> None:
        if key in prev and prev[key] != value:
            raise _nonuniform(NonUniform(f"{words} carries a value from one iteration to the next",
                                         "make it a counter (`x = x + c`) or a residue of one (`x = (x + c) % k`), "
                                         "or compute it from the loop variable"), node)
        prev[key] = value

    def _loop_body(self, node, ctxs) -> bool:
        """Run one iteration; True when it broke out of the loop."""
        try:
            self.exec_block(node.body.body, ctxs)
        except _Break:
            return True
        except _Continue:
            pass
        return False

    def exec_while(self, node: cst.While, ctxs: list[Ctx]) -> None:
        while True:
            tests = {self.truth(self.eval(node.test, ctx), node.test) for ctx in ctxs}
            if tests != {True} and tests != {False}:
                raise CannotModel("the condition of this `while` loop is not static", node.test)
            if tests == {False} or self._loop_body(node, ctxs):
                break

    def exec_with(self, node: cst.With, ctxs: list[Ctx]) -> None:
        item = node.items[0].item if node.items else None
        path = self.path(item.func) if isinstance(item, cst.Call) else None
        if path == ("section_cube",):
            ctxs = [c for c in ctxs if c.core == AIC]
        elif path == ("section_vector",):
            ctxs = [c for c in ctxs if c.core != AIC]
        self.exec_block(node.body.body, ctxs)

    # assignment ----------------------------------------------------------------------------
    def assign(self, target: cst.BaseExpression, value: Any, ctx: Ctx) -> None:
        if type(target) is cst.Name:
            if isinstance(value, GroupV) and not value.name:
                _name_group(value, target.value)
            ctx.env[target.value] = value
        elif isinstance(target, cst.Attribute):
            obj = self.eval(target.value, ctx)
            if isinstance(obj, StructV):
                obj.fields[target.attr.value] = value
        elif isinstance(target, cst.Subscript):
            obj = self.eval(target.value, ctx)
            if isinstance(obj, (TileV, AnyTileV)):
                self._element_access(obj, target, "W", ctx)
            elif isinstance(obj, TensorV):
                self._gm_element(obj, target, "W", ctx)
            elif isinstance(obj, list) and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
                index = self.eval(target.slice[0].slice.value, ctx)
                if isinstance(index, int) and -len(obj) <= index < len(obj):
                    obj[index] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements]
            if isinstance(value, (tuple, list)) and len(value) == len(names):
                for t, v in zip(names, value, strict=True):
                    self.assign(t, v, ctx)
            else:
                for t in names:
                    self.assign(t, UNKNOWN, ctx)

    def aug_assign(self, node: cst.AugAssign, ctx: Ctx) -> None:
        target = node.target
        if isinstance(target, cst.Subscript):
            obj = self.eval(target.value, ctx)
            if isinstance(obj, (TileV, AnyTileV)):
                self.eval(node.value, ctx)
                self._element_access(obj, target, "RW", ctx)
                return
            if isinstance(obj, TensorV):
                self.eval(node.value, ctx)
                self._gm_element(obj, target, "RW", ctx)
                return
        old = self.eval(target, ctx)
        value = self.eval(node.value, ctx)
        self.assign(target, self._binop(AUGMENTED.get(type(node.operator)), old, value, node), ctx)

    # expressions ---------------------------------------------------------------------------
    def eval(self, node: cst.BaseExpression, ctx: Ctx) -> Any:
        method = _EVAL.get(type(node))
        if method is None:
            return UNKNOWN
        value = method(self, node, ctx)
        if type(value) is Opaque and value.origin in self.trips:
            return Sym(self.trips[value.origin], ((("size", value.origin), 1),))
        return value

    def truth(self, value: Any, node=None) -> bool | None:
        if is_unknown(value):
            return None
        if isinstance(value, Sym):
            text = self._code_of(node) if node is not None else "a condition on the loop variable"
            return self._uniform(lambda: self.uniform.test(value, 0, bool(value), text), node)
        if isinstance(value, (int, float, bool, str, tuple, list, range)) or value is None:
            return bool(value)
        return True

    def _name(self, node: cst.Name, ctx: Ctx) -> Any:
        name = node.value
        env = ctx.env
        if name in env:
            return env[name]
        if self._symbolic_names and name in self._symbolic_names:
            origin = ("const", name)
            value = self.trips.get(origin, DISCOVERY_TRIPS if self.config.discover else None)
            if value is not None:
                return Sym(value, ((("size", origin), 1),))
        hit = self._globals.get(name)
        if hit is None:
            hit = self._globals[name] = self._global(name)
        # a module constant is copied (lists are mutable); everything else is shared
        return _import_const(hit[1]) if hit[0] else hit[1]

    def _global(self, name: str) -> tuple[bool, Any]:
        """What a name means outside any frame: (True, raw value) for a module constant."""
        if name in self._functions:
            return False, self._functions[name]
        if name in ("True", "False", "None"):
            return False, {"True": True, "False": False, "None": None}[name]
        if name in self.file.constants:
            return True, self.file.evaluator.try_eval(cst.Name(name), UNKNOWN)
        if name in _BUILTINS:
            return False, Builtin(name)
        return False, UNKNOWN

    def _attribute(self, node: cst.Attribute, ctx: Ctx) -> Any:
        path = self.path(node)
        if path is not None:
            return Symbol(path)
        obj = self.eval(node.value, ctx)
        attr = node.attr.value
        if isinstance(obj, StructV):
            return obj.fields.get(attr, UNKNOWN)
        if isinstance(obj, TensorV) and attr == "shape":
            return obj.shape
        if isinstance(obj, TileV) and attr == "shape":
            return obj.shape
        return UNKNOWN

    def _binary(self, node: cst.BinaryOperation, ctx: Ctx) -> Any:
        left, right = self.eval(node.left, ctx), self.eval(node.right, ctx)
        return self._binop(type(node.operator), left, right, node)

    def _binop(self, op: Any, left: Any, right: Any, node) -> Any:
        """`left op right` (`op` a libcst operator type), folded as `consteval` folds, with its
        limits: a result too large to compute is not followed."""
        fn = BINOPS.get(op)
        if isinstance(left, Sym) or isinstance(right, Sym):
            return self._sym_binop(fn, left, right, node)
        if fn is None or not known(left, right):
            if fn is not None and _opaque_operands(left, right):
                return _opaque_op(fn.__name__, left, right)
            return UNKNOWN
        if (isinstance(left, (list, tuple)) or isinstance(right, (list, tuple))) and op not in (cst.Add, cst.Multiply):
            return UNKNOWN
        huge = too_big(op, left, right)
        if huge:
            raise CannotModel(f"the result would be {huge}, too large to follow", node)
        try:
            return fn(left, right)
        except Exception:
            return UNKNOWN

    def _sym_binop(self, fn, left: Any, right: Any, node) -> Any:
        if fn is None or not all(isinstance(v, (int, float)) for v in (left, right)):
            if isinstance(left, (list, tuple)) or isinstance(right, (list, tuple)):
                raise _nonuniform(NonUniform(f"`{self._code_of(node)}` builds a sequence whose length varies "
                                             "between runs", "give sequences a static length"), node)
            return UNKNOWN
        if fn in (operator.pow, operator.lshift) and abs(int(right)) > 64:
            raise CannotModel("this power or shift is too large to follow", node)
        try:
            value = fn(int(left) if isinstance(left, Sym) else left, int(right) if isinstance(right, Sym) else right)
        except Exception:
            return UNKNOWN
        return self._uniform(lambda: self.uniform.binop(fn, left, right, value, self._code_of(node)), node)

    def _uniform(self, run: Callable[[], Any], node) -> Any:
        try:
            return run()
        except NonUniform as exc:
            raise _nonuniform(exc, node) from None

    def _plain(self, value: Any, what: str, node) -> None:
        """Refuse a value that varies with the loop variable or the trip count where only a
        static value is followed (addresses, shapes, lengths, vector-function arguments)."""
        for v in (value if isinstance(value, (list, tuple)) else (value,)):
            if isinstance(v, Sym) and not self._static_enough(v):
                raise _nonuniform(NonUniform(f"{what} `{self._code_of(node)}` varies with a loop of run-time trip "
                                             "count", "pass only static values there; use the loop variable in "
                                             "GM offsets, boundary tests and residues"), node)

    def _static_enough(self, v: Sym) -> bool:
        """A value the same in every iteration and every trip count: only block queries (the
        check models block 0) or sampled parameters in it."""
        if v.residue:
            return True  # periodic: its modulus is in the period
        return not any(var[0] in INDEX or self.uniform._trip_dependent(var) and not self.config.discover
                       for var, _ in v.form)

    def _unary(self, node: cst.UnaryOperation, ctx: Ctx) -> Any:
        value = self.eval(node.expression, ctx)
        if isinstance(value, Sym):
            if isinstance(node.operator, cst.Minus):
                return self.uniform.negate(value)
            if isinstance(node.operator, cst.Plus):
                return value
            if isinstance(node.operator, cst.Not):
                t = self.truth(value, node.expression)
                return not t
            self._plain(value, "the operand of", node)
        if is_unknown(value):
            return _opaque_op(type(node.operator).__name__, value) if isinstance(value, Opaque) else UNKNOWN
        try:
            if isinstance(node.operator, cst.Not):
                t = self.truth(value)
                return UNKNOWN if t is None else not t
            unary: dict[type, Callable[[Any], Any]] = {cst.Minus: operator.neg, cst.Plus: operator.pos,
                                                       cst.BitInvert: operator.invert}
            return unary[type(node.operator)](value)
        except Exception:
            return UNKNOWN

    def _boolean(self, node: cst.BooleanOperation, ctx: Ctx) -> Any:
        left = self.eval(node.left, ctx)
        t = self.truth(left, node.left)
        if t is None:
            self.eval(node.right, ctx)
            return UNKNOWN
        is_and = isinstance(node.operator, cst.And)
        if t != is_and:
            return left
        return self.eval(node.right, ctx)

    def _compare(self, node: cst.Comparison, ctx: Ctx) -> Any:
        left = self.eval(node.left, ctx)
        result: Any = True
        for target in node.comparisons:
            right = self.eval(target.comparator, ctx)
            if (isinstance(left, Sym) or isinstance(right, Sym)) and known(left, right) and not is_unknown(result):
                op = _CMPOPS[type(target.operator)]
                if not all(isinstance(v, (int, float)) for v in (left, right)) or op in (operator.is_, operator.is_not):
                    result = UNKNOWN
                else:
                    ok = op(left, right)
                    try:
                        self.uniform.test(left, right, ok, self._code_of(node), op)
                    except NonUniform as exc:
                        raise _nonuniform(exc, node) from None
                    if not ok:
                        result = False
            elif not known(left, right):
                result = UNKNOWN
            elif not is_unknown(result):
                try:
                    if not _CMPOPS[type(target.operator)](left, right):
                        result = False
                except Exception:
                    result = UNKNOWN
            left = right
        return result

    def _ifexp(self, node: cst.IfExp, ctx: Ctx) -> Any:
        t = self.truth(self.eval(node.test, ctx), node.test)
        if t is None:
            return UNKNOWN
        return self.eval(node.body if t else node.orelse, ctx)

    def _sequence(self, node, ctx: Ctx) -> Any:
        out: list = []
        for el in node.elements:
            value = self.eval(el.value, ctx)
            if type(el) is cst.StarredElement:
                if not isinstance(value, (list, tuple)):
                    return UNKNOWN
                out.extend(value)
            else:
                out.append(value)
        return tuple(out) if type(node) is cst.Tuple else out

    def _subscript(self, node: cst.Subscript, ctx: Ctx) -> Any:
        obj = self.eval(node.value, ctx)
        if isinstance(obj, (TileV, AnyTileV)):
            if len(node.slice) > 1 and all(isinstance(e.slice, cst.Index) for e in node.slice):
                return self._element_access(obj, node, "R", ctx)
            for e in node.slice:
                if isinstance(e.slice, cst.Slice):
                    for part in (e.slice.lower, e.slice.upper, e.slice.step):
                        if part is not None:
                            self.eval(part, ctx)
            # a view: the same tile (its whole extent, conservatively), a descriptor of its own
            return AnyTileV(tuple(replace(t, desc=0) for t in obj.choices), obj.label) \
                if isinstance(obj, AnyTileV) else replace(obj, desc=0)
        if isinstance(obj, TensorV):
            return self._gm_element(obj, node, "R", ctx)
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return UNKNOWN
        index = self.eval(node.slice[0].slice.value, ctx)
        if isinstance(index, Sym) and not index.residue and isinstance(obj, (GroupV, list, tuple)):
            self._plain(index, "the index", node.slice[0].slice.value)
        if isinstance(obj, GroupV):
            if isinstance(index, int) and 0 <= index < obj.depth:
                return obj.tiles[index]
            return AnyTileV(obj.tiles, f"{obj.name}[?]")
        if isinstance(obj, (list, tuple)):
            if isinstance(index, int) and not isinstance(index, bool):
                try:
                    return obj[index]
                except IndexError:
                    return UNKNOWN
            tiles = [t for t in obj if isinstance(t, TileV)]
            if tiles and len(tiles) == len(obj):
                return AnyTileV(tuple(tiles), "one of " + ", ".join(t.label for t in tiles))
        return UNKNOWN

    # calls ---------------------------------------------------------------------------------
    def _call(self, node: cst.Call, ctx: Ctx) -> Any:
        path = self.path(node.func)
        if path is not None:
            return self.pl_call(path, node, ctx)
        func = node.func
        if type(func) is cst.Attribute:
            obj = self.eval(func.value, ctx)
            if isinstance(obj, GroupV) and func.attr.value in ("next", "current", "previous"):
                return self.pick(obj, func.attr.value, ctx)
            self._args(node, ctx)
            return UNKNOWN
        callee = self.eval(func, ctx)
        if isinstance(callee, FunctionV):
            return self.call_function(callee, node, ctx)
        if isinstance(callee, Builtin):
            return self._builtin(callee.name, node, ctx)
        self._args(node, ctx)
        return UNKNOWN

    def _args(self, node: cst.Call, ctx: Ctx) -> tuple[list, dict]:
        pos: list = []
        kw: dict = {}
        for a in node.args:
            value = self.eval(a.value, ctx)
            if a.keyword is not None:
                kw[a.keyword.value] = value
            elif a.star == "*":
                if not isinstance(value, (list, tuple)):
                    raise CannotModel("a starred argument of unknown length", a)
                pos.extend(value)
            elif a.star == "**":
                if not isinstance(value, StructV):
                    raise CannotModel("a `**` argument the check cannot expand", a)
                kw.update(value.fields)
            else:
                pos.append(value)
        return pos, kw

    def _builtin(self, name: str, node: cst.Call, ctx: Ctx) -> Any:
        pos, _ = self._args(node, ctx)
        pos = [_sampled_int(p) for p in pos]
        if not known(*pos):
            return UNKNOWN
        if any(isinstance(p, Sym) for p in pos):
            if name == "int" and len(pos) == 1:
                return pos[0]
            if name == "range":
                return self._sym_range(pos, node)
            self._plain(list(pos), f"the argument of `{name}`", node)
            pos = [int(p) if isinstance(p, Sym) else p for p in pos]
        try:
            if name == "range":
                r = range(*pos)
                if len(r) > MAX_ITEMS:
                    raise CannotModel("this range is too long to follow", node)
                return r
            if name in ("print", "isinstance"):
                return UNKNOWN
            return _PYTHON_BUILTINS[name](*pos)
        except CannotModel:
            raise
        except Exception:
            return UNKNOWN

    def call_function(self, fn: FunctionV, node: cst.Call, ctx: Ctx) -> Any:
        pos, kw = self._args(node, ctx)
        if fn.kind == "vf":
            self._vf_call(fn, pos, kw, node, ctx)
            return UNKNOWN
        env = self._bind(fn.node, pos, kw, ctx)
        if fn.kind == "stage":
            if ctx.may:
                raise CannotModel(f"stage `{fn.name}` is called under a condition the check cannot decide", node)
            number = self.stage_counts[ctx.core][fn.name]
            self.stage_counts[ctx.core][fn.name] += 1
            # struct fields change later: keep the values this invocation saw
            seen = tuple((k, StructV(dict(v.fields), v.origin) if isinstance(v, StructV) else v)
                         for k, v in env.items())
            self.trace.invocations.append(Invocation(ctx.core, fn.name, number, seen, node))
            inner = ctx.child(env, ("stage", fn.name, number), [0])
        else:
            inner = ctx.child(env)
        try:
            self.exec_block(fn.node.body.body, [inner])
        except _Return as ret:
            return ret.value
        except (_Break, _Continue):
            raise CannotModel("`break`/`continue` outside a loop", fn.node) from None
        return None

    def _bind(self, fn: cst.FunctionDef, pos: list, kw: dict, ctx: Ctx) -> dict:
        env: dict = {}
        params = list(fn.params.posonly_params) + list(fn.params.params)
        for i, p in enumerate(params):
            name = p.name.value
            if i < len(pos):
                env[name] = pos[i]
            elif name in kw:
                env[name] = kw[name]
            elif p.default is not None:
                env[name] = self.eval(p.default, ctx)
            else:
                env[name] = UNKNOWN
        for p in fn.params.kwonly_params:
            env[p.name.value] = kw.get(p.name.value, self.eval(p.default, ctx) if p.default is not None else UNKNOWN)
        return env

    # pl calls ------------------------------------------------------------------------------
    def pl_call(self, path: tuple, node: cst.Call, ctx: Ctx) -> Any:
        head = path[0] if path else ""
        if path == ("system",) or not path:
            return UNKNOWN
        if head == "system" and len(path) == 2:
            return self._system(path[1], node, ctx)
        if len(path) != 1:
            self._args(node, ctx)
            return UNKNOWN
        handler = _PL_CALLS.get(head)
        if handler is not None:
            return handler(self, node, ctx)
        if head in DESCRIPTOR_ONLY_OPS:
            pos, kw = self._args(node, ctx)
            if head == "set_validshape" and pos:
                self.valid.set(pos[0], pos[1] if len(pos) > 1 else kw.get("shape"), ctx.core, bool(ctx.may))
            return None
        return self.block_op(head, node, ctx)

    def _sym_range(self, pos: list, node) -> SymRange:
        if not 1 <= len(pos) <= 3 or not all(isinstance(p, int) and not isinstance(p, bool) for p in pos):
            raise CannotModel("the bounds of this range are not integers", node)
        start, stop, step = (0, pos[0], 1) if len(pos) == 1 else (pos[0], pos[1], pos[2] if len(pos) == 3 else 1)
        if int(step) == 0:
            raise CannotModel("`pl.range` with step 0", node)
        return SymRange(start, stop, step)

    def _range(self, node, ctx) -> Any:
        pos, _ = self._args(node, ctx)
        pos = [_sampled_int(p) for p in pos]
        if any(isinstance(p, Opaque) for p in pos) and any(isinstance(p, Sym) for p in pos):
            pos = [int(p) if isinstance(p, Sym) and not self.config.discover else p for p in pos]
            stop = pos[0] if len(pos) == 1 else pos[1]
            if not (self.config.discover and isinstance(stop, Opaque) and sum(isinstance(p, Opaque) for p in pos) == 1):
                return _opaque_op("range", *pos) if _opaque_operands(*pos) else UNKNOWN
            self.trips.setdefault(stop.origin, DISCOVERY_TRIPS)
            pos = [Sym(self.trips[stop.origin], ((("size", stop.origin), 1),)) if p is stop else p for p in pos]
        if any(isinstance(p, Sym) for p in pos):
            return self._sym_range(pos, node)
        if not pos or not known(*pos) or not all(isinstance(p, int) and not isinstance(p, bool) for p in pos):
            return _opaque_op("range", *pos) if _opaque_operands(*pos) else UNKNOWN
        if len(pos) == 3 and pos[2] == 0:
            raise CannotModel("`pl.range` with step 0", node)
        r = range(*pos)
        if len(r) > MAX_ITEMS:
            raise self._too_long("this loop runs too many iterations to follow", node)
        return r

    def _tile_type(self, node, ctx) -> Any:
        pos, kw = self._args(node, ctx)
        shape = kw.get("shape", pos[0] if pos else UNKNOWN)
        dtype = kw.get("dtype", pos[1] if len(pos) > 1 else UNKNOWN)
        memory = kw.get("target_memory", pos[2] if len(pos) > 2 else Symbol(("MemorySpace", "Vec")))
        if not isinstance(shape, (list, tuple)) or not all(isinstance(d, int) for d in shape):
            return UNKNOWN
        self._plain(list(shape) + list(kw.get("valid_shape") or ()) if isinstance(kw.get("valid_shape"), (list, tuple))
                    else shape, "the shape of", node)
        mem = memory.leaf if isinstance(memory, Symbol) else "Vec"
        valid = kw.get("valid_shape")
        known_valid = isinstance(valid, (list, tuple)) and len(valid) == len(shape) == 2 and all(
            d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in valid)
        layout = kw.get("layout")
        layout = layout.leaf if isinstance(layout, Symbol) else DEFAULT_LAYOUT.get(mem, "")
        return TileTypeV(tuple(shape), mem, _elem_bytes(dtype), initial_valid(shape, valid) if known_valid else (),
                         layout)

    def _make_tile(self, node, ctx) -> Any:
        pos, kw = self._args(node, ctx)
        ttype = pos[0] if pos else kw.get("tile_type", UNKNOWN)
        addr = kw.get("addr", UNKNOWN)
        if not isinstance(ttype, TileTypeV) or not isinstance(addr, int):
            raise CannotModel("the type or address of this tile is not static", node)
        self._plain([addr, kw.get("size")], "the address of", node)
        size = kw.get("size")
        size = size if isinstance(size, int) else ttype.nbytes
        return TileV(ttype.memory, addr, addr + size, (), self._code_of(node), ttype.shape, ttype.valid,
                     ttype.elem, ttype.layout, self.valid.number())

    def _make_tile_group(self, node, ctx) -> Any:
        pos, kw = self._args(node, ctx)
        ttype = kw.get("type", UNKNOWN)
        addrs = kw.get("addrs", UNKNOWN)
        self._plain(addrs, "the addresses of", node)
        self._plain(kw.get("depth"), "the depth of", node)
        mutex = kw.get("mutex_ids")
        depth = kw.get("depth")
        if not isinstance(ttype, TileTypeV):
            raise CannotModel("the tile type of this group is not static", node)
        mutex_slots: list[tuple] = []
        if isinstance(mutex, (list, tuple)) and mutex:
            for m in mutex:
                if isinstance(m, int):
                    mutex_slots.append((m,))
                elif isinstance(m, (list, tuple)) and all(isinstance(x, int) for x in m):
                    mutex_slots.append(tuple(m))
                else:
                    raise CannotModel("the mutex ids of this group are not static", node)
        n = len(mutex_slots) or (depth if isinstance(depth, int) else None)
        static = isinstance(addrs, int) or (isinstance(addrs, (list, tuple)) and all(isinstance(a, int) for a in addrs))
        if not static:
            raise CannotModel("the addresses of this group are not static", node)
        if n is None or not 0 < n <= 64:
            raise CannotModel("the slot count of this group is not static (`depth=` or `mutex_ids=`)", node)
        try:
            starts = slot_addresses(addrs, n, ttype.nbytes)
        except ValueError as exc:
            raise CannotModel(f"this group's addresses do not fit its slots: {exc}", node) from None
        tiles = tuple(TileV(ttype.memory, starts[i], starts[i] + ttype.nbytes,
                            mutex_slots[i] if i < len(mutex_slots) else (), f"slot {i}", ttype.shape, ttype.valid,
                            ttype.elem, ttype.layout, self.valid.number())
                      for i in range(n))
        self.uniform.periods.add(n)
        self.uniform.depths.add(n)
        return GroupV("", tiles, node)

    def _struct(self, node, ctx) -> Any:
        _, kw = self._args(node, ctx)
        return StructV(dict(kw), "struct")

    def _struct_array(self, node, ctx) -> Any:
        pos, kw = self._args(node, ctx)
        n = pos[0] if pos else UNKNOWN
        if not isinstance(n, int) or not 0 < n <= MAX_ITEMS:
            raise CannotModel("the length of this struct array is not static", node)
        self._plain(n, "the length of", node)
        self.uniform.rings.add(int(n))
        return [StructV(dict(kw), "ctx") for _ in range(n)]

    def _core_query(self, node, ctx) -> Any:
        """`pl.get_block_idx()` and friends, for block 0: an AIV's block index is
        `2 * block + sub`, so `get_block_idx() // get_subblock_num()` is the block on every core."""
        name = (self.path(node.func) or ("",))[-1]
        core, sub = ctx.core, ctx.core - AIV0
        if name in ("get_block_idx", "get_block_num"):
            value = (0 if core == AIC else sub) if name == "get_block_idx" else self.config.block_num
            return Sym(value, ((("core", name), 1),))
        return {
            "get_block_idx": 0 if core == AIC else sub,
            "get_block_num": self.config.block_num,
            "get_subblock_idx": 0 if core == AIC else sub,
            "get_subblock_num": 1 if core == AIC else 2,
        }[name]

    def _section(self, node, ctx) -> Any:
        return None

    def _system(self, name: str, node: cst.Call, ctx: Ctx) -> Any:
        pos, kw = self._args(node, ctx)
        if name in SYNC_OPS:
            pipe, eid = kw.get("pipe"), kw.get("event_id")
            mode = kw.get("sync_mode")
            if mode is not None and not (isinstance(mode, Symbol) and mode.leaf == "INTRA_BLOCK"):
                raise CannotModel("only the default INTRA_BLOCK cross-core sync mode is modelled", node)
            if not isinstance(pipe, Symbol) or not isinstance(eid, int):
                raise CannotModel("the pipe or event id of this sync is not static", node)
            self._sync_event("set" if name == "set_cross_core" else "wait", pipe.leaf, eid, node, ctx)
        elif name == "sync_all":
            self._sync_event("barrier", self._barrier_type(kw.get("core_type"), node, ctx), 0, node, ctx)
        elif name in ("sync_src", "sync_dst"):
            sp, wp, eid = kw.get("set_pipe"), kw.get("wait_pipe"), kw.get("event_id")
            if not (isinstance(sp, Symbol) and isinstance(wp, Symbol) and isinstance(eid, int)):
                raise CannotModel("the pipes or event id of this sync are not static", node)
            ev = self._sync_event(name, sp.leaf, eid, node, ctx)
            ev.wait_pipe = wp.leaf
        elif name in PIPE_BARRIERS:
            self._sync_event("bar", PIPE_BARRIERS[name], 0, node, ctx)
        return None

    @staticmethod
    def _barrier_type(core_type: Any, node, ctx: Ctx) -> str:
        """The `core_type` of a `sync_all`, which the calling core must belong to."""
        name = core_type.leaf if isinstance(core_type, Symbol) else DEFAULT_BARRIER if core_type is None else None
        kinds = barrier_kinds(name)
        if name is None or kinds is None:
            raise CannotModel("the core type of this `sync_all` is not static", node)
        if CORE_KIND[ctx.core] not in kinds:
            raise CannotModel(f"{CORES[ctx.core]} reaches a `sync_all(core_type={name})`, which it is not part of",
                              node)
        return name

    def _sync_event(self, kind: str, pipe: str, eid: int, node, ctx: Ctx) -> Event:
        if ctx.may:
            raise CannotModel("a sync under a runtime condition cannot be matched statically", node)
        # syncs are matched by counting, never by identity: no need to name them after the code
        ev = Event(ctx.core, kind, pipe, self._next_seq(), event_id=eid, node=node, op=kind,
                   ident=("sync", self._next_seq()))
        self.trace.events[ctx.core].append(ev)
        return ev

    # tiles ---------------------------------------------------------------------------------
    def pick(self, group: GroupV, accessor: str, ctx: Ctx) -> Any:
        if group.depth == 1:
            return group.tiles[0]
        cursors = self.cursors[ctx.core]
        cur = cursors.get(id(group), initial_cursor(group.depth))
        if is_unknown(cur):
            return AnyTileV(group.tiles, f"{group.name}[?]")
        new, slot = pick_slot(cur, accessor, group.depth)
        if new != cur:
            cursors[id(group)] = UNKNOWN if ctx.may else new
        return group.tiles[slot]

    def _element_access(self, tile, node, role: str, ctx: Ctx) -> Opaque:
        """An element read or write of a tile; a read's value is named by the read."""
        op = "getval" if role == "R" else "setval"
        feet = self._tile_feet(tile, ctx.core, None)
        ev = self._op_event(op, "S", feet if "R" in role else (), feet if "W" in role else (),
                            self._mutex([tile]), node, ctx)
        return Opaque(("read", ev.core, ev.ident))

    def _gm_element(self, tensor: TensorV, node: cst.Subscript, role: str, ctx: Ctx) -> Opaque:
        """A scalar read or write of GM (`t[i]`, `t[i] = v`) on the scalar pipe. Its footprint
        is the whole tensor: the element's address is not followed, so it conflicts with every
        other access of the tensor; a read's value is named by the read."""
        for e in node.slice:
            if isinstance(e.slice, cst.Index):
                self.eval(e.slice.value, ctx)
        foot = Foot(("GM", tensor.name), 0, INF, 0, INF, tensor.name, bool(ctx.may))
        ev = self._op_event("getval" if role == "R" else "setval", "S", (foot,) if "R" in role else (),
                            (foot,) if "W" in role else (), (), node, ctx)
        return Opaque(("read", ev.core, ev.ident))

    def _tile_feet(self, tile, core: int, acc_mode: str | None) -> list[Foot]:
        tiles, may = (tile.choices, True) if isinstance(tile, AnyTileV) else ((tile,), False)
        out = []
        for t in tiles:
            # a Vec tile in cube code with no documented Acc->Vec target may land on either AIV
            unsure = t.memory == "Vec" and core == AIC and not acc_to_vec_targets(acc_mode)[1]
            window = tuple(self.valid.of(t, core)) != tuple(t.shape)
            for key in self._tile_keys(t.memory, core, acc_mode):
                out.append(Foot(key, t.lo, t.hi, 0, 1, t.label, may or unsure, window))
        return out

    @staticmethod
    def _tile_keys(memory: str, core: int, acc_mode: str | None) -> list[tuple]:
        """The memories a tile names on `core`: a Vec tile in cube code is where an Acc->Vec
        move lands (`pto_api.effects.acc_to_vec_targets`)."""
        if memory == "Vec":
            if core != AIC:
                return [("Vec", core)]
            subs, _ = acc_to_vec_targets(acc_mode)
            return [("Vec", AIV0 + s) for s in subs]
        return [(memory, AIC)]

    def _mutex(self, tiles) -> tuple[int, ...]:
        if not self.auto_mutex:
            return ()
        ids: set[int] = set()
        for t in tiles:
            if isinstance(t, TileV):
                ids.update(t.mutex)
            elif isinstance(t, AnyTileV):
                # which slot is locked is unknown: only ids every choice holds order anything
                common = set.intersection(*(set(c.mutex) for c in t.choices)) if t.choices else set()
                ids.update(common)
        return tuple(sorted(ids))

    def _gm_foot(self, tensor: TensorV, offsets: Any, tile: Any, transpose: bool, may: bool, core: int) -> Foot:
        """The GM window a load or store moves: the tile's valid shape at `offsets`."""
        rows = cols = None
        valid = self.valid.widest(tile, core) if isinstance(tile, (TileV, AnyTileV)) else ()
        if len(valid) == 2:
            rows, cols = gm_extent(valid, transpose)
        if (isinstance(offsets, (list, tuple)) and len(offsets) == 2 and rows is not None
                and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)):
            r, c = offsets
            label = f"{tensor.name}[{r}:{r + rows}, {c}:{c + cols}]"
            return Foot(("GM", tensor.name), r, r + rows, c, c + cols, label, may)
        return Foot(("GM", tensor.name), 0, INF, 0, INF, tensor.name, may)

    def _record_gm(self, tensor: TensorV, offsets: Any, foot: Foot, write: bool, node) -> None:
        """A GM access for the uniformity conditions (`Uniform.finish`)."""
        if not (isinstance(offsets, (list, tuple)) and len(offsets) == 2 and foot.r1 != INF):
            if isinstance(offsets, (list, tuple)) and any(isinstance(o, Sym) for o in offsets):
                self._plain(list(offsets), "the GM offset", node)
            return
        self._uniform(lambda: self.uniform.gm_access(tensor.name, list(offsets), (foot.r1 - foot.r0, foot.c1 - foot.c0),
                                                     write, self._code_of(node)), node)

    def block_op(self, op: str, node: cst.Call, ctx: Ctx) -> Any:
        pos, kw = self._args(node, ctx)
        mode = kw.get("mode")
        roles = op_roles(op, mode.leaf if isinstance(mode, Symbol) else None)
        tiles = [v for v in pos if isinstance(v, (TileV, AnyTileV))]
        if roles is None:
            if tiles or any(isinstance(v, TensorV) for v in pos):
                raise CannotModel(f"`pl.{op}` is not in the op table, so its reads and writes are unknown", node)
            return UNKNOWN
        pipe = self._pipe(op, pos, node)
        acc = kw.get("acc_to_vec_mode")
        acc_mode = acc.leaf if isinstance(acc, Symbol) else None
        order = kw.get("order")
        transpose = kw.get("is_transpose") is True or (isinstance(order, (list, tuple)) and list(order) == [1, 0])
        reads: list[Foot] = []
        writes: list[Foot] = []
        tile_arg = next(iter(tiles), None)
        exact = self._insert_feet(pos, ctx.core) if op == "insert" else None
        gm = any(isinstance(v, TensorV) for v in pos)
        for i, value in enumerate(list(pos) + list(kw.values())):
            if not (gm and i == 2) and isinstance(value, (int, list, tuple)):
                self._plain(value, f"an operand of `pl.{op}` in", node)
        for i, value in enumerate(pos):
            role = roles[i] if i < len(roles) else None
            if isinstance(value, TensorV):
                offsets = pos[2] if len(pos) > 2 else UNKNOWN
                foot = self._gm_foot(value, offsets, tile_arg, transpose, bool(ctx.may), ctx.core)
                self._record_gm(value, offsets, foot, op in GM_WRITE_OPS, node)
                (writes if op in GM_WRITE_OPS else reads).append(foot)
            elif role is not None and isinstance(value, (TileV, AnyTileV)):
                feet = exact[i] if exact and i < 2 else self._tile_feet(value, ctx.core, acc_mode)
                if "R" in role:
                    reads.extend(feet)
                if "W" in role:
                    writes.extend(feet)
        ev = self._op_event(op, pipe, reads, writes, self._mutex(tiles), node, ctx)
        if op == "getval":  # data: unknown, but named by this read in both runs
            return Opaque(("read", ev.core, ev.ident))
        return None

    def _insert_feet(self, pos: list, core: int) -> tuple[list[Foot], list[Foot]] | None:
        """(destination, source) feet of `pl.insert`: its exact blocks, when known."""
        dst, src, offset = (pos + [None, None, None])[:3]
        valid = self.valid.of(src, core) if isinstance(src, TileV) else ()
        feet = insert_feet(dst, src, offset, valid, lambda t: self._tile_keys(t.memory, core, None))
        return None if feet is None else (feet[1], feet[0])

    def _pipe(self, op: str, pos: list, node) -> str:
        if op in ("move", "insert"):
            dst, src = (pos + [None, None])[:2]
            if isinstance(dst, (TileV, AnyTileV)) and isinstance(src, (TileV, AnyTileV)):
                return move_pipe(_memory(src), _memory(dst))
            raise CannotModel(f"the tiles of this `pl.{op}` are not known", node)
        if op in GM_WRITE_OPS:
            src = pos[1] if len(pos) > 1 else None
            if isinstance(src, (TileV, AnyTileV)):
                return store_pipe(_memory(src))
            raise CannotModel(f"the source tile of this `pl.{op}` is not known", node)
        pipe = op_pipe(op)
        if pipe is None:
            raise CannotModel(f"no pipe is known for `pl.{op}`", node)
        return pipe

    def _vf_call(self, fn: FunctionV, pos: list, kw: dict, node, ctx: Ctx) -> None:
        """One V-pipe op. Its footprint is each tile argument its roles read or write, plus any
        bytes its register code reaches outside those tiles (raw offsets past a tile's end)."""
        self._plain([v for v in list(pos) + list(kw.values()) if isinstance(v, int)],
                    f"an argument of vector function `{fn.name}` in", node)
        roles = self._vf_param_roles(fn.name)
        reads: list[Foot] = []
        writes: list[Foot] = []
        tiles = []
        extents = self._vf_extents(fn.name, pos, kw, node)
        for i, value in enumerate(pos):
            if not isinstance(value, (TileV, AnyTileV)):
                continue
            role = roles.get(i, "")
            extent = extents.get(i)
            if not role and (extent is None or not (extent.reads or extent.writes)):
                continue
            tiles.append(value)
            feet = self._tile_feet(value, ctx.core, None)
            for kind, out, spans in (("R", reads, extent.reads if extent else ()),
                                     ("W", writes, extent.writes if extent else ())):
                if kind in role:
                    out.extend(feet)
                out.extend(self._beyond(value, spans, kind in role, ctx.core))
        self._op_event(f"{fn.name}()", "V", reads, writes, self._mutex(tiles), node, ctx)

    def _vf_extents(self, name: str, pos: list, kw: dict, node) -> dict:
        try:
            args = tuple(_vf_argument(v) for v in pos)
            kwargs = tuple(sorted((k, _vf_argument(v)) for k, v in kw.items()))
            return self._extents.extents(name, args, kwargs)
        except vfextent.Unmodelled as exc:
            raise CannotModel(f"which bytes vector function `{name}` reaches: {exc}", node) from None

    def _beyond(self, tile, spans, whole: bool, core: int) -> list[Foot]:
        """Feet for the spans (bytes from the tile's first byte) not inside the tile, or all of
        them when the roles did not already count the whole tile."""
        out = []
        for t in (tile.choices if isinstance(tile, AnyTileV) else (tile,)):
            size = t.hi - t.lo
            for a, b in spans:
                if whole and 0 <= a and b <= size:
                    continue
                label = f"{t.label} (bytes {a}..{b} from its start)"
                for key in self._tile_keys(t.memory, core, None):
                    out.append(Foot(key, t.lo + a, t.lo + b, 0, 1, label, isinstance(tile, AnyTileV)))
        return out

    def _vf_constant(self, name: str) -> Any:
        if name not in self.file.constants:
            return None
        value = self._const(cst.Name(name))
        return value.leaf if isinstance(value, Symbol) else value

    def _vf_param_roles(self, name: str) -> dict[int, str]:
        if name not in self._vf_roles:
            # an op the table does not know: assume it reads and writes whatever it reaches
            self._vf_roles[name] = vfbody.param_roles(self.file, name, lambda _function, _call: "RW")
        return self._vf_roles[name]

    def _op_event(self, op: str, pipe: str, reads, writes, mutex, node, ctx: Ctx) -> Event:
        kind = "cube" if ctx.core == AIC else "vector"
        if kind not in PIPE_CORES.get(pipe, (kind,)):
            raise CannotModel(f"`{op}` runs on the {pipe} pipe, which the {kind} core does not have", node)
        if ctx.may:
            reads = [f._replace(may=True) for f in reads]
            writes = [f._replace(may=True) for f in writes]
        scope = ctx.scope
        ev = Event(ctx.core, "op", pipe, self._next_seq(), tuple(reads), tuple(writes), tuple(mutex),
                   node=node, op=op, ident=self._ident(node, ctx),
                   stage=scope[1] if scope else "", task=scope[2] if scope else -1)
        self.trace.events[ctx.core].append(ev)
        return ev

    def _next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def _ident(self, node, ctx: Ctx) -> tuple:
        if ctx.scope is not None:
            ordinal = ctx.counter[0]
            ctx.counter[0] += 1
            return ctx.scope + (ordinal,)
        text = self._code_of(node)
        n = self.code_counts[ctx.core][text]
        self.code_counts[ctx.core][text] += 1
        return ("code", text, n)

    def _code_of(self, node) -> str:
        hit = self._code.get(id(node))
        if hit is None or hit[0] is not node:
            hit = self._code[id(node)] = (node, expression_code(node))
        return hit[1]

    def _integer(self, node: cst.Integer) -> int:
        hit = self._integers.get(id(node))
        if hit is None or hit[0] is not node:
            hit = self._integers[id(node)] = (node, int(node.value.replace("_", ""), 0))
        return hit[1]

    def _string(self, node: cst.SimpleString) -> Any:
        """The value of a string literal (libcst computes it with Python's parser: remembered)."""
        hit = self._strings.get(id(node))
        if hit is None or hit[0] is not node:
            hit = self._strings[id(node)] = (node, node.evaluated_value)
        return hit[1]

    def path(self, node: cst.BaseExpression) -> tuple | None:
        """`self.pl.path(node)`, remembered per node (and per `pl` reading: the generated
        kernel may import `pl` where the input did not)."""
        hit = self._paths.get(id(node))
        if hit is None or hit[0] is not node or hit[1] is not self.pl:
            hit = self._paths[id(node)] = (node, self.pl, self.pl.path(node))
        return hit[2]


def _nonuniform(exc: NonUniform, node) -> CannotModel:
    return CannotModel(f"{exc.what}, so the check cannot prove {exc.claim}; to make it provable, {exc.fix}", node,
                       kind="nonuniform")


def _small_statements(block) -> list:
    """The small statements of a block and of every block nested in it (not in nested
    function or class definitions)."""
    out: list = []
    stack = [block]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleStatementLine):
            out.extend(node.body)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        elif isinstance(node, cst.IndentedBlock):
            stack.extend(node.body)
        elif isinstance(node, (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.Else, cst.Finally,
                               cst.ExceptHandler)):
            stack.extend(c for c in node.children if isinstance(c, cst.CSTNode))
    return out


def _target_names(target) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    return []


def _memory(tile) -> str:
    return tile.memory if isinstance(tile, TileV) else tile.choices[0].memory


def _name_group(group: GroupV, name: str) -> None:
    group.name = name
    group.tiles = tuple(replace(t, label=f"{name}[{i}]") for i, t in enumerate(group.tiles))


def _vf_argument(value: Any) -> Any:
    """A call argument as the vector-function evaluator takes it (hashable: results are cached)."""
    if isinstance(value, (TileV, AnyTileV)):
        shapes = {(t.hi - t.lo, tuple(t.shape)) for t in (value.choices if isinstance(value, AnyTileV) else (value,))}
        if len(shapes) != 1:
            raise vfextent.Unmodelled("an argument that is one of several tiles of different types")
        ((size, shape),) = shapes
        count = 1
        for d in shape:
            count *= d if isinstance(d, int) else 0
        if not count or size % count:
            raise vfextent.Unmodelled("a tile argument whose shape is not static")
        return vfextent.TileArg(size // count, shape)
    if isinstance(value, Symbol):
        return value.leaf
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return vfextent.UNKNOWN


def _vf_source(file, name: str) -> str | ast.FunctionDef | None:
    fn = file.vector_functions.get(name)
    if fn is None:
        return None
    if isinstance(fn, Verbatim):
        return fn.tree if fn.tree is not None else fn.text
    return expression_code(fn)


def _import_const(value: Any) -> Any:
    """A module constant as the interpreter's value (`pl` symbols, lists copied)."""
    if isinstance(value, PlSymbol):
        return Symbol(value.path)
    if isinstance(value, list):
        return [_import_const(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_import_const(v) for v in value)
    if value is None:
        return UNKNOWN
    return value





def _raise(exc: type[Exception]) -> Callable:
    def run(self, small, ctx) -> None:
        raise exc()
    return run


_STATEMENTS: dict[type, Callable] = {
    cst.SimpleStatementLine: Interpreter._simple_line,
    cst.If: Interpreter.exec_if,
    cst.For: Interpreter.exec_for,
    cst.While: Interpreter.exec_while,
    cst.With: Interpreter.exec_with,
    cst.FunctionDef: Interpreter._def,
    cst.Try: lambda self, stmt, ctxs: self.exec_block(stmt.body.body, ctxs),
    cst.IndentedBlock: lambda self, stmt, ctxs: self.exec_block(stmt.body, ctxs),
    cst.ClassDef: lambda self, stmt, ctxs: None,
}

_SMALL_STATEMENTS: dict[type, Callable] = {
    cst.Expr: Interpreter._expr,
    cst.Assign: Interpreter._assign,
    cst.AnnAssign: Interpreter._ann_assign,
    cst.AugAssign: Interpreter.aug_assign,
    cst.Return: Interpreter._return,
    cst.Break: _raise(_Break),
    cst.Continue: _raise(_Continue),
}

_EVAL: dict[type, Callable] = {
    cst.Integer: lambda self, n, ctx: self._integer(n),
    cst.Float: lambda self, n, ctx: float(n.value.replace("_", "")),
    cst.SimpleString: lambda self, n, ctx: self._string(n),
    cst.Name: Interpreter._name,
    cst.Attribute: Interpreter._attribute,
    cst.BinaryOperation: Interpreter._binary,
    cst.UnaryOperation: Interpreter._unary,
    cst.BooleanOperation: Interpreter._boolean,
    cst.Comparison: Interpreter._compare,
    cst.IfExp: Interpreter._ifexp,
    cst.Tuple: Interpreter._sequence,
    cst.List: Interpreter._sequence,
    cst.Subscript: Interpreter._subscript,
    cst.Call: Interpreter._call,
}

_PL_CALLS: dict[str, Callable] = {
    "range": Interpreter._range,
    "TileType": Interpreter._tile_type,
    "make_tile": Interpreter._make_tile,
    "make_tile_group": Interpreter._make_tile_group,
    "struct": Interpreter._struct,
    "struct_array": Interpreter._struct_array,
    "make_tuple": Interpreter._struct,
    "section_cube": Interpreter._section,
    "section_vector": Interpreter._section,
    **{n: Interpreter._core_query for n in ("get_block_idx", "get_block_num", "get_subblock_idx", "get_subblock_num")},
}


def _sampled_int(value: Any) -> Any:
    """A value computed only from sampled scalar parameters as the plain number of this run
    (a range or a builtin over it is static in the run); anything else unchanged."""
    if isinstance(value, Sym) and value.form and all(v[0] == "scalar" for v, _ in value.form) and not value.residue:
        return int(value)
    return value


def _opaque_operands(*values: Any) -> bool:
    """Operands whose result is a named run-time value: some `Opaque`, the rest plain numbers."""
    return any(isinstance(v, Opaque) for v in values) and all(
        isinstance(v, Opaque) or (isinstance(v, (int, float)) and not is_unknown(v)) for v in values)


def _opaque_op(name: str, *values: Any) -> Opaque:
    return Opaque(("op", name, *(v.origin if isinstance(v, Opaque) else v for v in values)))


def _dynamic_dims(value: Any) -> str:
    """The run-time tensor dimensions `value` is computed from, in words ('' if none)."""
    found: list[str] = []

    def walk(origin: Any) -> None:
        if isinstance(origin, tuple) and origin:
            if origin[0] == "shape":
                text = f"`{origin[1]}.shape[{origin[2]}]`"
                if text not in found:
                    found.append(text)
            elif origin[0] == "op":
                for part in origin[2:]:
                    walk(part)

    if isinstance(value, Opaque):
        walk(value.origin)
    return " and ".join(found) + (" (`pl.DYNAMIC`)" if found else "")

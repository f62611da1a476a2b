"""Loops as the abstract interpreter runs them: `for` over a static sequence, `while` on a
static condition, and `for` of run-time trip count.

A loop whose trip count varies between runs (a scalar parameter, a `pl.DYNAMIC` dimension, a
representative trip count of a long static loop) runs with its variable a `Sym`: the counters
its body carries become `Sym`s of their own variable, and every value it carries otherwise
must be the same at each iteration's start, so that `uniform.py` can claim the run for every
trip count. A discovery run gives such a loop `DISCOVERY_TRIPS` iterations and names its bound.
"""

from __future__ import annotations

import functools
import math
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import libcst as cst

from pto_transpile.read.classnames import changed_under
from pto_transpile.read.consteval import MAX_ITEMS, range_length
from pto_transpile.read.effects import PURE_BUILTINS
from pto_transpile.read.localnames import local_names
from pto_transpile.read.printing import code_of as expression_code
from pto_transpile.read.walk import children, iter_nodes
from pto_transpile.soundness import runtypes, syncdrift
from pto_transpile.soundness.deadnames import dead_names
from pto_transpile.soundness.events import AIC
from pto_transpile.soundness.interpbase import InterpreterBase
from pto_transpile.soundness.keytests import Decide, key_decider, undecided
from pto_transpile.soundness.loopviews import DICT_VIEWS, VIEW_BUILTINS, Done, View, computed
from pto_transpile.soundness.runtypes import (
    DISCOVERY_TRIPS,
    CannotModel,
    Ctx,
    FunctionReturn,
    LoopBreak,
    LoopContinue,
    SymRange,
    nonuniform,
)
from pto_transpile.soundness.uniform import (
    BLOCK,
    BLOCK_COUNT,
    INDEX,
    Loop,
    NonUniform,
    block_only,
    is_block_value,
    marks_block_index,
)
from pto_transpile.soundness.values import (
    UNKNOWN,
    AnyTileV,
    FunctionV,
    GroupV,
    Opaque,
    Rebound,
    StructV,
    Sym,
    TensorV,
    TileTypeV,
    TileV,
    is_unknown,
    nonnegative,
    root_words,
    trip_root,
    vars_inside,
)

#: the cores of a block run a loop a different number of times (the flattened vector index of a
#: vector-only epilogue, `pl.range(pl.get_block_idx(), n, pl.get_block_num() * pl.get_subblock_num())`)
UNEQUAL_COUNTS = ("the cores run this loop a different number of times: the check follows the cores of a block in "
                  "step, through loops of one count on every core; spread the work over the blocks "
                  "(`pl.range(core_id, n, num_cores)` with `core_id = pl.get_block_idx() // pl.get_subblock_num()`) "
                  "and split each piece between the vector cores by `pl.get_subblock_idx()`")


@dataclass(frozen=True)
class Flip:
    """A carried value that flips between two values, `x = c - x` (`op` "sub") or `x = x ^ c`
    ("xor") with a static `c`: the ping-pong index of double buffering (`cur = 1 - cur`)."""

    op: str
    c: int

    def other(self, a: int) -> int:
        """The value after `a`."""
        return self.c - a if self.op == "sub" else a ^ self.c


def _phase(value: int, a: int, flip: Flip) -> int | None:
    """0 when a flip started at `a` holds `value` again, 1 when it holds the other value, None
    when it holds neither."""
    return 0 if value == a else 1 if value == flip.other(a) else None


def _step(value: Any, before: int, k: int | None) -> int:
    """What a counter moved by since `before` (modulo `k` for `x = (x + c) % k`)."""
    delta = int(value) - before
    return delta % k if k is not None else delta


def _form_of(value: Any) -> tuple:
    """The trip-count roots in a loop bound (a derived value is numbered per computation, so two
    cores' equal computations differ there; their roots do not)."""
    return tuple(sorted((repr(v), c) for v, c in value.form if v[0] == "size")) if isinstance(value, Sym) else ()


def _per_core_range(start: tuple, step: tuple, value: Any) -> bool:
    """`pl.range(a * core_id + c, n, a * num_cores)`: block b runs `a * (b + t * B) + c`, so the
    blocks' iterations interleave and never meet."""
    if len(start) != 1 or start[0][0] != BLOCK or start[0][1] <= 0 or not isinstance(value, Sym):
        return False  # counting down from the block index (`pl.range(0 - core_id, -n, 0 - num_cores)`) is not one
    return step == ((BLOCK_COUNT[0], start[0][1]),) and not value.const


def _step_form(step: Any) -> tuple:
    """A host's core count a per-core range steps by (`Loops.host_step`) as `Loop.host_step`
    holds it: its form and constant."""
    return (step.form, step.const) if isinstance(step, Sym) else ((), int(step))


def _step_code(call: Any) -> str:
    """The code of the step of `pl.range(start, stop, step)`, for a message (`n` when not one)."""
    if isinstance(call, cst.Call) and len(call.args) == 3 and call.args[2].keyword is None:
        return expression_code(call.args[2].value)
    return "n"


class Loops(InterpreterBase):
    def exec_for(self, node: cst.For, ctxs: list[Ctx]) -> None:
        views = [self._loop_view(node.iter, ctx) for ctx in ctxs]
        if views and all(isinstance(v, View) for v in views):
            self._for_view(node, ctxs, views)  # type: ignore[arg-type]  # all are
            return
        if any(isinstance(v, View) for v in views):
            raise CannotModel("the cores run this loop over different kinds of values", node.iter)
        iters = [v.value if isinstance(v, Done) else self.eval(node.iter, ctx)
                 for ctx, v in zip(ctxs, views, strict=True)]
        iters = [self._bind_trips(it, node) for it in iters]
        if any(isinstance(it, SymRange) for it in iters):
            self._dynamic_for(node, ctxs, iters)
            return
        seqs: list[list | None] = []
        for ctx, it in zip(ctxs, iters, strict=True):
            if isinstance(it, (range, list, tuple, str)) or type(it) is dict:  # a dict: its keys
                seqs.append(list(it))
            else:
                if ctx.scope is None or len(ctxs) > 1:
                    raise self._uncounted(node, ctx, it)
                seqs.append(None)
        known_seqs = [s for s in seqs if s is not None]
        if len(known_seqs) < len(seqs):
            ctx = ctxs[0]
            self.assign(node.target, UNKNOWN, ctx)
            self._exec_uncounted(node, ctx)
            if node.orelse is not None:  # runs unless the body breaks, which is not known here
                raise CannotModel("the `else` of a loop the check cannot count: whether it runs is not known",
                                  node.orelse, kind="construct")
            return
        if len({len(s) for s in known_seqs}) > 1:
            raise CannotModel(UNEQUAL_COUNTS, node.iter)
        broke = False
        for i in range(len(known_seqs[0]) if known_seqs else 0):
            for ctx, s in zip(ctxs, known_seqs, strict=True):
                self.assign(node.target, s[i], ctx)
            if self._loop_body(node, ctxs):
                broke = True
                break
            for it, s in zip(iters, known_seqs, strict=True):
                if type(it) in (list, dict) and (len(it) != len(s)
                                                 or any(a is not b for a, b in zip(it, s, strict=True))):
                    # Python reads the list as it is at each step (a dict raises); the model read it once
                    raise CannotModel(f"`{self._code_of(node.iter)}` is changed while a loop runs over it: loop over "
                                      "a copy, or collect the changes and make them after the loop", node.iter,
                                      kind="construct")
        if not broke and node.orelse is not None:
            self.exec_block(node.orelse.body.body, ctxs)

    def _uncounted(self, node: cst.For, ctx: Ctx, it: Any) -> CannotModel:
        """Why the check cannot follow a loop over `it`, neither a sequence nor a count it names:
        what the count depends on, and how to write the loop instead."""
        dims = _dynamic_dims(it)
        if dims:
            return CannotModel(f"the trip count `{self._code_of(node.iter)}` depends on {dims}, a size "
                               "known only at run time, in a way the check cannot count through",
                               node.iter, kind="dynamic")
        code = self._code_of(node.iter)
        rebound = sorted({(n.value, v.test) for n in iter_nodes(node.iter) if type(n) is cst.Name
                          and isinstance(v := ctx.env.get(n.value), Rebound)})
        if rebound:
            name, test = rebound[0]
            # (probe h235: an `elif` not read as the `else` was never named)
            elif_ = ("; an `elif` after it is read as its `else` only when its test is a comparison of the same two "
                     "values the other way (`if core_id < rem:` then `elif core_id >= rem:`): write `else:`") \
                if test in self.with_elif else ""
            return CannotModel(f"the trip count of `{code}` depends on `{name}`, which a branch of `if "
                               f"{test}:` rebinds: the check cannot tell which value it holds after "
                               "it (the test differs between blocks, or is not known); bind it once, "
                               "or choose between two values by a test of the block index "
                               f"(`cnt = a if core_id < rem else b`){elif_}", node.iter)
        if type(node.iter) is cst.Call and type(node.iter.func) is cst.Name \
                and node.iter.func.value == "range" and "range" not in ctx.env:
            # Python's `range` runs when the JIT traces the kernel: a count it cannot know
            stepped = len(node.iter.args) == 3
            instead = ("`pl.range` by 1 and act on the iterations the step picks (`for i in "
                       "pl.range(start, stop):` with `if (i - start) % step == 0:`)") if stepped else \
                f"`pl.range` (`pl.{code}`)"
            return CannotModel(f"`{code}` loops with Python's `range`, which the JIT unrolls while it "
                               f"compiles the kernel, over a count that is not static: loop with {instead}, "
                               "as a loop of run-time trip count is written", node.iter, kind="dynamic")
        residue = self._residue_in(node.iter, ctx)
        if residue is not None:  # (probe h118: `n_blocks - d % 4`, `%` being among the forms listed below)
            return CannotModel(f"the trip count of `{code}` is computed from `{residue}`, a residue of a run-time "
                               "value, which the check does not follow in a trip count; count the loop to a value of "
                               "its own: a scalar parameter the caller computes (`n_iter: pl.DT_INT32`, `pl.range(0, "
                               "n_iter)`) or a quotient of a `pl.DYNAMIC` dimension", node.iter, kind="nonuniform")
        return CannotModel(f"the trip count of `{code}` is neither static nor a run-time "
                           "value the check can name (one computed from `pl.DYNAMIC` dimensions, scalar "
                           "parameters, GM values read by numbers and the block count by `+`, `-`, `//`, "
                           "`%`, `min` and `max`, with a block's chunk start `core_id * chunk`)", node.iter)

    def _residue_in(self, expr: cst.BaseExpression, ctx: Ctx) -> str | None:
        """The code of a residue of a run-time value in `expr` (`d % 4` of names and numbers, read
        again here: nothing it reads runs code), or None."""
        for n in iter_nodes(expr):
            if type(n) is cst.BinaryOperation and type(n.operator) is cst.Modulo \
                    and all(type(x) in (cst.Name, cst.Integer) for x in (n.left, n.right)):
                try:
                    value = self.eval(n, ctx)
                except (CannotModel, NonUniform):
                    continue
                if isinstance(value, Sym) and (value.residue or len(value.form) == 1
                                               and value.form[0][0] in self.uniform.residues_of):
                    return self._code_of(n)  # (of a trip-count root, or of a sampled scalar)
        return None

    def _loop_view(self, it: cst.BaseExpression, ctx: Ctx) -> View | Done | None:
        """The items a loop over `enumerate(xs)`, `zip(xs, ys)`, `reversed(xs)` or `d.items()`
        (`keys`, `values`) takes, when what it is given is a sequence or dict the model holds.
        Only as the loop's own iterable: there the iterator is made and used up by the loop, so
        reading its items up front is what Python does but for changes of the sequence while
        the loop runs, which `_for_view` refuses. None for a loop over anything else (nothing
        evaluated); `Done` with the value the call has as any other call the check does not
        run, when what it is given is not such a sequence (each part evaluated once)."""
        if type(it) is not cst.Call or any(a.star for a in it.args) or self.path(it.func) is not None:
            return None
        func = it.func
        if type(func) is cst.Attribute:
            if func.attr.value not in DICT_VIEWS or it.args:
                return None
            if isinstance(func.value, cst.Name) and func.value.value not in ctx.env \
                    and self.file.meaning(func.value.value) is None:
                return None  # a builtin's method (`dict.items`): not a view of a dict
            obj = self.eval(func.value, ctx)
            if type(obj) is not dict:  # an Unkeyed dict's keys are not known
                return Done(self._unknown_call(it, ctx))
            return View(DICT_VIEWS[func.attr.value](obj), [obj])
        name = self._builtin_called(func, ctx)
        if name not in VIEW_BUILTINS or not is_unknown(self.eval(func, ctx)):
            return None
        pos, sources = [], []
        for a in it.args:
            if a.keyword is None:
                inner = self._loop_view(a.value, ctx)  # `enumerate(zip(xs, ys))`: used up by the outer one
                pos.append(self.eval(a.value, ctx) if inner is None else inner.value if isinstance(inner, Done)
                           else inner.items)
                sources += [s for s, _ in inner.sources] if isinstance(inner, View) else [pos[-1]]
        kw = {a.keyword.value: self.eval(a.value, ctx) for a in it.args if a.keyword is not None}
        if name == "enumerate" and len(pos) == 2 and not kw:
            pos, kw = pos[:1], {"start": pos[1]}
        if not computed(name, pos, kw):
            return Done(self._unknown_call_of(it, pos, kw, ctx))
        if name == "zip" and kw.get("strict") and len({len(p) for p in pos}) > 1:
            raise CannotModel("`zip(..., strict=True)` of sequences of different lengths raises", it)
        items = list(VIEW_BUILTINS[name](*pos, **kw))
        if len(items) > MAX_ITEMS:
            raise CannotModel("this loop is too long to follow", it)
        return View(items, [p for p in sources if type(p) in (list, dict)])

    def _for_view(self, node: cst.For, ctxs: list[Ctx], views: list[View]) -> None:
        """`exec_for` over the items `_loop_view` read, each core its own."""
        if len({len(v.items) for v in views}) > 1:
            raise CannotModel(UNEQUAL_COUNTS, node.iter)
        for i in range(len(views[0].items)):
            for ctx, view in zip(ctxs, views, strict=True):
                self.assign(node.target, view.items[i], ctx)
            if self._loop_body(node, ctxs):
                return
            if any(view.changed() for view in views):
                # Python reads the sequence as it is at each step (a dict raises)
                raise CannotModel(f"what `{self._code_of(node.iter)}` reads is changed while a loop runs over it: "
                                  "loop over a copy, or collect the changes and make them after the loop", node.iter,
                                  kind="construct")
        if node.orelse is not None:
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
        root, c = trip_root(stop)
        wanted = DISCOVERY_TRIPS + (start if isinstance(start, int) else 0) - c
        if self.trips.setdefault(root, wanted) < wanted:
            # a loop over the root from further on than the one that bound it: too few iterations
            # to show what they do (probe h84: none, and its residues went unseen); run again
            self.short_roots[root] = max(self.short_roots.get(root, wanted), wanted)
        return SymRange(start, Sym(self.trips[root] + c, ((("size", root), 1),), const=c), step)

    def _dynamic_for(self, node: cst.For, ctxs: list[Ctx], iters: list) -> None:
        """A loop whose trip count varies between runs: its variable is a `Sym`, counters
        carried across its iterations too, and its body must stay uniform (`uniform.py`)."""
        text = self._code_of(node.iter)
        if not all(isinstance(it, SymRange) for it in iters):
            raise CannotModel(UNEQUAL_COUNTS, node.iter)
        uni = self.uniform
        first = iters[0]
        try:
            for it in iters:
                if (int(it.start), int(it.stop), int(it.step)) != (int(first.start), int(first.stop),
                                                                   int(first.step)) \
                        or any(_form_of(a) != _form_of(b) for a, b in ((it.start, first.start), (it.stop, first.stop),
                                                                      (it.step, first.step))):
                    # `pl.range(0, tbl[sub_id])`: counts of their own, equal only at this run's values
                    raise CannotModel(UNEQUAL_COUNTS, node.iter)
            root, per_core = self._loop_root(first, text, node.iter)
        except NonUniform as exc:
            raise nonuniform(exc, node.iter) from None
        # the run follows block 0 of one block, whose share is every task: a range stepping by the
        # host's core count too (`host_step`), by 1 here as by the block count
        host = _step_form(first.step) if per_core and self.host_step(first.start, first.step) else ()
        r = range(int(first.start), int(first.stop), 1 if host else int(first.step))
        if range_length(r) > MAX_ITEMS:
            raise self._too_long("this loop runs too many iterations to follow", node)
        if per_core and root is None and self.config.per_core_checked and not uni.discover:
            # a static count: block b of B runs ceil((M - b) / B) of the M tasks one block runs,
            # each count from 0 to M on some launch; every run other than this run at M is asked for
            count = self.config.per_core_counts.get(len(r))
            if count is None:
                uni.per_core_static.add(len(r))
            elif count < len(r):
                r = r[:count]
        key = ("loop", id(node))
        label = self._code_of(node.target)
        stop = first.stop
        starts = tuple((it.start.form, it.start.const) if isinstance(it.start, Sym) else ((), int(it.start))
                       for it in iters)
        chunk = self._chunk_start(first.start)
        uni.loop_steps[key] = abs(r.step)
        loop = Loop(key, label, int(first.start), r.step, len(r), root, per_core,
                    stop.form if isinstance(stop, Sym) else (), stop.const if isinstance(stop, Sym) else int(stop),
                    starts, chunk, host_step=host)
        if chunk is not None or (root is not None and marks_block_index(root[1])):
            uni.spread = True  # the blocks run different tasks: a place every block writes is a race
        for outer in uni.active:
            if outer.root is not None:
                uni.outer.add(outer.root)
                if root is not None:
                    uni.nested.add((outer.root, root))
        if root is not None:
            # the root's value giving 0 iterations: the stop is the root plus a constant, and the
            # loop runs none when the stop reaches the start (`pl.range(11, d)`: d = 11;
            # `pl.range(0, d - 20)`: d = 20), whatever count the run took now
            if isinstance(stop, Sym) and stop.form == ((root, 1),):
                zero = int(first.start) - int(stop.const)
            else:
                zero = int(first.stop) - len(r)
            uni.roots.setdefault(root, zero)
            # every loop over the count keeps its own zero (`pl.range(0, n)` and `pl.range(0, n + 1)`):
            # the counts run cover each (`check._trip_configs`), and its tests are read against it
            uni.root_zeros.setdefault(root, set()).add(zero)
            for earlier, period in uni.left_periods.get(root, {}).items():
                if earlier != key and period > 1:
                    # what an earlier loop over the count left may depend on its phase there (a flag a
                    # test of `k % 16` set, probe h86): a residue of the count for this loop
                    uni.root_periods[root[1]] = math.lcm(uni.root_periods.get(root[1], 1), period)
            loop.zero = zero
            if uni.discover and not per_core and len(r) < DISCOVERY_TRIPS and int(first.step) > 0 \
                    and isinstance(stop, Sym) and stop.form == ((root, 1),) and not stop.residue:
                # a loop over a root an earlier loop from further back bound (`pl.range(0, n + 20)`
                # then `pl.range(0, n)`): too few iterations to show what they do (probe h84: none,
                # and the residues its body takes went unseen); `check._discover` runs again
                wanted = zero + DISCOVERY_TRIPS * int(first.step)
                self.short_roots[root[1]] = max(self.short_roots.get(root[1], wanted), wanted)
        if per_core:
            uni.per_core.add(key)
            uni.spread = True
            if root is not None:
                uni.per_core_roots_seen.add(root[1])
                self._per_core_share(root, zero, first, text, node)
        elif root is not None and root[1] in uni.per_core_roots and not uni.discover:
            # at B blocks a per-core range over the same count runs ceil((n - b) / B) of its tasks
            # on block b while this loop runs all n: the runs (one block) have the two counts equal
            raise nonuniform(NonUniform(
                f"`{text}` counts up to {root_words(root[1])}, the trip count of a per-core range, whose blocks "
                "each run only their share of it, which the check follows as that range's own count",
                "bound this loop by a count of its own (another tensor dimension or parameter), or spread it over "
                "the blocks as the per-core range is"), node.iter)
        saved = uni.loops.get(key)
        uni.loops[key] = loop
        uni.active.append(loop)
        carried, assigned = self._carried_names(node)
        rot = uni.rot
        rot.loop_facts[key] = (root, frozenset(carried), None if per_core else int(first.step))
        rot.loop_parents[key] = uni.active[-2].key if len(uni.active) > 1 else None
        previous: list[dict] = [{} for _ in ctxs]
        # (`_carry` goes through them in order at every iteration, each split at its dot)
        in_order = [(name, holder, field) for name in sorted(assigned) for holder, _, field in [name.partition(".")]]
        broke = False
        moves: list[dict] = []
        marks: list[list[int]] = []  #: each core's event count at the start of each iteration
        try:
            for v in r:
                marks.append([len(core) for core in self.trace.events])
                uni.values[key] = v
                # from a chunk start (`pl.range(start, end)`), the variable is the start plus the
                # task's place in the chunk: it moves with the block as the start does
                value = Sym(v, ((key, 1),), moving=v) if chunk is None else Sym(v, ((key, 1), (chunk, 1)), moving=v)
                for ctx, prev in zip(ctxs, previous, strict=True):
                    self.assign(node.target, value, ctx)
                    try:
                        self._carry(ctx, carried, in_order, prev, node, key)
                    except _TooDeep:
                        raise nonuniform(NonUniform(
                            "a value the loop keeps across iterations holds functions, containers or structs nested "
                            f"more than {_DEFAULTS_DEPTH} deep (a function's defaults, a field, an item), deeper than "
                            "the check compares them from one iteration to the next",
                            "keep what the iterations share in names of their own, or pass it as an argument"),
                            node) from None
                    if self.periods_read:
                        self._carried_tiles(ctx, node, key)
                before = dict(rot.moved)
                try:
                    ended = self._loop_body(node, ctxs)
                except FunctionReturn:
                    # out of the function in some iteration, as `break` leaves the loop (probe h86:
                    # what it returned, and the loop's syncs, were never judged as the loop's end)
                    raise CannotModel("`return` from inside a loop of run-time trip count leaves it in some "
                                      "iteration, as `break` does: let the loop run to its end and return after it",
                                      node, kind="construct") from None
                if ended:
                    broke = True
                    break
                moves.append({k: n - before.get(k, 0) for k, n in rot.moved.items() if n != before.get(k, 0)})
            if not broke:  # the last iteration's steps: a loop of one iteration has no other
                self._last_steps(ctxs, previous, carried)
                if root is not None and not per_core and r:
                    self._counters_after(ctxs, previous, carried, root, loop.zero or 0, len(r), node)
                if r:
                    self._values_after(ctxs, key, carried, root if not per_core else None, loop, r, node)
                marks.append([len(core) for core in self.trace.events])
                self._sync_drift(root, marks, label, node)
            rot.loop_lengths[key] = max(rot.loop_lengths.get(key, 0), len(moves))
            if self.rotation_margin == 1:  # the serial kernel: the moves of a middle iteration
                for group in rot.group_depths:
                    rot.group_moves[(key, group)] = moves[1].get(group, 0) if len(moves) >= 3 else None
            if root is not None and not broke and r:
                # where a group's moves are measured (three iterations of the serial kernel) the phase
                # its cursor is left at counts too (probe h87: a slot of its own valid shape); elsewhere
                # the residues alone, which the period a run with the moves measured gives is a multiple of
                groups = self.rotation_margin == 1 and len(moves) >= 3
                uni.left_periods.setdefault(root, {})[key] = rot.loop_period(key, groups=groups)
            margin = self.rotation_margin
            unsteady = None if margin is None else rot.unsteady(moves, margin or max(uni.depths, default=1) + 1)
            if unsteady is not None:
                raise nonuniform(NonUniform(
                    f"tile group `{unsteady}` moves to its next slot in some iterations of the loop over `{label}` "
                    "and not in others", f"move `{unsteady}` to its next slot the same number of times in every "
                    "iteration (`.next()` outside any test), or pick its slot by a residue of the loop variable"),
                    node)
        finally:
            uni.active.pop()
            if saved is not None:
                uni.loops[key] = saved
        if broke:
            raise CannotModel("`break` out of a loop of run-time trip count", node)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body, ctxs)

    def _per_core_share(self, root: tuple, zero: int, rng: SymRange, text: str, node: cst.For) -> None:
        """The runs give a per-core range over a root every count the root takes, each block's
        share at one block: that covers every share only when the root's least value gives the
        range no task (a share of 0, a block past the last task), and only when every per-core
        range over the root has the same stop and start (the same share on each block)."""
        uni = self.uniform
        if uni.discover:
            return
        if nonnegative(root[1]) and zero < 0:
            raise nonuniform(NonUniform(
                f"`{text}` gives each block at least {-zero} task{'s' if zero < -1 else ''} in every run the check "
                f"makes ({root_words(root[1])} is 0 or more), while a block past the last task runs none",
                "count the tasks with one expression of the dimensions whose least value is 0 (`(a.shape[0] + "
                "TILE) // TILE` rather than `a.shape[0] // TILE + 1`), or bound the range by the count itself"),
                node.iter)
        shape = (_form_of(rng.start), int(rng.start), _form_of(rng.step), int(rng.step), zero)
        if uni.per_core_shapes.setdefault(root, shape) != shape:
            raise nonuniform(NonUniform(
                f"`{text}` is a second per-core range over {root_words(root[1])} that starts, steps or ends "
                "elsewhere than the first: on a block of a launch their shares differ in ways the runs, which tie "
                "both to the one count, never make",
                "spread every loop over the blocks with the same `pl.range(core_id, n, num_cores)`, or bound the "
                "second by a count of its own"), node.iter)

    def _sync_drift(self, root: Any, marks: list[list[int]], label: str, node: cst.For) -> None:
        """`syncdrift.refusal` of one period of the loop's steady iterations (`Config.steady`),
        in the run whose count is the argument's bound, where the middle period is steady. Of a
        generated kernel (`rotation_margin` None), whose own syncs balance by construction in
        every period of its event ids (which its inner period leaves out), only whether a core
        raises events for another while waiting for nothing it raises: the author's own
        `set_cross_core` in a stage or around the pipeline loop, which no ring holds back where
        no tile group crosses the cores, or where the inner loop runs no task (probe h79)."""
        window = self.config.steady.get(root[1] if root is not None else None)
        if window is None or window[0] < 0 or window[0] + window[1] >= len(marks):
            return  # (no such period in this run)
        first, length = window
        # the serial kernel of an auto-pipelined one runs its sections in order: only whether the
        # author's own syncs balance in a whole period is asked of it (`Config.serial_steady`)
        reason = syncdrift.refusal(self.trace.events, marks[first], marks[first + length], length, label,
                                   balance=self.rotation_margin is not None, ahead=self.rotation_margin != 1)
        if reason is not None:
            raise CannotModel(reason, node, kind="drift")

    def _moving_read(self, value: Any) -> bool:
        """Is `value` computed from a GM read at an index that moves with a loop (`moving_reads`)?"""
        if isinstance(value, Sym):
            return any(var[0] == "size" and self._moving_read(var[1]) for var, _ in value.form)
        if isinstance(value, Opaque):
            value = value.origin
        if isinstance(value, tuple):
            return value in self.moving_reads or any(self._moving_read(part) for part in value)
        return False

    def _loop_root(self, rng: SymRange, text: str, call: Any = None) -> tuple[Any, bool]:
        """The trip-count root a dynamic loop counts up to, and whether it is a per-core range."""
        forms = {part: (v.form if isinstance(v, Sym) else ()) for part, v in
                 (("start", rng.start), ("stop", rng.stop), ("step", rng.step))}
        inside = [var for v in (rng.start, rng.stop, rng.step) for var in vars_inside(v)]
        if any(var[0] in INDEX for f in forms.values() for var, _ in f) or any(var[0] in INDEX for var in inside):
            raise NonUniform(f"the trip count of `{text}` depends on an enclosing loop variable or counter",
                             "give the inner loop a trip count that does not change between iterations")
        if any(self._moving_read(v) for v in (rng.start, rng.stop, rng.step)):
            # `cnt = pl.getval(lens, b)` of an enclosing loop's `b`: a count per iteration of that
            # loop, which the argument for every trip count does not cover (probe h112)
            raise NonUniform(f"the trip count of `{text}` is read from GM at an index that moves with an enclosing "
                             "loop, so it changes from one iteration of that loop to the next",
                             "give the inner loop a trip count that does not change between iterations")
        if self._chunk_start(rng.start) is not None:  # `pl.range(start, end)` over a block's chunk
            if int(rng.step) != 1 or forms["step"]:
                raise NonUniform(f"`{text}` steps by other than 1 from a block's chunk start",
                                 "step a loop over a block's chunk by 1")
            forms["start"] = ()
        elif any(var[0] == "derived" and var[-1] == "block" for var, _ in forms["start"]):
            # `pl.range(core_id * chunk - 1, end)`: not a per-core range, whose start is the block index
            raise NonUniform(f"`{text}` starts at a value computed from a block's chunk start (`core_id * ...`), "
                             "which the check follows only as `pl.range(start, end)` with `start = core_id * chunk` "
                             "and `end = min(start + chunk, n)`",
                             "loop over the chunk in that form, or from 0 to the block's task count and add the "
                             "start to the offsets (`for j in pl.range(0, min(chunk, n - start)): i = start + j`)")
        per_core = any(is_block_value(var) for part in ("start", "step") for var, _ in forms[part])
        if per_core and self.host_step(rng.start, rng.step):
            pass  # a per-core range over the host's core count, which the blocks that go on are below
        elif per_core and len(forms["start"]) == 1 and forms["start"][0][0] == BLOCK and (any(
                var[0] == "scalar" or var[0] == "size" and var[1][:1] == ("param",) for var, _ in forms["step"])
                or not forms["step"] and int(rng.step) >= 2):  # (a host's count, or a number past 1)
            raise NonUniform(f"`{text}` starts at the block index but does not step by the block count "
                             "`pl.get_block_num()`: a step that is a core count of the host's (a scalar "
                             "parameter, a tiling-data field, a number) may be smaller than the number of blocks, "
                             "and blocks past it would run the tiles of others",
                             f"send the blocks at or past it home first (`if core_id >= {_step_code(call)}: "
                             "return` at the kernel's top level, before any loop, sync or GM write), step by "
                             "`pl.get_block_num()`, or give each block a chunk by the host's count (`start = "
                             "core_id * chunk`, `pl.range(start, min(start + chunk, n))`)")
        elif per_core and not _per_core_range(forms["start"], forms["step"], rng.step):
            raise NonUniform(f"`{text}` starts or steps by a block value other than as a per-core range does",
                             "give each block every `num_cores`-th iteration from its index "
                             "(`pl.range(core_id, n, num_cores)`), or a chunk (`pl.range(start, min(start + chunk, "
                             "n))` with `start = core_id * chunk`)")
        if forms["start"] and not per_core or forms["step"] and not per_core:
            raise NonUniform(f"the start or step of `{text}` varies between runs",
                             "start the loop at a constant (or the block index) and step by 1 (or the block count)")
        if not per_core and int(rng.step) != 1:
            raise NonUniform(f"`{text}` steps by {int(rng.step)}", "step a loop of run-time trip count by 1")
        stop = forms["stop"]
        if not stop:
            return None, per_core
        if isinstance(rng.stop, Sym) and rng.stop.residue:
            # `range(d % 2)`: its form is that of `d`, its count is not `d` plus a constant (probe h117:
            # taken for a loop up to `d`, a discovery run asked for it longer without end; a pipeline
            # loop was refused for the validity test `i < d % 4` only the generated kernel has)
            raise NonUniform(f"`{text}` counts to a residue of a run-time value, which the check does not follow "
                             "as a trip count",
                             "count the loop to a value of its own: a scalar parameter the caller computes (`n_rem: "
                             "pl.DT_INT32`, `pl.range(0, n_rem)`) or a quotient of a `pl.DYNAMIC` dimension")
        if len(stop) == 1 and stop[0][0][0] == "size" and stop[0][1] == 1:
            return stop[0][0], per_core
        if any(block_only(var) and var[0] == "derived" for var, _ in stop):
            # `my_n = (N - core_id + num_cores - 1) // num_cores` of a static `N` (probe h232: told it counted
            # to the block count, and to pass the block count as a parameter)
            raise NonUniform(f"`{text}` counts to a value computed from the block index or count and static "
                             "numbers only (a block's share of a static count), which the check follows as a trip "
                             "count only where the count it shares is known at run time",
                             "take the count the blocks share from a `pl.DYNAMIC` dimension (`n = a.shape[0] // "
                             "TILE`, `my_n = (n - core_id + num_cores - 1) // num_cores`) or a scalar parameter, or "
                             "loop over the static count by a per-core range (`pl.range(core_id, N, num_cores)`)")
        if any(block_only(var) for var, _ in stop):  # (probe h213: the help asked for a parameter, as for any value)
            raise NonUniform(f"`{text}` counts to the block count (or a value computed from it), which the check "
                             "follows as the step of a per-core range, not as a trip count",
                             "loop to a scalar parameter the host passes as the block count (`nb: pl.DT_INT32`, "
                             "`pl.range(0, nb)`), or let each block add its part to the total itself with an atomic "
                             "store (`atomic=pl.AtomicType.AtomicAdd`)")
        constant = _module_constant(stop)
        if constant is not None:  # (probe h232: a static kernel was told to bound the loop by a parameter)
            raise NonUniform(f"the trip count of `{text}` is computed from the module constant `{constant}`, not that "
                             "constant plus a number",
                             "count the loop to a module constant of its own, bound at module level to the loop's "
                             "count (`N_TILES = SEQ // TILE`, then `pl.range(0, N_TILES)`)")
        raise NonUniform(f"the trip count of `{text}` is not a run-time size plus a constant",
                         "bound the loop by the parameter itself (`pl.range(0, n)`) or by one expression of a "
                         "`pl.DYNAMIC` dimension (`(k.shape[0] + TILE - 1) // TILE`)")

    def host_step(self, start: Any, step: Any) -> bool:
        """Are `start` and `step` those of `pl.range(core_id, n, used_cores)` after `if core_id >=
        used_cores: return` (`Uniform.blocks_below`)? Every block that goes on has an index below
        the step, so block b runs b, b + U, ...: a per-core range over U blocks, the blocks past
        them gone (and a share of U blocks the launch lacks run by none, in the serial kernel
        alike). `U` is a scalar parameter or tiling-data field, or a number (a module constant, a
        tiling-key field) of 1 or more."""
        if not (isinstance(start, Sym) and start.form == ((BLOCK, 1),) and not start.const and not start.residue):
            return False
        if type(step) is int:
            return step >= 1 and ((), step) in self.uniform.blocks_below
        if not isinstance(step, Sym) or not step.form or step.residue or any(is_block_value(var)
                                                                              for var, _ in step.form):
            return False
        return (step.form, step.const) in self.uniform.blocks_below

    def _chunk_start(self, start: Any) -> tuple | None:
        """The variable of a block's chunk start by a run-time size that a loop starts at
        (`Uniform.opaque_chunk`), or None."""
        if self.uniform.chunk_value(start) is None:
            return None
        return start.form[0][0]

    def _carried_names(self, node: cst.For) -> tuple[dict, set]:
        """Names the loop body binds: the counters among them (`x = x + e`, `x += e`: None;
        `x = (x + e) % k`: k) and all of them."""
        hit = self._carried.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1], hit[2]
        counters: dict = {}
        assigned: set = set()
        bindings: Counter[str] = Counter()  #: how many places of the body bind each name
        for small in _small_statements(node.body):
            if type(small) is cst.AugAssign and (name := _carrier(small.target)) is not None:
                assigned.add(name)
                bindings[name] += 1
                if isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
                    kind = None
                elif isinstance(small.operator, cst.BitXorAssign):
                    kind = self._flip_by(small.value, "xor")  # `cur ^= 1`
                else:
                    kind = "other"
                counters[name] = "other" if kind == "other" or counters.get(name, kind) != kind else kind
            elif type(small) in (cst.Assign, cst.AnnAssign):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                for t in targets:
                    field = _carrier(t) if isinstance(t, cst.Attribute) else None
                    for name in _target_names(t) + ([field] if field else []):
                        assigned.add(name)
                        bindings[name] += 1
                        single = isinstance(t, cst.Name) or field is not None
                        kind = self._counter_kind(name, small.value) if single else "other"
                        if kind == "other" or counters.get(name, kind) != kind:
                            counters[name] = "other"
                        else:
                            counters[name] = kind
        for sub in iter_nodes(node.body):
            # a walrus (`if (x := x * 2) > k:`) and a nested loop's target bind a name too
            bound = [sub.target] if type(sub) is cst.NamedExpr else [sub.target] if type(sub) is cst.For else []
            for target in bound:
                for name in _target_names(target):
                    assigned.add(name)
                    counters[name] = "other"
                    bindings[name] += 2
            if type(sub) is cst.AsName:  # `with ... as x`, `except ... as x`: a binding, not followed
                for name in _target_names(sub.name):
                    bindings[name] += 2
            if isinstance(sub, (cst.FunctionDef, cst.ClassDef)):
                # `def g(): return 1` under a test of what `g()` returned before: which function
                # a name holds is state too (probe h163, a counter of thirteen functions)
                assigned.add(sub.name.value)
                counters[sub.name.value] = "other"
                bindings[sub.name.value] += 2
        # the loop's own variable is bound anew by the `for` at every iteration's start, whatever
        # the body made of it (`i = n - 1 - i`, a reversed walk): nothing of it is carried
        own = set(_target_names(node.target))
        assigned -= own
        counters = {n: k for n, k in counters.items() if k != "other" and n not in own}
        self._carried[id(node)] = (node, counters, assigned, _flag_literals(node, bindings))
        return counters, assigned

    def _counter_kind(self, name: str, value) -> Any:
        """None for `name + e` / `e + name` / `name - e`, k for `(name + e) % k`, a `Flip` for
        `c - name`, `name ^ c` or `c ^ name` with a static `c`, else "other"."""
        if isinstance(value, cst.BinaryOperation):
            mine = [_carrier(x) == name for x in (value.left, value.right)]
            if isinstance(value.operator, cst.Subtract) and mine == [False, True]:
                return self._flip_by(value.left, "sub")
            if isinstance(value.operator, cst.BitXor) and any(mine) and not all(mine):
                return self._flip_by(value.right if mine[0] else value.left, "xor")
            if isinstance(value.operator, cst.Modulo):
                k = self.file.evaluator.try_eval(value.right, None)
                inner = value.left
                if isinstance(k, int) and not isinstance(k, bool) and k > 0 and self._counter_kind(name, inner) is None:
                    return k
                return "other"
            mine = [_carrier(x) == name for x in (value.left, value.right)]
            if isinstance(value.operator, cst.Add) and any(mine) and not all(mine):
                return None
            if isinstance(value.operator, cst.Subtract) and mine[0] and not mine[1]:
                return None
        return "other"

    def _flip_by(self, expr, op: str) -> Any:
        """The `Flip` of `x = c - x` (`op` "sub") or `x = x ^ c` ("xor") when `c` is a static
        integer, else "other"."""
        c = self.file.evaluator.try_eval(expr, None)
        return Flip(op, c) if isinstance(c, int) and not isinstance(c, bool) else "other"

    def _carry(self, ctx: Ctx, counters: dict, assigned: list[tuple[str, str, str]], prev: dict, node,
               key: tuple = ()) -> None:
        """At an iteration's start: counters become `Sym`s of their own variable (stepping by
        the same amount every iteration); any other plain integer the body binds (`assigned`,
        sorted, as (name, holder, field): `st.n` is held by `st`) and may read before it binds it
        (`read_first`), and every integer field of a `pl.struct` the kernel holds, must be what it
        was at the previous iteration's start."""
        uni = self.uniform
        memo: list[frozenset] = []

        def first() -> frozenset:
            """`read_first` on this core (a section of the other kind does not run), read once
            and only where a value needs it: reading a long body costs more than the rest here."""
            if not memo:
                memo.append(self._read_first_on(node, ctx))
            return memo[0]

        env = ctx.env
        #: (struct, field) -> the counter name it was followed by: the field stepped under a second
        #: name (`v = cnt`, then `v.n += 1` and `cnt.n += 1`) is that one counter (probe h109)
        followed: dict[tuple[int, str], str] = {}
        for name, holder, field in assigned:
            value = env.get(holder)  # (`_carried_value`)
            if field:
                struct = value if isinstance(value, StructV) and value.origin == "struct" else None
                value = struct.fields.get(field) if struct is not None else None
                if struct is not None and name in counters:
                    earlier = followed.setdefault((id(struct), field), name)
                    if earlier != name and counters.get(earlier) == counters[name]:
                        continue  # (its steps are the first name's: the delta between iteration starts)
            if name in counters and isinstance(value, int):
                if type(value) is bool:  # `q = False` before `q = q + 1`: counts from 0 (probe h85)
                    value = int(value)
                var = ("carried", name)
                k = counters[name]
                prev.setdefault(("start", name), value)  # (`_counters_after`)
                flip = k if isinstance(k, Flip) else None
                if isinstance(value, Sym) and any(v[0] == "loop" for v, _ in value.form) and not value.residue:
                    raise nonuniform(NonUniform(f"counter `{name}` is set from the loop variable and carried",
                                                 "count with `x = x + c` from a value set before the loop"), node)
                if (k is not None) and name not in prev and isinstance(value, Sym) and not value.residue \
                        and any(v == var for v, _ in value.form) \
                        and not any(name in uni.rot.loop_facts.get(loop.key, (None, frozenset()))[1]
                                    for loop in uni.active[:-1]):
                    # a residue or flip of what an earlier loop, not one around this, left a counter
                    # at (`cur == my_n`): a value of that loop's trip count, which its form (the
                    # counter's own variable) no longer says, taken for periodic (a plain counter's
                    # tests are refused and its offsets judged by their stride, whatever its start)
                    raise nonuniform(NonUniform(
                        f"counter `{name}` starts at the value an earlier loop left it at, which depends on that "
                        "loop's trip count", f"start `{name}` at a constant before this loop, or give each loop a "
                        "counter of its own"), node)
                if name not in prev and any(value is left for left in self.counters_left):
                    raise nonuniform(NonUniform(
                        f"counter `{name}` starts at the value an earlier loop left it at, which depends on that "
                        "loop's trip count", f"start `{name}` at a constant before this loop, or give each loop a "
                        "counter of its own"), node)
                self._plain_counter(name, value, var, name in prev, node)
                if flip is not None:
                    # followed as its phase `p` (0 at the loop's first iteration, 1 at the next),
                    # a counter `p = (p + 1) % 2`, and the value as `a + (b - a) * p`
                    a = prev.setdefault(("flip", name), int(value))
                    span = flip.other(a) - a
                    phase = _phase(int(value), a, flip)
                    if phase is None:
                        raise nonuniform(NonUniform(f"`{name}` does not flip between two values from one "
                                                     "iteration to the next", f"flip `{name}` once in every "
                                                     "iteration, where every iteration runs the flip"), node)
                    value, k = phase, 2
                elif k is not None and name in prev and not 0 <= int(value) < k:
                    # `x = (x + 1) % K` with a kernel-local `K` shadowing the module's: the divisor
                    # read is not the one that runs, nor is the period taken from it
                    raise nonuniform(NonUniform(
                        f"counter `{name}` holds {int(value)}, which is no residue modulo {k}, the divisor the check "
                        "read for it", f"take `{name}` modulo a literal or a module constant the kernel does not "
                        "bind again"), node)
                if name in prev:
                    delta = _step(value, prev[name], k)
                    uni.counter_steps.setdefault(var, set()).add(delta)
                    if delta == 0:
                        uni.stalled.add(var)
                    if prev.setdefault(("delta", name), delta) != delta:
                        if name.startswith("_pl_task_id"):
                            # the generated kernel's own task counter, moved by the tasks of the pipeline
                            # loop in it: a count the author sets anew in each of its iterations (probe h121)
                            refusal = nonuniform(NonUniform(
                                "the pipeline loop runs different numbers of tasks in different iterations of the "
                                "loop around it: its trip count is computed anew in each, from values the check "
                                "cannot tell are the same (a read of GM, a pick or a test of the outer loop's "
                                "variable)", "compute the pipeline loop's trip count once, before the loop around "
                                "it, so that every iteration of that loop runs as many tasks"), node)
                            refusal.in_source = True
                            raise refusal
                        raise nonuniform(NonUniform(f"counter `{name}` steps by different amounts in different "
                                                     "iterations", f"step `{name}` by the same amount in every "
                                                     "iteration"), _binding_site(node, name))
                    stepped = uni.rot.core_steps.setdefault((key, var), {})
                    stepped[ctx.core] = delta
                    uni.rot.steps[(key, var)] = delta if len(set(stepped.values())) == 1 else None
                prev[name] = int(value)
                if k is not None:
                    uni.periods.add(k)
                    uni.period_source(k, functools.partial("counter `{}` modulo {}".format, name, k))
                    # a counter that only picks a tile group's slot (`renaming.index_counters`)
                    picks = self.periods_read and name in self._renaming().counters
                    (uni.rot.pick_residues if picks else uni.rot.residues).add((((var, 1),), k))
                if flip is not None:
                    _set_carried(ctx, name, Sym(a + span * value, ((var, span),), True, a, span * value)
                                 if span else a)
                else:
                    _set_carried(ctx, name, Sym(int(value), ((var, 1),), k is not None, 0, int(value)))
            elif name not in first() or not field and name in self._dead_names():
                continue  # read by nothing before the body binds it, or what it carries reaches nothing
                # but names like it (`deadnames`)
            elif _moving(value):
                self._moved(f"field `{name}`" if "." in name else f"`{name}`", _binding_site(node, name))
            elif (signature := _signature(value)) is not None:
                # a number, or a run-time value (`x = n_blocks`, doubled every iteration: its form
                # or origin changes); one the body binds before any read (`gain = 2.0 if i ==
                # core_id else 1.0`) holds at an iteration's start what no code of it reads
                words = f"field `{name}`" if "." in name else f"`{name}`"
                # a counter stepped in an inner loop of run-time count, which leaves it at a value no form
                # names (probe h239: told to be the counter `x = x + c` it was)
                fix = (f"count the iterations of the loop of run-time trip count inside this one with a counter set "
                       f"before that loop (`j = 0`), or compute the value from the loop variables: that loop leaves "
                       f"`{name}` at a value the check does not follow as a number") \
                    if name in counters and _left_by_a_loop(value.origin if isinstance(value, Opaque) else None) else ""
                self._settles(prev, name, signature, words, node, key, fix)
            elif isinstance(value, Sym) and value.residue:
                # a residue of the loop variable (`p = ki % 2`, read before the body binds it) repeats
                # with the period of the residues taken; one computed from itself too does not (`e = e
                # * 2 + ki % 1`: probe h156, a doubling value marked a residue)
                self._repeats(prev, name, int(value), f"`{name}`", _binding_site(node, name))
            elif not field and not _judged_elsewhere(value):
                # any other value (a function, a `pl` constant, an object): the same one at every
                # iteration's start, or refused, whatever its kind (probes h151..h154 carried values of
                # kinds a list of kinds left out)
                self._same_as_before(prev, ("kind", name), _kind_signature(value), f"`{name}`",
                                     _binding_site(node, name))
        arrays = bool(self.own_arrays)
        for name, value in ctx.env.items():
            kind = type(value)
            if kind not in (list, tuple, dict, str, range) and not isinstance(value, (FunctionV, StructV)):
                continue  # (the commonest values, numbers and tiles: nothing below judges them)
            if kind in (list, tuple, dict, str, range):
                # `seen.append(ki)`, `s = s + "x"`: a container the iterations change is a
                # counter in disguise (`len(seen) > 100` holds only past the runs made); one of
                # other items (`box.append(abs)`) by its shape at least (probe h151), a range by
                # its bounds (`r = range(len(r) * 2)`: probe h154)
                snapshot = _snapshot(value) if kind is range or _plain_container(value) else _shape(value)
                before = prev.get(("container", name), _NONE)
                if before is not _NONE and before != snapshot:
                    raise nonuniform(NonUniform(f"`{name}` changes from one iteration of the loop to the next: what "
                                                 "the kernel computes from it may change at a count the check does "
                                                 "not run", f"compute what `{name}` holds from the loop variable "
                                                 "(or a counter `x = x + c`) instead of keeping it across "
                                                 "iterations"), node)
                prev[("container", name)] = snapshot
            if isinstance(value, (FunctionV, StructV)) or kind in (list, tuple, dict):
                # (a list of structs is a plain container, and a struct's field may hold a function
                # whose defaults change: probe h167)
                # `def bump(box=[1])` in the kernel: its default is a list the calls keep changing (or a
                # struct, or a tuple holding a list: probe h108); a number in it, of a function the body
                # reads before it makes it anew (`def g(x=g() * 2)`: probe h154); wherever the function
                # is held, in a list or another function's default (`fns = [g]; del g`: probe h155)
                try:
                    defaults = list(_defaults_in(name, value, value if isinstance(value, FunctionV)
                                                 and name not in first() else None))
                except _TooDeep:
                    raise nonuniform(NonUniform(f"a function reached from `{name}` holds in its defaults functions, "
                                                f"containers or structs nested more than {_DEFAULTS_DEPTH} deep, "
                                                "deeper than the check compares them from one iteration to the next",
                                                "pass the function the value instead of keeping it in a default"),
                                     node) from None
                for path, param, snapshot in defaults:
                    before = prev.get(("default", path, param), _NONE)
                    if before is not _NONE and before != snapshot:
                        raise nonuniform(NonUniform(
                            f"the default of `{param}` of `{path}` changes from one iteration of the loop to the "
                            f"next", f"pass `{path}` a value the iteration computes instead of keeping it in a "
                            "default"), node)
                    prev[("default", path, param)] = snapshot
            # every `pl.struct` the kernel holds, also in a list, tuple, dict or another struct's field
            # (and the entries of its own struct arrays, in a serial kernel to transform)
            if not (isinstance(value, StructV) or kind in (list, tuple, dict)):
                continue  # (`_structs_in` finds nothing in it)
            if isinstance(value, StructV) and self._bound_first(node, ctx, name):
                continue  # (`st = pl.struct(g=0.5 * ki)` before any read: the struct before it is read by nothing)
            if isinstance(value, StructV) and self._unused_alias(node, name, value, env):
                continue  # (`cfg = st` that nothing reads: the struct is judged under `st`, probe h109)
            for path, struct in _structs_in(name, value, arrays):
                if struct is None:
                    raise nonuniform(NonUniform(f"`{path}` holds a struct more containers deep than the check "
                                                "follows (four)", f"keep the struct in a name of its own, not in "
                                                f"`{name}`"), node)
                # the fields it has: one the body adds at every iteration (`st.b2 = 1` once `st.b1` is
                # there, then `st.b3`, ...) is a counter in disguise, read by `getattr(st, "b12", 0)`
                # from an iteration past the runs made (probe h160); added in the first alone, the first
                # iteration is an edge, as a flag's is
                self._same_fields(prev, path, struct, node, key)
                # a hand-written ring's entries carry each beat's values to a later beat by design
                # (`now.row = t * TILE`): of them, only plain numbers kept across beats are judged
                beats = struct.origin == "ctx" and self.own_arrays == "numbers"
                for f, v in struct.fields.items():
                    if isinstance(v, Sym) and v.residue:
                        # (made a residue by a helper the struct is handed: probe h159; in a hand-written
                        # ring's entry too, `ring[0].e = ring[0].e * 3 // 2 + t % 1`: probe h164)
                        self._repeats(prev, f"{path}.{f}", int(v), f"field `{path}.{f}`", node)
                        continue
                    # (a field moving with the loops around this one alone, `cnt.q` of an outer counter
                    # that this loop only reads, is a number of this loop's starts as any other: probe h206)
                    signature = None if _moving(v) and not _moves_outside(v, key, counters, uni) \
                        else _signature(v) if _signature(v) is not None \
                        else _any_snapshot(v, residues=False)  # (a list kept in a field: probe h157)
                    if signature is not None and path == name and f in self._fields_bound_first(node, ctx, name):
                        continue  # (`st.g = 0.5 + 2.0 * (j % 2)` before any read: carries nothing, probe h101)
                    if signature is not None:
                        self._same_as_before(prev, ("field", path, f), signature, f"field `{path}.{f}`", node,
                                             f"step it in the loop body, outside the stages, as a counter "
                                             f"(`{path}.{f} = {path}.{f} + 1`) or a residue of one, or compute it "
                                             "from the loop variable")
                    elif not beats and path == name and _moving(v) and f"{name}.{f}" not in counters \
                            and f"{name}.{f}" in first() and (id(struct), f) not in counted(env, counters):
                        self._moved(f"field `{name}.{f}`", node)
                    elif struct.origin == "struct" and path != name and _moving(v):
                        # a struct reached through a container or another struct (`box[0].e`): which of
                        # its fields the body reads before it binds them is not read, so any that moves
                        # is carried (probe h175: `box[0].e0 = box[0].e0 + ki`, a sum of the loop variable
                        # whose `% 8` first gave 7 at the 49th iteration)
                        self._moved(f"field `{path}.{f}`", node)
                    elif struct.origin == "ctx" and _moving(v):
                        # a struct array's entry (a hand-written ring's, or the author's own) carries each
                        # beat's values by design (`now.row = t * TILE`, `arr[ki % 2].tag = ki * 2048`: the
                        # same form at every start); one computed from what the entry held (`ring[0].e =
                        # ring[0].e + t`) changes its form from one start to the next (probe h175)
                        self._same_as_before(prev, ("form", path, f), v.form, f"field `{path}.{f}`", node,
                                             f"set `{path}.{f}` anew in every beat from the loop variable "
                                             "(`now.row = t * TILE`), not from what the entry held")
        self._same_aliasing(prev, env, first, node)

    def _same_aliasing(self, prev: dict, env: dict, first, node) -> None:
        """Which of the lists, dicts and structs the names read before the body binds them reach
        are one object is the same at every iteration's start: the values alone do not say it
        (probe h170: `L = [L[0], L[0]] + L[1:-1]` makes `L[40]` one with `L[0]` from the 40th
        iteration on, and a write through one is then read through the other; so for structs in
        a list, and names that alias one another)."""
        if not any(type(v) in _REACHING or isinstance(v, (StructV, FunctionV)) for v in env.values()):
            if prev.get(("aliasing",), ()) != ():
                prev[("aliasing",)] = ()  # (no container left: nothing can alias, judged below when one comes)
            return
        try:
            # (no two paths from any name reach one object, the commonest case: none from those read first,
            # which it costs a read of the loop's body to know)
            found = _aliasing(env, list(env))
            if found:
                found = _aliasing(env, [n for n in env if n in first()])
        except _TooDeep:
            raise nonuniform(NonUniform("the lists, dicts or structs the loop keeps nest more than "
                                        f"{_ALIAS_DEPTH} deep, deeper than the check compares which of them are "
                                        "one object from one iteration to the next",
                                        "keep what the iterations share in names of their own"), node) from None
        before = prev.get(("aliasing",), _NONE)
        if before is not _NONE and before != found:
            changed = min(set(found) ^ set(before))
            raise nonuniform(NonUniform(
                f"whether `{changed[0]}` and `{changed[1]}` are one object changes from one iteration of the loop to "
                "the next: a write through one is read through the other from an iteration the check may not run",
                "build what the iterations share anew in each iteration, or keep its parts in names of their own"),
                node)
        prev[("aliasing",)] = found

    def _same_fields(self, prev: dict, path: str, struct: StructV, node, key: tuple) -> None:
        """The fields `struct` (held at `path`) has are the ones it had at the previous
        iteration's start, but at the second start, where added fields make the first iteration
        an edge (`Uniform.edged`), as a flag does (`_settles`)."""
        names = tuple(sorted(struct.fields))
        starts = prev.get(("field starts", path), 0)
        prev[("field starts", path)] = starts + 1
        before = prev.get(("field names", path), names)
        if before != names and starts == 1:
            self.uniform._edge(self.uniform.loops.get(key), True)
        elif before != names:
            changed = ", ".join(f"`{f}`" for f in sorted(set(names) ^ set(before)))
            raise nonuniform(NonUniform(f"the fields `{path}` has change from one iteration of the loop to the next "
                                        f"({changed}): what the kernel reads of them may change at a count the check "
                                        "does not run",
                                        f"give `{path}` every field where it is made (`pl.struct(a=0, b=0)`)"), node)
        prev[("field names", path)] = names

    def _repeats(self, prev: dict, name: str, value: int, words: str, site) -> None:
        """A residue carried into an iteration (by a name or a struct field) must repeat with the
        period of the residues the loop takes: `value` at this iteration's start is what it was that
        period before."""
        history = prev.setdefault(("history", name), [])
        history.append(value)
        period = math.lcm(1, *(k for k in self.uniform.periods if isinstance(k, int) and 0 < k <= MAX_ITEMS))
        if len(history) > period and history[-1] != history[-1 - period]:
            raise nonuniform(NonUniform(
                f"{words} carries a value from one iteration to the next that does not repeat with the period of "
                f"the residues the loop takes ({period})",
                f"compute {words} from the loop variable (`ki % k`), not from what it held before"), site)

    def _dead_names(self) -> frozenset:
        """`dead_names` of the function running now, once per function."""
        fn = self._frames[-1] if self._frames else self.fn
        key = ("dead names", id(fn))
        hit = self._read_firsts.get(key)
        if hit is None or hit[0] is not fn:
            hit = self._read_firsts[key] = (fn, dead_names(expression_code(fn)))
        return hit[1]

    def _read_first_on(self, node: cst.For, ctx: Ctx) -> frozenset:
        """`read_first` of a loop's body on the kind of core `ctx` runs, once per loop and kind."""
        kind = "cube" if ctx.core == AIC else "vector"
        key = (id(node), kind, self._instance)
        hit = self._read_firsts.get(key)
        if hit is None or hit[0] is not node:
            env = ctx.env
            hit = self._read_firsts[key] = (node, read_first(
                node.body, kind, self._key_decider(), self._plain_helpers(ctx),
                lambda name: frozenset(env[name].fields) if isinstance(env.get(name), StructV) else frozenset()))
        return hit[1]

    def _key_decider(self) -> Decide:
        """The tests of the tiling-key instance proven, decided (`keytests`): of its fields that
        the kernel does not bind again."""
        bound = self._read_firsts.get(("bound names",))
        if bound is None:  # (every function's own names: a field one of them binds may not be the key's there)
            fns = [self.fn, *(f for f in self.file.functions_by_name.values() if isinstance(f, cst.FunctionDef))]
            bound = self._read_firsts[("bound names",)] = frozenset().union(*(local_names(self.file, f) for f in fns))
        return key_decider(runtypes.INSTANCE, lambda e: self.file.evaluator.try_eval(e, None),
                           lambda name: name in bound)

    def _unused_alias(self, node: cst.For, name: str, value: StructV, env: dict) -> bool:
        """Is `name` a second name of a struct another name of `env` holds, that neither the loop's
        body nor a function or lambda of the kernel names? The struct is judged under the other."""
        if not any(v is value for other, v in env.items() if other != name):
            return False
        key = ("alias", id(node), name)
        hit = self._read_firsts.get(key)
        if hit is None or hit[0] is not node:
            nested = [n for n in self.file.find(self.fn, (cst.FunctionDef, cst.Lambda)) if n is not self.fn]
            named = any(type(n) is cst.Name and n.value == name for block in (node.body, *nested)
                        for n in iter_nodes(block))
            hit = self._read_firsts[key] = (node, not named)
        return hit[1]

    def _fields_bound_first(self, node: cst.For, ctx: Ctx, name: str) -> frozenset:
        """`fields_bound_first` of the struct `name` in a loop's body on the kind of core `ctx` runs."""
        return self._walked("bound", fields_bound_first, node, ctx, name, helpers=True)

    def _plain_helpers(self, ctx: Ctx) -> dict:
        """The plain functions a call in the running code reaches by name: the file's (not a name
        the code binds itself) and those the kernel defines (probe h218: a `def` in the kernel handed
        the struct hid its reads of the fields as a module function did). What a call of one binds
        and reads first is read through it (`bound_through`)."""
        found = {n: fn for n, fn in self.file.helpers.items() if n not in ctx.env and type(fn) is cst.FunctionDef}
        found.update((n, v.node) for n, v in ctx.env.items()
                     if type(v) is FunctionV and v.kind == "helper" and type(v.node) is cst.FunctionDef)
        return found

    def _bound_first(self, node: cst.For, ctx: Ctx, name: str) -> bool:
        """`bound_first` of the name `name` in a loop's body on the kind of core `ctx` runs."""
        return self._walked("whole", bound_first, node, ctx, name)

    def _walked(self, tag: str, walk, node: cst.For, ctx: Ctx, name: str, helpers: bool = False) -> Any:
        """`walk(body, name, kind, builtins, decide)` of a loop's body, once per loop, kind of
        core, name and tiling-key instance (with `helpers`, the functions read through too:
        `_plain_helpers`)."""
        kind = "cube" if ctx.core == AIC else "vector"
        key = (tag, id(node), kind, name, self._instance)
        hit = self._read_firsts.get(key)
        if hit is None or hit[0] is not node:
            quiet = self._builtins(ctx) | self._quiet_roots(ctx)
            extra = {"helpers": self._plain_helpers(ctx)} if helpers else {}
            hit = self._read_firsts[key] = (node, walk(node.body, name, kind, quiet, self._key_decider(), **extra))
        return hit[1]

    def _quiet_roots(self, ctx: Ctx) -> frozenset:
        """The names the file binds to `pl` or what it holds, or to `math`, that the code running
        here does not bind again: a call through one (`pl.struct(...)`, `math.exp(i % 2)`) is a `pl`
        op or a function of numbers, which reads what it is given alone."""
        origins = self.file.names.origins
        return frozenset(n for n in (*self.file.pl.aliases, *(n for n, o in origins.items() if o in ("math", "cmath")))
                         if n not in ctx.env)

    def _builtins(self, ctx: Ctx) -> frozenset:
        """The builtins nothing rebinds: a call of one reads what it is given alone."""
        return frozenset(n for n in PURE_BUILTINS if n not in ctx.env and self.file.meaning(n) is None
                         and not changed_under(self.file.source.text, n))

    def _read_first_parts(self, node: cst.For, ctx: Ctx) -> tuple[tuple[str, str], ...]:
        """`_read_first_on` as (name, field) pairs (`x.f`: `("x", "f")`, `x`: `("x", "")`), split
        once per loop and kind (the entry holds the names it split, so it is theirs)."""
        names = self._read_first_on(node, ctx)
        key = ("parts", id(node), "cube" if ctx.core == AIC else "vector", self._instance)
        hit = self._read_firsts.get(key)
        if hit is None or hit[0] is not names:
            hit = self._read_firsts[key] = (names, tuple((base, attr) for base, _, attr in
                                                         (name.partition(".") for name in names)))
        return hit[1]

    @staticmethod
    def _plain_counter(name: str, value: Any, var: tuple, stepped: bool, node) -> None:
        """A counter carried across a loop of run-time trip count is followed as a number of its
        own stepping by a constant: one that starts at a value of the block (`t = core_id`) or
        steps by a value known only at run time (`t = t + (2 - num_cores)`, `t = t + d`) would
        be followed at this run's block and values only."""
        others = [v for v, _ in value.form if v != var] if isinstance(value, Sym) else []
        if stepped and others:
            raise nonuniform(NonUniform(f"counter `{name}` steps by a value known only at run time (the block, a "
                                         "parameter or a size)", f"step `{name}` by a constant, and scale it "
                                         "where it is used (`i = t * d`)"), _binding_site(node, name))
        own = f"`{node.target.value}`" if isinstance(node, cst.For) and type(node.target) is cst.Name \
            else "the loop's variable"
        if not stepped and any(is_block_value(v) or v[-1] == "blocks" for v in others):
            raise nonuniform(NonUniform(f"counter `{name}` starts at a value of the block", f"start `{name}` at a "
                                         "constant and add the block's part where it is used "
                                         f"(`i = core_id + t * num_cores`), or compute it from {own} in the loop"),
                             _binding_site(node, name))
        if not stepped and others:
            # followed as a number of its own, it forgets what it started from: `c % 7` of a
            # counter started at a parameter `d` takes the phase of this run's `d` only
            raise nonuniform(NonUniform(f"counter `{name}` starts at a value known only at run time (a parameter, "
                                         "a size or a value read from GM)", f"start `{name}` at a constant and add "
                                         "that value where it is used (`i = d + t`)"), node)

    def _carried_tiles(self, ctx: Ctx, node: cst.For, key: tuple) -> None:
        """The tiles an iteration may read before it binds them (`read_first`: bound before the
        loop, `bias0 = bias_db.current()`, or in an earlier iteration, `if ki == 0: bias0 = ...`):
        one fixed entry whatever phase a rotation over it is in, so entries it reaches are not
        interchangeable across this loop (`Rotations.carried`, `renamed.py`)."""
        rot = self.uniform.rot
        env = ctx.env
        for base, attr in self._read_first_parts(node, ctx):
            value = env.get(base)
            if attr and isinstance(value, StructV):
                value = value.fields.get(attr)
            if not (isinstance(value, (TileV, AnyTileV)) or type(value) in (list, tuple, dict)):
                continue  # (`_tiles_in` finds no tile in it)
            for tile in _tiles_in(value, self.sequences):
                rot.carried.setdefault((tile.memory, tile.lo, tile.hi), set()).add(key)

    def _last_steps(self, ctxs: list[Ctx], previous: list[dict], counters: dict) -> None:
        """What each counter stepped by over the loop's last iteration (`Uniform.counter_steps`)."""
        for ctx, prev in zip(ctxs, previous, strict=True):
            for name, k in counters.items():
                value = _carried_value(ctx, name)
                if name in prev and isinstance(value, int) and not isinstance(value, bool):
                    if isinstance(k, Flip):
                        value, k = _phase(int(value), prev[("flip", name)], k), 2
                        if value is None:
                            continue  # not one of its two values: the next iteration's start says so
                    self.uniform.counter_steps.setdefault(("carried", name), set()).add(_step(value, prev[name], k))

    def _counters_after(self, ctxs: list[Ctx], previous: list[dict], counters: dict, root: tuple, zero: int,
                        trips: int, node: cst.For) -> None:
        """Each counter as the loop leaves it, a value of its trip count: `start + step * T`
        with `T = root - zero` (`% k` of it for `x = (x + c) % k`, `a` or `b` by `T % 2` for a
        flip). Left a value of its own variable, it read as periodic after the loop, and `q % 16
        == 15` of `q` counting a loop over `n` passed for a residue of a loop variable: the
        counts were not run past the bound in each residue class of `n` (probe h84). A counter a
        loop around this one carries too stays its counter, and so do the generated kernel's own
        (`_pl_...`: its drain picks event ids by them, which `renaming.py` certifies; the
        reserved-name rule keeps the prefix out of the author's code)."""
        around = self._carried_around()
        for ctx, prev in zip(ctxs, previous, strict=True):
            for name, k in counters.items():
                if name in around or name.startswith("_pl_"):
                    continue
                value = _carried_value(ctx, name)
                start = prev.get(("start", name))
                if type(start) is Sym and not start.form and not start.residue:
                    start = int(start)  # `q = 0 * d` (probe h85): the number it is
                if not isinstance(value, Sym) or not any(v == ("carried", name) for v, _ in value.form) \
                        or type(start) is not int:
                    continue  # a counter from a run-time start keeps its own variable
                if isinstance(k, Flip):
                    a = prev[("flip", name)]
                    count = Sym(trips, ((root, 1),), False, -zero)
                    parity = self._binop(cst.Modulo, count, 2, node)
                    after = self._binop(cst.Add, a, self._binop(cst.Multiply, k.other(a) - a, parity, node), node)
                else:
                    delta = prev.get(("delta", name), _step(value, start, k))
                    if not delta:  # it never moved (one iteration, not bumped in it): no value of the count
                        continue
                    plain = Sym(start + delta * trips, ((root, delta),), False, start - delta * zero)
                    after = plain if k is None else self._binop(cst.Modulo, plain, k, node)
                if int(after) != int(value):
                    # not what the run left: a step not the same in every iteration (refused there for a
                    # plain counter), a flip made twice or skipped once (probe h85); `_values_after`
                    # makes it a run-time value of its own
                    continue
                _set_carried(ctx, name, after)
                self.counters_left.append(after)

    def _carried_around(self) -> set:
        """The names the loops around the running one carry across their iterations."""
        facts = self.uniform.rot.loop_facts
        return {name for loop in self.uniform.active[:-1] for name in facts.get(loop.key, (None, frozenset()))[1]}

    def _values_after(self, ctxs: list[Ctx], key: tuple, carried: dict, root: tuple | None, loop: Loop,
                      r: range, node: cst.For) -> None:
        """What else a loop of run-time trip count leaves behind: its variable at the last
        iteration, names the body computed from it (`q = k`), counters `_counters_after` did not
        rebind (a run-time start, a per-core range). Left as values of the variable, they read as
        periodic after the loop, and `q % 16 == 14` of `q == n - 1` passed for a residue of a loop
        variable, not of the count, whose classes the counts were then not run past the bound for
        (probe h85). Rebound as values of the count where they are affine in the variable alone
        and the loop counts by 1 from a static start (`k = start + T - 1`); else as a run-time
        value of their own, which the check follows as a value read from GM. What the names hold
        is rebound wherever it is (`_left_within`: a tuple, a struct, a `pl.struct_array` entry, a
        function's defaults, probes h86 and h87); the generated kernel's own `_pl_` names, its ctx
        ring among them, are left as they are: its drain runs the last tasks with their values."""
        around = self._carried_around()
        stale = {key} | {("carried", name) for name in carried if name not in around and not name.startswith("_pl_")}
        self.loops_left += 1
        exit_mark = self.loops_left
        start = loop.start
        last = None
        if root is not None and loop.step == 1 and loop.zero is not None and loop.chunk is None \
                and all(not form for form, _ in loop.starts):
            # the variable's last value `start + T - 1`, with the root `zero + T`
            last = Sym(r[-1], ((root, 1),), False, start - loop.zero - 1)
        memo: dict[int, Any] = {}

        def left(value: Any, path: str) -> Any:
            if type(value) is not Sym or not any(var in stale for var, _ in value.form):
                return value
            hit = memo.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
            form = dict(value.form)
            a = form.get(key, 0)
            if last is not None and not value.residue and not (set(form) - {key}) & stale:
                # `value - a * k + a * last`, named as arithmetic names it
                var = Sym(r[-1], ((key, 1),), moving=r[-1])
                rest = self._binop(cst.Subtract, value, self._binop(cst.Multiply, a, var, node), node)
                after = self._binop(cst.Add, rest, self._binop(cst.Multiply, a, last, node), node)
            else:
                after = Opaque(("left", path, exit_mark))
            memo[id(value)] = (value, after)
            return after

        seen: dict[int, Any] = {}
        envs = {id(env): env for env in (*(ctx.env for ctx in ctxs), *self._frame_envs,
                                         *(ctx.env for ctx in self._kernel_ctxs))}
        for env in envs.values():  # this frame's and its callers' (a struct a caller holds, probe h87)
            for name, value in list(env.items()):
                if not name.startswith("_pl_"):
                    env[name] = _left_within(value, name, left, seen)

    def _read_first(self, node: cst.For) -> frozenset:
        """`read_first` of a loop's body, once per loop."""
        hit = self._read_firsts.get(id(node))
        if hit is None or hit[0] is not node:
            hit = self._read_firsts[id(node)] = (node, read_first(node.body))
        return hit[1]

    @staticmethod
    def _moved(words: str, node) -> None:
        """A value computed from a loop variable or counter, carried into a later iteration
        (`prev = qi`): the first iterations see what it held before the loop, as many as it is
        carried through, a boundary zone the counts the check runs need not hold."""
        raise nonuniform(NonUniform(f"{words} carries a value computed from a loop variable or counter from one "
                                     "iteration to the next",
                                     "pass the value on within the iteration, or keep it in a counter "
                                     "(`x = x + c`)"), node)

    def _settles(self, prev: dict, name: str, value: Any, words: str, node, key: tuple, fix: str = "") -> None:
        """A name the body reads before it binds it holds the same at every iteration's start
        but the first: a flag (`first = True` before the loop, `first = False` in it) singles
        out the first iteration as `ki == 0` does, and is remembered as such a test is (the
        loop's root joins `Uniform.edged`: its first iteration differs from the others)."""
        starts = prev.get(("starts", name), 0)
        prev[("starts", name)] = starts + 1
        if starts == 1 and name in prev and prev[name] != value and name in self._flags_of(node):
            self.uniform._edge(self.uniform.loops.get(key), True)
            prev[name] = value
            return
        self._same_as_before(prev, name, value, words, _binding_site(node, name), fix)

    def _flags_of(self, node: cst.For) -> frozenset:
        """`_flag_literals` of a loop, read with its carried names (`_carried_names`)."""
        self._carried_names(node)
        return self._carried[id(node)][3]

    @staticmethod
    def _same_as_before(prev: dict, key: Any, value: float, words: str, node, fix: str = "") -> None:
        before = prev.get(key, value)
        if not _same_number(before, value):
            if type(value) is float and type(before) is float:
                # `g = g + 0.25`: a counter is an integer the check follows by its step
                fix = "count the iterations with an integer (`j = j + 1`) and compute the float from it " \
                      "(`g = g0 + 0.25 * j`), or from the loop variable"
            raise nonuniform(NonUniform(f"{words} carries a value from one iteration to the next",
                                         fix or "make it a counter (`x = x + c`) or a residue of one "
                                         "(`x = (x + c) % k`), or compute it from the loop variable"), node)
        prev[key] = value

    def _loop_body(self, node, ctxs) -> bool:
        """Run one iteration; True when it broke out of the loop."""
        try:
            self.exec_block(node.body.body, ctxs)
        except LoopBreak:
            return True
        except LoopContinue:
            pass
        return False

    def exec_while(self, node: cst.While, ctxs: list[Ctx]) -> None:
        while True:
            tests = {self.truth(self.eval(node.test, ctx), node.test) for ctx in ctxs}
            if tests != {True} and tests != {False}:
                raise CannotModel("the condition of this `while` loop is not static", node.test)
            if tests == {False}:
                if node.orelse is not None:  # the loop ended without `break`: its `else` runs
                    self.exec_block(node.orelse.body.body, ctxs)
                break
            if self._loop_body(node, ctxs):
                break


def _flag_literals(node: cst.For, bindings: Counter[str]) -> frozenset:
    """The names a loop's body binds once (`bindings`: how many places bind each), by a
    statement of its own block (`first = False`, not under a test) to a literal, in a body with
    no `continue` of this loop: from its second iteration on, every iteration starts with that
    literal in the name, however many run."""
    body = node.body
    if not isinstance(body, cst.IndentedBlock) or _continues(body):
        return frozenset()
    return frozenset(small.targets[0].target.value for stmt in body.body if type(stmt) is cst.SimpleStatementLine
                     for small in stmt.body
                     if type(small) is cst.Assign and len(small.targets) == 1
                     and type(small.targets[0].target) is cst.Name and _literal(small.value)
                     and bindings[small.targets[0].target.value] == 1)


def _literal(node) -> bool:
    """A number, `True`, `False` or `None` as written (`-1` too)."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    return type(node) in (cst.Integer, cst.Float) or type(node) is cst.Name and node.value in ("True", "False", "None")


def _continues(body) -> bool:
    """Does a `continue` of the loop whose body this is stand in it (not in a nested loop's)?"""
    stack = list(body.body)
    while stack:
        node = stack.pop()
        if type(node) is cst.Continue:
            return True
        if type(node) in (cst.For, cst.While):
            stack.extend(node.orelse.body.body if node.orelse is not None and isinstance(node.orelse.body,
                                                                                          cst.IndentedBlock) else [])
            continue  # its own `continue`s
        if type(node) in (cst.FunctionDef, cst.ClassDef):
            continue
        stack.extend(children(node))
    return False


def _binding_site(loop: cst.For, name: str) -> cst.CSTNode:
    """The first statement of `loop`'s body that binds `name` (`x`, or a field `st.n`), where a
    refusal of what it carries points (study ux2: the caret was on the `for`); the loop itself when
    none is found."""
    holder, _, field = name.partition(".")
    for small in _small_statements(loop.body):
        targets = [t.target for t in small.targets] if type(small) is cst.Assign else \
            [small.target] if type(small) in (cst.AugAssign, cst.AnnAssign) else []
        for t in targets:
            if field and type(t) is cst.Attribute and type(t.value) is cst.Name and t.value.value == holder \
                    and t.attr.value == field or not field and name in _target_names(t):
                return small
    return loop


def _small_statements(block) -> list:
    """The small statements of a block and of every block nested in it (not in nested
    function or class definitions)."""
    out: list = []
    stack = [block]
    while stack:
        node = stack.pop()
        if type(node) is cst.SimpleStatementLine:
            out.extend(node.body)
        elif type(node) in (cst.FunctionDef, cst.ClassDef):
            continue
        elif type(node) is cst.IndentedBlock:
            stack.extend(node.body)
        elif type(node) is cst.SimpleStatementSuite:  # a one-line body: `if t: x = x * 2`
            out.extend(node.body)
        elif type(node) in (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.Else, cst.Finally, cst.ExceptHandler):
            stack.extend(children(node))
    return out


def _carrier(node) -> str | None:
    """What a counter may be kept in: a name (`tick`), or a field of a struct a name holds
    (`st.n`, named so)."""
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute and type(node.value) is cst.Name:
        return f"{node.value.value}.{node.attr.value}"
    return None


def _left_within(value: Any, path: str, left, seen: dict) -> Any:
    """`value` with `left` of every number it holds, at any depth: in place in what can change
    (lists, dicts, struct fields, a function's defaults), rebuilt where it cannot (tuples, tiles,
    tile types)."""
    kind = type(value)
    if kind is Sym:
        return left(value, path)
    if kind in (int, float, bool, str) or value is None:
        return value
    hit = seen.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    seen[id(value)] = (value, value)  # (a cycle through mutable containers stops here)
    out = value
    if kind is tuple:
        items = tuple(_left_within(v, f"{path}[{i}]", left, seen) for i, v in enumerate(value))
        out = items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    elif kind is list:
        value[:] = [_left_within(v, f"{path}[{i}]", left, seen) for i, v in enumerate(value)]
    elif isinstance(value, dict):
        for k, v in list(value.items()):
            value[k] = _left_within(v, f"{path}[{k!r}]", left, seen)
    elif kind is StructV:
        for f, v in list(value.fields.items()):
            value.fields[f] = _left_within(v, f"{path}.{f}", left, seen)
    elif kind is FunctionV:
        if value.defaults:
            for f, v in list(value.defaults.items()):
                value.defaults[f] = _left_within(v, f"{path}({f}=)", left, seen)
    elif kind in (TileV, TileTypeV, AnyTileV):
        changes = {f.name: _left_within(getattr(value, f.name), f"{path}.{f.name}", left, seen)
                   for f in fields(value)}
        if any(changes[k] is not getattr(value, k) for k in changes):
            out = replace(value, **changes)
    seen[id(value)] = (value, out)
    return out


def _carried_value(ctx: Ctx, name: str) -> Any:
    holder, _, field = name.partition(".")
    value = ctx.env.get(holder)
    if not field:
        return value
    return value.fields.get(field) if isinstance(value, StructV) and value.origin == "struct" else None


def _set_carried(ctx: Ctx, name: str, value: Any) -> None:
    holder, _, field = name.partition(".")
    if field:
        ctx.env[holder].fields[field] = value
    else:
        ctx.env[name] = value


def _root_name(func) -> str | None:
    """`f` of a call of `f`, `pl` of one of `pl.system.sync_all`; None for any other callee
    (`fns[0]`, `make()`)."""
    while type(func) is cst.Attribute:
        func = func.value
    return func.value if type(func) is cst.Name else None


def _target_reads(target) -> set[str]:
    """The names and fields an assignment's target reads: a subscript's object and index, the
    struct of a field (`st.g`: `st`, not the field it binds), each in a tuple or list of targets
    too (`_, tmp[(f := e * 2) * 0] = 0, 0`: probe h150)."""
    if type(target) is cst.Name:
        return set()
    if type(target) in (cst.Tuple, cst.List):
        return set().union(*(_target_reads(e.value) for e in target.elements))
    return _loads(target) - {_carrier(target)}


def _target_names(target) -> list[str]:
    if type(target) is cst.Name:
        return [target.value]
    if type(target) in (cst.Tuple, cst.List):
        return [n for e in target.elements for n in _target_names(e.value)]
    return []


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


def _moving(value) -> bool:
    """A `Sym` that moves with a loop variable or counter (not a residue: periodic, in the period)."""
    return isinstance(value, Sym) and not value.residue and any(var[0] in INDEX for var, _ in value.form)


def _moves_outside(value: Sym, key: tuple, counters: dict, uni) -> bool:
    """Does a moving value move only with the loops around the loop `key` (their variables, or
    counters that are not this loop's), so that no iteration of this loop moves it?"""
    around = {loop.key for loop in uni.active if loop.key != key}
    return all(var in around or var[0] == "carried" and var[1] not in counters
               for var, _ in value.form if var[0] in INDEX)


def _structs_in(path: str, value: Any, arrays: bool) -> list[tuple[str, StructV | None]]:
    """(path, struct) of every `pl.struct` a value holds: itself, the items of a list, tuple or
    dict, a struct's fields (`box[0]`, `st.inner`); with `arrays`, the entries of a struct array.
    (path, None) where a container goes deeper than the check follows."""
    found: list[tuple[str, StructV | None]] = []
    _collect_structs(path, value, arrays, 0, found)
    return found


def _collect_structs(path: str, value: Any, arrays: bool, depth: int, found: list) -> None:
    """`_structs_in`, in order, into `found`; an item that is neither a struct nor a container
    holds none, and is passed over without naming its path."""
    if depth > 4:
        found.append((path, None))  # (deeper than the check follows: refused by `_carry`, probe h111)
        return
    if isinstance(value, StructV):
        if value.origin == "struct" or arrays and value.origin == "ctx":
            found.append((path, value))
            for f, v in value.fields.items():
                if isinstance(v, StructV) or type(v) in (list, tuple, dict):
                    _collect_structs(f"{path}.{f}", v, arrays, depth + 1, found)
    elif type(value) in (list, tuple):
        for i, v in enumerate(value):
            if isinstance(v, StructV) or type(v) in (list, tuple, dict):
                _collect_structs(f"{path}[{i}]", v, arrays, depth + 1, found)
    elif type(value) is dict:
        for k, v in value.items():
            if isinstance(v, StructV) or type(v) in (list, tuple, dict):
                _collect_structs(f"{path}[{k!r}]", v, arrays, depth + 1, found)


def _tiles_in(value: Any, certified: dict) -> list:
    """The tiles a value holds: a tile, any of a tile's choices, the tiles in a list, tuple or dict
    (`holder[0] = bias_db.current()`), but for a certified sequence (`certified`, by id: a tuple
    of tiles its picks choose from, `seq[q_count % 3]`, where a pick by a constant, `seq[0]`, is
    recorded as a pick by anything as it is made)."""
    if isinstance(value, TileV):
        return [value]
    if isinstance(value, AnyTileV):
        return list(value.choices)
    if type(value) in (list, tuple) and id(value) not in certified:
        return [t for v in value for t in _tiles_in(v, certified)]
    if type(value) is dict:
        return [t for v in value.values() for t in _tiles_in(v, certified)]
    return []


def read_first(block, core: str = "", decide: Decide = undecided, helpers: dict | None = None,
               fields_of: Callable[[str], frozenset] | None = None) -> frozenset:
    """The names (and `x.f` fields) a block may read before it binds them, in program order:
    what an iteration may take from the one before. A binding under a branch or in a nested
    loop counts only within it (a superset of what is carried, on the safe side), but for one
    that every branch of an `if` with an `else` makes (`if KEY == 0: x = a` / `else: x = b`):
    whichever runs, the name is bound after it. With `core` ("cube" or "vector"), on a core of
    that kind: a section of its own kind runs in line (`cur_q_slot = q_l1_db.next()` in a cube
    section binds it for the cube stages after it), a section of the other kind not at all. A
    test `decide` settles (a tiling-key field's, `keytests`) runs its branch alone, in line."""
    reads = _FirstReads(core, decide, helpers, fields_of)
    reads.visit(_statements(block), set())
    return frozenset(reads.found)


def counted(env: dict, counters: dict) -> set:
    """(id of a struct, field) for each struct field a counter steps (`cnt.n = cnt.n + 1`), so
    that the struct under another name (`view = cnt`) is the same counter, not a field it carries."""
    out = set()
    for name in counters:
        holder, dot, field_name = name.partition(".")
        if dot and isinstance(env.get(holder), StructV):
            out.add((id(env[holder]), field_name))
    return out


def bound_first(block, name: str, core: str, builtins: frozenset = frozenset(), decide: Decide = undecided) -> bool:
    """Does every iteration of a loop over `block` bind `name` itself (`st = pl.struct(g=...)`, a
    statement of its own, on a core of kind `core`) before anything may read it: the name or a
    field of it read, or a function called by a plain name (which may read it where the body does
    not name it, as `fields_bound_first` takes it)? Then what `name` held at an iteration's start,
    the struct of the iteration before, is read by nothing (probe h108)."""
    return _first_binding(block, name, core, builtins, True, decide) is True


def fields_bound_first(block, name: str, core: str, builtins: frozenset = frozenset(),
                       decide: Decide = undecided, helpers: dict | None = None) -> frozenset:
    """The fields `f` of the struct `name` that every iteration of a loop over `block` binds
    (`name.f = ...`, a statement of its own, on a core of kind `core`) before anything may read
    them: the field read, or the whole struct (handed to a stage or a helper, aliased) while the
    field is unbound. What such a field held at an iteration's start is read by nothing, so it
    carries nothing from one iteration to the next. Anything under a branch or a nested loop
    counts as a read only (on the safe side), but the branch of a test `decide` settles."""
    found = _first_binding(block, name, core, builtins, False, decide, helpers or {})
    return found if isinstance(found, frozenset) else frozenset()


def _first_binding(block, name: str, core: str, builtins: frozenset, whole: bool,
                   decide: Decide = undecided, helpers: dict | None = None) -> frozenset | bool:
    """`fields_bound_first`'s walk; with `whole`, True where `name` itself is bound first
    (`bound_first`), else the fields bound first."""
    walk = _FirstBinding(name, core, builtins, whole, decide, helpers or {})
    walk.visit(_statements(block))
    return "" in walk.bound if whole else frozenset(walk.bound)


def bound_through(call, name: str, core: str, builtins: frozenset, helpers: dict,
                  reads: Callable[[cst.CSTNode], bool]) -> tuple[frozenset, frozenset, bool] | None:
    """For `tile_params(st, ki)`, a call of a plain function of the file (`helpers`) handed the
    struct `name` as an argument: its body walked with its parameter for the struct, up to its
    first statement that may leave it (`return`, `raise`), as (the fields it binds before anything
    reads them, the fields it reads, whether the walk went through the whole body: False where a
    read ended it or a statement that may leave cut it, after which any field may be read). Probe h206: a
    helper setting the fields at the top of every iteration was refused where the same lines
    inlined were accepted. None for a call this does not read: another callee, the struct given
    twice or with a star, an argument that may read it (`reads`), a decorated function, a
    generator or coroutine, or one that may read a module-level `name` by that name."""
    if type(call) is not cst.Call or type(call.func) is not cst.Name:
        return None
    fn = helpers.get(call.func.value)
    if fn is None or fn.decorators or any(a.star for a in call.args):
        return None
    given = [a for a in call.args if type(a.value) is cst.Name and a.value.value == name]
    if len(given) != 1 or any(reads(a.value) for a in call.args if a is not given[0]):
        return None
    positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    by_name = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}  # (not positional-only)
    at = call.args.index(given[0])
    keyword = given[0].keyword.value if given[0].keyword is not None else None
    # a keyword fills the parameter of its name only where that one takes keywords: else it goes to
    # `**kw` (probe h216: `f(scratch, ki, p=st)` of `def f(p, /, ki, **kw)` sets `scratch`'s fields)
    param = (keyword if keyword in by_name else None) if keyword is not None else positional[at] \
        if at < len(positional) else None
    own = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)}
    if param is None or fn.asynchronous is not None or any(type(n) is cst.Yield for n in iter_nodes(fn)):
        return None  # (a generator's or coroutine's call runs none of its body)
    if name not in own and any(type(n) is cst.Name and n.value == name for n in iter_nodes(fn)):
        return None  # (a module-level struct the function may read by its name; a parameter of that name
        # is the function's own, probe h214)
    if name in own and name != param:
        return None  # (the function's parameter `name` is another value; its `param` is the struct)
    statements = list(_statements(fn.body))
    # the statements before the first that may leave (a `return`, or an `if` holding one) run at every
    # call; what follows runs at some calls, and may read any field (probe h218: a guard at the top
    # hid the rest of the body, whose reads of the fields went unseen)
    cut = next((i for i, stmt in enumerate(statements) if any(type(n) in _LEAVING for n in iter_nodes(stmt))),
               len(statements))
    inner = _FirstBinding(param, core, builtins, False, undecided)
    went_on = inner.visit(statements[:cut]) and cut == len(statements)
    return frozenset(inner.bound), frozenset(inner.read), went_on


def _may_read(name: str) -> Callable[[cst.CSTNode], bool]:
    """Whether an expression may read the struct `name`: it names it, or calls anything."""
    def reads(node: cst.CSTNode) -> bool:
        return any(type(n) is cst.Call or type(n) is cst.Name and n.value == name for n in iter_nodes(node))
    return reads


#: statements after which the rest of a function may not run
_LEAVING = (cst.Return, cst.Raise, cst.Yield, cst.Global, cst.Nonlocal)


class _FirstBinding:
    """`_first_binding`'s walk (methods, not nested functions calling themselves: a cycle the
    collector alone frees, holding `decide` and the interpreter behind it)."""

    def __init__(self, name: str, core: str, builtins: frozenset, whole: bool, decide: Decide,
                 helpers: dict | None = None) -> None:
        self.name, self.core, self.builtins, self.whole, self.decide = name, core, builtins, whole, decide
        self.helpers = helpers or {}
        self.bound: set[str] = set()
        self.read: set[str] = set()

    def helper_binds(self, small) -> bool | None:
        """`tile_params(st, ki)` on a line of its own: the fields the function binds first count
        as bound here (`bound_through`); True when the walk goes on through it, False when a read
        there ends it, None for any other statement."""
        if self.whole or type(small) is not cst.Expr:
            return None
        found = bound_through(small.value, self.name, self.core, self.builtins, self.helpers, self.reads)
        if found is None:
            return None
        bound, read, went_on = found
        self.bound.update(f for f in bound if f not in self.read)
        self.read |= read
        return went_on

    def reads(self, node) -> bool:
        """Note the fields `node` reads; True when it reads the whole struct, or calls anything but
        a builtin or a `pl` op (`builtins` holds the names of both), which may read it where `node`
        does not name it (`prev_g()` of a `def prev_g(s=st)`: probe h108; the same function called
        from a list, `fns[0]()`, or through an attribute: probe h150)."""
        name, builtins = self.name, self.builtins
        stack = [node]
        while stack:
            n = stack.pop()
            if type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value == name:
                self.read.add(n.attr.value)
                continue
            if type(n) is cst.Name and n.value == name or type(n) is cst.Call and _root_name(n.func) not in builtins:
                # (a builtin nothing rebinds, `float(j % 2)`, or a `pl` op, reads what it is given alone)
                return True
            stack.extend(children(n))
        return False

    def visit(self, statements) -> bool:
        """Walk `statements`; False once a read or the name's own binding ends the walk."""
        name = self.name
        for stmt in statements:
            kind = _section_kind(stmt) if type(stmt) is cst.With else None
            if kind is not None:
                if kind == self.core and not self.visit(_statements(stmt.body)):
                    return False
                continue
            taken = _taken(stmt, self.decide) if type(stmt) is cst.If else None
            if taken is not None:  # (the test a tiling-key instance settles: its branch runs in line)
                if self.reads(stmt.test) or not self.visit(taken):
                    return False
                continue
            if type(stmt) is not cst.SimpleStatementLine:
                if self.reads(stmt):
                    return False
                continue
            for small in stmt.body:
                through = self.helper_binds(small)
                if through is not None:
                    if not through:
                        return False
                    continue
                target = small.targets[0].target if type(small) is cst.Assign and len(small.targets) == 1 \
                    else small.target if type(small) is cst.AnnAssign and small.value is not None else None
                field = target.attr.value if type(target) is cst.Attribute and type(target.value) is cst.Name \
                    and target.value.value == name else None
                itself = self.whole and type(target) is cst.Name and target.value == name
                if self.reads(small.value if field is not None or itself else small):  # type: ignore[attr-defined]
                    return False
                if itself:  # (a field of the struct before it read first: `st = pl.struct(g=st.g + 0.5)`)
                    if not self.read:
                        self.bound.add("")
                    return False
                if field is not None and field not in self.read:
                    self.bound.add(field)
        return True


def _loads(node) -> set[str]:
    """The names (and fields) read under `node`."""
    return set(_walk_names(node))


class _FirstReads:
    """`read_first`'s walk: the names read before they are bound, gathered in `found`."""

    def __init__(self, core: str, decide: Decide = undecided, helpers: dict | None = None,
                 fields_of: Callable[[str], frozenset] | None = None) -> None:
        self.core = core
        self.decide = decide
        self.helpers = helpers or {}
        #: the fields of the struct a name holds where the loop runs (none for any other name)
        self.fields_of = fields_of or (lambda _name: frozenset())
        self.found: set[str] = set()

    def through_helper(self, small, written: set[str]) -> None:
        """A call of a plain function of the file handed a struct (`tile_params(st, ki)`): the
        fields it reads first are read here and those it binds first are bound after it, where
        its body is read through (`bound_through`); where it is not, or not to its end, every field
        not bound before may be read there (probe h218: a helper's reads of what the fields carried
        from the iteration before were not read at all)."""
        calls = [n for n in iter_nodes(small) if type(n) is cst.Call and type(n.func) is cst.Name
                 and n.func.value in self.helpers]
        for call in calls:
            for arg in call.args:
                name = arg.value.value if type(arg.value) is cst.Name else ""
                fields = self.fields_of(name) if name else frozenset()
                if not fields:
                    continue
                found = bound_through(call, name, self.core, frozenset(), self.helpers, _may_read(name)) \
                    if type(small) is cst.Expr and small.value is call else None
                bound, read, whole = found if found is not None else (frozenset(), frozenset(), False)
                taken = read - bound if whole else fields - bound
                self.found.update(f"{name}.{f}" for f in taken if f"{name}.{f}" not in written)
                written.update(f"{name}.{f}" for f in bound)

    def visit_if(self, stmt: cst.If, written: set[str]) -> set[str]:
        """Visit the branches of `stmt` (its test is read already); the names every branch binds."""
        bound: list[set[str]] = []
        node: cst.If = stmt
        while True:
            inside = set(written)
            self.visit(_statements(node.body), inside)
            bound.append(inside)
            if type(node.orelse) is cst.If:  # `elif`: its test is read where it stands
                self.found.update(n for n in _loads(node.orelse.test) if n not in written)
                node = node.orelse
                continue
            if type(node.orelse) is cst.Else:
                inside = set(written)
                self.visit(_statements(node.orelse.body), inside)
                return set.intersection(inside, *bound)
            return set()

    def visit(self, statements, written: set[str]) -> None:
        for stmt in statements:
            if type(stmt) is cst.FunctionDef:  # its defaults and decorators are read where it stands
                params = stmt.params
                for p in (*params.posonly_params, *params.params, *params.kwonly_params):
                    if p.default is not None:
                        self.found.update(n for n in _loads(p.default) if n not in written)
                for d in stmt.decorators:
                    self.found.update(n for n in _loads(d.decorator) if n not in written)
                written.add(stmt.name.value)
                continue
            if type(stmt) is cst.ClassDef:
                continue
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    targets: list = []
                    walrus: set[str] = set()  #: (`f(e := EV[t % 2])` binds `e` where it stands: probe h148)
                    if type(small) is cst.Assign:
                        targets = [t.target for t in small.targets]
                        reads, walrus = _header_names(small.value)
                    elif type(small) is cst.AnnAssign:  # (a bare `gain: float` binds nothing: probe h110)
                        bound = small.value is not None
                        targets, (reads, walrus) = ([small.target], _header_names(small.value)) if bound \
                            else ([], (set(), set()))
                    elif type(small) is cst.AugAssign:
                        targets, reads = [small.target], _loads(small.target) | _loads(small.value)
                    else:
                        reads, walrus = _header_names(small)
                    for t in targets:  # subscripts and the struct of a field are read, in a tuple too
                        reads |= _target_reads(t)
                    self.found.update(n for n in reads if n not in written)
                    written |= walrus
                    self.through_helper(small, written)
                    for t in targets:
                        written.update(_target_names(t))
                        if type(t) is cst.Attribute and _carrier(t) is not None:
                            written.add(_carrier(t))  # type: ignore[arg-type]
                continue
            kind = _section_kind(stmt) if self.core and type(stmt) is cst.With else None
            if kind is not None:
                if kind == self.core:
                    self.visit(_statements(stmt.body), written)
                continue
            for child in _headers(stmt):
                reads, walrus = _header_names(child)
                self.found.update(n for n in reads if n not in written)
                written |= walrus  # (`if (g := ...) > 10.0:` binds `g` where it stands: probe h110)
            # a subscript in a `for` or `with ... as` target reads its index (`for tmp[(g := e * 2) * 0] in`:
            # probe h153)
            targets = [stmt.target] if type(stmt) is cst.For else \
                [item.asname.name for item in stmt.items if item.asname is not None] if type(stmt) is cst.With else []
            for target in targets:
                self.found.update(n for n in _target_reads(target) if n not in written)
            inner = set(written)
            if type(stmt) is cst.If:
                taken = _taken(stmt, self.decide)
                if taken is not None:  # (the test a tiling-key instance settles: its branch runs in line)
                    self.visit(taken, written)
                    continue
                written |= self.visit_if(stmt, written)
                continue
            if type(stmt) is cst.For:  # its target is bound before its body runs
                self.visit(_statements(stmt.body), inner | set(_target_names(stmt.target)))
                if stmt.orelse is not None:
                    self.visit(_statements(stmt.orelse.body), set(inner))
                continue
            for block in _blocks(stmt):
                self.visit(_statements(block), set(inner))


def _section_kind(stmt: cst.With) -> str | None:
    """"cube" or "vector" for `with pl.section_cube():` / `with pl.section_vector():` (however
    `pl` is spelled: the names are the API's own), else None."""
    item = stmt.items[0].item if len(stmt.items) == 1 else None
    func = item.func if type(item) is cst.Call and not item.args else None
    name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
    return {"section_cube": "cube", "section_vector": "vector"}.get(name)


def _taken(stmt: cst.If, decide: Decide) -> list | None:
    """The statements that run of an `if` whose test `decide` settles (an `elif` as an `if` of
    its own), or None when it does not."""
    outcome = decide(stmt.test)
    if outcome is None:
        return None
    if outcome:
        return _statements(stmt.body)
    if type(stmt.orelse) is cst.If:
        return [stmt.orelse]
    return _statements(stmt.orelse.body) if type(stmt.orelse) is cst.Else else []


def _statements(block) -> list:
    """The statements of an indented block, or of a one-line suite (`if t: x = 1`) as one line."""
    if type(block) is cst.SimpleStatementSuite:
        return [cst.SimpleStatementLine(body=block.body)]
    return list(block.body)


def _walk_names(node):
    """Every name under `node`, and `x.f` for each field of a name."""
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Name:
            yield n.value
        elif type(n) is cst.Attribute and type(n.value) is cst.Name:
            yield f"{n.value.value}.{n.attr.value}"
            yield n.value.value
            continue
        stack.extend(_read_children(n))


def _header_names(node) -> tuple[set[str], set[str]]:
    """(the names and fields a compound statement's header reads, the names an assignment
    expression in it binds whenever it runs). A walrus under `and`/`or`, a conditional
    expression, a comprehension or a lambda, past the first link of a chained comparison or in an
    `assert` (its message runs when the test fails, neither under `python -O`) may not run: its
    name is read, not bound."""
    reads: set[str] = set()
    bound: set[str] = set()
    stack: list = [(node, True)]
    while stack:
        n, always = stack.pop()
        if type(n) is cst.NamedExpr and type(n.target) is cst.Name:
            (bound if always else reads).add(n.target.value)
            stack.append((n.value, always))
            continue
        if type(n) is cst.Name:
            reads.add(n.value)
            continue
        if type(n) is cst.Attribute and type(n.value) is cst.Name:
            reads.update((f"{n.value.value}.{n.attr.value}", n.value.value))
            continue
        if type(n) is cst.Comparison:  # `a < b < (e := 0)`: a chain stops at its first false link
            stack.extend([(n.left, always), *((t.comparator, always and i == 0) for i, t in
                                              enumerate(n.comparisons))])
            continue
        if type(n) is cst.Assert:  # its message runs only when the test fails (probe h149), and
            stack.extend([(n.test, False), *([(n.msg, False)] if n.msg is not None else [])])  # `-O` runs neither
            continue
        maybe = always and type(n) not in (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.ListComp, cst.SetComp,
                                           cst.DictComp, cst.GeneratorExp)
        stack.extend((c, maybe) for c in _read_children(n))
    return reads, bound - reads


def _read_children(node) -> list:
    """The children of `node` that may read a name: not a field's name (`g` of `cfgs[0].g`) nor a
    keyword's (`g` of `f(g=1)`), which read nothing of the local `g`."""
    if type(node) is cst.Attribute:
        return [node.value]
    if type(node) is cst.Arg:
        return [node.value]
    return children(node)


def _headers(stmt) -> list:
    """The expressions a compound statement evaluates where it stands (an `elif`'s test, where
    the branches before it end: `read_first`)."""
    if isinstance(stmt, (cst.If, cst.While)):
        return [stmt.test]
    if isinstance(stmt, cst.For):
        return [stmt.iter]
    if isinstance(stmt, cst.With):
        return [item.item for item in stmt.items]
    return []


def _blocks(stmt) -> list:
    """The indented blocks of a compound statement, its `elif`/`else` ones too."""
    out: list = []
    stack = [stmt]
    while stack:
        node = stack.pop()
        for child in children(node):
            if isinstance(child, (cst.IndentedBlock, cst.SimpleStatementSuite)):
                out.append(child)
            elif isinstance(child, (cst.If, cst.Else, cst.Finally, cst.ExceptHandler)):
                stack.append(child)
    return out


_NONE = object()
_PLAIN = (int, float, str, bool, type(None))
_HANDLES = (TensorV, TileV, AnyTileV, GroupV)
_PLAIN_OR_HANDLE = (*_PLAIN, *_HANDLES)


def _same_number(a: Any, b: Any) -> bool:
    """Is `b` what `a` was, as a kernel can tell values apart: NaN is NaN again (probe h105);
    1 is not 1.0, which `==` says it is (`(b * 10 ** 17 + 1) - b * 10 ** 17` tells them apart,
    probe h162); -0.0 is not 0.0 (`math.copysign(1, b)`, probe h164), nor -nan nan (h165)."""
    if type(a) is not type(b):
        return False
    if type(a) is float:  # (bit for bit: NaN is NaN again, a NaN's sign is its own, probe h165)
        return struct.pack("<d", a) == struct.pack("<d", b)
    return a == b


def _plain_container(value) -> bool:
    """A list, tuple, dict or string of numbers, strings, handles (a tensor, tile or group: in
    the snapshot as one mark, their places being the rotation rules' business) and such
    containers only."""
    if isinstance(value, str):
        return True
    items = list(value.items()) if isinstance(value, dict) else list(value)
    flat = [x for pair in items for x in pair] if isinstance(value, dict) else items
    # (a struct among them: a number beside it, or how many there are, may change, probe h111)
    return all(isinstance(x, (*_PLAIN_OR_HANDLE, StructV)) or type(x) in (list, tuple, dict) and _plain_container(x)
               for x in flat)


def _shape(value):
    """What can be compared of a container that holds more than `_plain_container` does: its
    kind, length and each item, nested containers alike: an item as `_any_snapshot` has it, or
    its kind where nothing more of it can be compared (a value not known)."""
    if type(value) in (list, tuple):
        return (type(value).__name__, tuple(_shape(x) for x in value))
    if isinstance(value, dict):
        return ("dict", tuple((_shape(k), _shape(v)) for k, v in value.items()))
    found = _any_snapshot(value)
    return type(value).__name__ if found is None else found


def _any_snapshot(value: Any, residues: bool = True, depth: int = 0) -> Any:
    """What an iteration's start must find again of a value of any kind (`_snapshot` of a
    container, a range, a number, a tensor; a function or any other object as `_kind_signature`
    has it), None for what rules of their own judge (tiles and groups, structs, values not known,
    residues): a struct's field, an item of a container (probe h157: a list in a field, a range in a
    list, compared by their kind alone)."""
    if type(value) in (list, tuple, dict):
        return _snapshot(value) if _plain_container(value) else _shape(value)
    if type(value) in (int, float, str, range, bool) or isinstance(value, TensorV):
        return _snapshot(value)
    if isinstance(value, Sym):
        # (an item's residue by its value: `box[1] = box[1] * 2 + ki % 1` beside a builtin, probe h158;
        # a name's or a field's is judged by the period it repeats with)
        return _snapshot(value) if residues or not value.residue else None
    if _judged_elsewhere(value):
        return None
    return _kind_signature(value, depth)


def _snapshot(value):
    """A copy of a plain container to compare with the next iteration's (numbers with their form)."""
    if type(value) is int:  # (the commonest item: no form)
        return (value, ())
    if type(value) is bool:  # (True is not 1, which `==` says it is: probe h162)
        return ("bool", value)
    if type(value) is float:  # (nor 1.0, probe h162; -0.0 is not 0.0, h164, nor -nan nan, h165: by its bits)
        return ("float", struct.pack("<d", value))
    if type(value) is range:
        return ("range", value.start, value.stop, value.step)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ("dict", tuple((_snapshot(k), _snapshot(v)) for k, v in value.items()))
    if type(value) in (list, tuple):
        return (type(value).__name__, tuple([_snapshot(x) for x in value]))
    if isinstance(value, TensorV):
        # what a kernel can read of it, its shape and element size (`ts = ts[1:] + ts[:1]` over
        # tensors of two shapes, `ts[0].shape[0]` tested: probe h156); which tensor an access reaches
        # is the accesses' business, as a tile's is (a ping-pong list of outputs is followed)
        # (a dimension known only at run time is read as such wherever it is tested, whichever tensor)
        return ("tensor", tuple(d if type(d) is int else "run time" for d in value.shape), value.elem)
    if isinstance(value, TileV):
        # what a kernel can read of it, its shape (`ts[0].shape[0] == 8` of a list of tiles of two shapes
        # that rotates: probe h182, as of tensors); where it lies is the rotation rules' business
        return ("tile", value.shape if value.desc else None)
    if isinstance(value, _HANDLES):
        return ("handle",)  # (`box = [w, 1]`: the number beside the tensor is what may change)
    if isinstance(value, StructV):
        return ("struct",)  # (its fields are judged as the struct's: `_structs_in`)
    return (value, getattr(value, "form", ()))


#: how deep `_defaults_in` follows functions and containers into one another
_DEFAULTS_DEPTH = 4
#: containers followed into by `_aliasing` (a tuple holds objects, and is none itself)
_REACHING = (list, dict, tuple)
#: how deep `_aliasing` follows containers, structs and defaults; an object deeper is refused
_ALIAS_DEPTH = 8


def _aliasing(env: dict, names: list[str]) -> tuple:
    """(path, first path) for each path from `names` (taken sorted) that reaches a list, dict or
    `pl.struct` an earlier path reached: which of them are one object (`L[1]` one with `L[0]`,
    `cfg` one with `st`), through items, fields and the defaults of functions. A ring entry (a
    struct array's) is the rotation rules' to judge, and is passed over."""
    seen: dict[int, str] = {}
    out: list[tuple[str, str]] = []
    for name in sorted(names):
        _alias_walk(name, env[name], 0, seen, out)
    return tuple(out)


def _alias_walk(path: str, value: Any, depth: int, seen: dict[int, str], out: list[tuple[str, str]]) -> None:
    """`_aliasing` from one value (a function of the module, not a closure: no reference cycle)."""
    kind = type(value)
    mutable = kind is list or kind is dict or isinstance(value, StructV) and value.origin == "struct"
    if not (mutable or kind is tuple or isinstance(value, FunctionV)):
        return
    if mutable:
        earlier = seen.get(id(value))
        if earlier is not None:
            out.append((path, earlier))
            return
        seen[id(value)] = path
    if depth >= _ALIAS_DEPTH:
        if mutable or (value.defaults if isinstance(value, FunctionV) else any(
                type(x) in _REACHING or isinstance(x, (StructV, FunctionV)) for x in value)):
            raise _TooDeep
        return
    if kind is list or kind is tuple:
        for i, item in enumerate(value):
            _alias_walk(f"{path}[{i}]", item, depth + 1, seen, out)
    elif kind is dict:
        for i, item in enumerate(value.values()):
            _alias_walk(f"{path}.values()[{i}]", item, depth + 1, seen, out)
    elif isinstance(value, StructV):
        for f in sorted(value.fields):
            _alias_walk(f"{path}.{f}", value.fields[f], depth + 1, seen, out)
    else:
        for param, default in (value.defaults or {}).items():
            _alias_walk(f"{path}.__defaults__[{param}]", default, depth + 1, seen, out)


def _defaults_in(path: str, value: Any, fresh: Any = None, depth: int = 0, seen: set | None = None):
    """(where, parameter, snapshot) of the default of every function reachable from `value`: the
    function itself, the items of a container, the defaults of a function, and so on down
    (`_DEFAULTS_DEPTH`). A default's snapshot is what an iteration's start must find again: a
    container's, a struct's fields, a number's signature, another function's own. `fresh`: a
    function the body makes anew before it reads it, whose numbers in defaults are its own
    iteration's (containers still are shared: `def bump(box=[1])`)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    if depth > _DEFAULTS_DEPTH:
        if _reaches_defaults(value, set()):
            raise _TooDeep  # (a growing default at the end of a chain of functions: probes h163, h167)
        return  # (structs this deep are `_structs_in`'s to refuse, in its own words)
    seen.add(id(value))
    if isinstance(value, FunctionV):
        for param, default in (value.defaults or {}).items():
            if isinstance(default, StructV) or type(default) in (list, dict, tuple):
                # (whole: a struct in a tuple default, or in a struct default's field, is reached by
                # nothing the name-held structs are judged by, `_structs_in`: probe h160)
                snapshot: Any = _held_by_default(default)
            elif value is fresh:
                snapshot = None
            else:
                snapshot = _signature(default) or _kind_signature(default)
            if snapshot is not None:
                yield path, param, snapshot
            yield from _defaults_in(f"{path}.{param}", default, fresh, depth + 1, seen)
    elif type(value) in (list, tuple):
        for i, item in enumerate(value):
            if _may_hold_defaults(item):
                yield from _defaults_in(f"{path}[{i}]", item, fresh, depth + 1, seen)
    elif type(value) is dict:
        for k, item in value.items():
            if _may_hold_defaults(item):
                yield from _defaults_in(f"{path}[{k!r}]", item, fresh, depth + 1, seen)
    elif isinstance(value, StructV):  # (a function held in a field alone: `st.fn = g; del g`, probe h158)
        for f, item in value.fields.items():
            if _may_hold_defaults(item):
                yield from _defaults_in(f"{path}.{f}", item, fresh, depth + 1, seen)


def _may_hold_defaults(value: Any) -> bool:
    """Is `value` one `_defaults_in` looks into (a function, container or struct)? Any other value
    (a number, a tile: most items of the containers a kernel holds) yields nothing at any depth."""
    return type(value) in (list, tuple, dict) or isinstance(value, (FunctionV, StructV))


class _TooDeep(Exception):
    """A default holds containers and structs more deeply nested than the check compares."""


def _held_by_default(value: Any, depth: int = 0) -> Any:
    """What an iteration's start must find again of a container or struct a function's default
    holds, all of it: structs by their fields and containers by their items, at any depth (a
    function within by `_kind_signature`, its own defaults walked by `_defaults_in`), a number
    with its form (a residue too: nothing else judges its period here)."""
    if depth > _DEFAULTS_DEPTH:
        raise _TooDeep
    if isinstance(value, StructV):
        return ("struct", tuple(sorted((f, _held_by_default(v, depth + 1)) for f, v in value.fields.items())))
    if type(value) in (list, tuple):
        return (type(value).__name__, tuple(_held_by_default(x, depth + 1) for x in value))
    if type(value) is dict:
        return ("dict", tuple((_held_by_default(k, depth + 1), _held_by_default(v, depth + 1))
                              for k, v in value.items()))
    if isinstance(value, FunctionV):
        return _kind_signature(value, depth)
    if isinstance(value, Sym) or type(value) in (int, float, bool):
        return _snapshot(value)  # (typed: 1.0 is not 1)
    found = _signature(value)
    if found is not None:
        return found
    if isinstance(value, Opaque):
        return ("data",)  # (compared with the serial kernel's where a stage receives it: `_signature`)
    found = _any_snapshot(value, depth=depth)
    return type(value).__name__ if found is None else found


def _reaches_defaults(value: Any, seen: set) -> bool:
    """Does `value` hold, at any depth, a function with defaults (what `_defaults_in` compares)?"""
    todo = [value]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, FunctionV):
            if item.defaults:
                return True
        elif type(item) in (list, tuple):
            todo.extend(item)
        elif type(item) is dict:
            todo.extend(item.values())
        elif isinstance(item, StructV):
            todo.extend(item.fields.values())
    return False


def _judged_elsewhere(value: Any) -> bool:
    """Is `value` one the rules of its own judge across iterations: a handle (the rotations), a
    struct (its fields), a container or range (their snapshots), a value not known (followed both
    ways where it is tested) or a residue (periodic)?"""
    return isinstance(value, (*_HANDLES, StructV, list, tuple, dict, str, range)) or is_unknown(value) \
        or isinstance(value, Sym) and value.residue


def _kind_signature(value: Any, depth: int = 0) -> Any:
    """What an iteration's start must find again in a name of any other kind: a function by its
    `def` and its defaults' values (`_any_snapshot`: a list default by its items, probe h158), a
    value by equality where it has one, else the object itself."""
    if isinstance(value, FunctionV):
        if depth > _DEFAULTS_DEPTH:
            if value.defaults:
                raise _TooDeep  # (its defaults would go uncompared: probe h167)
            return ("function", id(value.node))
        # a struct or container default whole (a struct default was its kind's name: probe h167)
        defaults = tuple(sorted((k, _held_by_default(v, depth + 1) if isinstance(v, StructV) or type(v) in (
            list, tuple, dict) else _any_snapshot(v, depth=depth + 1) or type(v).__name__)
            for k, v in (value.defaults or {}).items()))
        return ("function", id(value.node), defaults)
    try:
        hash(value)
    except TypeError:
        return ("object", type(value).__name__, id(value))
    return ("value", type(value).__name__, value)  # (typed: `True == 1`)


def _left_by_a_loop(origin: Any) -> bool:
    """Is a run-time value computed from what a loop of run-time trip count left a name at
    (`_values_after`: the origin `("left", name, mark)`)?"""
    if not isinstance(origin, tuple) or not origin:
        return False
    if origin[0] == "left":
        return True
    return origin[0] == "op" and any(_left_by_a_loop(part) for part in origin[2:])


def _signature(value: Any) -> Any:
    """What an iteration's start must find again in a name the body binds and may read first: a
    plain number, or a run-time value with what it is computed from (its form or origin); None
    for anything else (handles, containers: judged by the rules of their own)."""
    if isinstance(value, bool) or type(value) in (int, float):
        return value
    if type(value) is str:  # (a string field that grows: probe h111)
        return ("str", value)
    if isinstance(value, Sym):
        # (a residue is periodic: its phase is in the period)
        return None if value.residue else (int(value), value.form)
    if isinstance(value, Opaque) and not _data(value.origin):
        # (data, read from GM or set by a stage, is followed both ways wherever it is tested, and
        # what a stage receives of it is compared with the serial kernel's)
        return ("run time", value.origin)
    return None


def _data(origin: Any) -> bool:
    """Is a run-time value computed from data: a read (of GM or a tile), or a value a stage set
    that the check cannot compute (`st.scale = abs(alpha)`, named by the invocation)?"""
    return isinstance(origin, tuple) and bool(origin) and (origin[0] in ("read", "set by")
                                                           or any(_data(o) for o in origin))


def _module_constant(value: Any) -> str | None:
    """The module constant a trip count followed as a run-time size is computed from (`("const",
    name)` anywhere in its form), or None."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "const" and isinstance(value[1], str):
        return value[1]
    if not isinstance(value, (tuple, list, frozenset)):
        return None
    # (a derived value names what it is derived from in a set)
    parts = sorted(value, key=repr) if isinstance(value, frozenset) else value
    return next((found for part in parts if (found := _module_constant(part)) is not None), None)

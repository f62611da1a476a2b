"""The Python a kernel is written in, as the abstract interpreter runs it on every core.

Statements (a block, `if`, `with` sections, definitions; loops are `loops.py`), assignment,
expressions over the interpreter's values (names, attributes, operators, comparisons,
subscripts) and calls of the file's helpers, stages and Python builtins. Operators fold as the
constant folder folds them (`read.consteval`: `BINOPS`, `AUGMENTED`, `MAX_ITEMS`, `too_big`).
A call of `pl.*` goes to `plcalls.py`, a vector function's to `vfcalls.py`.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import cached_property, partial
from typing import Any, NamedTuple

import libcst as cst

from pto_api.names import CONSTANTS, ENUMS
from pto_api.scalars import INT_FIELD, storable
from pto_transpile.read.classnames import changed_under
from pto_transpile.read.compiletime import NOT_CONSTANT, class_constant, class_unchanged
from pto_transpile.read.consteval import (
    AUGMENTED,
    BINOPS,
    MATH,
    MAX_FOLD_BITS,
    MAX_ITEMS,
    Record,
    range_length,
    too_big,
)
from pto_transpile.read.effects import MUTATING_METHODS, PURE_BUILTINS
from pto_transpile.read.localnames import unbound_parameters
from pto_transpile.read.meaning import Class, Function, Unknown, Value, class_binds
from pto_transpile.read.modulenames import PLAIN_RESULT_BUILTINS
from pto_transpile.read.signature import binding_problem, keyword_parameters
from pto_transpile.read.unpacking import divmod_operations
from pto_transpile.read.walk import children, iter_nodes, names_stored, parameters
from pto_transpile.soundness import containers
from pto_transpile.soundness.deadfields import fields_set_first
from pto_transpile.soundness.events import AIC, CORES, Invocation
from pto_transpile.soundness.interpbase import InterpreterBase, import_const
from pto_transpile.soundness.loops import Loops, read_first
from pto_transpile.soundness.params import INT64, int_range
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
    GRID,
    INDEX,
    INDEX_TERM,
    NonUniform,
    block_only,
    is_block_value,
    marks_block_index,
    may_differ_between_blocks,
    on_grid,
    run_time_var,
    walks_grid,
)
from pto_transpile.soundness.values import (
    UNKNOWN,
    AnyTileV,
    Builtin,
    FunctionV,
    GroupV,
    OneBlock,
    Opaque,
    OriginSym,
    Rebound,
    StructV,
    Sym,
    Symbol,
    TensorV,
    TensorView,
    TileTypeV,
    TileV,
    Unkeyed,
    Unrun,
    evaluate_origin,
    float_valued,
    integer_valued,
    is_unknown,
    known,
    narrows,
    quotient_parameter,
    run_time,
    sampled_int,
    shifted,
    typed_number,
)

_NAME, _CALL, _LINE, _COMPARISON = cst.Name, cst.Call, cst.SimpleStatementLine, cst.Comparison
#: what `dict.get` gives for a name no frame binds (`PythonSubset.eval`)
_ABSENT = object()
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
    cst.In: lambda a, b: a in b, cst.NotIn: lambda a, b: a not in b,
    cst.Is: operator.is_, cst.IsNot: operator.is_not,
}
_BUILTINS = ("range", "len", "min", "max", "abs", "int", "float", "bool", "print", "isinstance", "divmod", "list",
             "dict", "tuple", "round", "pow", "sum")
#: builtins of numbers (`pow(a, b)`, `sum(xs)` of the numbers of one list or tuple) the check computes,
#: or names as the run-time values they are (`_numbers_of`)
_OF_NUMBERS: dict[str, Callable[..., Any]] = {"pow": pow, "sum": lambda *items: sum(items)}
#: The augmented assignments that change a list or dict in place (`containers.add_in_place`).
_IN_PLACE: dict[type, str] = {cst.AddAssign: "+=", cst.MultiplyAssign: "*=", cst.BitOrAssign: "|="}
#: Builtins that make a new container of what they are given (`_container`).
_CONTAINERS: dict[str, Callable[..., Any]] = {"list": list, "dict": dict, "tuple": tuple}
#: Builtins whose result is a number (or a range) computed from their arguments: over a
#: run-time value, a run-time value too (`int`, `min`, `max`, `abs` keep a parameter's form).
_NUMBER_OF = frozenset({"float", "bool", "len", "range", "min", "max", "abs", "round"})
#: those of `_NUMBER_OF` whose result of a trip count is a number like the count times a constant
_OF_A_COUNT = frozenset({"float", "min", "max", "abs"})
_PYTHON_BUILTINS: dict[str, Callable[..., Any]] = {"len": len, "min": min, "max": max, "abs": abs, "int": int,
                                                   "float": float, "bool": bool, "round": round}


#: builtins that go through what a range holds one by one, as a loop over it does
_ITERATING = frozenset({"range", "print", "isinstance", "enumerate", "zip", "reversed", "iter"})


def _leaves_block(block: cst.CSTNode) -> str | None:
    """`return`, `break` or `continue` that leaves `block` (not one of a loop or function inside
    it), as its keyword, or None."""
    stack: list[tuple[cst.CSTNode, bool]] = [(block, False)]  # (node, inside a loop of the block)
    while stack:
        node, looped = stack.pop()
        if type(node) is cst.Return:
            return "return"
        if type(node) in (cst.Break, cst.Continue) and not looped:
            return "break" if type(node) is cst.Break else "continue"
        if type(node) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            continue
        if isinstance(node, (cst.For, cst.While)):  # its body's `break` is its own; its `else:`'s is not (h153)
            stack.extend((child, child is node.body or looped) for child in node.children)
            continue
        stack.extend((child, looped) for child in node.children)
    return None


#: the name the generated kernel keeps a pipeline loop's end in, before the loop: `_pl_end_<var>`
_END = "_pl_end_"

#: comparisons of a `pl` constant with itself, and their outcome
_SAME_MEMBER = {cst.Equal: True, cst.Is: True, cst.NotEqual: False, cst.IsNot: False}

class PythonSubset(InterpreterBase):
    # statements ----------------------------------------------------------------------------
    def exec_block(self, stmts, ctxs: list[Ctx]) -> None:
        """Each statement on the cores still running (`ctxs` may empty as the block runs); a
        line of small statements in place, the commonest statement, without a call of its own."""
        statements = _STATEMENTS
        budget = self._budget
        for stmt in stmts:
            if not ctxs:
                continue
            self.steps += 1
            if self.steps > budget:
                raise self._too_long("the kernel runs too many statements to follow statically", stmt)
            kind = type(stmt)
            if kind is _LINE:
                self._simple_line(stmt, ctxs)
                continue
            method = statements.get(kind)
            if method is None:
                self._other_statement(stmt, ctxs)
            else:
                method(self, stmt, ctxs)

    def _other_statement(self, stmt: cst.CSTNode, ctxs: list[Ctx]) -> None:
        """A statement the table does not name: a small statement of a one-line suite, or one
        not modelled."""
        if isinstance(stmt, cst.BaseSmallStatement):
            # a statement of a one-line suite (`if t: x = 1`), whose body is its small statements
            self._simple_line(cst.SimpleStatementLine(body=[stmt]), ctxs)
            return
        raise CannotModel(f"`{type(stmt).__name__}` statements are not modelled", stmt)

    def _simple_line(self, stmt: cst.SimpleStatementLine, ctxs: list[Ctx]) -> None:
        smalls = _SMALL_STATEMENTS
        for small in stmt.body:
            if type(small) is cst.Expr:  # (`_expr`, the commonest with `_assign`, without its call)
                value = small.value
                for ctx in ctxs:
                    self.eval(value, ctx)
                continue
            method = smalls.get(type(small))
            if method is not None:  # pass, assert, import, global, nonlocal, del: nothing the check needs
                for ctx in ctxs:
                    method(self, small, ctx)

    def _expr(self, small: cst.Expr, ctx: Ctx) -> None:
        self.eval(small.value, ctx)

    def _assign(self, small: cst.Assign, ctx: Ctx) -> None:
        targets = small.targets
        source = small.value
        if type(source) is _CALL and len(targets) == 1 and type(targets[0].target) is _NAME:
            self.named = (source, targets[0].target.value)  # `s0 = pl.make_tile(...)`: messages say `s0`
        if len(targets) == 1 and type(targets[0].target) is _NAME and targets[0].target.value.startswith(_END):
            # the end of a pipeline loop the generated kernel keeps before it (a name of its own, PTO040):
            # a loop's bound, as in the serial kernel's loop header (`bound_arguments`)
            outer, self.bounding = self.bounding, True
            try:
                value = self.eval(source, ctx)
            finally:
                self.bounding = outer
        else:
            value = self.eval(source, ctx)
        for target in targets:
            bound = target.target
            if type(bound) is cst.Name and type(value) is not GroupV:  # (`assign` of a name, without its call)
                ctx.env[bound.value] = value
            else:
                # (of plain names only: the ring's `_pl_ctx_0.g = st.g`; anything else computed again
                # would run its calls twice, probe h194)
                mismatch = self._field_kind_apart(bound, source, ctx) \
                    if type(bound) is cst.Attribute and type(source) is cst.Attribute \
                    and type(bound.value) is cst.Name and type(source.value) is cst.Name else None
                self.assign(bound, value, ctx)
                if mismatch is not None:  # (a store into it later, by a stage, converts otherwise)
                    self._ring_kinds[mismatch[0]] = mismatch[1]

    def _field_kind_apart(self, target: cst.Attribute, source: cst.Attribute, ctx: Ctx) -> tuple | None:
        """A ctx field filled from a struct's field (`_pl_ctx_0.g = st.g`) of another kind: the
        key of the ctx field, and words for the refusal of a stage's store into it, which would
        convert otherwise than the struct's field does in the serial kernel (probe h111: `st.g`
        of an int8 `tag` in a field of integers, where a run-time value the stage stored wrapped
        in the serial kernel alone). None where the kinds agree."""
        into, of = self.eval(target.value, ctx), self.eval(source.value, ctx)
        if not (isinstance(into, StructV) and into.origin == "ctx" and isinstance(of, StructV)
                and of.origin == "struct"):
            return None
        mine, theirs = into.kinds.get(target.attr.value), of.kinds.get(source.attr.value)
        self._ring_kinds.pop((id(into), target.attr.value), None)  # (filled anew)
        if mine == theirs:
            return None
        words = {None: "a field that keeps what it is given", INT_FIELD: "a field of integers"}
        return (id(into), target.attr.value), (
            f"the ctx ring carries `{self._code_of(source)}`, {words.get(theirs, f'a `pl.{theirs}` field')} as its "
            f"initialiser types it, in {words.get(mine, f'a `pl.{mine}` field')}, and a stage stores into it, which "
            "the two fields convert otherwise: initialise the field with `pl.const(v, pl.DT_...)` written out where "
            "the struct is made")

    def _ann_assign(self, small: cst.AnnAssign, ctx: Ctx) -> None:
        """`x: pl.DT_FP16 = v`: a scalar of that dtype, in the kernel and in every function it
        calls, as the JIT types it (and the emulator converts it): `v` converted where it is a
        number. A value of the loop variable or a counter in a dtype narrower than 32 bits wraps,
        or rounds, at some count: not followed."""
        if small.value is None:
            if type(small.target) is not cst.Name:
                # `box[(e := e * 2) * 0]: int`: Python evaluates the target's object and index (and
                # nothing else), which the check does not follow (probe h166)
                raise CannotModel(f"`{self._code_of(small)}` annotates a subscript or attribute without a value, "
                                  "whose parts Python evaluates: annotate a plain name, or assign a value",
                                  small, kind="construct")
            return
        value = self.eval(small.value, ctx)
        dtype = self._annotated_dtype(small.annotation, ctx)
        if dtype is not None:
            refuse_narrowed(value, dtype, f"`{self._code_of(small.target)}`", small, self.fn, self.pl)
            value = typed_number(value, dtype, scalar=True)
            if type(small.target) is cst.Name:
                self._typed_locals[(id(ctx.env), small.target.value)] = (dtype, value)
        self.assign(small.target, value, ctx)

    def _annotated_dtype(self, annotation: cst.Annotation, ctx: Ctx) -> str | None:
        """The `DT_*` dtype an annotation names (`pl.DT_FP16`, or a name bound to one) when a
        scalar of it converts (`pto_api.scalars.storable`); None for any other annotation."""
        node = annotation.annotation
        if type(node) not in (cst.Attribute, cst.Name):
            return None
        path = self.path(node)
        root = node
        while type(root) is cst.Attribute:
            root = root.value
        if type(root) is cst.Name and root.value not in ctx.env \
                and root.value in self._bound_in(self._frames[-1] if self._frames else self.fn):
            return None  # a local bound later (the annotation, evaluated here, raises: probe h105)
        if path is None:
            try:  # (Python never evaluates a local's annotation: one the check cannot is no dtype)
                bound = self.eval(node, ctx)
            except CannotModel:
                return None
            if is_unknown(bound):  # `row: Idx.T` of `class Idx: T = pl.DT_UINT8` (probe h105)
                raise CannotModel(f"the check cannot tell whether the annotation `{self._code_of(node)}` names a `pl` "
                                  "dtype, which converts the value on the device: annotate with the dtype itself "
                                  "(`pl.DT_INT32`) or a module name bound to it", node, kind="construct")
            path = bound.path if isinstance(bound, Symbol) else None
        return path[-1] if path and len(path) == 1 and storable(path[-1]) else None

    def _own_locals(self, fn: cst.FunctionDef) -> frozenset[str]:
        """`_own_locals`, read once per function of the file."""
        hit = self._locals_memo.get(id(fn))
        if hit is None or hit[0] is not fn:
            # (a `:=` anywhere in the file's text, even in a string, has expressions walked)
            hit = self._locals_memo[id(fn)] = (fn, _own_locals(fn, ":=" in self.file.source.text))
        return hit[1]

    def _bound_in(self, fn: cst.FunctionDef) -> set[str]:
        """`_bound_in`, read once per function of the file."""
        hit = self._names_bound.get(id(fn))
        if hit is None or hit[0] is not fn:
            hit = self._names_bound[id(fn)] = (fn, frozenset(_bound_in(fn)))
        return hit[1]

    def _return(self, small: cst.Return, ctx: Ctx) -> None:
        raise FunctionReturn(self.eval(small.value, ctx) if small.value is not None else None, small)

    def _def(self, stmt: cst.FunctionDef, ctxs: list[Ctx]) -> None:
        if stmt.decorators:
            raise CannotModel(f"`{stmt.name.value}` is decorated inside a function: the check does not run its "
                              "decorator; define it undecorated, or at module level", stmt.decorators[0],
                              kind="construct")
        params = (*stmt.params.posonly_params, *stmt.params.params, *stmt.params.kwonly_params)
        starred = [p for p in (stmt.params.star_arg, stmt.params.star_kwarg) if isinstance(p, cst.Param)]
        annotations = [p.annotation for p in (*params, *starred) if p.annotation is not None] + (
            [stmt.returns] if stmt.returns is not None else [])
        if any(type(n) in (cst.Call, cst.NamedExpr) for a in annotations for n in iter_nodes(a)):
            # Python computes them when the `def` runs (without `from __future__ import annotations`):
            # a call runs, a walrus binds (`def g(x: (e := e * 2) = 0)`, probe h165)
            raise CannotModel(f"the check does not run the annotations of `{stmt.name.value}`, which call something "
                              "or bind a name: annotate with names and `pl` types", stmt, kind="construct")
        outer = self._frames[-1] if self._frames else self.fn
        shared = sorted(_names_in(stmt.body) - _bound_in(stmt) & self._bound_in(outer))
        if shared or any(type(n) is cst.Nonlocal for n in iter_nodes(stmt.body)):
            # Python's closure reads (and `nonlocal` binds) the names of the function around it;
            # the model gives a nested function no closure: it would read the module's names
            what = f"reads `{shared[0]}` of the function around it" if shared else "binds a name by `nonlocal`"
            raise CannotModel(f"`{stmt.name.value}` {what}, which the check does not follow into it: pass the "
                              "value as an argument", stmt, kind="construct")
        for ctx in ctxs:  # the defaults are computed when the `def` runs, in its frame
            defaults = {p.name.value: self.eval(p.default, ctx) for p in params if p.default is not None}
            ctx.env[stmt.name.value] = FunctionV("helper", stmt, defaults)

    def exec_if(self, node: cst.If, ctxs: list[Ctx]) -> None:
        taken: dict[Any, list[Ctx]] = {True: [], False: [], None: []}
        one_block: dict[int, OneBlock] = {}  #: core -> its test singling out one block
        block_test = True  #: every core's test is one of the block (`if core_id >= n:`)
        operands: list[tuple | None] = []  #: per core, what its test compared (`_early_return`)
        compared: dict[int, tuple | None] = {}  #: core -> what the test itself compared (`_choose_assignments`)
        first = len(self.uniform.block_tests)
        apart: dict[int, bool] = {}  #: core -> whether its test may go another way on another block
        # a return where nothing has happened yet: its test is left undecided, the run going on
        # whatever it says (below), so it is not judged as a test of the run's values either
        # (`n_blocks < 3` of a trip count, or of a per-core range's)
        self._quiet_test = node.test if self._quiet_return(node, ctxs) else None
        for ctx in ctxs:
            tests = len(self.uniform.block_tests)
            self.tested, self.tested_apart = None, False
            bare = _without_not(node.test)
            named = ctx.env.get(bare.value, UNKNOWN) \
                if self._quiet_test is not None and isinstance(bare, cst.Name) else None
            if isinstance(named, Sym) and not _tells_blocks_apart(named, 0):
                # `if not my_n: return`: the truth of a name, what a quiet return compares with 0
                # (undecided, as that comparison is: `_compare`); of the block index itself
                # (`if core_id: return`), judged as the test of it that it is
                value, self.tested = UNKNOWN, (named, 0)
                self.tested_apart = _apart_between_blocks(named)
            else:
                try:
                    value = self.eval(node.test, ctx)
                except BaseException:
                    self._quiet_test = None
                    raise
                if named is not None and self.tested is None:
                    self.tested = (named, 0)  # (of a value the run does not follow as a `Sym`: as itself)
            operands.append(self.tested)
            compared[id(ctx)] = self.tested if self.tested_at is _without_not(node.test) else None
            # a test that compared nothing the run follows: one of compile-time values (a tiling-key
            # field, a module constant, `True`) is the same on every block; any other may not be
            # (one of the launch's arguments alone is the same everywhere, however the run follows it:
            # `flag % 2 == 1` too, probe h228)
            apart[id(ctx)] = (self.tested_apart or len(self.uniform.block_tests) > tests
                              or (not self._same_on_every_block(node.test, ctx) if self.tested is None
                                  else any(may_differ_between_blocks(v) for v in self.tested))) \
                and not self._of_kernel_arguments(node, ctx)
            if isinstance(value, OneBlock):
                one_block[id(ctx)] = value
            truth = self.truth(value, node.test)
            block_test &= truth is None and len(self.uniform.block_tests) > tests
            taken[truth].append(ctx)
        self._quiet_test = None
        if block_test and taken[None] and self._early_return(node, taken[None], operands):
            choice = _choice_test(node.test, compared[id(ctxs[0])], self._run_time)
            if choice in _BLOCK_ZERO_STAYS:
                # every other block returns: block 0 alone goes on, sent no different way by it
                del self.uniform.block_tests[first:]
            below = _stay_below(node.test, compared[id(ctxs[0])])
            if below is not None:  # `if core_id >= used_cores: return`: the blocks that go on are below it
                self.uniform.blocks_below.add(below)
            return
        if taken[None] and not taken[True] and not taken[False] \
                and self._returns_quietly(node, taken[None], operands):
            # `if n_blocks == 0: return` of a value the same on every core and block: where it holds,
            # every core of every block returns having done nothing (the pipelined kernel too, which
            # keeps it as written); the run follows the cores that go on, at every value. Of a value
            # the same on the cores of a block but not on every block (`if my_n == 0: return`, a
            # block's share of the tiles), the blocks it holds on do nothing from here on, and never
            # reach a barrier of every block (`Uniform.early_exit`)
            if any(apart.values()):
                self.uniform.early_exit = True
            return
        settled_apart = any(apart[id(ctx)] for ctx in (*taken[True], *taken[False]))
        if settled_apart:  # settled for this run's value, which another block may not have
            self.apart_tests.append(self._code_of(node.test))
        try:
            if taken[True]:
                self._exec_some(node, taken[True], ctxs, lambda: self.exec_block(node.body.body, taken[True]))
            if taken[False] and node.orelse is not None:
                self._exec_some(node, taken[False], ctxs, lambda: self._exec_orelse(node.orelse, taken[False]))
            if self.config.discover and not taken[None] and (not taken[True] or not taken[False]):
                self._discover_untaken(node, ctxs, bool(taken[True]))
        finally:
            if settled_apart:
                self.apart_tests.pop()
        if taken[None]:
            # a choice between two values binds its names; any other branch may or may not run
            taken[None] = [ctx for ctx in taken[None] if not self._choose_assignments(node, ctx, compared[id(ctx)])]
            for ctx in taken[None]:
                single = one_block.get(id(ctx))
                # `core_id == 0` singles out its block in the body, `core_id != 0` in the `else`
                test = self._code_of(node.test)
                if type(node.orelse) is cst.If:  # (not taken for the `else`: `_complement`, named when refused)
                    self.with_elif.add(test)
                pushed = apart[id(ctx)]
                if pushed:  # a barrier in either branch may be skipped by another block
                    self.apart_tests.append(test)
                self.may_tests.append((node.test, pushed))
                try:
                    self._exec_one_block(ctx, single if single is not None and not single.others else None,
                                         lambda c: self.exec_block(node.body.body, [c]), test)
                    if node.orelse is not None:
                        self._exec_one_block(ctx, single if single is not None and single.others else None,
                                             lambda c: self._exec_orelse(node.orelse, [c]), test)
                finally:
                    self.may_tests.pop()
                    if pushed:
                        self.apart_tests.pop()

    def _discover_untaken(self, node: cst.If, ctxs: list[Ctx], took: bool) -> None:
        """In the discovery run, the branch a run-time test did not take, when it holds a pipeline loop
        (`if flag == 1:` around an optional pass, every integer parameter 3 there): run too, so that
        its loops' trip counts are found; the runs at the values that take it (the test's cuts) then
        count through them (probe h123: such a loop had no count to follow it by). A test of
        compile-time values (a tiling-key field) chooses the instance's loop, and is left alone."""
        branch = node.orelse if took else node.body
        if branch is None or self._same_on_every_block(node.test, ctxs[0]) or not any(
                type(n) is cst.For and any(type(c) is cst.Call and type(c.func) is cst.Name
                                           and c.func.value in self.file.stages for c in iter_nodes(n.body))
                for n in iter_nodes(branch)):
            return
        try:
            if took:
                self._exec_orelse(branch, ctxs)
            else:
                self.exec_block(branch.body, ctxs)
        except (LoopBreak, LoopContinue, FunctionReturn):
            pass  # (what follows is found where the run goes on)

    def _same_on_every_block(self, test: cst.BaseExpression, ctx: Ctx, arguments: frozenset[str] = frozenset()) -> bool:
        """Is `test` computed from compile-time values only, the same on every block: literals,
        tiling-key fields, module constants and `pl` constants, with no call and no name of the
        kernel's own (which may hold a value of the run), but the kernel parameters `arguments`?"""
        calls, names = self._test_names(test)
        if calls:
            return False
        for n in names:
            name = n.value
            if name in arguments:
                continue
            if name in ctx.env or name in self._symbolic_names:
                return False  # (the kernel's own name, even one a tiling-key field or `pl` has: probe h230)
            if name in ("True", "False", "None") or name in self.key or self.pl.path(n) == ():
                continue
            if not isinstance(self.file.meaning(name), Value):
                return False
        return True

    def _of_kernel_arguments(self, node: cst.If, ctx: Ctx) -> bool:
        """Is `node` an `if` of the kernel's own body whose test reads, besides compile-time values,
        only kernel parameters the kernel never binds again (`if flag > 0:` of a scalar
        parameter)? The arguments of a launch reach every block and core alike, so every core
        goes the same way (probe h227: a barrier under such a test was said to be reached by some
        blocks only). Not compile-time (`_same_on_every_block`): the run still follows such a
        test at the values it samples."""
        hit = self._arguments.get(id(self.fn))
        if hit is None or hit[0] is not self.fn:  # (once per file for each function run)
            hit = self._arguments[id(self.fn)] = (self.fn, _own_ifs(self.fn), [])
        _, ifs, found = hit
        if id(node) not in ifs:
            return False
        if not any(n.value in self._parameter_names for n in self._test_names(node.test)[1]):
            return self._same_on_every_block(node.test, ctx)  # (no parameter read: the walk below tells nothing)
        if not found:  # (the parameters, only once an `if` of the kernel's own body reads one)
            found.append(unbound_parameters(self.file, self.fn))
        return not _reaches_into_arguments(node.test, found[0]) and self._same_on_every_block(node.test, ctx, found[0])

    @cached_property
    def _parameter_names(self) -> frozenset[str]:
        """The names of the parameters of the function run (bound again in it or not)."""
        return frozenset(p.name.value for p in parameters(self.fn))

    def _test_names(self, test: cst.BaseExpression) -> tuple[bool, tuple[cst.Name, ...]]:
        """(whether `test` calls anything, the names it reads a value of), read once per file:
        an attribute's root names its value, the attribute is a word (`pl.DT_FP32`)."""
        hit = self._tests.get(id(test))
        if hit is not None and hit[0] is test:
            return hit[1]
        calls = False
        names: list[cst.Name] = []
        stack: list[cst.CSTNode] = [test]
        while stack:
            n = stack.pop()
            if type(n) is cst.Call:
                calls = True
                break
            if type(n) is cst.Attribute:
                stack.append(n.value)
            elif type(n) is cst.NamedExpr:
                stack.append(n.value)  # (`(m := flag) > 0` reads `flag`; `m` is bound, not read: probe h235)
            elif type(n) is cst.Name:
                names.append(n)
            else:
                stack.extend(children(n))
        found = (calls, tuple(names))
        self._tests[id(test)] = (test, found)
        return found

    @staticmethod
    def _exec_some(node: cst.If | cst.With, some: list[Ctx], ctxs: list[Ctx], run: Callable[[], object]) -> None:
        """A branch the test (or a section) sends some of the cores into: a `return`, `break` or `continue` there
        would leave the others where they are, which cores running in step cannot follow
        (`if sub_id >= 1: return` ended the run of every core)."""
        try:
            run()
        except (LoopBreak, LoopContinue, FunctionReturn) as exc:
            if len(some) != len(ctxs):
                raise CannotModel("`break`/`continue`/`return` on some cores of a block and not on the others: "
                                  "the cores of one block must leave a loop or the kernel together", exc.node,
                                  kind="cores_apart") from None
            raise

    def _early_return(self, node: cst.If, ctxs: list[Ctx], operands: list) -> bool:
        """`if core_id >= n: return` at the kernel's top level, before anything else it runs under a
        condition: the blocks the test holds on do nothing from here on, on all their cores alike
        (the test is of the block), so they neither race nor compute; the run goes on as the blocks
        that stay. A barrier of every block after it is refused (`Uniform.early_exit`): a block
        that returned never reaches it."""
        if not self._returns_quietly(node, ctxs, operands):
            return False
        # a test of the block count alone (`num_cores == 3`) holds on every block or on none: a barrier
        # after it is reached by all of them or by none (probe h123)
        values = [v for pair in operands if pair for v in pair]
        if not all(type(v) is int or isinstance(v, Sym) and all(_block_count_only(var) for var, _ in v.form)
                   for v in values):
            self.uniform.early_exit = True
        return True

    def _returns_quietly(self, node: cst.If, ctxs: list[Ctx], operands: list) -> bool:
        """Is `node` a plain `if <one comparison>: return` where nothing has happened yet
        (`_quiet_return`), compared with the same operands on the three cores of the block?
        Where its test holds, the cores leave together having left nothing behind but their own
        on-chip tiles."""
        # the same values on every core of the block: `core_id + sub_id >= n`, `pl.get_block_idx()
        # >= n` or `core_id >= tbl[sub_id]` would send the cores apart
        return self._quiet_return(node, ctxs) and operands[0] is not None and all(
            _same_value(a, b) for pair in operands for a, b in zip(pair or (None, None), operands[0], strict=True))

    def _quiet_return(self, node: cst.If, ctxs: list[Ctx]) -> bool:
        """Is `node` a plain `if <one comparison>: return`, without `else`, at the kernel's top level,
        run on all three cores, before any loop and before anything but ops that write no GM (no
        sync, no barrier)?"""
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        plain = (len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1
                 and isinstance(body[0].body[0], cst.Return) and _returns_nothing(body[0].body[0]))
        test = _without_not(node.test)  # (`if not core_id < n: return`: the comparison it negates)
        if not (plain and node.orelse is None and (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                                                   or type(test) is cst.Name)
                and len(ctxs) == 3 and not self.uniform.loops and node in self.fn.body.body
                and all(ctx.may == 0 and ctx.scope is None for ctx in ctxs)):
            return False
        # no GM write, set or wait before it: a core that returns leaves nothing behind but its own
        # on-chip tiles
        return all(ev.kind == "op" and not any(f.key[0] == "GM" for f in ev.writes)
                   for events in self.trace.events for ev in events)

    def _exec_one_block(self, ctx: Ctx, single: OneBlock | None, run: Callable[[Ctx], object], test: str) -> None:
        """A branch that may or may not be taken (`_exec_may`), on the block `single` names alone
        when it names one (`Ctx.one_block`)."""
        before = ctx.one_block
        if single is not None:
            ctx.one_block = before + (single.block,)
        try:
            self._exec_may(ctx, run, test)
        finally:
            ctx.one_block = before

    def _exec_orelse(self, orelse, ctxs: list[Ctx]) -> None:
        if type(orelse) is cst.If:
            self.exec_if(orelse, ctxs)
        else:
            self.exec_block(orelse.body.body, ctxs)

    def _exec_may(self, ctx: Ctx, run: Callable[[Ctx], object], test: str | None = None) -> None:
        """Run a branch that may or may not be taken: its accesses are marked `may`, and every
        name it binds is unknown afterwards unless the branch left it as it was (rebound under
        `test`, when the branch is an `if`'s)."""
        before = dict(ctx.env)
        contents = {name: _contents(value) for name, value in before.items() if _mutable(value)}
        fields = _struct_fields(before.values())
        ctx.may += 1
        try:
            run(ctx)
        except (LoopBreak, LoopContinue, FunctionReturn) as exc:
            raise CannotModel("`break`/`continue`/`return` under a condition the check cannot decide", exc.node,
                              kind="early_exit") from None
        finally:
            ctx.may -= 1
        for name, value in list(ctx.env.items()):
            changed = name in contents and _contents(value) != contents[name]  # `st[0] = core_id` in the branch
            if name not in before or not _kept(before[name], value) or changed:
                ctx.env[name] = UNKNOWN if test is None else Rebound(test)
        # a struct the branch changed is the same object wherever it is held (a caller's name, a
        # ring): what a field may hold after it is unknown there too, not the branch's value
        for struct, old in fields:
            for field_name, value in list(struct.fields.items()):
                if field_name not in old or not _kept(old[field_name], value):
                    struct.fields[field_name] = UNKNOWN

    def _exec_uncounted(self, node: cst.For, ctx: Ctx) -> None:
        """The body of a loop the check cannot count, run once as one that may not run. That one
        run stands for every iteration only where no iteration hands anything to the next: a
        name the body reads before it binds it (`row += TILE`, a name an earlier iteration's
        branch bound), or anything held before the loop that the body changes (a field at any
        depth, an item of a list, through a helper or an alias), is refused (probes h94, h95)."""
        if self._at_most_once(node.iter, ctx):  # the run of the body as one that may not run is each case
            self._exec_may(ctx, lambda c: self._loop_body(node, [c]))  # type: ignore[attr-defined]
            return
        carried = sorted(read_first(node.body) & _bound_or_set_in(node.body))
        if carried:
            raise self._hands_on(node, f"`{carried[0]}` (or what it holds)")
        before = {name: _contents(value) for name, value in ctx.env.items()}
        held = dict(ctx.env)
        # a name the body binds before it reads it takes nothing from the iteration before: what it
        # holds after the loop is unknown, as after any branch that may run (`_exec_may`)
        rebound = _bound_or_set_in(node.body)
        cursors = self.cursors[ctx.core]  # (`OpEvents`, beside it in the interpreter)
        moved = dict(cursors)

        def run(c: Ctx) -> None:
            self._loop_body(node, [c])  # type: ignore[attr-defined]  # (`Loops`, beside it in the interpreter)
            for name, value in c.env.items():
                if name in before and (_contents(held[name]) != before[name] or value is not held[name]
                                       and not _kept(held[name], value) and name not in rebound):
                    raise self._hands_on(node, f"`{name}` (or what it holds)")
            # a tile group's cursor (`.next()`) is state too: the next iteration picks the next slot
            # (probe h130: the slot a second iteration reached, and the valid shape it set, went unseen)
            group = next((v for v in c.env.values() if type(v) is GroupV and cursors.get(id(v)) != moved.get(id(v))),
                         None)
            if group is not None or cursors != moved:
                raise self._hands_on(node, f"the cursor of tile group `{group.name}`" if group is not None
                                     else "a tile group's cursor")

        self._exec_may(ctx, run)

    def _at_most_once(self, it: cst.BaseExpression, ctx: Ctx) -> bool:
        """`range(x > 0)`, `range(int(not done))`: a count of a truth value, 0 or 1, where no
        iteration hands anything to another (the builtins, not names rebound)."""
        def builtin(call: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
            if type(call) is cst.Call and type(call.func) is cst.Name and call.func.value == name \
                    and len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star \
                    and self.eval(call.func, ctx) == Builtin(name):
                return call.args[0].value
            return None

        count = builtin(it, "range")
        if count is not None and type(count) is cst.Call:
            count = builtin(count, "int") or builtin(count, "bool")
        return type(count) is cst.Comparison or type(count) is cst.UnaryOperation and type(count.operator) is cst.Not

    def _hands_on(self, node: cst.For, what: str) -> CannotModel:
        return CannotModel(f"`for {self._code_of(node.target)} in {self._code_of(node.iter)}` runs a number of "
                           f"times the check cannot count, and one iteration changes {what} for the next: the check "
                           "follows one iteration, which stands for all only where none hands anything on; give the "
                           "loop a count the check can name (a constant, a tiling-key field), or compute each "
                           "iteration's values from the loop variable", node.iter, kind="uncounted")

    def exec_try(self, node: cst.Try, ctxs: list[Ctx]) -> None:
        """The body, then `else` and `finally`, as when nothing raises (the model raises
        nothing); a handler that calls anything would run only when something did, which the
        check cannot tell."""
        for handler in node.handlers:
            if any(type(n) is cst.Call for n in iter_nodes(handler.body)):
                raise CannotModel("an `except` block that calls something: whether it runs is not known", handler,
                                  kind="construct")
        if node.handlers and not all(isinstance(stmt, cst.SimpleStatementLine) and all(
                type(small) is cst.Pass for small in stmt.body) for stmt in node.body.body):
            # a body of `pass` raises nothing and no handler runs; elsewhere, where the body raises
            # (`[0][1]`: an item the model reads as unknown) the rest of it does not run, and the
            # handler does: neither is known
            raise CannotModel("`try` with an `except` block: where its body raises, and so what runs, is not known "
                              "to the check", node.handlers[0], kind="construct")
        leaves = _leaves_block(node.finalbody.body) if node.finalbody is not None else None
        if leaves is not None:
            # `finally: continue` ends an exception the body raises (`1 // (n - 777)`), and the rest
            # of the body does not run: where it raises is not known (probe h152)
            raise CannotModel(f"a `finally` block that leaves it by `{leaves}` swallows any exception its `try` "
                              "raises, and where the body raises, and so what runs, is not known to the check",
                              node.finalbody, kind="construct")
        try:
            self.exec_block(node.body.body, ctxs)
            if node.orelse is not None:
                self.exec_block(node.orelse.body.body, ctxs)
        finally:  # on `return`, `break` and `continue` too, as Python runs it (a `return` in it wins)
            if node.finalbody is not None:
                self.exec_block(node.finalbody.body.body, ctxs)

    def exec_with(self, node: cst.With, ctxs: list[Ctx]) -> None:
        item = node.items[0].item if node.items else None
        path = self.path(item.func) if isinstance(item, cst.Call) else None
        if path in (("section_cube",), ("section_vector",)):
            if self._frames:  # (probe h257: a section in a helper was followed; the JIT lowers the kernel's own)
                raise CannotModel(f"`with pl.{path[0]}():` is in `{self._frames[-1].name.value}`, not directly in the "
                                  "kernel's body, where alone the JIT lowers sections: it is an error on every run",
                                  node, kind="section_outside")
            some = [c for c in ctxs if (c.core == AIC) == (path == ("section_cube",))]
            # a `break`, `continue` or `return` there leaves the loop or kernel on the section's cores
            # alone: the others go on (probe h207: a vector `break` skipped the loop's `else` on the
            # cube too, where it took a slot, and the syncs guarded the slots the model saw)
            self._exec_some(node, some, ctxs, lambda: self.exec_block(node.body.body, some))
            return
        for with_item in node.items:
            if not (isinstance(with_item.item, cst.Call) and self.path(with_item.item.func) is not None):
                # `with suppress(IndexError):` ends its body early where it raises, unseen
                raise CannotModel(f"the check does not follow `with {self._code_of(with_item.item)}`: a context "
                                  "manager may end its body where it raises", with_item, kind="construct")
        self.exec_block(node.body.body, ctxs)

    # assignment ----------------------------------------------------------------------------
    def assign(self, target: cst.BaseExpression, value: Any, ctx: Ctx) -> None:
        if type(target) is _NAME:
            if type(value) is GroupV and not value.name:
                _name_group(value, target.value)
            ctx.env[target.value] = value
        elif isinstance(target, cst.Attribute):
            obj = self.eval(target.value, ctx)
            if type(obj) is Record:
                raise CannotModel(f"`{self._code_of(target)}` sets a field of `{obj.cls}` made at module level, which "
                                  "the check reads as the constant the module made: keep the value in a `pl.struct` "
                                  "or a name of the kernel", target, kind="construct")
            if isinstance(obj, StructV) and obj.origin == "tiling":
                # the host's tiling data, one copy a core: a field set on one core (a cube stage)
                # and read on another (a vector stage) is not a value the pipeline carries
                raise CannotModel(f"`{self._code_of(target)}` sets a field of tiling data, which the host passes and "
                                  "the pipeline does not carry from one stage or task to another: keep the value in a "
                                  "`pl.struct` or a name of the kernel and pass it to the stages that use it", target,
                                  kind="construct")
            if isinstance(obj, StructV) and obj.origin == "ctx" and (
                    type(value) in (tuple, list, dict, str) or isinstance(value, (TensorV, TileV, AnyTileV, GroupV))):
                # `v: pl.DT_FP32 = (g, 0.25 * (i % 3))`, `dst: pl.DT_FP32 = outs[0]` passed to a stage: a field
                # of numbers cannot hold it (the emulator keeps the Python object; PyPTO has no such field:
                # probe h114)
                what = type(value).__name__ if type(value) in (tuple, list, dict, str) else _handle_words(value)
                raise CannotModel(f"{'a ' if type(value) in (tuple, list, dict, str) else ''}{what} travels to a "
                                  f"delayed stage in the ctx field `{target.attr.value}`, which holds a number",
                                  target, kind="tuple_in_field")
            if isinstance(obj, StructV) and obj.origin == "ctx" and _holds_struct([value]):
                # `st: pl.DT_FP32 = (st_even, st_odd)[i % 2]` carried in a field: the entry would hold the
                # struct itself, and a delayed stage read its fields as later iterations left them (h113)
                raise CannotModel(f"a struct travels to a delayed stage in the ctx field `{target.attr.value}`, which "
                                  "holds a number: the stage would read the struct's fields as later iterations "
                                  "leave them", target, kind="struct_in_field")
            if isinstance(obj, StructV):
                apart = self._ring_kinds.get((id(obj), target.attr.value)) if obj.origin == "ctx" else None
                if apart is not None:
                    raise CannotModel(apart, target, kind="ring_type")
                if value is UNKNOWN and ctx.scope is not None:
                    # a value the check cannot compute, kept for later stages (`st.scale =
                    # abs(alpha)`): named by the stage invocation that set it, so a stage that
                    # reads another invocation's value than in the serial kernel is caught
                    value = Opaque(("set by", ctx.core, *ctx.scope, self._code_of(target)))
                kind = obj.kinds.get(target.attr.value)
                if kind is not None:  # (a struct array of the kernel's own too: probe h109)
                    refuse_narrowed(value, kind, f"field `{self._code_of(target)}`", target, self.fn, self.pl)
                held = value if kind is None else typed_number(value, kind)
                if held is not value and obj.origin == "ctx":
                    self.trace.conversions.setdefault(target.attr.value, (value, held, kind))
                obj.fields[target.attr.value] = held
                return
            if (handle := _handle_in([value])) is not None:
                raise CannotModel(f"{_handle_words(handle)} is kept in `{self._code_of(target)}`, an object the check "
                                  "does not follow: pass it directly", target, kind="construct")
            if isinstance(obj, _PL_OBJECTS):
                # `tt.layout = pl.NZ` after `tt = pl.TileType(...)`: tiles made of it later take the change,
                # where the model keeps what the constructor was given (probe h179)
                raise CannotModel(f"`{self._code_of(target)}` changes a `pl` object after it is made, which the check "
                                  "does not follow: give its constructor the value", target, kind="construct")
            self._kept_outside(obj, target.value, target, ctx)  # `box.x = v` in a stage: state it keeps
        elif isinstance(target, cst.Subscript):
            obj = self.eval(target.value, ctx)
            if isinstance(obj, (TileV, AnyTileV)):
                self._element_access(obj, target, "W", ctx)
            elif isinstance(obj, TensorV):
                self._gm_element(obj, target, "W", ctx)
            else:
                self._kept_outside(obj, target.value, target, ctx)
                if type(obj) in (list, dict):
                    key = self._change_key(target, ctx)
                    self._change(lambda: containers.set_item(obj, key, value), target, ctx, obj)
        elif isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements]
            stars = [i for i, e in enumerate(target.elements) if isinstance(e, cst.StarredElement)]
            if stars and isinstance(value, (tuple, list)) and len(value) >= len(names) - 1:
                i, after = stars[0], len(names) - stars[0] - 1  # `z, *w = [0, 1]`: `w` is the list `[1]`
                value = (*value[:i], list(value[i:len(value) - after]), *value[len(value) - after:])
            elif stars:
                value = UNKNOWN
            if isinstance(value, (tuple, list)) and len(value) == len(names):
                for t, v in zip(names, value, strict=True):
                    self.assign(t, v, ctx)
            else:
                for t in names:
                    self.assign(t, UNKNOWN, ctx)

    def _change_key(self, target: cst.Subscript, ctx: Ctx) -> Any:
        """The key a change of a list or dict is made at (`_placed_key`; a slice: all of it). A key
        that varies with a loop of run-time trip count (`picks[i] = ws`) is refused, as a pick by
        it is: an item per iteration, which a later read at a constant (`picks[20]`) tests for
        one iteration, followed only at the counts run (probe h81)."""
        part = target.slice[0].slice if len(target.slice) == 1 else None
        if not isinstance(part, cst.Index):
            return slice(None)
        key = self.eval(part.value, ctx)
        if isinstance(key, Sym) and not key.residue:
            self._plain(key, "the index", part.value)
        return _placed_key(key)

    def _change(self, change: Callable[[], Any], node: cst.CSTNode, ctx: Ctx, changed: Any = None) -> Any:
        """A change of a list or dict (`changed`) made on the model's container (`containers`), or
        refused: the model would go on reading what the kernel no longer holds. Under a condition the
        check cannot decide it may or may not happen, and the container (which other names, frames or
        defaults may hold) cannot be both: refused too. A list a `pl.TileType` was made from is read
        again by it when a tile is made, where the model took its values once: refused too."""
        if changed is not None and id(changed) in self._type_lists:
            raise CannotModel("a list a `pl.TileType` was made from is changed, which the type reads again when "
                              "a tile is made of it: give the type a list of its own (`valid_shape=list(vs)`)",
                              node, kind="construct")
        if ctx.may:
            raise CannotModel("a list or dict is changed under a condition the check cannot decide: change it "
                              "in both branches, or choose the value it takes (`v = a if c else b`)", node,
                              kind="construct")
        try:
            return change()
        except containers.Unfollowed as exc:
            raise CannotModel(f"the check does not follow {exc}: build the list or dict with the values it "
                              "ends up holding (`[a, b]`, `{\"k\": v}`)", node, kind="construct") from None

    def _kept_outside(self, obj: Any, holder: cst.BaseExpression, node, ctx: Ctx) -> None:
        """A stage that changes a list or dict it did not make (a module-level list, a default
        argument, one it is handed), or an object the check does not follow, keeps a value past
        its invocation: another stage, or its own next iteration, may read it there, and the
        pipelined kernel runs those in another order. The ctx ring carries stage arguments and
        struct fields only, so such a kernel is not followed."""
        if self._made is None and is_unknown(obj):
            # outside a stage too: `hold[d][0] = 0` may change a list the kernel reads elsewhere
            root = holder
            while isinstance(root, (cst.Subscript, cst.Attribute)):
                root = root.value
            module = isinstance(root, cst.Name) and root.value not in ctx.env
            if not module:  # (probe h157: a set the kernel made was called "an object the module binds")
                raise CannotModel(f"the kernel changes `{self._code_of(holder)}`, a value the check does not follow "
                                  "(a set, a bytearray or another object it does not model, or one reached through a "
                                  "value it does not compute)", node, kind="unfollowed_object")
            # (probe h113: it asked to change "the list itself, by a name that holds it" of `ROW[1] = 2.5`)
            raise CannotModel(f"the kernel changes `{self._code_of(holder)}`, and `{self._code_of(root)}` is a list, "
                              "dict or object of the module: the check reads module names as the module binds them "
                              "and does not follow a change to what they hold", node, kind="module_changed")
        if self._made is None or isinstance(obj, (list, dict)) and id(obj) in self._made:
            return
        what = "a list or dict" if isinstance(obj, (list, dict)) else "an object"
        stage = ctx.scope[1] if ctx.scope is not None else "?"
        raise CannotModel(f"stage `{stage}` changes `{self._code_of(holder)}`, {what} it did not make: "
                          f"a value kept there outlives the stage{_KEPT}", node, kind="kept")

    def aug_assign(self, node: cst.AugAssign, ctx: Ctx) -> None:
        target = node.target
        if type(target) is not cst.Name and _effects_in(target):
            # Python computes `vals[f()]` once; the model reads and writes it, computing it twice
            raise CannotModel(f"`{self._code_of(target)}` calls something or binds a name: compute the place first",
                              target, kind="construct")
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
        place = self._place(target, ctx) if type(target) is not cst.Name and _effects_in(node.value) else None
        old = self.eval(target, ctx)
        value = self._operand(node.value, ctx)  # `cnt += core_id < rem`: the comparison is 1 or 0
        if place is not None and not all(_same_place(a, b) for a, b in zip(place, self._place(target, ctx),
                                                                          strict=True)):
            # Python computes the place once, before the value: `sel[i] += (i := 1)` adds to `sel[0]`,
            # which the model, computing it again to store, would not (probe h194)
            raise CannotModel(f"`{self._code_of(node.value)}` changes the place `{self._code_of(target)}` names, which "
                              "Python computes before it: compute the value first, into a name of its own",
                              node, kind="construct")
        if type(old) in (list, dict):  # `rows += [v]` changes the list in place (`list.__iadd__`)
            self._kept_outside(old, target, node, ctx)
            self._change(lambda: containers.add_in_place(old, _IN_PLACE.get(type(node.operator), ""), value), node,
                         ctx, old)
            self.assign(target, old, ctx)
            return
        if self._made is not None and (isinstance(old, (list, dict)) or is_unknown(old) and not isinstance(
                value, (int, float, Opaque))):
            # `box += [v]` changes a list in place (`list.__iadd__`), `box |= {...}` a dict
            self._kept_outside(old, target, node, ctx)
        self.assign(target, self._binop(AUGMENTED.get(type(node.operator)), old, value, node), ctx)

    def _place(self, target: cst.BaseExpression, ctx: Ctx) -> tuple:
        """What a subscript or attribute target is computed from (its object, and a subscript's
        indices), compared before and after an augmented assignment's value (`aug_assign`)."""
        if isinstance(target, cst.Subscript):
            parts = [p for el in target.slice for p in (
                (el.slice.value,) if isinstance(el.slice, cst.Index) else
                (el.slice.lower, el.slice.upper, el.slice.step) if isinstance(el.slice, cst.Slice) else ())]
            return (self.eval(target.value, ctx), *(None if p is None else self.eval(p, ctx) for p in parts))
        if isinstance(target, cst.Attribute):
            return (self.eval(target.value, ctx),)
        return ()

    # expressions ---------------------------------------------------------------------------
    def eval(self, node: cst.BaseExpression, ctx: Ctx) -> Any:
        if type(node) is cst.Name:  # the commonest case, as `_name` reads it
            value = ctx.env.get(node.value, _ABSENT)
            if value is not _ABSENT:
                if type(value) is Opaque and value.origin in self.trips:
                    return Sym(self.trips[value.origin], ((("size", value.origin), 1),))
                return value
        method = _EVAL.get(type(node))
        if method is None:
            if type(node) is not cst.Lambda and any(type(n) is cst.Call or type(n) is cst.CompFor and not _names_only(
                    n.target) for n in iter_nodes(node)):
                # a comprehension, an f-string, ...: calls the check would not run
                raise CannotModel(f"the check does not follow calls inside a `{type(node).__name__}` expression",
                                  node, kind="construct")
            if type(node) is not cst.Lambda and any(type(n) is cst.NamedExpr for n in iter_nodes(node)):
                # `f"{(k := 0)}"`, `[(k := 0) for _ in xs]`: a name bound where the check does not look
                raise CannotModel(f"the check does not follow `:=` inside a `{type(node).__name__}` expression: "
                                  "assign the name in a statement of its own", node, kind="construct")
            return UNKNOWN
        value = method(self, node, ctx)
        if type(value) is Opaque and value.origin in self.trips:
            return Sym(self.trips[value.origin], ((("size", value.origin), 1),))
        return value

    def _clamp_frame(self, ctx: Ctx) -> Ctx:
        """`ctx` for the arguments of a clamp in a loop's bounds, in the discovery run: its scalar
        parameters and tiling-data fields the run-time values they are, so that the clamp is named
        by the arithmetic made of them (`pl.range(0, max(0, N - n))`), a trip-count root the runs
        then count through (probe h119: this run's number, the loop was one of static count, run
        at the parameter's samples alone)."""
        named: dict[str, Any] = {}
        for name, value in ctx.env.items():
            if type(value) is StructV and value.origin == "tiling":
                named[name] = replace(value, fields={f: _run_time_value(v) for f, v in value.fields.items()})
            elif (size := _run_time_value(value)) is not value:
                named[name] = size
        return replace(ctx, env={**ctx.env, **named}) if named else ctx

    def _integer_literal(self, node: cst.Integer, ctx: Ctx) -> int:
        """`_integer`, its memo read here: integer literals are the commonest expression after names."""
        hit = self._integers.get(id(node))
        if hit is None or hit[0] is not node:
            return self._integer(node)
        return hit[1]

    def _cut_between(self, values: list, node: cst.Call) -> None:
        """`min`/`max` of sampled parameters: which argument wins changes where two are equal,
        a test like any other (`Uniform.cut`)."""
        plain = [v for v in values if isinstance(v, int) and not isinstance(v, bool)
                 and not any(var[0] in INDEX for var, _ in getattr(v, "form", ()))]
        for i, x in enumerate(plain):
            for y in plain[i + 1:]:
                diff = Sym(int(x) - int(y), _difference(x, y))
                self.uniform.cut(dict(diff.form), diff, self._code_of(node))

    def truth(self, value: Any, node=None) -> bool | None:
        if type(value) is bool:  # (a comparison's outcome: as `bool(value)` below)
            return value
        if is_unknown(value):
            return None
        if isinstance(value, Sym):
            text = self._code_of(node) if node is not None else "a condition on the loop variable"
            if _tells_blocks_apart(value, 0):
                # `if core_id:`: true on some blocks, false on others; the run follows block 0
                self.uniform.block_tests.append(text)
                return None
            return self._uniform(lambda: self.uniform.test(value, 0, bool(value), text), node)
        if isinstance(value, (int, float, bool, str, tuple, list, range)) or value is None or type(value) is dict:
            return bool(value)
        if isinstance(value, _ALWAYS_TRUE):
            return True
        return None  # a `pl` constant (an `IntEnum` member may be 0), bytes, ...: not known

    def _name(self, node: cst.Name, ctx: Ctx) -> Any:
        name = node.value
        env = ctx.env
        if name in env:
            return env[name]
        if name in ctx.deleted:
            raise CannotModel(f"`{name}` is read after `del {name}` removed it", node, kind="deleted")
        if any(other is ctx for other in self._kernel_ctxs):
            elsewhere = [other for other in self._kernel_ctxs if name in other.env]
            if elsewhere:  # a name of the kernel's own: Python raises on this core
                raise CannotModel(f"`{name}` is read on {CORES[ctx.core]}, where nothing the core runs has bound it "
                                  f"(it is bound on {', '.join(CORES[o.core] for o in elsewhere)} alone, in a section "
                                  "of theirs)", node, kind="section")
        if name in self.key:  # before the file's cache of module names, shared by every instance
            return self.key[name]
        if name in self._own_locals(self._frames[-1] if self._frames else self.fn):
            # (probe h202: a stage reading `HALF` and binding `HALF = TILE // 2` after was run with the
            # module's `HALF`)
            raise CannotModel(f"`{name}` is read where the function has not bound it yet, and it binds it elsewhere "
                              "in its body: Python takes it for the function's own name and raises UnboundLocalError "
                              "here (bind it before the read, or name the module's value otherwise)", node,
                              kind="construct")
        if self._symbolic_names and name in self._symbolic_names:
            found = self._symbolic(name)
            if found is not None:
                return found
        # `HALF_VEC = pl.TileType(...)`, or `= half_vec()` of a function of the file returning one
        tile_type = self.file.names.tile_types.get(name) or self.file.made_tile_types.get(name)
        if tile_type is not None and not self._reads_jit_names(tile_type):
            # `HALF_VEC = pl.TileType(...)` at module level: the type, its arguments read as the module
            # reads them (not cached with the constants: a run-time size may shape it)
            return self.pl_call(("TileType",), tile_type, Ctx(ctx.core, {}))
        hit = self._globals.get(name)
        if hit is None:
            hit = self._globals[name] = self._global(name)
        if hit[1] is UNKNOWN:
            self._no_object(f"`{name}`", self.file.meaning(name), node)
        # a module constant is copied (lists are mutable); everything else is shared
        return import_const(hit[1]) if hit[0] else hit[1]

    def _reads_jit_names(self, node: cst.CSTNode) -> bool:
        """Does `node` mention a name the JIT binds in functions (a tiling-key field)? Module-level
        code does not see those: the check leaves such a type unknown."""
        names = self.file.jit_names
        return bool(names) and any(n.value in names for n in self.file.find(node, cst.Name))

    def _no_object(self, what: str, meaning: Any, node) -> None:
        """Refuse a module name (or default) that may hold an object the file's code made: Python
        runs that object's methods where the kernel uses it, unseen (probe h93)."""
        if isinstance(meaning, Unknown) and meaning.global_line:  # (probe h137: it said "a value of a kind")
            raise CannotModel(f"{what} is rebound through `global` (line {meaning.global_line}) in a function or "
                              "class body, whose code the check does not run where the module does: which value it "
                              "holds where the kernel reads it is not known", node, kind="global_rebound")
        if isinstance(meaning, Unknown) and meaning.made:
            raise CannotModel(f"{what} holds what {meaning.made} returns or makes at module level: a value of a "
                              "kind the check does not know, on which Python may run code of the file where the "
                              "kernel uses it (a subscript, a test, an operator, a format, an attribute, a `key=`); "
                              "bind it to a constant (a literal, or arithmetic of constants)", node,
                              kind="made_object")

    def _symbolic(self, name: str) -> Sym | None:
        """A module name (`N`, `config.NT`) whose value is known only at run time, as the trip-count
        root it is (`Config.symbolic_names`); None where this run gives it no count."""
        origin = ("const", name)
        value = self.trips.get(origin, DISCOVERY_TRIPS if self.config.discover else None)
        return None if value is None else Sym(value, ((("size", origin), 1),))

    def _global(self, name: str) -> tuple[bool, Any]:
        """What a name means outside any frame: (True, raw value) for a module constant."""
        if name in self._functions:
            return False, self._functions[name]
        if name in ("True", "False", "None"):
            return False, {"True": True, "False": False, "None": None}[name]
        if name in self.file.constants:
            return True, self.file.evaluator.try_eval(cst.Name(name), UNKNOWN)
        if name in _BUILTINS and self.file.meaning(name) is None:  # `class list:`, `from x import y as list`
            return False, Builtin(name)
        return False, UNKNOWN

    def _attribute(self, node: cst.Attribute, ctx: Ctx) -> Any:
        hit = self._paths.get(id(node))  # (`path`'s memo, read without its call)
        path = hit[2] if hit is not None and hit[0] is node and hit[1] is self.pl else self.path(node)
        if path is not None:
            return Symbol(path)
        if self._symbolic_names and type(node.value) is cst.Name and node.value.value not in ctx.env \
                and f"{node.value.value}.{node.attr.value}" in self._symbolic_names:
            found = self._symbolic(f"{node.value.value}.{node.attr.value}")  # `config.NT`, imported
            if found is not None:
                return found
        if type(node.value) is cst.Name and node.value.value not in ctx.env:
            member = self._class_member(node.value.value, node.attr.value, node)
            if member is not _ABSENT:  # `notify = Ev.notify`, `Ev.EVENT`
                return member
        obj = self.eval(node.value, ctx)
        attr = node.attr.value
        if isinstance(obj, StructV):
            if attr.startswith("__"):  # `st.__getattribute__`, `st.__dict__`: what they give is not followed
                raise CannotModel(f"the check does not follow `{attr}` of a struct: read its fields as `s.field`",
                                  node, kind="construct")
            return self._field(obj, attr, node, ctx)
        if isinstance(obj, TensorV) and attr == "shape":
            return obj.shape
        if type(obj) is Record:  # `TILING.rows` of a data class made at module level
            return obj.fields[attr] if attr in obj.fields else UNKNOWN
        if isinstance(obj, TileV) and attr == "shape":
            return obj.shape if obj.desc else UNKNOWN  # a view's shape is its slice's, not followed
        if type(obj) is Symbol:  # `AT.AtomicAdd` with `AT = pl.AtomicType`: the `pl` constant it names
            return Symbol((*obj.path, attr))
        if attr.startswith("__") and self._made is not None and _ring_carries(obj):
            # `tag.__class__`: the class of what the ring hands on (probe h113)
            raise CannotModel(f"`{self._code_of(node)}` reads what object holds a value, which the pipelined kernel "
                              f"changes{_IDENTITY}", node, kind="identity")
        if attr == "dtype" and self._made is not None and _ring_carries(obj):
            raise CannotModel(f"`{self._code_of(node)}` reads the dtype a scalar is held in, which the pipelined "
                              f"kernel changes{_IDENTITY}", node, kind="identity")
        if attr in MUTATING_METHODS and isinstance(obj, (list, dict, set)):
            # `sorted([0], key=box.append)`, `st.write = box.append` then `print(0, file=st)`: whatever
            # calls the method changes the container, where the check does not look (probe h168)
            raise CannotModel(f"`{self._code_of(node)}` hands on a method that changes a {type(obj).__name__} the "
                              "check follows, which whatever calls it changes where the check does not look: call "
                              f"the method where it is named (`{self._code_of(node)}(...)`)", node, kind="construct")
        return UNKNOWN

    def _class_member(self, cls: str, attr: str, node: cst.CSTNode) -> Any:
        """`cls.attr` where `cls` is a class of the file (`_ABSENT` for any other): a
        `@staticmethod` as the function it is, followed as the file's functions are (the scan of
        a stage follows it as it follows them, `scan.StageScanner`); a
        class attribute bound once to a value of module constants, where nothing changes the
        class. A method's body may raise or wait for events or run any `pl` op: called as
        something unknown, those went unseen (probe h88). Another method is refused."""
        meaning = self.file.meaning(cls)
        if not isinstance(meaning, Class) or not isinstance(meaning.node, cst.ClassDef):
            return _ABSENT
        body = meaning.node.body.body
        bound = [stmt for stmt in body if attr in class_binds(stmt)]
        if not bound:  # (one its bases may bind: a call of it is refused, `_unknown_call_of`)
            return _ABSENT
        fn = bound[-1]
        plain = self.file.fixed_members(meaning.node)
        if any(isinstance(stmt, cst.FunctionDef) for stmt in bound):
            if not plain or not isinstance(fn, cst.FunctionDef):
                raise CannotModel(f"the check follows the `@staticmethod`s of a class only where nothing can replace "
                                  "them: no base, metaclass or decorator of the class, a body of `@staticmethod`s "
                                  f"and constants, and its name used only as `{cls}.member`; `{cls}.{attr}` is not "
                                  "one: make it a function of the file, or the class so", node, kind="construct")
            return FunctionV("helper", fn)
        made = next((n for stmt in bound for n in iter_nodes(stmt) if type(n) is cst.Lambda
                     or type(n) is cst.Call and self.path(n.func) is None and not (
                         type(n.func) is cst.Name and n.func.value in PLAIN_RESULT_BUILTINS)), None)
        if made is not None:  # `KICK = type("K", (), {"__getitem__": kick})()` in the class body
            raise CannotModel(f"`{cls}.{attr}` holds what `{self._code_of(made)}` returns or makes in the class body: "
                              "a value of a kind the check does not know, on which Python may run code of the file "
                              "where the kernel uses it; bind it to a constant", node, kind="construct")
        value = _class_constant(bound, list(body))
        if value is None or not plain or not class_unchanged(self.file, meaning.node):
            return _ABSENT
        found = class_constant(self.file, meaning.node, value)
        return _ABSENT if found is NOT_CONSTANT else found

    def _free_callee(self, func: cst.BaseExpression, ctx: Ctx) -> bool:
        """Whether a call the check does not run, outside a stage, cannot raise or wait for an
        event or run a `pl` op: a builtin, a function of a stateless module (`math.ceil`), a
        plain class of the file made (`Tiling(...)`), a method of a number, string or display."""
        if self._runs_nothing_of_the_file(func, ctx):
            return True
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ctx.env:
            return isinstance(ctx.env[func.value.value], (str, bytes, int, float, tuple, list, dict, set, frozenset))
        return isinstance(func, cst.Attribute) and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString,
                                                                           cst.List, cst.Tuple, cst.Dict))

    def _runs_nothing_of_the_file(self, func: cst.BaseExpression, ctx: Ctx) -> bool:
        """A builtin, a function of a stateless module (`math.ceil`), or a class of the file with
        no method made (`Tiling(...)`): a callee that runs no code of the file, nor a `pl` op."""
        if self._builtin_called(func, ctx) is not None or self._stateless_function(func, ctx):
            return True
        meaning = self.file.meaning(func.value) if isinstance(func, cst.Name) and func.value not in ctx.env else None
        return isinstance(meaning, Class) and _plain_class(meaning.node)

    def _class_running_pl(self, func: cst.BaseExpression, ctx: Ctx) -> str | None:
        """The name of the class of the file a call makes or calls a method of (`Ev()`, `Ev.make()`,
        `Ev().notify()`), when a method of it runs a `pl` op; None otherwise."""
        root = func
        while isinstance(root, (cst.Attribute, cst.Call)):
            root = root.value if isinstance(root, cst.Attribute) else root.func
        if not isinstance(root, cst.Name) or root.value in ctx.env:
            return None
        todo, seen = [root.value], set()
        while todo:  # the class and the classes of the file it is made from (its bases, at any depth)
            name = todo.pop()
            meaning = self.file.meaning(name) if name not in seen else None
            seen.add(name)
            if not isinstance(meaning, Class) or not isinstance(meaning.node, cst.ClassDef):
                continue
            methods = [stmt for stmt in meaning.node.body.body if isinstance(stmt, cst.FunctionDef)]
            if any(self.path(n) is not None for fn in methods for n in self.file.find(fn, (cst.Attribute, cst.Name))):
                return root.value
            todo += [b.value.value for b in meaning.node.bases if isinstance(b.value, cst.Name)]
        return None

    def _field(self, obj: StructV, attr: str, node, ctx: Ctx, default: Any = UNKNOWN) -> Any:
        """A field of a struct; read by the kernel's own code (outside stages), it is kept for
        the comparison with the serial run (`Trace.fields`)."""
        if attr in obj.methods or "*" in obj.methods and attr not in obj.fields:
            raise CannotModel(f"reading `{self._code_of(node)}` runs code of the tiling data's class or gives an "
                              "object (a method, a property, `__getattr__`, a field of another type than numbers, or "
                              "one whose default calls something), which the check does not follow: compute the "
                              "value in the kernel from the fields of numbers", node, kind="construct")
        value = obj.fields.get(attr, default)
        if ctx.scope is None:
            reads = self._field_reads[ctx.core]
            n = reads[id(node)] = reads.get(id(node), 0) + 1
            self.trace.fields[(ctx.core, id(node), n)] = (value, node)
        return value

    def _binary(self, node: cst.BinaryOperation, ctx: Ctx) -> Any:
        # (`_operand` differs from `eval` for a comparison only; a bound name is its value unless
        # that is a run-time value, as `eval` reads it, without its call)
        lhs, rhs = node.left, node.right
        env = ctx.env
        left = env.get(lhs.value, _ABSENT) if type(lhs) is cst.Name else _ABSENT
        if left is _ABSENT or type(left) is Opaque:
            left = self._operand(lhs, ctx) if type(lhs) is _COMPARISON else self.eval(lhs, ctx)
        right = env.get(rhs.value, _ABSENT) if type(rhs) is cst.Name else _ABSENT
        if right is _ABSENT or type(right) is Opaque:
            right = self._operand(rhs, ctx) if type(rhs) is _COMPARISON else self.eval(rhs, ctx)
        if self.periods_read and id(node) in self._certified_ids().updates:
            # `C = (C + 1) % k` of a counter that only picks a tile group's slots
            self.uniform.pick_index = True
            try:
                return self._binop(type(node.operator), left, right, node)
            finally:
                self.uniform.pick_index = False
        return self._binop(type(node.operator), left, right, node)

    def _operand(self, node: cst.BaseExpression, ctx: Ctx) -> Any:
        """An operand of arithmetic. A comparison there is the number 1 or 0 (`base + (core_id <
        rem)`): where its outcome is not settled (a test of the block index or of run-time
        values), the same choice as `(1 if core_id < rem else 0)` (`_choice`), which the check
        names and follows."""
        value = self.eval(node, ctx)
        if type(node) is _COMPARISON and is_unknown(value) and self.tested_at is node:
            test = _choice_test(node, self.tested, self._run_time)
            if test is not None:
                return self._choice(test, [1, 0])
        return value

    def _binop(self, op: Any, left: Any, right: Any, node) -> Any:
        """`left op right` (`op` a libcst operator type), folded as `consteval` folds, with its
        limits: a result too large to compute is not followed."""
        fn = BINOPS.get(op)
        if isinstance(left, Sym) or isinstance(right, Sym):
            return self._sym_binop(fn, left, right, node)
        if fn is None or not known(left, right):
            if fn is operator.floordiv and type(left) is Opaque and type(right) is int and right > 0:
                moved = _moved(left.origin)
                if quotient_parameter(("op", "floordiv", moved, right)) is not None:
                    return opaque_op("floordiv", Opaque(moved), right)  # as `_parameter_quotient` names it
            if fn is not None and opaque_operands(left, right):
                same = _identity(fn, left, right)
                if same is not None:  # `(core_id < rem) * 1`: the value itself, as the check names it
                    return same
                if fn is operator.mod and self.config.discover:
                    self.opaque_residues.update(v.origin for v in (left, right) if type(v) is Opaque)
                return opaque_op(fn.__name__, left, right)
            return UNKNOWN
        if (isinstance(left, (list, tuple)) or isinstance(right, (list, tuple))) and op not in (cst.Add, cst.Multiply):
            return UNKNOWN
        huge = too_big(op, left, right)
        if huge:
            raise CannotModel(f"the result would be {huge}, too large to follow", node)
        try:
            made = fn(left, right)
        except Exception:
            return UNKNOWN
        if self._made is not None and type(made) in (list, dict):
            self._made[id(made)] = made  # `[0] * 2`, `[0] + [0]`, `{...} | {...}`: new, the stage's own
        return made

    def _sym_binop(self, fn, left: Any, right: Any, node) -> Any:
        if fn is operator.floordiv or fn is operator.mod:
            divided = self._sym_divide(fn, left, right, node)
            if divided is not None:
                return divided
        if fn is operator.and_:
            masked = self._masked(left, right, node)
            if masked is not None:
                return masked
        opaque = isinstance(left, Opaque) or isinstance(right, Opaque)
        if opaque and any(isinstance(v, Sym) and on_grid(v.form) for v in (left, right)):
            raise nonuniform(NonUniform(
                f"`{self._code_of(node)}` computes with a coordinate of a tile grid (`idx // n`, `idx % n`) and a "
                "value known only at run time", "use the grid's coordinates only in GM offsets, scaled by numbers: "
                "read the column as `j = idx % n_tiles` (not `idx - i * n_tiles`)"), node)
        if fn is not None and (opaque or self._meets_parameter(fn, left, right)
                               or fn is operator.sub and self._left_of_chunk(left, right)):
            # a run-time value with the block index or count (`(n - core_id + num_cores - 1) //
            # num_cores`, the tiles of one core) or a scalar parameter (`n - chunk`, `core_id *
            # tiling.chunk`): named with them, as run-time values are
            parts = [(v, part) for v, part in ((left, node.left), (right, node.right))] \
                if isinstance(node, cst.BinaryOperation) else []
            named = [v if isinstance(v, Opaque) or type(v) is int
                     else _first_named(self._block_mark(v, part), run_time_size(v)) for v, part in parts]
            if named and all(v is not None for v in named):
                value = opaque_op(fn.__name__, *named)
                start = None
                if fn is operator.mul:  # `core_id * chunk`: a block's chunk start by a run-time size
                    start = self.uniform.opaque_chunk(left, named[1], value)
                    if start is None:
                        start = self.uniform.opaque_chunk(right, named[0], value)
                elif fn is operator.add:  # `core_id * base + min(core_id, rem)`: a balanced split
                    start = self.uniform.balanced_chunk(left, right, value)
                    if start is None:
                        start = self.uniform.balanced_chunk(right, left, value)
                if start is not None:
                    return start
                return value
        if fn is None or not (isinstance(left, (int, float)) and isinstance(right, (int, float))):
            if isinstance(left, (list, tuple)) or isinstance(right, (list, tuple)):
                raise nonuniform(NonUniform(f"`{self._code_of(node)}` builds a sequence whose length varies "
                                             "between runs", "give sequences a static length"), node)
            return UNKNOWN
        if fn in (operator.pow, operator.lshift) and abs(int(right)) > 64:
            raise CannotModel("this power or shift is too large to follow", node)
        try:
            value = fn(int(left) if isinstance(left, Sym) else left, int(right) if isinstance(right, Sym) else right)
        except Exception:
            return UNKNOWN
        try:
            result = self.uniform.binop(fn, left, right, value, partial(self._code_of, node))
        except NonUniform as exc:
            raise nonuniform(exc, node) from None
        if not isinstance(result, (int, Opaque)) and self._varies(left, right):
            # `d / 2`, `d * 1.0`: a number the run follows at one value of `d` only; as itself,
            # a test on it would hold for the values run and be taken as settled for the rest
            return opaque_op(fn.__name__, left, right)
        return result

    def _masked(self, left: Any, right: Any, node) -> Any:
        """`x & m` (a ping-pong buffer's `ki & 1`) with `m` a number of no sign bit, as what it is:
        `(x % 2**k) & m` for the `k` bits of `m`, a residue of `x` (of period `2**k`), judged as
        `x % 2**k` is; None where neither operand is such a mask of a value not yet a residue."""
        for x, m in ((left, right), (right, left)):
            if isinstance(x, Sym) and not x.residue and type(m) in (int, bool) and m >= 0:
                k = 1 << int(m).bit_length()
                text = partial(self._code_of, node)
                try:
                    residue = self.uniform.binop(operator.mod, x, k, int(x) % k, text)
                    return self.uniform.binop(operator.and_, residue, int(m), int(x) & int(m), text)
                except NonUniform as exc:
                    raise nonuniform(exc, node) from None
        return None

    def _sym_divide(self, fn, left: Any, right: Any, node) -> Any:
        """`left // right` or `left % right` (one of them a `Sym`) as the check names it when it is
        a coordinate of a tile grid, a trip count computed from a scalar parameter, a floor split's
        start or a split by the block count; None for any other (computed as arithmetic)."""
        if walks_grid(fn, left):
            # `i = idx // n_tiles`, `j = idx % n_tiles`: a coordinate of a tile grid, whose stand-in
            # count (where the run has none) is the wide one in the runs of an odd total trip count
            launched = evaluate_origin(right.origin, self.config.sizes, {}) \
                if self.config.sizes and isinstance(right, Opaque) else None
            wide = sum(int(v) for v in self.config.trips.values()) % 2 == 1
            grid = self.uniform.grid(fn, left, right, wide, launched)
            if grid is not None:
                return grid
        if fn is operator.floordiv and type(right) is int and right > 0:
            quotient = _parameter_quotient(left, right)
            if quotient is not None and (self.config.discover or quotient.origin in self.trips):
                # `n_rows // TILE`, `(n_rows + TILE - 1) // TILE`: a trip count computed from a scalar
                # parameter, a root of its own as one of a `pl.DYNAMIC` dimension is (the discovery
                # run names it; a run at chosen counts takes the parameter as that run-time value)
                return quotient
        if fn is operator.floordiv and isinstance(node, cst.BinaryOperation) and isinstance(right, Sym) \
                and right.form == (BLOCK_COUNT,) and not right.const \
                and (product := self.uniform.chunk_value(left)) is not None:
            # `core_id * n // num_cores`: a floor split's start, named by the product's run-time value
            count = self._block_mark(right, node.right)
            split = self.uniform.floor_split(left, count, opaque_op("floordiv", product, count))
            if split is not None:
                self.uniform.spread = True
                return split
        if isinstance(node, cst.BinaryOperation) and _by_block_count(left, right):
            # `(N + num_cores - 1) // num_cores`, `N % num_cores` with `N` static: a run-time value the
            # same on every block, as with `N` a `pl.DYNAMIC` dimension (a chunk size, a balanced split)
            count = self._block_mark(right, node.right)
            self.uniform.spread = True  # a split of the work over the blocks: a place each writes is its own
            return opaque_op(fn.__name__, left if type(left) is int else Opaque(_count_origin(left, count)), count)
        return None

    def _meets_parameter(self, fn, left: Any, right: Any) -> bool:
        """A scalar parameter (`chunk`, `tiling.chunk`, `n`) meeting the block index in a product
        (`core_id * chunk`, a chunk start: `Uniform.opaque_chunk`; `(core_id + 1) * chunk`, the next
        block's), or the block count in a sum (`n + num_cores`, of the chunk size `(n + num_cores -
        1) // num_cores`): named as a run-time value, as a `pl.DYNAMIC` dimension in its place is.
        So is any run-time size, a trip-count root included, less the block index (`n - core_id`, of
        a block's task count `(n - core_id + num_cores - 1) // num_cores`): a loop over `n` before
        it makes `n` such a root, and it stays the run-time value it was. (Not a sum with the block
        index: `start + core_id + j`, a place, keeps its stride.) And a block's own run-time value
        (`rest = n - core_id`, a root where a later loop counts up to it) plus the block count."""
        if fn is operator.mul:
            return any(parameter_size(b) is not None and isinstance(a, Sym) and a.form == ((BLOCK, 1),)
                       and a.const in (0, 1) and not a.residue for a, b in ((left, right), (right, left)))
        if fn is operator.sub and run_time_size(left) is not None and isinstance(right, Sym) \
                and right.form == ((BLOCK, 1),) and not right.const and not right.residue:
            return True  # `n - core_id`, of a block's task count: what it is at every value of `n`
        return (fn is operator.add or fn is operator.sub) and any(
            (parameter_size(b) is not None or _of_a_block(run_time_size(b))) and isinstance(a, Sym)
            and a.form == (BLOCK_COUNT,) and not a.const and not a.residue for a, b in ((left, right), (right, left)))

    def _left_of_chunk(self, left: Any, right: Any) -> bool:
        """`N - start`, `N` a whole number or a scalar parameter and `start` a chunk start by a
        run-time size: the tasks left from the block's chunk on, a run-time value
        (`Uniform.opaque_chunk`)."""
        return (type(left) is int or parameter_size(left) is not None) and self.uniform.chunk_value(right) is not None

    def _clamped(self, value: Any) -> Any:
        """An argument of `min`/`max` beside a run-time value, as a run-time value where it is a
        scalar parameter (`min(chunk, n - start)`) or a chunk start plus one (`min(start + chunk,
        n)`, `Uniform.opaque_chunk`); anything else unchanged."""
        size = parameter_size(value)
        if size is not None:
            return size
        if not isinstance(value, Sym) or len(value.form) != 2 or value.const or value.residue:
            return value
        for (a, ca), (b, cb) in (value.form, value.form[::-1]):
            start = self.uniform.chunk_value(Sym(0, ((a, ca),)))
            size = parameter_size(Sym(int(value), ((b, cb),)))
            if start is not None and size is not None:
                return opaque_op("add", start, size)
        return value

    def _block_mark(self, value: Any, node) -> Opaque | None:
        """A value computed from the block index and count only (`core_id`, `num_cores`) inside
        a run-time value, named by its text and this run's number (block 0 of one; the two vector
        cores may differ), never a bare number another expression could also give; None for
        anything else."""
        chunk = self.uniform.chunk_value(value)
        if chunk is not None:  # `n - start`: the start as the run-time value it is
            return chunk
        if isinstance(value, Sym) and type(value.const) is int and value.const and not value.residue:
            # `start + 1` (then `+ base`: probe h229): the start moved by a number, as `start + base + 1` is
            chunk = self.uniform.chunk_value(Sym(int(value) - value.const, value.form))
            if chunk is not None:
                return opaque_op("add", chunk, value.const)
        if not (isinstance(value, Sym) and value.form and not value.residue
                and all(block_only(var) and var[0] != "derived" for var, _ in value.form)):
            # `num_cores ** pl.get_subblock_num()`: a value of its own on each core, which one
            # mark by its text would take for one number
            return None
        kind = {(BLOCK_COUNT,): "count", ((BLOCK, 1),): "index"}.get(value.form, "other") if not value.const \
            else "index+1" if value.form == ((BLOCK, 1),) and value.const == 1 else "other"
        # the number with its form: two block values written alike (`c` rebound, a helper's
        # parameter) are two values unless they are the same value. The block count, the block
        # index and the index plus one are those values however they are written (`num_cores`,
        # `pl.get_block_num()`, `(nc)`): their form says which
        text = _EXACT_BLOCK_TEXT.get(kind) or self._code_of(node)
        return Opaque(("block", text, OriginSym.of(value), kind))

    def _varies(self, *values: Any) -> bool:
        """Whether a value the run follows at one value stands for others (`values.run_time`):
        what is computed from it must stay a run-time value, not this run's number. A
        discovery run only finds loops, and keeps numbers."""
        return not self.config.discover and any(run_time(v) for v in values)

    def _unary(self, node: cst.UnaryOperation, ctx: Ctx) -> Any:
        value = self.eval(node.expression, ctx)
        if isinstance(value, Sym):
            if isinstance(node.operator, cst.Minus):
                return self.uniform.negate(value)
            if isinstance(node.operator, cst.Plus):
                return value
            if isinstance(node.operator, cst.BitInvert):  # `~d` is `-d - 1`: affine, keeps its form
                return self._binop(cst.Subtract, self.uniform.negate(value), 1, node)
            if isinstance(node.operator, cst.Not):
                t = self.truth(value, node.expression)
                return UNKNOWN if t is None else not t
            self._plain(value, "the operand of", node)
        if isinstance(value, OneBlock) and isinstance(node.operator, cst.Not):
            return OneBlock(value.block, not value.others)  # `not core_id == 0`
        if is_unknown(value):
            return opaque_op(type(node.operator).__name__, value) if isinstance(value, Opaque) else UNKNOWN
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
            if _effects_in(node.right):
                raise CannotModel(f"`{self._code_of(node.right)}` may or may not run (the left of "
                                  f"`{self._code_of(node)}` is not known): compute it in a statement of its own",
                                  node.right, kind="construct")
            right = self.eval(node.right, ctx)
            if isinstance(node.operator, cst.And):
                # `core_id == 0 and x`: true on that block at most
                single = next((v for v in (left, right) if isinstance(v, OneBlock) and not v.others), None)
                if single is not None:
                    return False if right is False else single
            else:
                # `core_id != 0 or x`: false on that block at most (its `else` is that block's)
                single = next((v for v in (left, right) if isinstance(v, OneBlock) and v.others), None)
                if single is not None:
                    return True if right is True else single
            if right is (not isinstance(node.operator, cst.And)) and _gives_a_bool(node.left):
                # `alpha > 0.0 and i == n - 1` at an iteration but the last: False whichever the left is
                return right
            return UNKNOWN
        is_and = isinstance(node.operator, cst.And)
        if t != is_and:
            return left
        return self.eval(node.right, ctx)

    def _compare(self, node: cst.Comparison, ctx: Ctx) -> Any:
        left = self.eval(node.left, ctx)
        result: Any = True
        for target in node.comparisons:
            if result is False:
                break  # Python stops at the first comparison that is false
            if target is not node.comparisons[0] and _effects_in(target.comparator):
                raise CannotModel(f"`{self._code_of(target.comparator)}` may or may not run in a chained comparison: "
                                  "compute it in a statement of its own", target.comparator, kind="construct")
            right = self.eval(target.comparator, ctx)
            if self._made is not None and (_holds_struct([left]) or _holds_struct([right])) \
                    and not (_singleton(left) or _singleton(right)):  # (`st is None`: decided, one way in both)
                # a `pl.struct` has no `==` of its own: `a == b`, `a in (b,)` test identity, and the
                # ring hands two structs as one ctx entry (probe h113)
                raise CannotModel(f"`{self._code_of(node)}` compares structs, which is whether they are one "
                                  f"object, which the pipelined kernel changes{_IDENTITY}", node, kind="identity")
            if _tells_blocks_apart(left, right):
                # the check follows block 0: for the others, either outcome (both ways, `may`);
                # `core_id == c` alone is true on one block only
                self.uniform.block_tests.append(self._code_of(node))
                self.tested, self.tested_at = (left, right), node
                single = _one_block(left, right) if len(node.comparisons) == 1 and isinstance(
                    target.operator, (cst.Equal, cst.NotEqual)) else None
                left, result = right, (OneBlock(single, isinstance(target.operator, cst.NotEqual))
                                       if single is not None else UNKNOWN)
                continue
            if self._quiet_test is node and (isinstance(left, Sym) or isinstance(right, Sym)):
                # the test of a quiet return (`exec_if`): undecided, what it compares named
                self.tested_apart |= _apart_between_blocks(left, right)
                result, self.tested, self.tested_at = UNKNOWN, (left, right), node
                continue
            if (isinstance(left, Sym) or isinstance(right, Sym)) and known(left, right) and not is_unknown(result):
                op = _CMPOPS[type(target.operator)]
                if not all(isinstance(v, (int, float)) for v in (left, right)) or op in (operator.is_, operator.is_not):
                    result = UNKNOWN
                else:
                    ok = op(left, right)
                    # `cnt > 0` with `cnt` a block's task count: settled for this run's count, which
                    # another block may not have (`exec_if`: a barrier under it)
                    self.tested_apart |= _apart_between_blocks(left, right)
                    try:
                        self.uniform.test(left, right, ok, self._code_of(node), op)
                    except NonUniform as exc:
                        raise nonuniform(exc, node) from None
                    if not ok:
                        result = False
            elif not known(left, right) or _holds_run_time(left) or _holds_run_time(right):
                # `(d, 0) == (7, 0)`: a test on a run-time value inside a sequence, which the
                # check does not split: either outcome (followed both ways)
                result = UNKNOWN
                # `start + cnt > n`: what a choice by the test names (`_choose_assignments`)
                self.tested, self.tested_at = (left, right), node
            elif not is_unknown(result) and type(left) is Symbol and type(right) is Symbol and left.path == right.path \
                    and type(target.operator) in _SAME_MEMBER:
                # two spellings of one `pl` constant (`DTYPE == pl.DT_FP32` with `DTYPE = pl.DT_FP32`):
                # one enum member, equal and identical to itself
                if not _SAME_MEMBER[type(target.operator)]:
                    result = False
            elif not is_unknown(result):
                if self._made is not None and type(target.operator) in (cst.Is, cst.IsNot) \
                        and not (_singleton(left) or _singleton(right)) \
                        and (_ring_carries(left) or _ring_carries(right)):
                    raise CannotModel(f"`{self._code_of(node)}` tests whether two values are one object, which the "
                                      f"pipelined kernel changes{_IDENTITY}", node, kind="identity")
                if type(target.operator) in (cst.Is, cst.IsNot) and (left is None or right is None):
                    # `layout is None` in a tile-type factory: no value the model holds is None but None
                    # itself (a `pl` constant, a tile, a number are not), whatever `==` would say of it
                    if not _CMPOPS[type(target.operator)](left, right):
                        result = False
                    left = right
                    continue
                if type(target.operator) in (cst.Is, cst.IsNot) and not (_singleton(left) or _singleton(right)) \
                        or _opaque_to_compare(left) or _opaque_to_compare(right):
                    # `ROWS is ROWS` (the model copies a module list at every read), `p is q` of two equal
                    # constants (Python may keep one object), a `pl` constant (an `IntEnum` member equals
                    # its number, `pl.ND` may be `pl.TileLayout.ND`): not decided
                    result = UNKNOWN
                    left = right
                    continue
                try:
                    if not _CMPOPS[type(target.operator)](left, right):
                        result = False
                except Exception:
                    result = UNKNOWN
            left = right
        return result

    def _ifexp(self, node: cst.IfExp, ctx: Ctx) -> Any:
        self.tested = None
        t = self.truth(self.eval(node.test, ctx), node.test)
        if t is None:
            if any(type(n) is cst.NamedExpr for arm in (node.body, node.orelse) for n in iter_nodes(arm)):
                raise CannotModel("`:=` in an arm of a choice whose test is not known: it may or may not run",
                                  node, kind="construct")
            if not all(self._pure(arm, ctx) for arm in (node.body, node.orelse)):
                # `copy_back(...) if core_id >= 0 else None`: which call runs is not known, and what it
                # does (stores, syncs, barriers) would go unseen
                raise CannotModel(f"`{self._code_of(node)}` calls something in an arm of a choice whose test the check "
                                  "cannot decide: write it as an `if` statement, whose branches the check follows",
                                  node, kind="construct")
            return self._by_block(node, ctx, self.tested if self.tested_at is _without_not(node.test) else None)
        return self.eval(node.body if t else node.orelse, ctx)

    def _choose_assignments(self, node: cst.If, ctx: Ctx, tested: tuple | None) -> bool:
        """`if core_id < rem: cnt = base + 1 ... else: cnt = base ...`: a test of the block index
        between branches that only bind names to values computed without calls binds each name to
        the choice between its two values (`_by_block`), as the conditional expression does; a
        balanced split's start (`Uniform.balanced_choice`) is its chunk start. False, and nothing
        done, for any other `if`."""
        test = _choice_test(node.test, tested, self._run_time)
        blocks = [node.body] + ([node.orelse.body] if isinstance(node.orelse, cst.Else) else [])
        if test is not None and type(node.orelse) is cst.If and node.orelse.orelse is None \
                and self._complement(node.orelse.test, test, ctx):
            blocks.append(node.orelse.body)  # `elif core_id >= rem:` after `if core_id < rem:` is its `else`
        if test is None or node.orelse is not None and len(blocks) == 1 or not all(
                _plain_assignments(block) and self._pure(block, ctx) for block in blocks):
            return False
        before = ctx.env
        arms = []
        for block in blocks:
            ctx.env = dict(before)
            try:
                self.exec_block(block.body, [ctx])
            finally:
                arms.append(ctx.env)
                ctx.env = before
        if len(arms) == 1:  # no `else`: the names keep their values
            arms.append(before)
        merged = {}
        plain = []  #: the names bound to a choice between their two values
        for name in {*arms[0], *arms[1]} - {n for n in before if _kept(before[n], arms[0].get(n)) and
                                                _kept(before[n], arms[1].get(n))}:
            values = [self._arm(arm.get(name, UNKNOWN)) for arm in arms]
            if name in arms[0] and name in arms[1] and _kept(arms[0][name], arms[1][name]):
                merged[name] = arms[0][name]
                continue
            stepped = self._stepped_choice(test, before.get(name), values, node)
            merged[name] = self._choice(test, values) if stepped is None else stepped
            if stepped is None:
                plain.append(name)
        for name in sorted(plain):
            relative = self._relative_choice(test, name, arms, merged, node)
            if relative is not None:
                merged[name] = relative
        ctx.env = {**before, **merged}
        return True

    def _complement(self, test: cst.BaseExpression, choice: tuple, ctx: Ctx) -> bool:
        """Does `test` (an `elif`'s) hold exactly where the choice test `choice` does not (`core_id >= rem`
        after `core_id < rem`; probe h229: the arms form written with `elif` was refused without naming
        it)? Its comparison is evaluated as `exec_if` would, what that records put back."""
        if self._test_names(test)[0] or any(type(n) is cst.NamedExpr for n in iter_nodes(test)):
            return False  # (a call, or `(pad := 1)`, which binds a name the `if`'s arm reads: probe h235)
        saved = self.tested, self.tested_at, self.tested_apart, len(self.uniform.block_tests), ctx.env
        self.tested, ctx.env = None, dict(ctx.env)
        try:
            self.eval(test, ctx)
            tested = self.tested if self.tested_at is _without_not(test) else None
        except CannotModel:
            return False
        finally:
            self.tested, self.tested_at, self.tested_apart = saved[:3]
            del self.uniform.block_tests[saved[3]:]
            ctx.env = saved[4]
        other = _choice_test(test, tested, self._run_time)
        return other is not None and other[0] == choice[0] and other[1] != choice[1]

    def _relative_choice(self, test: tuple, name: str, arms: list, merged: dict, node: cst.If) -> Any:
        """`if core_id < rem: start = core_id * (base + 1); end = start + base + 1`, `else: start =
        core_id * base + rem; end = start + base`: a name that each arm binds to another name's
        value in that arm plus a sum of its own is that other name's choice (a balanced split's
        start, `Uniform.balanced_choice`) plus the choice between the sums, as `end = start + base`
        then `if core_id < rem: end = end + 1` computes it (probe h220: the choice of two whole
        sums named nothing a block's chunk is read from). None where no name is so."""
        for other in sorted(merged):
            if other == name or not isinstance(merged[other], Sym):
                continue  # (a choice the split's start was not made of names nothing)
            rests = []
            for arm in arms:
                own, mine = self._arm(arm.get(other, UNKNOWN)), self._arm(arm.get(name, UNKNOWN))
                if own is None or mine is None or type(own) is int:
                    break
                rest = _less_sum(_sum_of(mine), _sum_of(own))
                if rest is None:
                    break
                rests.append(rest)
            else:
                named = self._run_time(merged[other])
                if named is not None:
                    return self._binop(cst.Add, named, self._choice(test, rests), node)
        return None

    def _stepped_choice(self, test: tuple, before: Any, arms: list, node: cst.If) -> Any:
        """`end = start + base` then `if core_id < rem: end = end + 1`: arms that are the value the
        name had plus a constant each (none for an arm that keeps it) are that value plus the choice
        between the constants, as `end = start + base + (1 if core_id < rem else 0)` computes it;
        the choice of two whole sums named nothing the chunk of a balanced split is read from
        (probe h208). None where the arms are not so."""
        base = self._arm(before) if before is not None else None
        if base is None or type(base) is int:
            return None
        terms, const = _sum_of(base)
        steps = []
        for arm in arms:  # (`end + 1`, `1 + end`, `start + (base + 1)` of `end = start + base`: probe h214)
            arm_terms, arm_const = _sum_of(arm) if arm is not None else ((None,), 0)
            if arm_terms != terms:
                return None
            steps.append(arm_const)
        # the constant of the value before joins the choice (`end = start + base + 1` then `if core_id
        # >= rem: end = end - 1` is `start + base` plus 1 or 0, probe h216)
        terms_alone = self._binop(cst.Subtract, before, const, node) if const else before
        return self._binop(cst.Add, terms_alone, self._choice(test, steps), node)

    def _pure(self, node: cst.CSTNode, ctx: Ctx) -> bool:
        """Does `node` call nothing but `min`, `max` and `abs` (the builtins, not names rebound):
        values a choice can be made of without running anything else?"""
        return all(isinstance(n.func, cst.Name) and n.func.value in _PURE_BUILTINS
                   and self.eval(n.func, ctx) == Builtin(n.func.value)
                   for n in iter_nodes(node) if type(n) is cst.Call)

    def _arm(self, value: Any) -> Any:
        """A value as an arm of a choice: a plain number or the origin of the run-time value it is
        (`_run_time`); None for anything else."""
        if type(value) is int:
            return value
        named = self._run_time(value)
        return None if named is None else named.origin

    def _run_time(self, value: Any) -> Opaque | None:
        """The run-time value `value` is: itself, a chunk start's (`Uniform.opaque_chunk`), a scalar
        parameter's (`parameter_size`), a chunk start plus a parameter (`_clamped`); or None."""
        if isinstance(value, Opaque):
            return value
        named = _first_named(self.uniform.chunk_value(value), self._clamped(value))
        return named if isinstance(named, Opaque) else None

    def _by_block(self, node: cst.IfExp, ctx: Ctx, tested: tuple | None) -> Any:
        """`a if core_id < rem else b`, a choice by one comparison (`tested`, what the test itself
        compared: of the block index, or of run-time values) between values computed without
        calls (`_choice`); UNKNOWN for anything else."""
        test = _choice_test(node.test, tested, self._run_time)
        if test is None or not all(self._pure(arm, ctx) for arm in (node.body, node.orelse)):
            return UNKNOWN
        return self._choice(test, [self._arm(self.eval(arm, ctx)) for arm in (node.body, node.orelse)])

    def _choice(self, test: tuple, arms: list) -> Any:
        """The run-time value naming a test and the values chosen by it (`("op", "choose", test, a,
        b)`: `a` where the test holds), with the test as `_choice_test` gives it (`swap`: the arms
        come the other way round); a balanced split's start is its chunk start
        (`Uniform.balanced_choice`). UNKNOWN when an arm is no value a choice can name."""
        kind, swap = test
        if any(a is None for a in arms):
            return UNKNOWN
        value = Opaque(("op", "choose", kind, *(arms[::-1] if swap else arms)))
        start = self.uniform.balanced_choice(value)
        return value if start is None else start

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
        made = tuple(out) if type(node) is cst.Tuple else out
        if self._made is not None and type(made) is list:
            self._made[id(made)] = made  # a list this stage invocation made: its own to change
        if self.periods_read and id(node) in self._certified_ids().displays:
            self.sequences[id(made)] = made  # a certified tuple of tiles or event-id list
        return made

    def _walrus(self, node: cst.NamedExpr, ctx: Ctx) -> Any:
        """`(k := v)`: `v`, bound to `k` as an assignment binds it."""
        value = self.eval(node.value, ctx)
        self.assign(node.target, value, ctx)
        return value

    def _dict(self, node: cst.Dict, ctx: Ctx) -> Any:
        """A dict display: its values (what a call it is handed could reach), keyed as written
        where the keys are known."""
        items: list[tuple[Any, Any]] = []
        exact = True
        for el in node.elements:
            if isinstance(el, cst.DictElement):
                key = self.eval(el.key, ctx)
                exact &= containers.plain_key(key)
                items.append((key, self.eval(el.value, ctx)))
            else:  # `**other`
                other = self.eval(el.value, ctx)
                exact &= type(other) is dict
                items += list(other.items()) if type(other) is dict else [(None, other)]
        # keys Python compares as the model does: Python's own dict merges them (`{0: a, 0.0: b}`)
        out = dict(items) if exact else Unkeyed({("?", i): value for i, (_, value) in enumerate(items)})
        if self._made is not None:
            self._made[id(out)] = out  # a dict this stage invocation made: its own to change
        return out

    def _subscript(self, node: cst.Subscript, ctx: Ctx) -> Any:
        held = node.value
        # a bound name is its value unless that is a run-time value (`eval`, without its call)
        obj: Any = ctx.env.get(held.value, _ABSENT) if type(held) is cst.Name else _ABSENT
        if obj is _ABSENT or type(obj) is Opaque:
            obj = self.eval(held, ctx)
        if isinstance(obj, (TileV, AnyTileV)):
            if len(node.slice) > 1 and all(isinstance(e.slice, cst.Index) for e in node.slice):
                return self._element_access(obj, node, "R", ctx)
            bounds = []
            for e in node.slice:
                if isinstance(e.slice, cst.Slice):
                    bounds.append(tuple(None if part is None else self.eval(part, ctx)
                                        for part in (e.slice.lower, e.slice.upper, e.slice.step)))
            # a view: the same tile's bytes (its whole extent, conservatively), a descriptor of its
            # own, and the rows and columns it spans when its bounds are static
            return AnyTileV(tuple(self._view(t, bounds) for t in obj.choices), obj.label) \
                if isinstance(obj, AnyTileV) else self._view(obj, bounds)
        if isinstance(obj, TensorV) and any(type(e.slice) is cst.Slice for e in node.slice):
            return TensorView(obj.name)  # `out[:, 0:BLOCK]`: a view, which reads nothing (h115)
        if isinstance(obj, TensorV):
            return self._gm_element(obj, node, "R", ctx)
        if len(node.slice) == 1 and type(node.slice[0].slice) is cst.Slice and type(obj) in (list, tuple):
            return self._sliced(obj, node.slice[0].slice, ctx)
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return UNKNOWN
        if type(obj) is dict:  # `rows["r"]`: by a key compared alike at every run
            key = self.eval(node.slice[0].slice.value, ctx)
            if isinstance(key, Sym) and not key.residue:
                # `{...}[i]`: an entry per iteration, followed only at the counts run (probe h81), as
                # a tuple's pick by the loop variable is refused below
                self._plain(key, "the key", node.slice[0].slice.value)
            if isinstance(key, Sym) and key.residue:
                key = int(key)  # `{0: r0, 1: r1}[i % 2]`: the task's entry, as a tuple's pick below
            return obj.get(key, UNKNOWN) if containers.plain_key(key) else UNKNOWN
        if self.periods_read and (type(obj) is GroupV or id(obj) in self.sequences):
            index = self._pick_index(obj, node, ctx)
        elif self.rotation_margin is None and _is_ring(obj):  # the generated kernel's ctx ring
            index = self._ring_index(obj, node, ctx)
        else:
            index = self.eval(node.slice[0].slice.value, ctx)
        if isinstance(index, Sym) and not index.residue and isinstance(obj, (GroupV, list, tuple)):
            self._plain(index, "the index", node.slice[0].slice.value)
            if not any(var[0] in INDEX for var, _ in index.form):
                index = UNKNOWN  # a parameter, the block index: any element, for every value
        if isinstance(obj, GroupV):
            if isinstance(index, int) and 0 <= index < obj.depth:
                return obj.tiles[index]
            return AnyTileV(obj.tiles, f"{obj.name}[?]")
        if isinstance(obj, (list, tuple)):
            if isinstance(index, int):  # (a bool too: `(y, c_vec)[SKIP]` picks `y` when SKIP is False)
                try:
                    return obj[index]
                except IndexError:
                    return UNKNOWN
            tiles = [t for t in obj if isinstance(t, TileV)]
            if tiles and len(tiles) == len(obj):
                return AnyTileV(tuple(tiles), "one of " + ", ".join(t.label for t in tiles))
        return UNKNOWN

    def _sliced(self, seq: list | tuple, part: cst.Slice, ctx: Ctx) -> Any:
        """`seq[a:b:c]` with whole-number bounds: a new list (`rows = ROWS[:]`, the stage's own to
        change) or tuple; UNKNOWN for bounds known only at run time."""
        bounds = [None if e is None else self.eval(e, ctx) for e in (part.lower, part.upper, part.step)]
        if not all(b is None or type(b) is int for b in bounds) or bounds[2] == 0:
            return UNKNOWN
        return self._own(seq[slice(*bounds)])

    def _view(self, tile: TileV, bounds: list) -> TileV:
        """`tile` as a view (descriptor 0) spanning `view_part(tile, bounds)`, and the bytes of its
        rows where it has whole rows of an ND tile (`row_span`), made once per tile, part and
        span: tiles are immutable, and `dataclasses.replace` costs more than the rest of the
        subscript."""
        part = view_part(tile, bounds)
        span = row_span(tile, bounds, part)
        key = (id(tile), part, span)
        hit = self._views.get(key)
        if hit is None or hit[0] is not tile:
            hit = self._views[key] = (tile, replace(tile, desc=0, part=part, base=tile.desc or tile.base, span=span))
        return hit[1]

    def _ring_index(self, ring: list, pick: cst.Subscript, ctx: Ctx) -> Any:
        """The index of a pick of a ctx-ring entry. A pick the certificate lists (the ring
        counter picks nothing else: `_ring_picks`) by a residue of a moving value is a pick
        residue (`Rotations.pick_residues`), recorded as the pick it makes."""
        node = pick.slice[0].slice.value  # type: ignore[attr-defined]  # an Index: checked by the caller
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo)):
            return self.eval(node, ctx)
        left, right = self.eval(node.left, ctx), self.eval(node.right, ctx)
        if not (self.periods_read and isinstance(left, Sym) and left.form and id(pick) in self._ring_pick_ids()):
            return self._binop(cst.Modulo, left, right, node)
        return self._residue_pick(ring, len(ring), left, right, node)

    def _pick_index(self, seq: Any, pick: cst.Subscript, ctx: Ctx) -> Any:
        """The index of a subscript of a certified sequence (`renaming.py`: a tuple of tiles, an
        event-id list) or of a tile group, recorded as the pick it makes (`Rotations.picked`):
        by a residue of its length, by a counter that picks its slots, or by anything else (a
        constant outside a block that picks every entry: the entries are then not renamed)."""
        certs = self._certified_ids()
        node = pick.slice[0].slice.value  # type: ignore[attr-defined]  # an Index: checked by the caller
        length = seq.depth if type(seq) is GroupV else len(seq)
        rot = self.uniform.rot
        if id(pick) in certs.constant_picks:
            return self.eval(node, ctx)
        if id(pick) in certs.counter_picks:
            index = self.eval(node, ctx)
            rot.picked(seq, (index.form, length) if isinstance(index, Sym) and index.residue and index.form else None,
                       length)
            return index
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
            left, right = self.eval(node.left, ctx), self.eval(node.right, ctx)
            if isinstance(left, Sym) and left.form and type(right) is int and right == length:
                return self._residue_pick(seq, length, left, right, node)
            index = self._binop(cst.Modulo, left, right, node)
        else:
            index = self.eval(node, ctx)
        rot.picked(seq, None, length)
        return index

    def _residue_pick(self, seq: Any, length: int, left: Any, right: Any, node: cst.BinaryOperation) -> Any:
        """`left % right` taken as a pick residue of `seq`, and the pick recorded."""
        self.uniform.pick_index = True
        try:
            index = self._binop(cst.Modulo, left, right, node)
        finally:
            self.uniform.pick_index = False
        picked = isinstance(index, Sym) and index.residue and type(right) is int
        self.uniform.rot.picked(seq, (index.form, right) if picked else None, length)
        return index

    def _certified_ids(self) -> _CertifiedIds:
        """The node sets of `_renaming()` as the ids of their nodes, made once per run: hashing a
        node is a call into libcst, an id is not (the certificates hold their nodes, so each id
        stays its node's)."""
        ids = self._cert_ids
        if ids is None:
            certs = self._renaming()
            ids = self._cert_ids = _CertifiedIds(_ids(certs.updates), _ids(certs.displays),
                                                 _ids(certs.constant_picks), _ids(certs.counter_picks))
        return ids

    def _ring_pick_ids(self) -> frozenset[int]:
        """`_ring_picks()` as the ids of its nodes, made once per run (`_certified_ids`)."""
        ids = self._ring_ids
        if ids is None:
            ids = self._ring_ids = _ids(self._ring_picks())
        return ids

    # calls ---------------------------------------------------------------------------------
    def _call(self, node: cst.Call, ctx: Ctx) -> Any:
        hit = self._paths.get(id(node.func))  # (`path`'s memo, read without its call)
        path = hit[2] if hit is not None and hit[0] is node.func and hit[1] is self.pl else self.path(node.func)
        if path is not None:
            return self.pl_call(path, node, ctx)
        func = node.func
        if type(func) is cst.Attribute:
            if type(func.value) is cst.Name and func.value.value not in ctx.env:
                method = self._class_member(func.value.value, func.attr.value, func)
                if isinstance(method, FunctionV):  # `Ev.notify(...)`: a static method of a class of the file
                    return self.call_function(method, node, ctx)
                if self._stateless_function(func, ctx) and self.file.names.origins.get(func.value.value) == "math" \
                        and func.attr.value in MATH:
                    return self._math_call(func.attr.value, node, ctx)
            obj = self.eval(func.value, ctx)
            if isinstance(obj, GroupV) and func.attr.value in ("next", "current", "previous"):
                return self.pick(obj, func.attr.value, ctx)
            if func.attr.value == "copy" and type(obj) in (list, dict) and not node.args:
                return self._own(obj.copy())  # `rows = ROWS.copy()`: a new container
            if func.attr.value == "get" and type(obj) is dict and 1 <= len(node.args) <= 2 \
                    and not any(a.keyword or a.star for a in node.args):
                key, *default = [self.eval(a.value, ctx) for a in node.args]
                return obj.get(key, *default) if containers.plain_key(key) else UNKNOWN
            if isinstance(obj, StructV):  # `st.__getattribute__("f")`: what it gives is not followed
                raise CannotModel(f"the check does not follow a method of a struct (`{self._code_of(func)}`): read "
                                  "its fields as `s.field`", node, kind="construct")
            local = isinstance(func.value, cst.Name) and func.value.value in ctx.env  # not a module's name
            if func.attr.value in MUTATING_METHODS and (isinstance(obj, (list, dict)) or is_unknown(obj) and local):
                self._kept_outside(obj, func.value, node, ctx)
                if type(obj) in (list, dict):
                    pos, kw = self._args(node, ctx)
                    return self._change(lambda: containers.call_method(obj, func.attr.value, pos, kw), node, ctx,
                                        obj)
            return self._unknown_call(node, ctx)
        if type(func) is cst.Name and func.value not in ctx.env:
            head, _, leaf = self.file.names.origins.get(func.value, "").partition(".")
            meaning = self.file.meaning(func.value)
            if head == "math" and leaf in MATH and isinstance(meaning, Unknown) and meaning.imported \
                    and not changed_under(self.file.source.text, func.value):  # `from math import ceil`
                return self._math_call(leaf, node, ctx)
        callee = self.eval(func, ctx)
        if isinstance(callee, FunctionV):
            return self.call_function(callee, node, ctx)
        if isinstance(callee, Builtin):
            return self._builtin(callee.name, node, ctx)
        if isinstance(callee, Symbol):  # a `pl` op under another name: `st = pl.store`, `ops[0]`, a default
            return self.pl_call(callee.path, node, ctx)
        if isinstance(callee, Unrun):
            raise CannotModel("the check does not run lambdas: write a `def` in the file and call it", node,
                              kind="construct")
        if is_unknown(callee) and not (type(func) is cst.Name and func.value not in ctx.env):
            # `fn = [pl.system.bar_all, pl.system.sync_all][core_id == 0]; fn()`: a function chosen by
            # what the check cannot decide may be a `pl` op (a barrier, a sync, a store); one handed a
            # tile or tensor is named by what it may do with it (`_unknown_call_of`)
            pos, kw = self._args(node, ctx)
            if _handle_in([*pos, *kw.values()]) is not None:
                return self._unknown_call_of(node, pos, kw, ctx)
            raise CannotModel(f"the check cannot tell which function `{self._code_of(func)}` is here: it may be a "
                              "`pl` op that runs on some blocks or cores only; call each function by its name, under "
                              "an `if` statement", node, kind="construct")
        return self._unknown_call(node, ctx)

    def _math_call(self, name: str, node: cst.Call, ctx: Ctx) -> Any:
        """A function of Python's `math` module: `math.floor(x / k)` and `math.ceil(x / k)` of
        integers that vary between runs (a dimension, an integer parameter, the loop variable, the
        block index or count) are `x // k` and `-(-x // k)` (`(x + k - 1) // k` for a whole `k > 0`),
        followed as those are (a trip count or a split written so was a value the check could not
        follow, probes h101 and h106), exact while the quotient is below 2 ** 53; of numbers this
        run knows, it is what Python computes (`(2 ** 54 + 2) / 2` rounds first: probe h106)."""
        args = node.args
        if name in ("floor", "ceil") and len(args) == 1 and args[0].keyword is None and not args[0].star \
                and type(args[0].value) is cst.BinaryOperation and type(args[0].value.operator) is cst.Divide:
            divided = args[0].value
            left, right = self.eval(divided.left, ctx), self.eval(divided.right, ctx)
            if _integral(left) and _integral(right) and (_varying(left) or _varying(right)):
                if name == "floor":
                    return self._binop(cst.FloorDivide, left, right, divided)
                if type(right) is int and right > 0:
                    return self._binop(cst.FloorDivide, self._binop(cst.Add, left, right - 1, divided), right,
                                       divided)
                negated = self._binop(cst.FloorDivide, self._binop(cst.Subtract, 0, left, divided), right, divided)
                return self._binop(cst.Subtract, 0, negated, divided)
            pos: list = [self._binop(cst.Divide, left, right, divided)]
            kw: dict = {}
        else:
            pos, kw = self._args(node, ctx)
        if not kw and pos and all(type(p) in (int, float) for p in pos) \
                and not any(type(p) is int and p.bit_length() > MAX_FOLD_BITS for p in pos):
            try:
                return MATH[name](*pos)
            except (ArithmeticError, ValueError):
                pass
        named = "math.pow" if name == "pow" else name  # (a float, where the builtin `pow` of integers is not)
        if not kw and opaque_operands(*pos):  # `math.sqrt(alpha)` of a run-time value: one of its own
            return opaque_op(named, *pos)
        if not kw and pos and all(isinstance(p, (int, float)) and type(p) is not bool and known(p) for p in pos) \
                and any(isinstance(p, Sym) for p in pos):
            return self._of_numbers_of_the_run(named, MATH[name], pos)
        return self._unknown_call_of(node, pos, kw, ctx)

    def _numbers_of(self, name: str, pos: list) -> Any:
        """`pow(a, b)` or `sum(xs)` (`_OF_NUMBERS`): computed of numbers, named of run-time values
        (`Opaque`, or numbers the run follows with their form: `_of_numbers_of_the_run`), else unknown."""
        items = pos if name == "pow" and len(pos) == 2 else list(pos[0]) \
            if name == "sum" and len(pos) == 1 and type(pos[0]) in (list, tuple) and len(pos[0]) <= MAX_ITEMS else None
        if items is None:
            return UNKNOWN
        if opaque_operands(*items):
            return opaque_op(name, *items)
        if not all(isinstance(p, (int, float)) and type(p) is not bool and known(p) for p in items) \
                or name == "pow" and too_big(cst.Power, *(int(p) if isinstance(p, Sym) else p for p in items)):
            return UNKNOWN
        if any(isinstance(p, Sym) for p in items):
            return self._of_numbers_of_the_run(name, _OF_NUMBERS[name], items)
        try:
            return _OF_NUMBERS[name](*items)
        except (ArithmeticError, ValueError, TypeError):
            return UNKNOWN

    def _of_numbers_of_the_run(self, name: str, fn: Callable[..., Any], pos: list) -> Any:
        """A function the check computes (`math.exp`, `pow`, `sum`) of numbers the run follows with
        their form (`i % 2`, a sampled parameter, a trip count), as the builtins in `_NUMBER_OF` are: one
        that stands for other values at other runs is a run-time value named by the call, so that what a
        stage receives from it is compared between the runs (probe h113: `pow(1.5, i % 2)` was unknown and
        never compared); one the same at every run (a residue, a block value) is computed."""
        if self._varies(*pos):
            return opaque_op(name, *pos)
        try:
            return fn(*[int(p) if isinstance(p, Sym) else p for p in pos])
        except (ArithmeticError, ValueError, TypeError):
            return UNKNOWN

    def _unknown_call(self, node: cst.Call, ctx: Ctx) -> Any:
        """A call of something the check does not know (`getattr(pl, "store")`, a method of a
        class, an alias of the `pl` module): harmless only if it touches no tile, tensor or
        tile group, which the check cannot tell when it is handed one."""
        pos, kw = self._args(node, ctx)
        return self._unknown_call_of(node, pos, kw, ctx)

    def _record_field(self, pos: list, kw: dict, node: cst.Call) -> Any:
        """`getattr(TILING, "rows")` of module tiling data: the field, as `TILING.rows` reads it (the
        module reading takes only a field's name written as a literal for such a read), or the
        default given for a field the class does not have."""
        record, name = pos[0], pos[1] if len(pos) > 1 else None
        if kw or len(pos) not in (2, 3) or not isinstance(name, str) or name.startswith("_"):
            raise CannotModel(f"`{self._code_of(node)}` reads tiling data otherwise than a field by its name: "
                              f"write `{self._code_of(node.args[0].value)}.field`", node, kind="construct")
        if name in record.fields:
            return record.fields[name]
        if len(pos) == 3:
            return pos[2]
        raise CannotModel(f"`{self._code_of(node)}` reads a field `{record.cls}` does not have: Python raises "
                          "AttributeError there", node, kind="construct")

    def _unknown_call_of(self, node: cst.Call, pos: list, kw: dict, ctx: Ctx) -> Any:
        """`_unknown_call` with its arguments computed."""
        func = node.func
        if type(func) is cst.Name and func.value in _RUNS_CODE and func.value not in ctx.env \
                and self.file.meaning(func.value) is None:
            raise CannotModel(f"the kernel calls `{func.value}`, which runs code of its own choosing or ends the "
                              "program, where the check cannot follow what runs: leave it out of the kernel and the "
                              "functions it calls", node, kind="construct")
        if pos and type(pos[0]) is Record and self._builtin_called(node.func, ctx) == "getattr":
            return self._record_field(pos, kw, node)
        if self._made is not None and self._builtin_called(node.func, ctx) in ("getattr", "hasattr") \
                and len(pos) >= 2 and pos[1] == "dtype" and _ring_carries(pos[0]):
            raise CannotModel(f"`{self._code_of(node)}` reads the dtype a scalar is held in, which the pipelined "
                              f"kernel changes{_IDENTITY}", node, kind="identity")
        if self._made is not None and self._builtin_called(node.func, ctx) in ("id", "type") and len(pos) == 1 \
                and not kw:
            raise CannotModel(f"`{self._code_of(node)}` reads which object or type holds a value, which the pipelined "
                              f"kernel changes{_IDENTITY}", node, kind="identity")
        builtin = self._builtin_called(node.func, ctx)
        if self._made is not None and builtin is not None and builtin not in _VALUE_READERS \
                and not (builtin == "getattr" and pos and isinstance(pos[0], StructV)) \
                and any(_ring_carries(v) for v in _flat_values([*pos, *kw.values()])):
            # `dir(g)`, `vars(g)`, `hasattr(g, "__dict__")`: what object holds a number or struct, which
            # the ring changes (a `pl.const` typed scalar arrives plain, probe h114); only builtins that
            # read a value are allowed on one
            raise CannotModel(f"`{self._code_of(node)}` reads more of a value than the value itself (its object, "
                              f"type or attributes), which the pipelined kernel changes{_IDENTITY}", node,
                              kind="identity")
        if self._made is not None and len(pos) == 3 and isinstance(pos[0], StructV) \
                and self._builtin_called(node.func, ctx) == "getattr":
            # `getattr(base_cfg, "bias", d)`: a field the struct may lack, which the ctx entry a stage's
            # structs travel in as one has (probe h113)
            raise CannotModel(f"`{self._code_of(node)}` reads a field the struct may not have, with a default: the "
                              "pipelined kernel hands a stage the structs it is given as one ctx entry, which has "
                              "the fields of all of them; read fields the struct declares (`s.field`)", node,
                              kind="identity")
        if pos and isinstance(pos[0], StructV) and self._builtin_called(node.func, ctx) == "getattr" \
                and _reads_attribute("getattr", pos) and not kw:
            return self._field(pos[0], pos[1], node, ctx, pos[2] if len(pos) == 3 else UNKNOWN)  # `st.f`, spelled so
        if _holds_struct([*pos, *kw.values()]):
            _struct_given(self._code_of(node.func), node)  # `str(st)`, `vars(st)`, `copy.copy(st)`
        handle = _handle_in([*pos, *kw.values()])
        if handle is not None:
            raise CannotModel(f"the check cannot tell what `{self._code_of(node.func)}` does with "
                              f"{_handle_words(handle)} it is given: call `pl` ops directly or through the "
                              "file's own functions", node, kind="construct")
        _no_functions(self._code_of(node.func), [*pos, *kw.values()], node)
        if self._made is not None:
            self._unknown_call_in_stage(node, [*pos, *kw.values()], ctx)
        elif (cls := self._class_running_pl(node.func, ctx)) is not None:
            raise CannotModel(f"`{self._code_of(node)}` calls into `{cls}`, a class whose methods run `pl` ops, which "
                              "the check follows only as `@staticmethod`s called through the class "
                              f"(`{cls}.method(...)`): write them so, or as functions of the file", node,
                              kind="construct")
        elif _holds_container([*pos, *kw.values()]) and not self._reads_only(node, pos, ctx):
            # `list.__setitem__(offs, 1, 0)`, `setattr(st, "s", 0)`, `vars(st)`: a change the model
            # would not make, and go on reading the list or struct as it was
            raise CannotModel(f"the check cannot tell what `{self._code_of(node.func)}` does with the list, dict "
                              "or struct it is given: change it with an assignment, or a list method, in the "
                              "kernel", node, kind="construct")
        elif not self._free_callee(node.func, ctx):
            # a method, a function of another module, a value the check cannot name: it may raise
            # or wait for an event or run a `pl` op the pipeline must order (probe h90)
            raise CannotModel(f"the kernel calls `{self._code_of(node.func)}`, which the check does not run: it may "
                              "raise or wait for events or run `pl` ops the pipeline must order; call `pl` ops "
                              "directly or through the file's own functions", node, kind="construct")
        return UNKNOWN

    def _reads_only(self, node: cst.Call, pos: list, ctx: Ctx) -> bool:
        """A call that changes nothing it is given: a builtin that only reads (`len`, `zip`,
        `sorted`, `getattr` of a plain name) or a function of a stateless module (`math.prod`)."""
        builtin = self._builtin_called(node.func, ctx)
        return builtin in PURE_BUILTINS or _reads_attribute(builtin, pos) or self._stateless_function(node.func, ctx)

    def _builtin_called(self, func: cst.BaseExpression, ctx: Ctx) -> str | None:
        """The name of the builtin a call is made through (`len`), or None: a name neither the
        frame nor the module binds."""
        if isinstance(func, cst.Name) and func.value not in ctx.env and self.file.meaning(func.value) is None \
                and func.value not in _RUNS_CODE:
            return func.value
        return None

    def _stateless_function(self, func: cst.BaseExpression, ctx: Ctx) -> bool:
        """A function of an imported module whose functions keep no state (`math.ceil`, not
        `random.seed`): the module an import of it binds to the name and nothing rebinds, not
        whatever the name spells (`import operator as math`)."""
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)) or func.value.value in ctx.env:
            return False
        meaning = self.file.meaning(func.value.value)
        return isinstance(meaning, Unknown) and meaning.imported \
            and self.file.names.origins.get(func.value.value) in _STATELESS_MODULES \
            and func.attr.value not in MUTATING_METHODS \
            and not changed_under(self.file.source.text, func.value.value)  # (`math.erfc = kick`)

    def _unknown_call_in_stage(self, node: cst.Call, args: list, ctx: Ctx) -> None:
        """A call the check does not run, inside a stage, may keep a value past the invocation
        in what it is given or in the object it is a method of (`setattr(box, "x", v)`,
        `operator.setitem(box, 0, v)`, `put = box.__setitem__; put(0, v)`, `queue.append(v)`,
        `gen.send(v)`): allowed only on numbers and strings, through a function of an imported
        module (`math.ceil(x)`) or a builtin."""
        builtin_name = self._builtin_called(node.func, ctx)
        if _reads_attribute(builtin_name, args):
            return  # reading an attribute keeps nothing (what the result is called with is judged there)
        made = self._made or {}
        plain = all(_plain(a, made) for a in args)
        func = node.func
        root: cst.BaseExpression = func
        while isinstance(root, cst.Attribute):
            root = root.value
        method = func.attr.value if isinstance(func, cst.Attribute) else ""
        if isinstance(func, cst.Attribute) and plain:
            receiver = self.eval(func.value, ctx)
            if isinstance(receiver, str) and method in ("format", "format_map") and _FIELD_LOOKUP.search(receiver) \
                    and any(_ring_carries(v) for v in _flat_values(args)):
                # `"{0.dtype}".format(g)`: a field of the format looks up an attribute or item (probe h114)
                raise CannotModel(f"`{self._code_of(node)}` looks up attributes of a value in a format field, which "
                                  f"the pipelined kernel changes{_IDENTITY}", node, kind="identity")
            if isinstance(receiver, str) or isinstance(receiver, (list, dict)) and id(receiver) in made:
                return  # `"{}".format(ki)`, `rows.sort()`: a method of a string or of a value the stage made
            if isinstance(receiver, (int, float, Opaque)) and all(_plain(a, made, deep=True) for a in args):
                # `d.bit_length()` of a number (a scalar parameter too): keeps nothing, changes nothing;
                # its value is not known, so a test of it is followed both ways (probe h161)
                return
        if builtin_name in PURE_BUILTINS and all(_plain(a, made, deep=True) for a in args):
            return  # `sum(range(2))`, `sorted(HALVES)`: builtins that change nothing they are given
        callee_free = isinstance(root, cst.Name) and root.value not in ctx.env and method not in MUTATING_METHODS \
            and self._runs_nothing_of_the_file(func, ctx)
        if not (plain and callee_free):
            stage = ctx.scope[1] if ctx.scope is not None else "?"
            raise CannotModel(f"stage `{stage}` calls `{self._code_of(node.func)}`, which the check does not run, "
                              "with values it may keep past the stage (an object, a list, a method of a value)"
                              f"{_KEPT}", node, kind="kept")

    def _args(self, node: cst.Call, ctx: Ctx) -> tuple[list, dict]:
        pos: list = []
        kw: dict = {}
        env = ctx.env
        hit = self._orders.get(id(node))
        if hit is None or hit[0] is not node:
            hit = self._orders[id(node)] = (node, _in_python_order(node.args))
        for a in hit[1]:
            expr = a.value
            # a bound name is its value unless that is a run-time value (`eval`, without its call)
            value = env.get(expr.value, _ABSENT) if type(expr) is cst.Name else _ABSENT
            if value is _ABSENT or type(value) is Opaque:
                value = self.eval(expr, ctx)
            if a.keyword is None and not a.star:  # the commonest: a plain positional argument
                pos.append(value)
            elif a.keyword is not None:
                kw[a.keyword.value] = value
            elif a.star == "*":
                if not isinstance(value, (list, tuple)):
                    raise CannotModel("a starred argument of unknown length", a)
                pos.extend(value)
            elif a.star == "**":
                if not isinstance(value, StructV):
                    raise CannotModel("a `**` argument the check cannot expand", a)
                twice = next((k for k in value.fields if k in kw), None)
                if twice is not None:
                    raise CannotModel(f"the call is given `{twice}` twice: Python raises TypeError at this call", a,
                                      kind="construct")
                kw.update(value.fields)
            else:
                pos.append(value)
        return pos, kw

    def _tail_of_another_count(self, pos: list, node: cst.Call) -> None:
        """A tail (`pl.min(TM, rows - i * TM)`) the check follows only over a loop whose count is
        computed from the value it clamps: refused here, saying so (study ux2: a count from the
        tiling data beside a tail of a scalar parameter got "pass only static values there",
        which would remove the tail)."""
        for v in pos:
            moving = isinstance(v, Sym) and any(var[0] == "loop" for var, _ in v.form)
            if moving and any(run_time_var(var) or var[0] == "size" for var, _ in v.form):
                code = self._code_of(node)
                raise nonuniform(NonUniform(
                    f"the tail `{code}` clamps by a value its loop's trip count is not computed from",
                    "compute the loop's count from the value the tail clamps (`n_tiles = (rows + TILE - 1) // "
                    "TILE` for `pl.min(TILE, rows - i * TILE)`), which the check follows as a row tail"), node)

    def _builtin(self, name: str, node: cst.Call, ctx: Ctx) -> Any:
        if name == "int" and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
                and type(node.args[0].value) is _COMPARISON:
            # `int(core_id < rem)`: the number 1 or 0, as the comparison is in arithmetic (`_operand`)
            value = self._operand(node.args[0].value, ctx)
            return int(value) if type(value) is bool else value
        clamp = name in ("min", "max", "abs") and self.bounding and self.config.discover
        pos, kw = self._args(node, self._clamp_frame(ctx) if clamp else ctx)
        if name not in _ITERATING and any(isinstance(v, SymRange) for v in (*pos, *kw.values())):
            # `bool(range(ki, n - 1))`, `len(range(core_id))`: what the range holds varies with the
            # run (its bounds are a loop variable, a trip count, the block): not this run's number
            return UNKNOWN
        if name not in ("len", "print", "list", "tuple") and any(
                isinstance(v, Symbol) for v in _flat([*pos, *kw.values()])):
            # a `pl` constant is a number to Python where it is an IntEnum member (`bool(pl.TilePad.null)` is
            # False, `isinstance(pl.TilePad.null, int)` True), which the model's symbol is not (probe h178)
            _no_functions(name, [*pos, *kw.values()], node)
            return UNKNOWN
        if name == "divmod":
            return self._divmod(pos, kw, node)
        if name in _OF_NUMBERS and not kw:
            return self._numbers_of(name, pos)
        if pos and isinstance(pos[0], StructV) and name not in ("print", "isinstance", "id"):
            _struct_given(self._code_of(node.func), node)  # `list(st)`, `len(st)`
        if name in _CONTAINERS:
            return self._container(name, pos, kw, node, ctx)
        if any(is_unknown(v) for v in kw.values()) or name in ("map", "filter") and pos and is_unknown(pos[0]):
            # `max(xs, key=HOOKS["kick"])`: a value the check cannot name may be a function it calls
            raise CannotModel(f"`{name}` is given a value the check cannot name where it takes a function "
                              f"(`{self._code_of(node)}`), which it may call where the check does not follow: "
                              "call the function yourself", node, kind="construct")
        if kw and name != "print":  # `max(a, b, key=abs)`, `int("10", base=2)`: not what the model computes
            _no_functions(name, [*pos, *kw.values()], node)
            return UNKNOWN
        if name == "print" and self._made is not None and (kw or not self._prints_plainly(pos, node, ctx)):
            # `print(v, file=sink)`: what it writes to, or what its arguments' `__str__` does, may keep `v`
            raise CannotModel("the check does not follow a `print` of objects, or to a `file=`, inside a stage", node,
                              kind="construct")
        _no_functions(name, [*pos, *kw.values()], node)
        if name in ("min", "max") and len(pos) == 1 and isinstance(pos[0], (list, tuple)):
            pos = list(pos[0])  # `min([a, b])`: the same choice
            if len(pos) < 2:  # `max([x])` is `x` itself (`max(x)` would take the largest item of `x`)
                return pos[0] if pos and not kw else UNKNOWN
        if name in ("min", "max") and any(isinstance(p, (list, tuple)) and _varies_inside(p) for p in pos):
            # `max((ki, 1), (19, 0))` compares the tuples item by item, a test of `ki` the run took as
            # settled at the counts it ran (probe h199: from the 20th tile on it picked another tile)
            raise nonuniform(NonUniform(f"`{self._code_of(node)}` compares sequences holding a value that varies "
                                        "between runs or iterations, item by item",
                                        "compare the numbers themselves (`ki >= WARMUP`), a test the check follows"),
                             node)
        if name in ("min", "max") and len(pos) > 1:
            self._cut_between(pos, node)
        kept = self._keep_form(name, pos, node)
        if kept is not None:
            return kept[0]
        if self._number_of_run_time(name, pos):
            # `float(d)`, `bool(core_id)`, `len(range(d))`: computed at this run's value, a test
            # on the result would be taken as settled for the values not run; a number of a trip
            # count (`1.0 / max(n_blocks, 1)`, `float(n_blocks)`) is a run-time value as `n_blocks
            # * 1.0` is, but one of the loop variable is not followed
            indexed = any(isinstance(p, Sym) and any(v[0] in INDEX for v, _ in p.form) for p in pos)
            if name not in _OF_A_COUNT or indexed:
                self._plain(list(pos), f"the argument of `{name}`", node)
            return opaque_op(name, *pos)
        if name in ("min", "max") and any(isinstance(p, Opaque) for p in pos):
            # `min(chunk, n - start)` with `chunk` a parameter: a run-time value clamped by it
            pos = [self._clamped(p) for p in pos]
        pos = [sampled_int(p) for p in pos]
        # (not float data; `print()`, `float()` take no argument: probe h176)
        integer = bool(pos) and type(pos[0]) is Opaque and pos[0].origin[0] in ("param", "op", "shape")
        if (name in ("min", "max") or name == "abs" and integer) and opaque_operands(*pos):
            # a run-time value clamped (`min(N_ITER, lens[0])`, `abs(n)`): named like arithmetic on it, so
            # a loop it bounds is a loop of run-time trip count like one bounded by the value
            return opaque_op(name, *pos)
        if name == "int" and len(pos) == 1 and type(pos[0]) is Opaque:
            # `int(n_blocks)` of a run-time value: named as arithmetic on it is, so a residue of it
            # is one of the trip count it holds (probe h84: unknown, its `% 16` went unseen)
            return opaque_op(name, *pos)
        if not known(*pos):
            return UNKNOWN
        if any(isinstance(p, Sym) for p in pos):
            if name == "int" and len(pos) == 1:
                return pos[0]
            if name == "range":
                return self._sym_range(pos, node)
            if name in ("min", "max") and any(isinstance(p, Sym) and any(v[0] == "loop" for v, _ in p.form)
                                              for p in pos):
                self._tail_of_another_count(pos, node)
            self._plain(list(pos), f"the argument of `{name}`", node)
            pos = [int(p) if isinstance(p, Sym) else p for p in pos]
        try:
            if name == "range":
                r = range(*pos)
                if range_length(r) > MAX_ITEMS:
                    raise CannotModel("this range is too long to follow", node)
                return r
            if name in ("print", "isinstance"):
                return UNKNOWN
            return _PYTHON_BUILTINS[name](*pos)
        except CannotModel:
            raise
        except Exception:
            return UNKNOWN

    def _container(self, name: str, pos: list, kw: dict, node: cst.Call, ctx: Ctx) -> Any:
        """`list(xs)`, `tuple(xs)`, `dict(pairs)`, `list()`, `dict()`: a new container of what it is
        given, when that is numbers, strings and run-time values or sequences of them (a stage's
        own to change, `_own`); any other call as a call the check does not run."""
        if kw and name != "dict" or len(pos) > 1 or not all(_scalars(p) for p in [*pos, *kw.values()]):
            return self._unknown_call_of(node, pos, kw, ctx)
        try:
            made = _CONTAINERS[name](*pos, **kw)
        except (TypeError, ValueError):
            return UNKNOWN
        if type(made) is dict and not all(containers.plain_key(k) for k in made):
            return Unkeyed({("?", i): v for i, v in enumerate(made.values())})  # `dict([(v, 0), (v + 0, 1)])`
        return self._own(made)

    def _own(self, made: Any) -> Any:
        """A list or dict just made (`ROWS[:]`, `ROWS.copy()`, `list()`): the stage invocation
        that made it may change it."""
        if self._made is not None and type(made) in (list, dict):
            self._made[id(made)] = made
        return made

    def _prints_plainly(self, pos: list, node: cst.Call, ctx: Ctx) -> bool:
        """Does `print` of these arguments run no code of the file: each a plain value, or an
        f-string of such (`_plain_format`); a starred argument's values plain."""
        made = self._made or {}
        if len(pos) != len(node.args):  # `print(*xs)`: the values it expands to
            return all(_plain(a, made, deep=True) for a in pos)
        return all(_plain(a, made, deep=True) or not arg.star and self._plain_format(arg.value, ctx)
                   for a, arg in zip(pos, node.args, strict=True))

    def _plain_format(self, node: cst.BaseExpression, ctx: Ctx) -> bool:
        """An f-string whose values are numbers, strings or run-time values (`f"ki={ki}"`): its
        formatting runs no code of the file. The expressions in it call nothing (`eval` refuses
        calls inside an f-string), so computing them again here changes nothing."""
        if type(node) is not cst.FormattedString:
            return False
        for part in node.parts:
            if type(part) is cst.FormattedStringExpression:
                if not _scalars(self.eval(part.expression, ctx), deep=False):
                    return False
                if any(type(spec) is not cst.FormattedStringText for spec in part.format_spec or ()):
                    return False  # a spec computed where it runs (`{x:{w}}`)
        return True

    def _divmod(self, pos: list, kw: dict, node: cst.Call) -> Any:
        """`divmod(n, d)`: the pair `(n // d, n % d)`, each computed as the operator computes it
        (`base, rem = divmod(n, num_cores)` is a balanced split's, as with the two operators)."""
        _no_functions("divmod", [*pos, *kw.values()], node)
        hit = self._divmods.get(id(node))
        if hit is None or hit[0] is not node:  # the same operation nodes at every run: their text is remembered
            hit = self._divmods[id(node)] = (node, divmod_operations(node))
        operators = hit[1]
        if operators is None or kw or len(pos) != 2:
            return UNKNOWN
        n, d = pos
        return tuple(self._binop(type(op.operator), n, d, op) for op in operators)

    def _number_of_run_time(self, name: str, pos: list) -> bool:
        """A builtin whose result is to stay a run-time value: a number computed from one
        (`_NUMBER_OF`), or a range bounded by a sampled parameter outside a loop that counts
        its trips (a loop's own bounds are a `SymRange`: `_sym_range`)."""
        if name not in _NUMBER_OF or not self._varies(*pos) or any(isinstance(p, Opaque) for p in pos):
            return False
        return name != "range" or any(sampled_int(p) is not p for p in pos)

    def _keep_form(self, name: str, pos: list, node: cst.Call) -> tuple | None:
        """A builtin over sampled parameters that is affine in them on each piece its tests cut
        (`min`/`max`: the winner, cut where two are equal; `int`; `abs`: cut at 0) keeps
        their form, so what the result decides is judged for every value as the parameter's
        own uses are (a GM offset, a valid shape, a vector-function argument); (result,) or
        None for the builtin as it is."""
        if not any(isinstance(p, Sym) and sampled_int(p) is not p for p in pos) or not known(*pos):
            return None
        if any(isinstance(p, Sym) and sampled_int(p) is p for p in pos) or not all(
                isinstance(p, int) and not isinstance(p, bool) for p in pos):
            return None  # a loop variable too, or not numbers: as before
        if name in ("min", "max") and pos:
            return ((min if name == "min" else max)(pos),)
        if name == "int" and len(pos) == 1:
            return (pos[0],)
        if name == "abs" and len(pos) == 1:
            (x,) = pos
            self._uniform(lambda: self.uniform.test(x, 0, int(x) < 0, self._code_of(node), operator.lt), node)
            return (self.uniform.negate(x) if int(x) < 0 else x,)
        return None

    def _stage_under_test(self, stage: str) -> str:
        """Why a stage under a test the run cannot decide is refused, and a form the check follows:
        a test of the block (it may go another way on another block) as an early return on one
        comparison, any other as a scalar parameter's."""
        if not self.may_tests:
            return f"stage `{stage}` is called under a condition the check cannot decide"
        test, by_block = self.may_tests[-1]
        code = self._code_of(test)
        # the loops around the test, the innermost last; a loop inside the innermost but not around the
        # test is the pipeline loop the test is around
        around = [n for n in iter_nodes(self.fn.body) if isinstance(n, (cst.For, cst.While))
                  and any(m is test for m in iter_nodes(n.body))]
        if by_block and around and any(isinstance(m, (cst.For, cst.While)) and not any(k is test for k in iter_nodes(m))
                                       for m in iter_nodes(around[-1].body)):
            # (probe h197: a per-head mask read from GM around the loop, in the loop over heads, was
            # told to return early, which would end every later head)
            fix = ("inside another loop, a `return` would end its later iterations too: run the pipeline loop in "
                   "every iteration and test the value inside the stages, whose tests the check follows both ways")
        elif by_block and _loop_before(self.fn, test):
            # (probe h227: `if core_id == 0:` around a second pipeline loop, after the first and its
            # barrier, was told to return early, which the check follows only before any work)
            fix = ("after a loop of the kernel, a `return` is not followed either (only one before any loop, sync or "
                   "GM write): run the pipeline loop on every block, its tasks spread over them (`pl.range(core_id, "
                   "n, num_cores)`), or in a kernel of its own")
        elif by_block:
            inverse = _INVERSE.get(type(test.comparisons[0].operator)) \
                if type(test) is cst.Comparison and len(test.comparisons) == 1 else None
            form = (f"if {self._code_of(test.left)} {inverse} {self._code_of(test.comparisons[0].comparator)}: return"
                    if inverse else "if core_id >= n_tiles: return")
            fix = (f"where it tests whether this block has work, around the whole pipeline loop, return early before "
                   f"the loop instead, on one comparison of the block index (`{form}`), which the check follows for "
                   "every block")
        else:
            fix = ("pass the value it tests as a scalar parameter (or a tiling-key field), whose tests the check "
                   "decides at every value")
        return f"stage `{stage}` is called under `if {code}:`, a test the check cannot decide for every run: {fix}"

    def call_function(self, fn: FunctionV, node: cst.Call, ctx: Ctx) -> Any:
        pos, kw = self._args(node, ctx)
        if fn.kind == "vf":
            self._vf_call(fn, pos, kw, node, ctx)
            return UNKNOWN
        if fn.node.asynchronous is not None or _yields(self.file, fn.node, self._yields):
            # calling it makes a generator or coroutine: its body runs when it is iterated, if ever
            generator = _nested_generator(fn.node)
            if generator is not None:  # (probe h195: the message named the stage itself a generator)
                raise CannotModel(f"`{fn.name}` defines the generator `{generator}`, which the check does not follow: "
                                  "compute its values with a loop in the function itself", node, kind="construct")
            raise CannotModel(f"`{fn.name}` is a generator or coroutine, whose body the call does not run: the check "
                              "does not follow it", node, kind="construct")
        env = self._bind(fn.node, pos, kw, ctx, fn.defaults, node)
        if fn.kind == "stage":
            if ctx.may and not self.config.roots_only:
                raise CannotModel(self._stage_under_test(fn.name), node)
            name = fn.name
            counts = self.stage_counts[ctx.core]
            number = counts[name]
            counts[name] = number + 1
            # struct fields change later: keep the values this invocation saw, but for the fields
            # the stage sets before it can read them (`deadfields`)
            dead = fields_set_first(fn.node, env)
            seen = tuple([(k, StructV({f: x for f, x in v.fields.items() if (k, f) not in dead}, v.origin)
                           if isinstance(v, StructV) else v) for k, v in env.items()])
            self.trace.invocations.append(Invocation(ctx.core, name, number, seen, node))
            inner = ctx.child(env, ("stage", name, number), [0])
            made, self._made = self._made, {}
        else:
            inner = ctx.child(env)
            made = self._made
        replayed = fn.kind == "stage" and self.rotation_margin is None
        self.uniform.replayed += replayed
        self._frames.append(fn.node)
        self._frame_envs.append(ctx.env)
        try:
            self.exec_block(fn.node.body.body, [inner])
        except FunctionReturn as ret:
            return ret.value
        except (LoopBreak, LoopContinue):
            raise CannotModel("`break`/`continue` outside a loop", fn.node) from None
        finally:
            self._made = made
            self._frames.pop()
            self._frame_envs.pop()
            self.uniform.replayed -= replayed
        return None

    def _bind(self, fn: cst.FunctionDef, pos: list, kw: dict, ctx: Ctx, defaults: dict | None = None,
              call: cst.CSTNode | None = None) -> dict:
        env: dict = {}
        params = list(fn.params.posonly_params) + list(fn.params.params)
        problem = binding_problem(fn, len(pos), kw)
        if problem:  # (probe h91: a stage called with `bogus=1` was written, and failed at its first call)
            raise CannotModel(f"{problem}: Python raises TypeError at this call", call if call is not None else fn,
                              kind="construct")
        # the parameters a keyword binds: not the positional-only ones, whose names a keyword passes
        # on to `**kwargs` (`def f(dst, src, inplace=True, /, **opts)` called with `inplace=False`
        # keeps its default: probe h191)
        by_name = keyword_parameters(fn)
        for i, p in enumerate(params):
            name = p.name.value
            if i < len(pos):
                env[name] = pos[i]
            elif name in kw and name in by_name:
                env[name] = kw[name]
            else:
                env[name] = self._default(fn, p, defaults)
        for p in fn.params.kwonly_params:
            env[p.name.value] = kw[p.name.value] if p.name.value in kw else self._default(fn, p, defaults)
        star, stars = fn.params.star_arg, fn.params.star_kwarg
        if type(star) is cst.Param:
            env[star.name.value] = tuple(pos[len(params):])  # `def pick(*vals)`: the other positions
        if stars is not None:
            env[stars.name.value] = {k: v for k, v in kw.items() if k not in by_name}
        return env

    def _default(self, fn: cst.FunctionDef, p: cst.Param, defaults: dict | None) -> Any:
        """A parameter's default as the `def` computed it: when it ran inside a function
        (`defaults`), or at module level (`ModuleNames.defaults`); unknown otherwise."""
        if p.default is None:
            return UNKNOWN
        name = p.name.value
        if defaults is not None:
            return defaults.get(name, UNKNOWN)
        meaning = self.file.names.defaults.get(fn, {}).get(name)
        self._no_object(f"the default of `{name}`", meaning, p)  # (`def fire(e, k=K()):`)
        if isinstance(meaning, Value):
            # `layout=None`: None itself (a module constant of None is read as unknown, `import_const`)
            return None if meaning.value is None else import_const(meaning.value)
        if isinstance(meaning, Function):
            found = [f for f in self._functions.values() if f.node is meaning.node]
            return found[0] if found else UNKNOWN
        return UNKNOWN

    def _sym_range(self, pos: list, node, host: bool = False) -> SymRange:
        if any(isinstance(p, Opaque) for p in pos):
            # a run-time value the discovery run did not take for a trip count: mixed with
            # another one (`min(n_blocks, n)`), or changed after the loop was found
            raise CannotModel(f"the bounds of `{self._code_of(node)}` combine values known only at run time in a "
                              "way the check cannot count through", node, kind="dynamic")
        if not 1 <= len(pos) <= 3 or not all(isinstance(p, int) and not isinstance(p, bool) for p in pos):
            args = node.args if isinstance(node, cst.Call) else ()
            how = ""
            if len(pos) == 2 and len(args) == 2 and not (isinstance(args[0].value, cst.Integer)
                                                         and args[0].value.value == "0"):
                first, end = self._code_of(args[0].value), args[1].value
                if isinstance(end, cst.BinaryOperation) and isinstance(end.operator, cst.Add) \
                        and self._code_of(end.left) == first:
                    count = self._code_of(end.right)
                else:
                    count = f"{self._code_of(end)} - {first}"
                how = (f": count it from 0 and add the start in its body (`for k in pl.range(0, {count}):` with "
                       f"`i = {first} + k`)")
            raise CannotModel(f"the bounds of `{self._code_of(node)}` are not integers the check can follow{how}", node)
        start, stop, step = (0, pos[0], 1) if len(pos) == 1 else (pos[0], pos[1], pos[2] if len(pos) == 3 else 1)
        if int(step) == 0 and not host:  # (a host's count of 0 or less sends every block home first)
            raise self._zero_step(step, node)
        return SymRange(start, stop, step)

    def _zero_step(self, step: Sym | int, node: cst.Call) -> CannotModel:
        """Why a `pl.range` whose step is known only at run time steps by 0 in this run: Python
        refuses a range of step 0, so the kernel fails where the check follows it. A step computed
        from the block count alone (`num_cores - 1`) is 0 on as many blocks as solve it; the check
        follows one block, where a per-core range steps by the block count, 1."""
        code = self._code_of(node)
        arg = f"`{self._code_of(node.args[-1].value)}`"
        form, const = (step.form, step.const) if isinstance(step, Sym) else ((), int(step))
        if len(form) == 1 and form[0][0] == BLOCK_COUNT[0] and -const % form[0][1] == 0 \
                and (blocks := -const // form[0][1]) > 0:
            return CannotModel(f"`{code}` steps by {arg}, which is 0 when the kernel runs on {blocks} "
                               f"block{'s' if blocks > 1 else ''} (`pl.get_block_num()` = {blocks}), and a range "
                               "cannot step by 0", node, kind="per_core_step")
        if form and all(block_only(var) for var, _ in form):
            on_index = any(var == BLOCK or var[0] == "derived" and BLOCK in var[2] for var, _ in form)
            return CannotModel(f"`{code}` steps by {arg}, which is 0{' on block 0' if on_index else ''} when the "
                               "kernel runs on 1 block, and a range cannot step by 0", node, kind="per_core_step")
        scalars = ", ".join(f"`{k} = {v}`" for k, v in sorted(self.config.scalars.items()))
        run = f"{self.config.block_num} block{'s' if self.config.block_num > 1 else ''}" + (
            f", {scalars}" if scalars else "")
        return CannotModel(f"`{code}` steps by {arg}, which is 0 in a run the check follows ({run}), and a range "
                           "cannot step by 0", node, kind="zero_step")


class _CertifiedIds(NamedTuple):
    """`renaming.Certificates`' node sets, by node id (`PythonSubset._certified_ids`)."""

    updates: frozenset[int]
    displays: frozenset[int]
    constant_picks: frozenset[int]
    counter_picks: frozenset[int]


def _ids(nodes: frozenset) -> frozenset[int]:
    return frozenset(id(n) for n in nodes)


#: Values an unknown call could read or write through.
_HANDLES = (TileV, AnyTileV, TensorV, GroupV)


def _holds_run_time(value: Any) -> bool:
    """A sequence or dict with a value known only at run time (or unknown) among its elements (a
    dict's keys and values: `{"k": ki} == {"k": 40}` is a test of the loop variable, probe h172)."""
    items = [*value.keys(), *value.values()] if type(value) is dict else value if isinstance(value, (list, tuple)) \
        else None
    return items is not None and any(run_time(v) or is_unknown(v) or _holds_run_time(v) for v in items)


#: the model's `pl` objects: an attribute set on one is not followed (`_PL_OBJECTS` in `assign`)
_PL_OBJECTS = (TileTypeV, TileV, AnyTileV, GroupV, TensorV, Symbol)

#: values whose truth is always True (objects without `__bool__` or `__len__`)
_ALWAYS_TRUE = (TileV, AnyTileV, GroupV, TensorV, StructV, FunctionV, Builtin)


def _apart_between_blocks(*values: Any) -> bool:
    """Does a compared value vary from block to block: a `Sym` of a variable that may differ
    between blocks, or of a run-time size computed from the block index (`exec_if`, `_compare`:
    a test of it settled for this run's block, which another block may not share)."""
    return any(may_differ_between_blocks(Sym(0, ((var, 1),))) or var[0] == "size" and marks_block_index(var[1])
               for v in values if isinstance(v, Sym) for var, _ in v.form)


def _in_python_order(args: Sequence[cst.Arg]) -> Sequence[cst.Arg]:
    """A call's arguments in the order Python computes them: every positional one, starred ones
    too, before any keyword, wherever the keyword is written (`f(y, c, inplace=len(used) > 0,
    *[used.append(ki)])`: probe h192)."""
    if not any(a.keyword is not None or a.star == "**" for a in args[:-1]):
        return args
    return [a for a in args if a.keyword is None and a.star != "**"] \
        + [a for a in args if a.keyword is not None or a.star == "**"]


def _varies_inside(seq: list | tuple) -> bool:
    """Does a sequence hold, at any depth, a value that varies between runs or iterations (a `Sym`
    of some form, a run-time value)?"""
    return any(isinstance(v, Sym) and v.form or isinstance(v, Opaque)
               or isinstance(v, (list, tuple)) and _varies_inside(v) for v in seq)


def _same_place(a: Any, b: Any) -> bool:
    """One object, one plain number or string, one run-time value, or tuples of such (`_place`)."""
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(_same_place(x, y) for x, y in zip(a, b, strict=True))
    plain = (int, float, str, type(None))
    return a is b or isinstance(a, plain) and isinstance(b, plain) and type(a) is type(b) and a == b \
        or isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) and not isinstance(b, bool) \
        and int(a) == int(b) or isinstance(a, Opaque) and isinstance(b, Opaque) and a.origin == b.origin


def _effects_in(node: cst.CSTNode) -> bool:
    """Does `node` call anything or bind a name (`:=`): what must not be run where Python may
    not run it (the right of `and`/`or`, a later operand of a chained comparison, an arm of a
    choice by an undecided test)?"""
    return any(type(n) in (cst.Call, cst.NamedExpr) for n in iter_nodes(node))


def _opaque_to_compare(value: Any) -> bool:
    """A value whose comparison the model does not compute as Python does: a `pl` constant, a
    tile, tensor, tile group, tile type or struct (compared by identity or fields in PyPTO), or a
    sequence holding one (`y[0:8, :] in [y]`)."""
    if isinstance(value, (list, tuple)):
        return any(_opaque_to_compare(v) for v in value)
    if type(value) is dict:  # (`{"k": make()} != {"k": make()}`: functions by identity in Python, probe h172)
        return any(_opaque_to_compare(v) for v in (*value.keys(), *value.values()))
    return not (isinstance(value, (int, float, str, Opaque)) or value is None)


#: why a test of identity or type in a stage cannot be compared across the two kernels (in the
#: kernel body, the same objects in both)
_IDENTITY = (": a value handed to a delayed stage travels in a ctx field of its own (a struct as the task's ctx entry, "
             "a number in a field of integers or floats), so two names of one object become two, two structs one, "
             "and a typed number a plain one; compare the values instead (`==` of numbers or of a struct's fields, "
             "`isinstance`)")


#: builtins that read only the value of a number given them (not its object, type or attributes):
#: allowed in a stage on what the ctx ring may hand it in another object (`_ring_carries`)
_VALUE_READERS = frozenset({
    "abs", "min", "max", "round", "int", "float", "bool", "complex", "pow", "sum", "divmod", "len", "range", "print",
    "isinstance", "str", "repr", "format", "ascii", "hash", "hex", "oct", "bin", "chr", "ord", "sorted", "reversed",
    "enumerate", "zip", "any", "all", "iter", "next", "list", "tuple", "dict", "set", "frozenset", "map", "filter"})
#: a field of a format string that looks up an attribute or item of its value (`{0.dtype}`, `{g[0]}`)
_FIELD_LOOKUP = re.compile(r"\{[^{}!:]*[.\[]")


def _flat_values(values: list) -> list:
    """`values`, with the items of the tuples and lists among them (one level)."""
    return [w for v in values for w in (v if type(v) in (tuple, list) else (v,))]


def _ring_carries(value: Any) -> bool:
    """A value the ctx ring may hand a delayed stage in another object: a number or a struct."""
    return isinstance(value, (int, float, Sym, Opaque, StructV))


def _singleton(value: Any) -> bool:
    """None, True or False: the one object of its value, so `is` with it is equality."""
    return value is None or type(value) is bool


def _names_in(node: cst.CSTNode) -> set[str]:
    """Every name `node` mentions as a name: not an attribute's (`x.a`) or a keyword's (`f(a=0)`),
    which read no variable of that name."""
    nodes = list(iter_nodes(node))
    spelt = {id(n.attr) for n in nodes if type(n) is cst.Attribute} | {
        id(n.keyword) for n in nodes if type(n) is cst.Arg and n.keyword is not None}
    return {n.value for n in nodes if type(n) is cst.Name and id(n) not in spelt}


def _own_locals(fn: cst.FunctionDef, walrus: bool = True) -> frozenset[str]:
    """The names Python takes for `fn`'s own in its whole body: every name it assigns, loops over,
    binds `as` or by a `match` capture, imports, defines or deletes, outside nested functions, classes
    and comprehensions (but a `:=` in a comprehension binds here), less those it declares `global` or
    `nonlocal`. Without `walrus` (no `:=` in the file) no expression but a target can bind, and
    expressions are not entered: the walk of a generated kernel is then a fraction of its nodes.
    Nodes are told apart by exact type (libcst's classes are abstract base classes, whose
    `isinstance` is slow)."""
    names: set[str] = set()
    declared: set[str] = set()
    todo: list[Any] = list(children(fn.body))  # (told apart by `type`, which mypy does not narrow by)
    while todo:
        n = todo.pop()
        kind = type(n)
        if kind in _PLAIN_NODES:
            if walrus or kind not in _EXPRESSIONS:
                todo.extend(children(n))
            continue
        if kind is cst.Global or kind is cst.Nonlocal:
            declared |= {a.name.value for a in n.names}
            continue
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            names.add(n.name.value)
            todo.extend(d.decorator for d in n.decorators)  # (its body is a scope of its own)
            continue
        if kind in _INNER_SCOPES:
            todo.extend(w for w in iter_nodes(n) if type(w) is cst.NamedExpr)
            continue
        target = n.target if kind in _BINDS_TARGET else n.name if kind in _BINDS_NAME else None
        if target is not None and type(target) is not cst.Subscript and type(target) is not cst.Attribute:
            names |= {t.value for t in iter_nodes(target) if type(t) is cst.Name}
        if (kind is cst.Import or kind is cst.ImportFrom) and type(n.names) is not cst.ImportStar:
            for alias in n.names:
                bound: cst.BaseExpression = alias.asname.name if alias.asname is not None else alias.name
                while type(bound) is cst.Attribute:  # `import a.b` binds `a`
                    bound = bound.value
                if type(bound) is cst.Name:
                    names.add(bound.value)
        todo.extend(children(n))
    return frozenset(names - declared)


#: nodes that bind by their `target` (`_own_locals`)
_BINDS_TARGET = frozenset({cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.Del})
#: nodes that bind their `name` when it is not None (`_own_locals`)
_BINDS_NAME = frozenset({cst.AsName, cst.MatchAs, cst.MatchStar})
#: nodes whose names are a scope of their own but for `:=` (`_own_locals`)
_INNER_SCOPES = frozenset({cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
#: nodes `_own_locals` only walks through: none of them binds or declares a name
_PLAIN_NODES = frozenset({
    cst.Name, cst.Attribute, cst.Call, cst.Arg, cst.Integer, cst.Float, cst.SimpleString, cst.BinaryOperation,
    cst.Comparison, cst.ComparisonTarget, cst.Subscript, cst.SubscriptElement, cst.Index, cst.Slice, cst.Tuple,
    cst.List, cst.Element, cst.StarredElement, cst.Expr, cst.SimpleStatementLine, cst.IndentedBlock, cst.If,
    cst.Else, cst.With, cst.WithItem, cst.UnaryOperation, cst.BooleanOperation, cst.IfExp, cst.Return, cst.Assign,
    cst.Pass, cst.Break, cst.Continue, cst.Dict, cst.DictElement, cst.While, cst.Module,
})
#: the expressions among them, which bind nothing unless they hold a `:=` (`_own_locals`)
_EXPRESSIONS = frozenset(k for k in _PLAIN_NODES if issubclass(k, cst.BaseExpression) or k in (
    cst.Arg, cst.ComparisonTarget, cst.SubscriptElement, cst.Index, cst.Slice, cst.Element, cst.StarredElement,
    cst.DictElement))


def _bound_in(fn: cst.FunctionDef) -> set[str]:
    """The names a function binds: its parameters and every name it assigns, loops over, imports
    or defines (in nested blocks and functions too: on the safe side)."""
    names = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)}
    for star in (fn.params.star_arg, fn.params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    for n in iter_nodes(fn.body):
        target = (n.target if isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor,
                                             cst.NamedExpr))
                  else n.name if isinstance(n, (cst.AsName, cst.FunctionDef, cst.ClassDef, cst.Param)) else None)
        if target is not None:
            names |= {t.value for t in iter_nodes(target) if type(t) is cst.Name} if not isinstance(
                target, (cst.Subscript, cst.Attribute)) else set()
    return names


def _names_only(target: cst.BaseExpression) -> bool:
    """A target of names (`x`, `(k, v)`, `[a, (b, c)]`), binding nothing but them: not an item or
    attribute (`(rows[0], _)`), which the comprehension would change."""
    if type(target) is cst.Name:
        return True
    return isinstance(target, (cst.Tuple, cst.List)) and all(
        isinstance(e, cst.Element) and _names_only(e.value) for e in target.elements)


def _placed_key(key: Any) -> Any:
    """An index a change is made at: a number of the loop's (the same at every run of its trip
    count and phase), not one of a sampled parameter or the block (`rows[d] = 0` sets another
    item at every value of `d`): None for those, which no change is made at."""
    if isinstance(key, Sym) and not all(var[0] in INDEX and var[0] != GRID for var, _ in key.form):
        return None  # (a grid coordinate is computed with a stand-in count: `Uniform.grid`)
    return key


def _reads_attribute(builtin: str | None, args: list) -> bool:
    """`getattr(x, "name")` of a plain name: reading an attribute keeps nothing."""
    return builtin == "getattr" and len(args) in (2, 3) and isinstance(args[1], str) and not args[1].startswith("__") \
        and args[1] not in MUTATING_METHODS  # (`getattr(box, "append")` hands on what changes `box`: probe h168)


def _holds_container(values: list) -> bool:
    """A list, dict or struct of the kernel among `values` or in the tuples among them, or a value
    the check does not follow (which may be one)."""
    return any(isinstance(v, (list, dict, StructV, Record)) or v is UNKNOWN
               or type(v) is tuple and _holds_container(list(v)) for v in values)


def _struct_given(callee: str, node) -> None:
    """A call given a struct that the check does not run: what it reads of the fields (or changes)
    is not followed, and a field read so would escape the comparison with the serial run."""
    raise CannotModel(f"the check cannot tell what `{callee}` does with the list, dict or struct it is given: read a "
                      "struct's fields as `s.field`, and change them with an assignment", node, kind="construct")


def _holds_struct(values: list) -> bool:
    """A struct among `values`, or in the lists, tuples and dicts among them."""
    return any(isinstance(v, StructV) or isinstance(v, (list, tuple)) and _holds_struct(list(v))
               or type(v) is dict and _holds_struct(list(v.values())) for v in values)


def _flat(values: list) -> list:
    """The values and what they hold: elements of sequences, values of dicts, struct fields."""
    out: list = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flat(list(v)))
        elif isinstance(v, dict):
            out.extend(_flat(list(v.values())))
        elif isinstance(v, StructV):
            out.extend(_flat(list(v.fields.values())))
        else:
            out.append(v)
    return out


def _handle_in(values: list) -> Any:
    """The first tile, tensor or tile group among `values` and what they hold, or None."""
    return next((v for v in _flat(values) if isinstance(v, _HANDLES)), None)


def _no_functions(callee: str, values: list, node: cst.Call) -> None:
    """Refuse a call handed a function (`sorted(xs, key=lambda _: pl.store(...))`, `map(f, xs)`):
    it may call it where the check does not follow."""
    if any(isinstance(v, (Unrun, FunctionV)) or isinstance(v, Symbol) and not _constant(v) for v in _flat(values)):
        raise CannotModel(f"`{callee}` is given a function, which it may call where the check does not follow: "
                          "call it yourself", node, kind="construct")


def _constant(symbol: Symbol) -> bool:
    """A `pl` constant, not a function: an enum's member (`pl.TilePad.zero`), a dtype, a layout
    (probe h174: `int(pl.TilePad.zero)` was said to be given a function)."""
    path = symbol.path
    return len(path) == 2 and path[0] in ENUMS or len(path) == 1 and path[0] in CONSTANTS


def _handle_words(value: Any) -> str:
    if isinstance(value, TensorV):
        return f"tensor `{value.name}`"
    if isinstance(value, GroupV):
        return f"tile group `{value.name}`" if value.name else "a tile group"
    return f"tile `{value.label}`" if isinstance(value, TileV) else "a tile"


def _is_ring(value: Any) -> bool:
    """A `pl.struct_array`: a list of ctx entries."""
    return type(value) is list and bool(value) and all(type(v) is StructV and v.origin == "ctx" for v in value)


def _name_group(group: GroupV, name: str) -> None:
    group.name = name
    group.tiles = tuple(replace(t, label=f"{name}[{i}]") for i, t in enumerate(group.tiles))


def _gives_a_bool(node: cst.BaseExpression) -> bool:
    """Is `node`'s value True or False, whatever its operands hold (a comparison, a `not`, or `and`/`or`
    of such)? Then `node and False` is False and `node or True` is True, as values, not only as truths."""
    if isinstance(node, cst.Comparison) or isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return True
    return isinstance(node, cst.BooleanOperation) and _gives_a_bool(node.left) and _gives_a_bool(node.right)


def opaque_operands(*values: Any) -> bool:
    """Operands whose result is a named run-time value: some `Opaque`, the rest plain numbers."""
    return any(isinstance(v, Opaque) for v in values) and all(
        isinstance(v, Opaque) or (isinstance(v, (int, float)) and not is_unknown(v)) for v in values)




def parameter_size(value: Any) -> Opaque | None:
    """A scalar parameter or tiling-data field (`chunk`, `tiling.chunk`: sampled, or a trip-count
    root) as the run-time value it is, one number on every block and through the run, where it
    meets another run-time value or the block index; None for any other value."""
    if not (isinstance(value, Sym) and len(value.form) == 1 and not value.const and not value.residue):
        return None
    (var, coefficient), = value.form
    if coefficient != 1:
        return None
    if var[0] == "scalar":
        return Opaque(("param", var[1]))
    if var[0] == "size" and isinstance(var[1], tuple) and var[1][:1] == ("param",):
        return Opaque(var[1])
    return None


def run_time_size(value: Any) -> Opaque | None:
    """`parameter_size`, or the run-time value a trip-count root stands for (`a.shape[0] // TILE`
    once a loop has counted up to it), either moved by a whole number (`n - 1`); None for any
    other value, a symbolic module name's root included."""
    if not (isinstance(value, Sym) and len(value.form) == 1 and not value.residue):
        return None
    (var, coefficient), = value.form
    named = parameter_size(Sym(int(value) - value.const, value.form))
    if named is None and coefficient == 1 and var[0] == "size" and isinstance(var[1], tuple) \
            and var[1][:1] != ("const",):
        named = Opaque(var[1])
    if named is None or not value.const:
        return named
    return Opaque(_moved(("op", "add", named.origin, value.const)))


def _of_a_block(named: Opaque | None) -> bool:
    """Whether a named run-time value is computed from a block value (`n - core_id`)."""
    if named is None:
        return False
    todo: list = [named.origin]
    while todo:
        part = todo.pop()
        if isinstance(part, tuple):
            if part[:1] == ("block",):
                return True
            todo += [p.origin if isinstance(p, Opaque) else p for p in part]
    return False


def _parameter_quotient(left: Any, k: int) -> Opaque | None:
    """`left // k` as a named run-time value when `left` is a scalar parameter (or tiling-data
    field) plus a constant (`n_rows`, `n_rows + TILE - 1`); None for any other value."""
    if not (isinstance(left, Sym) and len(left.form) == 1 and not left.residue):
        return None
    named = parameter_size(Sym(int(left) - left.const, left.form))
    if named is None:
        return None
    return opaque_op("floordiv", Opaque(_moved(("op", "add", named.origin, left.const))), k)


#: the text a block value of an exact kind is named by, whatever its spelling (`_block_mark`)
_EXACT_BLOCK_TEXT = {"count": "num_cores", "index": "core_id", "index+1": "core_id + 1"}


def _by_block_count(left: Any, right: Any) -> bool:
    """`x // num_cores` or `x % num_cores` with `x` a whole number or the block count scaled and
    moved by numbers (`N + num_cores - 1`)."""
    if not (isinstance(right, Sym) and right.form == (BLOCK_COUNT,) and not right.const and not right.residue):
        return False
    if type(left) is int:
        return True
    return isinstance(left, Sym) and len(left.form) == 1 and left.form[0][0] == BLOCK_COUNT[0] and not left.residue


def _count_origin(value: Sym, count: Any) -> tuple:
    """The origin of `k * num_cores + c` (`value`), with `count` the block count's mark."""
    ((_, k),) = value.form
    scaled = count.origin if k == 1 else ("op", "mul", k, count.origin)
    return ("op", "add", scaled, value.const) if value.const else scaled


def _first_named(value: Any, otherwise: Any) -> Any:
    """`value`, or `otherwise` when it is None (a run-time value has no truth to test with `or`)."""
    return otherwise if value is None else value


#: a comparison's operator -> the one that holds where it does not, as written in code
_INVERSE = {cst.LessThan: ">=", cst.GreaterThanEqual: "<", cst.LessThanEqual: ">", cst.GreaterThan: "<=",
            cst.Equal: "!=", cst.NotEqual: "=="}


def _identity(fn: Any, left: Any, right: Any) -> Opaque | None:
    """The run-time value of `x * 1`, `1 * x`, `x + 0`, `0 + x` or `x - 0`: `x` itself; else None."""
    for value, other, ops in ((left, right, (operator.mul, operator.add, operator.sub)),
                              (right, left, (operator.mul, operator.add))):
        if type(value) is Opaque and type(other) is int and fn in ops \
                and other == (1 if fn is operator.mul else 0):
            return value
    return None


def opaque_op(name: str, *values: Any) -> Opaque:
    return Opaque(_canonical(("op", name, *(v.origin if isinstance(v, Opaque) else OriginSym.of(v) for v in values))))


def _canonical(origin: tuple) -> tuple:
    """A run-time value in the form the check recognises: `n - n // d * d` is `n % d` (for
    whole numbers, with `//` and `%` rounding alike, whichever way that is), the remainder of a
    balanced split written by hand (`rem = n - base * num_cores`), a number added and taken away
    again (`(x + 1) - 1` is `x`: an end raised by one, then lowered on some blocks, probe h216)."""
    if len(origin) == 4 and origin[1] == "add" and type(origin[3]) is int:
        inner = origin[2]
        if isinstance(inner, tuple) and len(inner) == 4 and inner[:2] == ("op", "sub") and inner[3] == origin[3]:
            return inner[2]
    if len(origin) == 4 and origin[1] == "sub" and type(origin[3]) is int:
        dropped = _without_addend(origin[2], origin[3])
        if dropped is not None:
            return dropped
    if len(origin) == 4 and origin[1] == "sub":
        n, product = origin[2:]
        if isinstance(product, tuple) and len(product) == 4 and product[:2] == ("op", "mul"):
            for quotient, d in (product[2:], product[3:1:-1]):
                if quotient == ("op", "floordiv", n, d):
                    return ("op", "mod", n, d)
    return origin


def _without_addend(origin: Any, number: int) -> Any:
    """A sum's origin with one addend `number` taken out, the other terms left as they were
    written (`(start + 1) + base` less 1 is `start + base`); None when no addend is that number."""
    if not (isinstance(origin, tuple) and len(origin) == 4 and origin[:2] == ("op", "add")):
        return None
    a, b = origin[2:]
    if b == number and type(b) is int:
        return a
    if a == number and type(a) is int:
        return b
    for i, part in ((2, a), (3, b)):
        dropped = _without_addend(part, number)
        if dropped is not None:
            return ("op", "add", dropped, b) if i == 2 else ("op", "add", a, dropped)
    return None


def _moved(origin: tuple) -> tuple:
    """A run-time value moved by whole numbers in one step (`n + TILE - 1` is `n + 31`, `n + 0` is
    `n`), as a `Sym` adds them: a parameter's quotient is one root however the constants were
    written, and whichever of the two forms computed it (the parameter is a `Sym` in a discovery
    run, an `Opaque` in a run at chosen counts: `_parameter_quotient`)."""
    base, moved = shifted(origin)
    if moved == 0:
        return base
    return ("op", "add", base, moved) if moved > 0 else ("op", "sub", base, -moved)


#: What the refusals of a stage keeping state say: a stage that reads or computes the value itself
#: needs nothing carried (verified: `tests/soundness/test_module_state.py`)
_KEPT = (", and the pipeline does not carry it to a later stage or iteration: read or compute the value in the "
         "stage that uses it")
#: Imported modules whose functions keep no state between calls (numbers in, numbers out); the
#: functions of any other module may (`random.seed(v)`, `sys.setrecursionlimit(v)`)
_STATELESS_MODULES = frozenset({"math", "cmath"})


def _class_constant(bound: list, body: list) -> cst.BaseExpression | None:
    """The value a class attribute is bound to once, by a plain assignment of its own, when it
    reads no name the class body binds (there `B = A + 1` reads the class's `A`, not the
    module's); None otherwise."""
    if len(bound) != 1 or not isinstance(bound[0], cst.SimpleStatementLine) or len(bound[0].body) != 1:
        return None
    small = bound[0].body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        value = small.value
    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
        value = small.value
    else:
        return None
    inside = {name for stmt in body for name in class_binds(stmt)}
    if any(isinstance(n, cst.Name) and n.value in inside for n in iter_nodes(value)):
        return None
    return value


def _plain_class(node: Any) -> bool:
    """A class of the file with no method, base or decorator, whose body binds names to literals
    only (not `__init__ = f`): making one runs nothing of its own."""
    if not (isinstance(node, cst.ClassDef) and not node.bases and not node.keywords and not node.decorators):
        return False
    for stmt in node.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)) \
                    or isinstance(small, cst.Pass):
                continue
            if not (isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None
                    and isinstance(small.value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name))
                    and all(isinstance(t, cst.Name) and not t.value.startswith("__") for t in
                            ([a.target for a in small.targets] if isinstance(small, cst.Assign) else [small.target]))):
                return False
    return True


def _plain(value: Any, made: dict, deep: bool = False) -> bool:
    """A value a call cannot keep or change: a number, a string, a run-time value, a `pl`
    constant, None, a list or dict the stage made; with `deep`, also a tuple or range of such."""
    if isinstance(value, (int, float, str, Opaque, Symbol)) or value is None:
        return True
    if isinstance(value, (list, dict)) and id(value) in made:
        return True
    if deep and isinstance(value, range):
        return True
    return deep and isinstance(value, tuple) and all(_plain(v, made, deep) for v in value)


def _scalars(value: Any, deep: bool = True, depth: int = 0) -> bool:
    """A number, a string, a run-time value or None; with `deep`, also a list, tuple, range or
    dict of such (what a new container may be made of, no object's code run to make it)."""
    if isinstance(value, (int, float, str, Opaque)) or value is None:
        return True
    if not deep or depth > 8:
        return False
    if isinstance(value, (list, tuple, range)):
        return all(_scalars(v, deep, depth + 1) for v in value)
    if type(value) is dict:
        return all(_scalars(k, deep, depth + 1) and _scalars(v, deep, depth + 1) for k, v in value.items())
    return False


def _lambda(self: PythonSubset, node: cst.Lambda, ctx: Ctx) -> Unrun:
    """A lambda, not run; its defaults are computed when it is made, as Python does, which the
    check does not follow when they call anything or bind a name (`lambda x=(e := e * 2): x`,
    probe h166)."""
    params = node.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.default is not None and any(type(n) in (cst.Call, cst.NamedExpr) for n in iter_nodes(p.default)):
            raise CannotModel("the check does not run a lambda's defaults: write a `def` in the file", p.default,
                              kind="construct")
    return Unrun(node)


def _not_followed(node: cst.CSTNode, what: str) -> None:
    raise CannotModel(f"the check does not follow {what}: define it at module level", node, kind="construct")


def _in_stage(what: str) -> Callable:
    """A statement the check does not follow inside a stage (a `class` statement runs its body, a
    `raise` its expression): refused there, nothing done elsewhere."""
    def run(self: PythonSubset, stmt, ctxs) -> None:
        if self._made is not None:
            raise CannotModel(f"the check does not follow a `{what}` statement inside a stage", stmt, kind="construct")
    return run


def _delete(self: PythonSubset, small: cst.Del, ctx: Ctx) -> None:
    """`del x[i]` / `del x.a` in a stage changes what it did not make, as an assignment would;
    `del x` unbinds the frame's name `x`, which a later read must not find (`_name`)."""
    targets = small.target.elements if isinstance(small.target, (cst.Tuple, cst.List)) else [small.target]
    for t in targets:
        target = t.value if isinstance(t, cst.BaseElement) else t
        if type(target) is cst.Name:
            if target.value not in ctx.env:  # Python raises: the name is local to the frame, and unbound
                raise CannotModel(f"`del {target.value}` deletes a name this function has not bound", target,
                                  kind="deleted")
            del ctx.env[target.value]
            ctx.deleted.add(target.value)
        elif isinstance(target, (cst.Subscript, cst.Attribute)):
            obj = self.eval(target.value, ctx)
            self._kept_outside(obj, target.value, target, ctx)
            if type(obj) in (list, dict) and isinstance(target, cst.Subscript):
                key = self._change_key(target, ctx)
                self._change(partial(containers.del_item, obj, key), target, ctx, obj)


def _yields(file, fn: cst.FunctionDef, memo: dict[int, tuple]) -> bool:
    """Does `fn`'s body hold a `yield` (in a function nested in it too: on the safe side)? Read
    once per function of the file (`memo`), from the file's index of its nodes."""
    hit = memo.get(id(fn))
    if hit is None or hit[0] is not fn:
        hit = memo[id(fn)] = (fn, bool(file.find(fn.body, cst.Yield)))
    return hit[1]


def _nested_generator(fn: cst.FunctionDef) -> str | None:
    """The name of a function nested in `fn` whose body yields, when `fn`'s own body does not
    (`_yields` counts both, on the safe side); None otherwise."""
    own: list[cst.CSTNode] = list(fn.body.body)
    nested: list[cst.FunctionDef] = []
    while own:
        node = own.pop()
        if type(node) is cst.Yield:
            return None
        if type(node) is cst.FunctionDef:
            nested.append(node)
            continue
        own.extend(children(node))
    return next((f.name.value for f in nested if any(type(n) is cst.Yield for n in iter_nodes(f.body))), None)


def _imported(small: cst.Import | cst.ImportFrom, ctx: Ctx) -> None:
    """An import inside a function binds its names there (`from os import SEEK_SET as S`): to
    what the check does not follow."""
    if isinstance(small.names, cst.ImportStar):
        raise CannotModel("`import *` inside a function", small, kind="construct")
    for alias in small.names:
        bound: cst.BaseExpression = alias.asname.name if alias.asname is not None else alias.name
        while isinstance(bound, cst.Attribute):  # `import os.path` binds `os`
            bound = bound.value
        if isinstance(bound, cst.Name):
            ctx.env[bound.value] = UNKNOWN


def _rebinding(self: PythonSubset, small: cst.Global | cst.Nonlocal, ctx: Ctx) -> None:
    """`global x` / `nonlocal x` in a stage (or what it calls): the names it binds outlive it. In
    the kernel or a function it calls, the name is rebound while the kernel runs, and what reads
    it (a stage, a loop's end) sees another value at another time in the pipelined kernel."""
    names = ", ".join(f"`{n.name.value}`" for n in small.names)
    keyword = type(small).__name__.lower()
    if self._made is not None:
        stage = ctx.scope[1] if ctx.scope is not None else "?"
        raise CannotModel(f"stage `{stage}` binds {names} outside its own frame (`{keyword}`): "
                          f"a value kept there outlives the stage{_KEPT}", small, kind="kept")
    raise CannotModel(f"the kernel binds {names} outside its own frame (`{keyword}`) while it runs: the check reads "
                      "module names as the module leaves them, and a stage of a later iteration would read the "
                      "name rebound; pass the value as an argument instead", small, kind="construct")


def _raise(exc: type[LoopBreak] | type[LoopContinue]) -> Callable:
    def run(self, small, ctx) -> None:
        raise exc(small)
    return run


_STATEMENTS: dict[type, Callable] = {
    cst.SimpleStatementLine: PythonSubset._simple_line,
    cst.If: PythonSubset.exec_if,
    cst.For: Loops.exec_for,
    cst.While: Loops.exec_while,
    cst.With: PythonSubset.exec_with,
    cst.FunctionDef: PythonSubset._def,
    cst.Try: PythonSubset.exec_try,
    cst.IndentedBlock: lambda self, stmt, ctxs: self.exec_block(stmt.body, ctxs),
    cst.ClassDef: lambda self, stmt, ctxs: _not_followed(stmt, "a `class` statement, whose body runs where it stands"),
}

_SMALL_STATEMENTS: dict[type, Callable] = {
    cst.Expr: PythonSubset._expr,
    cst.Assign: PythonSubset._assign,
    cst.AnnAssign: PythonSubset._ann_assign,
    cst.AugAssign: PythonSubset.aug_assign,
    cst.Return: PythonSubset._return,
    cst.Break: _raise(LoopBreak),
    cst.Continue: _raise(LoopContinue),
    cst.Assert: lambda self, small, ctx: self.eval(small.test, ctx),  # its test runs, as Python runs it
    cst.Del: _delete,
    cst.Import: lambda self, small, ctx: _imported(small, ctx),
    cst.ImportFrom: lambda self, small, ctx: _imported(small, ctx),
    cst.Raise: lambda self, small, ctx: _in_stage("raise")(self, small, [ctx]),
    cst.Global: _rebinding,
    cst.Nonlocal: _rebinding,
}

_EVAL: dict[type, Callable] = {
    cst.Integer: PythonSubset._integer_literal,
    cst.Float: lambda self, n, ctx: float(n.value.replace("_", "")),
    cst.SimpleString: lambda self, n, ctx: self._string(n),
    cst.Name: PythonSubset._name,
    cst.Attribute: PythonSubset._attribute,
    cst.BinaryOperation: PythonSubset._binary,
    cst.UnaryOperation: PythonSubset._unary,
    cst.BooleanOperation: PythonSubset._boolean,
    cst.Comparison: PythonSubset._compare,
    cst.IfExp: PythonSubset._ifexp,
    cst.Tuple: PythonSubset._sequence,
    cst.List: PythonSubset._sequence,
    cst.Subscript: PythonSubset._subscript,
    cst.Call: PythonSubset._call,
    cst.Lambda: lambda self, n, ctx: _lambda(self, n, ctx),
    cst.Dict: PythonSubset._dict,
    cst.NamedExpr: PythonSubset._walrus,
}


def _returns_nothing(ret: cst.Return) -> bool:
    return ret.value is None or (isinstance(ret.value, cst.Name) and ret.value.value == "None")


#: comparison -> (the test it is or negates, whether its operands come the other way round,
#: whether it negates it: the arms of a choice by it swap)
_CHOICE_TESTS = {cst.LessThan: ("lt", False, False), cst.GreaterThan: ("lt", True, False),
                 cst.LessThanEqual: ("lt", True, True), cst.GreaterThanEqual: ("lt", False, True),
                 cst.Equal: ("eq", False, False), cst.NotEqual: ("eq", False, True)}


def _choice_test(test: cst.BaseExpression, tested: tuple | None, named: Callable[[Any], Any]) -> tuple | None:
    """The test of a choice (`_by_block`): one comparison (`tested`, what `_compare` compared
    for this very test) of terms `_block_term` names, as `(("lt", a, b), swap)` or `(("eq", a,
    b), swap)`: `a >= b` is `not b < a` and `a != b` is `not a == b`, so `swap` says the arms come
    the other way round; an equality puts the block index first; `not` before the comparison
    swaps them back. None for any other test."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        negated = _choice_test(test.expression, tested, named)
        return None if negated is None else (negated[0], not negated[1])
    if not (tested is not None and isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and type(test.comparisons[0].operator) in _CHOICE_TESTS):
        return None
    operator_type = type(test.comparisons[0].operator)
    name, flip, swap = _CHOICE_TESTS[operator_type]
    terms = [_block_term(v, named) for v in tested]
    if any(t is None for t in terms):
        return None
    by_index = _index_test(operator_type, *terms)
    if by_index is not None:
        return by_index
    left, right = terms[::-1] if flip else terms
    if name == "eq" and right == INDEX_TERM:
        left, right = right, left
    return (name, left, right), swap


#: `index OP bound` returning the blocks whose index is at least `bound` plus this: `>=` 0, `>` 1
_RETURNS_FROM = {cst.GreaterThanEqual: 0, cst.GreaterThan: 1}
#: the same with `not` before the comparison
_NOT_RETURNS_FROM = {cst.LessThan: 0, cst.LessThanEqual: 1}


def _stay_below(test: cst.BaseExpression, tested: tuple | None) -> tuple | None:
    """What the index of every block that goes on past `if <test>: return` is below, as (form,
    constant) of a value the same on every block (`Loop.host_step`): `core_id >= used_cores`,
    `core_id > used_cores - 1`, `used_cores <= core_id`, `core_id + 1 >= used_cores + 1`, `not
    core_id < used_cores`, `core_id != 0` (below 1); None for any other test."""
    negated = False
    while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        negated, test = not negated, test.expression
    comparison = test
    if not (tested is not None and len(tested) == 2 and isinstance(comparison, cst.Comparison)
            and len(comparison.comparisons) == 1):
        return None
    operator_type = type(comparison.comparisons[0].operator)
    left, right = tested
    if _index_shift_of(right) is not None and _index_shift_of(left) is None:  # `used_cores <= core_id`
        left, right, operator_type = right, left, _MIRRORED.get(operator_type, operator_type)
    shift = _index_shift_of(left)
    if shift is None or _index_shift_of(right) is not None:
        return None
    if operator_type is cst.NotEqual and not negated and type(right) is int and right - shift == 0:
        return ((), 1)  # `core_id != 0`: block 0 alone
    more = (_NOT_RETURNS_FROM if negated else _RETURNS_FROM).get(operator_type)
    if more is None:
        return None
    if type(right) is int:
        return ((), right - shift + more)
    if not isinstance(right, Sym) or right.residue or any(var[0] in INDEX or var == BLOCK for var, _ in right.form):
        return None
    return (right.form, right.const - shift + more)


def _index_shift_of(value: Any) -> int | None:
    """`c` of a value that is the block index plus `c`, or None."""
    if isinstance(value, Sym) and value.form == ((BLOCK, 1),) and not value.residue:
        return value.const
    return None


def _without_not(test: cst.BaseExpression) -> cst.BaseExpression:
    """The comparison a test negates by `not` (`not core_id >= rem`), or the test itself: the node
    `_compare` says it compared."""
    while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        test = test.expression
    return test


def _index_test(operator_type: type, a: Any, b: Any) -> tuple | None:
    """A test of the block index shifted by a number against a whole number (a number, the block
    count plus one, a run-time value less 1) as a test of the index alone, in the form
    `_choice_test` gives: `core_id + 1 < num_cores` and `core_id <= num_cores - 2` are `core_id <
    num_cores - 1`, `core_id <= rem - 1` is `core_id < rem`; None when it is no such test."""
    shift_a, shift_b = _index_shift(a), _index_shift(b)
    if (shift_a is None) == (shift_b is None):
        return None
    shift = shift_a
    if shift is None:  # the index on the right: the mirrored comparison
        a, b, shift, operator_type = b, a, shift_b, _MIRRORED.get(operator_type, operator_type)
    # `i + s < x` is `i < x - s`, and `i <= x` is `i < x + 1` for whole numbers: one shift of `x`
    # by both, so that `core_id + 1 <= rem` is `core_id < rem`
    other = _shifted(b, (1 if operator_type in (cst.LessThanEqual, cst.GreaterThan) else 0) - (shift or 0))
    if other is None:
        return None
    name, swap = _INDEX_TESTS[operator_type]
    return (name, INDEX_TERM, other), swap


def _index_shift(term: Any) -> int | None:
    """`c` of a term naming the block index plus `c` (`_block_term`), or None."""
    if term == INDEX_TERM:
        return 0
    return term[2] if isinstance(term, tuple) and len(term) == 3 and term[:2] == ("block", "index") else None


def _shifted(term: Any, by: int) -> Any:
    """A whole-number term plus `by`, or None when it cannot be named so."""
    if by == 0:
        return term
    if type(term) is int:
        return term + by
    if isinstance(term, tuple) and len(term) == 3 and term[0] == "block" and term[2] == "count":
        return ("block", term[1] + by, "count")
    if by == 1 and isinstance(term, tuple) and len(term) == 4 and term[:2] == ("op", "sub") and term[3] == 1:
        return term[2]  # `rem - 1` plus 1
    return None


#: the tests of an early return that every block but block 0 takes (`core_id > 0`, `core_id != 0`),
#: as `_choice_test` gives them
_BLOCK_ZERO_STAYS = ((("lt", INDEX_TERM, 1), True), (("eq", INDEX_TERM, 0), True))
#: a comparison with its operands the other way round
_MIRRORED: dict[type, type] = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan,
                               cst.LessThanEqual: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThanEqual}
#: a comparison of the block index with a whole number `x`, once `<=` and `>` compare with `x + 1`:
#: the test it is or negates (the arms of a choice by it swap)
_INDEX_TESTS: dict[type, tuple[str, bool]] = {
    cst.LessThan: ("lt", False), cst.LessThanEqual: ("lt", False), cst.GreaterThan: ("lt", True),
    cst.GreaterThanEqual: ("lt", True), cst.Equal: ("eq", False), cst.NotEqual: ("eq", True)}


def _sum_of(origin: Any) -> tuple[tuple, int]:
    """A run-time value's origin as the terms it sums (sorted by their words) and a constant:
    `("op", "add", a, 1)` and `("op", "add", 1, a)` are `((a,), 1)`, a difference by a number
    adds its negative; a term of any other kind is itself."""
    if type(origin) is int:
        return (), origin
    if isinstance(origin, tuple) and len(origin) == 4 and origin[0] == "op" and origin[1] in ("add", "sub"):
        left, right = _sum_of(origin[2]), _sum_of(origin[3])
        if origin[1] == "add":
            return tuple(sorted(left[0] + right[0], key=repr)), left[1] + right[1]
        if not right[0]:
            return left[0], left[1] - right[1]
    return (origin,), 0


def _loop_before(fn: cst.FunctionDef, node: cst.CSTNode) -> bool:
    """Does a loop of `fn` not around `node` come before it, as the code is written?"""
    for n in iter_nodes(fn.body):
        if n is node:
            return False
        if isinstance(n, (cst.For, cst.While)) and not any(m is node for m in iter_nodes(n)):
            return True
    return False


def _reaches_into_arguments(test: cst.BaseExpression, arguments: frozenset[str]) -> bool:
    """Does `test` read a field or an item of a kernel argument (`cfg.n`, `lst[0]`, `x[0, 0]`),
    which the kernel may have changed per block, or GM another block writes? A tensor's shape
    (`x.shape[0]`) is the launch's, the same everywhere."""
    for n in iter_nodes(test):
        if not isinstance(n, (cst.Attribute, cst.Subscript)):
            continue
        root = n.value
        while isinstance(root, (cst.Attribute, cst.Subscript)):
            root = root.value
        if not isinstance(root, cst.Name) or root.value not in arguments:
            continue
        shape = n if isinstance(n, cst.Attribute) else n.value
        if not (isinstance(shape, cst.Attribute) and shape.attr.value == "shape" and shape.value is root):
            return True
    return False


def _own_ifs(fn: cst.FunctionDef) -> frozenset[int]:
    """The ids of the `if` statements of `fn`'s own body (not of a function or class in it)."""
    out = set()
    stack: list[cst.CSTNode] = children(fn.body)
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue
        if kind is cst.If:
            out.add(id(n))
        if not isinstance(n, cst.BaseExpression):
            stack.extend(children(n))  # (an expression holds no statement)
    return frozenset(out)


def _less_sum(whole: tuple[tuple, int], part: tuple[tuple, int]) -> Any:
    """The origin of the sum `whole` less the sum `part` (each as `_sum_of` gives it: terms and a
    constant), when every term of `part` is one of `whole`'s: the terms left added one after
    the other, then the constant; None when `part` is not in `whole`, or nothing is left."""
    rest = list(whole[0])
    for term in part[0]:
        if term not in rest:
            return None
        rest.remove(term)
    const = whole[1] - part[1]
    if not rest:
        return None
    origin = rest[0]
    for term in rest[1:]:
        origin = ("op", "add", origin, term)
    return _moved(("op", "add", origin, const))


def _plain_assignments(block: cst.BaseSuite) -> bool:
    """A block of `name = value`, `a, b = x, y` (probe h220) and `name += value` lines (and `pass`)."""
    return isinstance(block, cst.IndentedBlock) and all(
        isinstance(line, cst.SimpleStatementLine) and all(
            isinstance(small, cst.Assign) and len(small.targets) == 1 and _names_only(small.targets[0].target)
            or isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) or isinstance(small, cst.Pass)
            for small in line.body)
        for line in block.body)


#: the builtins a choice's values may call: numbers of numbers, nothing else done
_PURE_BUILTINS = frozenset({"min", "max", "abs"})
#: Builtins that run code of their own choosing or end the program (`exec("pl.store(...)")`,
#: `exit()`): never a call that runs nothing of the file.
_RUNS_CODE = frozenset({"exec", "eval", "compile", "__import__", "breakpoint", "exit", "quit", "input", "help",
                        "open"})


def _block_term(value: Any, named: Callable[[Any], Any]) -> Any:
    """An operand of a test in a choice (`_by_block`): `INDEX_TERM` for the block index (a block
    value, `uniform.marks_block_index`), `("block", c, "count")` for the block count plus `c`, the
    origin of the run-time value it is (`named`, `PythonSubset._run_time`), a plain number; None
    for anything else."""
    if isinstance(value, Sym) and not value.residue:
        if value.form == ((BLOCK, 1),):
            return ("block", "index", value.const) if value.const else INDEX_TERM
        if value.form == (BLOCK_COUNT,):
            return ("block", value.const, "count")
    if type(value) is int:
        return value
    run_time = named(value)
    # a float (`core_id <= f - 1` is not `core_id < f` for f = 2.5, and no test of NaN holds: probe h235)
    return None if run_time is None or float_valued(run_time.origin) else run_time.origin


def _mutable(value: Any) -> bool:
    """A value a branch can change in place, or one holding such: a list, a dict, a struct, a tuple."""
    return isinstance(value, (list, dict, StructV, tuple))


def _struct_fields(values) -> list[tuple[StructV, dict]]:
    """Each struct among `values` or inside them (structs, lists, tuples, dicts, at any depth),
    with its fields as they are."""
    found: list[tuple[StructV, dict]] = []
    seen: set[int] = set()
    todo = list(values)
    while todo:
        value = todo.pop()
        if not isinstance(value, (StructV, list, tuple, dict, FunctionV)) or id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, StructV):
            found.append((value, dict(value.fields)))
            todo.extend(value.fields.values())
        elif isinstance(value, FunctionV):  # a nested `def f(s=st):`: its defaults hold `st`
            todo.extend((value.defaults or {}).values())
        else:
            todo.extend(value.values() if isinstance(value, dict) else value)
    return found


def _contents(value: Any, depth: int = 0) -> Any:
    """What a value holds, compared as `_kept` compares (numbers with what they are computed from),
    containers followed down to a depth past which the value counts as changed (a fresh object
    equals nothing); anything else by identity."""
    if depth > 8:
        return object()
    if isinstance(value, Sym):
        return ("sym", int(value), value.form, value.const, value.residue)
    if isinstance(value, Opaque):
        return ("opaque", value.origin)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_contents(v, depth + 1) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((repr(k), _contents(v, depth + 1)) for k, v in value.items()))
    if isinstance(value, StructV):
        return ("struct", tuple((k, _contents(v, depth + 1)) for k, v in value.fields.items()))
    if type(value) in (int, float, bool, str) or value is None:
        return (type(value).__name__, value)
    if isinstance(value, FunctionV) and value.defaults:  # a nested `def f(s=st):` holds what its defaults hold
        return ("function", id(value), tuple((k, _contents(v, depth + 1)) for k, v in value.defaults.items()))
    return ("object", id(value))


def _kept(before: Any, after: Any) -> bool:
    """Is a name's value after a branch the one it held before: alike in what it is computed from,
    not only the same number of this run (`start = 0` under `if core_id == 1:` rebinds the chunk
    start `core_id * chunk`, which is 0 at block 0 alone)?"""
    if before is after:
        return True
    if isinstance(before, (Sym, Opaque)) or isinstance(after, (Sym, Opaque)):
        return _same_value(before, after)
    if isinstance(before, (list, dict)) or isinstance(after, (list, dict)):
        return False  # another list, however alike: a change of one is not a change of the other
    if isinstance(before, tuple) or isinstance(after, tuple):
        return type(before) is type(after) and len(before) == len(after) and all(
            _kept(a, b) for a, b in zip(before, after, strict=True))
    return type(before) is type(after) and before == after


def _same_value(a: Any, b: Any) -> bool:
    """The same number on two cores: equal, and alike in what it is computed from."""
    if isinstance(a, Sym) or isinstance(b, Sym):
        return (isinstance(a, Sym) and isinstance(b, Sym) and int(a) == int(b) and a.form == b.form
                and a.const == b.const and a.residue == b.residue)
    if isinstance(a, Opaque) or isinstance(b, Opaque):
        return isinstance(a, Opaque) and isinstance(b, Opaque) and a.origin == b.origin
    return type(a) is type(b) and type(a) in (int, float) and a == b


def _one_block(left: Any, right: Any) -> Fraction | str | None:
    """`core_id == c`: the block index (alone, scaled: `k * b + e`) against a plain number; the
    block `b` it singles out. `core_id == num_cores - 1` (the index plus `a` against the block
    count plus `b`, `b - a == -1`): the last block, `LAST_BLOCK`. None for any other test."""
    for index, other in ((left, right), (right, left)):
        if isinstance(index, Sym) and len(index.form) == 1 and index.form[0][0] == BLOCK \
                and isinstance(other, int) and not isinstance(other, bool) and not getattr(other, "form", ()):
            return Fraction(int(other) - index.const, index.form[0][1])
        if isinstance(index, Sym) and index.form == ((BLOCK, 1),) and not index.residue and isinstance(other, Sym) \
                and other.form == (BLOCK_COUNT,) and not other.residue and other.const - index.const == -1:
            return LAST_BLOCK
    return None


#: the block `core_id == num_cores - 1` singles out (`_one_block`): another than any numbered one
#: unless there is one block, where a write under it and one under `core_id == 0` are one block's
LAST_BLOCK = "last"


def _block_count_only(var: tuple) -> bool:
    """Is `var` the block count, or a value computed from it alone (`num_cores // 2`): the same on
    every block?"""
    count = BLOCK_COUNT[0]
    return var == count or var[0] == "derived" and bool(var[2]) and all(r == count for r in var[2])


def _tells_blocks_apart(left: Any, right: Any) -> bool:
    """A comparison of the block index or count, and of nothing the loops vary (a test of a
    per-core loop variable is the loops' business: `Uniform.test`). A form holds a root of the
    block (`roots_of`) where one of its variables is a block value (`is_block_value`)."""
    forms = [v.form for v in (left, right) if isinstance(v, Sym)]
    return any(is_block_value(var) for form in forms for var, _ in form) and not any(
        var[0] in INDEX for form in forms for var, _ in form)


def _difference(x: Any, y: Any) -> tuple:
    """The form of `x - y` (their coefficients on each variable)."""
    out = dict(getattr(x, "form", ()))
    for var, c in getattr(y, "form", ()):
        out[var] = out.get(var, 0) - c
    return tuple((var, c) for var, c in out.items() if c)


def view_part(tile: TileV, bounds: list) -> tuple:
    """The rows and columns of `tile[r0:r1, c0:c1]` (None bounds: from the start, to the end),
    as PyPTO makes a view of a rank-2 tile: inside the tile (the view of a view, inside that
    view), without a step; () for anything else (bounds known only at run time, a step), where
    the view is taken as its whole tile. A bound that is a residue of loop variables or counters
    (`(ki % 4) * H`) is followed as a number: it repeats with the period its modulus joins."""
    dims = tile.part or tile.shape
    if len(bounds) != 2 or len(dims) != 2:
        return ()
    part = []
    for (lo, hi, step), dim in zip(bounds, dims, strict=True):
        lo = 0 if lo is None else lo
        hi = dim if hi is None else hi
        if step is not None or not _periodic(lo) or not _periodic(hi) or type(dim) is not int \
                or not 0 <= lo < hi <= dim:
            return ()
        part.append(int(hi) - int(lo))
    return tuple(part)


def _periodic(value: Any) -> bool:
    """A whole number, or a residue of loop variables and counters alone: the same in every
    iteration of a phase of the period, at every trip count."""
    if type(value) is int:
        return True
    return isinstance(value, Sym) and value.residue and all(var[0] in INDEX for var, _ in value.form)


#: the bytes of the blocks vector ops move (a row of a view is its own only in whole blocks)
BLOCK_BYTES = 32


def row_span(tile: TileV, bounds: list, part: tuple) -> tuple:
    """The bytes `[lo, hi)` of the rows of `tile[r0:r1, :]`, a view `part` (`view_part`) of
    whole rows of an ND tile, row-major with its tile's row stride of whole 32-byte blocks (a
    view of such a view, inside its rows); () for any other view: a layout that keeps a row's
    elements apart, some columns only, rows that share a block, bounds the runs do not follow, a
    view of a view taken whole."""
    if not part or tile.layout != "ND" or len(tile.shape) != 2 or type(tile.shape[1]) is not int:
        return ()
    width = tile.shape[1]
    (r0, _, _), (c0, c1, _) = bounds
    if part[1] != width or c0 not in (None, 0) or c1 not in (None, width):
        return ()  # (`view_part` checked the bounds: whole rows when the columns are the width)
    if tile.desc == 0 and not tile.span:
        return ()  # a view whose bytes are its whole tile's
    stride = width * tile.elem
    if stride % BLOCK_BYTES:
        return ()  # (rows apart by less than the 32-byte blocks an op moves: neighbours share one)
    first = (tile.span[0] if tile.span else tile.lo) + (0 if r0 is None else int(r0)) * stride
    return (first, first + part[0] * stride)


def _bound_or_set_in(body: cst.CSTNode) -> set[str]:
    """The names a block binds, and the fields `x.f` it assigns."""
    targets = [n.target for n in iter_nodes(body) if isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign))]
    return {n.value for n in names_stored(body)} | {f"{t.value.value}.{t.attr.value}" for t in targets
                                                   if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name)}


def _integral(value: Any) -> bool:
    """An integer, or a value known only at run time that is one (a dimension, an integer
    parameter, the loop variable, the block index, arithmetic of those by `+ - * // %`)."""
    if type(value) is int or isinstance(value, Sym):
        return True
    return isinstance(value, Opaque) and integer_valued(value.origin)


def _varying(value: Any) -> bool:
    return isinstance(value, (Sym, Opaque))


def _run_time_value(value: Any) -> Any:
    """A scalar parameter or tiling-data field as the run-time value it is (`parameter_size`);
    any other value as it is."""
    size = parameter_size(value) if type(value) is Sym else None
    return value if size is None else size


def bound_arguments(interp: InterpreterBase, node: cst.Call, ctx: Ctx) -> tuple[list, dict]:
    """The arguments of a `pl.range`: a loop's bounds, where a clamp of a trip
    count is one (`bounding`, `_builtin`). A bound computed from a sampled parameter otherwise
    is refused: the loop would run at the samples alone, as one of static count (probe h119:
    `n_eff = max(n, 0)`, `pl.range(0, n_eff)`)."""
    outer, interp.bounding = interp.bounding, True
    try:
        pos, kw = interp._args(node, ctx)
    finally:
        interp.bounding = outer
    # (the host's core count a per-core range steps by is no trip count: `Loops.host_step`)
    counted = pos[:2] if len(pos) == 3 and interp.host_step(pos[0], pos[2]) else pos
    if not interp.config.discover and any(isinstance(p, Sym) and sampled_int(p) is not p for p in counted):
        sampled = interp.config.scalars
        names = sorted({var[1] for p in counted if isinstance(p, Sym) for var, _ in p.form if var[0] == "scalar"}
                       | {n.value for n in iter_nodes(node) if type(n) is cst.Name and n.value in sampled})
        values = ", ".join(f"`{n}`" for n in names)
        if len(names) > 1:  # `pl.range(0, min(n, m))` (probe h120: the fix named was where it stood)
            fix = ("a count made of several run-time values; count the loop to a parameter the caller computes "
                   "(`n_iter: pl.DT_INT32`, `pl.range(0, n_iter)`)")
        else:
            fix = ("write the clamp in the loop's bounds (`pl.range(0, max(n, 0))`) or count the loop to the value "
                   "itself")
        raise CannotModel(f"the trip count of `{interp._code_of(node)}` is computed from {values}, known only at run "
                          f"time, in a way the check does not follow as a trip count: {fix}", node, kind="nonuniform")
    return pos, kw


def refuse_narrowed(value: Any, kind: str, what: str, node, fn: cst.FunctionDef | None = None, pl=None) -> None:
    """Refuse a value that varies between runs held in a dtype that changes it at some run
    (`values.narrows`): the run's value fits, another's wraps or rounds. A scalar parameter of
    the kernel `fn` itself is held unchanged by a dtype that holds every value of its own."""
    if narrows(value, kind, declared_dtype(value, fn, pl), partial(_parameter_range, fn, pl)):
        held = "an integer field" if kind == INT_FIELD else f"`{kind}`"
        raise nonuniform(NonUniform(
            f"{what} holds a value computed from a loop variable, a counter, a trip count or a scalar parameter as "
            f"{held}, which wraps or rounds it at some run the check does not make",
            "hold it untyped (a name with no annotation, a struct field initialised with `0`), or as `pl.DT_INT64` "
            "(a field `pl.const(0, pl.DT_INT64)`) where it fits 64 bits at every run: a loop variable, a counter or a "
            "parameter times less than 2 ** 31"), node)


def _parameter_range(fn: cst.FunctionDef | None, pl, name: str) -> tuple[int, int]:
    """The values the scalar parameter (or tiling-data field) `name` can take: those of its
    declared type (`params.int_range`: a `pl` integer dtype's, `bool`'s, int64's for `int` or
    none: a launch passes a 64-bit integer), int64's for a tiling field (probe h110: taken for
    32 bits, `epoch * 2 ** 30` was said to fit an int64 field)."""
    for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params) if fn is not None else ():
        if p.name.value == name and pl is not None:
            return int_range(p, pl.path)
    return INT64


def declared_dtype(value: Any, fn: cst.FunctionDef | None, pl) -> str | None:
    """The `pl` dtype a scalar parameter of `fn` is declared with, when `value` is that parameter
    itself (a sampled `Sym` of it, unmoved); None otherwise."""
    if fn is None or pl is None or not isinstance(value, Sym) or value.const or len(value.form) != 1:
        return None
    (var, coefficient), = value.form
    name = var[1] if var[0] == "scalar" else var[1][1] if var[0] == "size" and var[1][:1] == ("param",) else None
    if coefficient != 1 or name is None:
        return None
    for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
        if p.name.value == name and p.annotation is not None:
            path = pl.path(p.annotation.annotation)
            return path[-1] if path and len(path) == 1 and path[0].startswith("DT_") else None
    return None

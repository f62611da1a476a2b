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

The parts, one concern each: the Python subset (`pysubset.py`), loops (`loops.py`), `pl` calls
(`plcalls.py`), op events and their footprints (`opevents.py`), vector-function calls
(`vfcalls.py`), on the state they share (`interpbase.py`); a run's configuration and its
refusal are `runtypes.py`, imported from here by the check, the tests and the scripts.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any

import libcst as cst

from pto_api.memory import DTYPE_BITS
from pto_transpile.read.compiletime import datatypes_of
from pto_transpile.read.reader import section_of
from pto_transpile.read.walk import blocks, children, iter_nodes, parameters
from pto_transpile.soundness import renamed, renaming, ringsymmetry
from pto_transpile.soundness.events import AIC, AIV0, AIV1, Trace
from pto_transpile.soundness.loops import Loops
from pto_transpile.soundness.opevents import OpEvents
from pto_transpile.soundness.params import declared_integer, sampled_default
from pto_transpile.soundness.plcalls import PlCalls, elem_bytes
from pto_transpile.soundness.pysubset import PythonSubset
from pto_transpile.soundness.runtypes import (
    DISCOVERY_TRIPS,
    LONG_RUN,
    STEP_BUDGET,
    CannotModel,
    Config,
    Ctx,
    FunctionReturn,
    LoopBreak,
    LoopContinue,
    SymRange,
    nonuniform,
)
from pto_transpile.soundness.tilingdata import operator_methods, tiling_field_types, tiling_methods
from pto_transpile.soundness.uniform import NonUniform
from pto_transpile.soundness.values import UNKNOWN, Opaque, StructV, Sym, Symbol, TensorV, root_words
from pto_transpile.soundness.vfcalls import VectorCalls

__all__ = ["DISCOVERY_TRIPS", "LONG_RUN", "STEP_BUDGET", "CannotModel", "Config", "Ctx", "Interpreter", "SymRange"]


class Interpreter(PythonSubset, Loops, PlCalls, OpEvents, VectorCalls):
    """Runs one kernel function (`fn` of `file`) on the AIC and both AIVs: `run()` is its trace."""

    # entry ---------------------------------------------------------------------------------
    def run(self) -> Trace:
        if not self.file.source.text.isascii():
            _check_spellings(self.file, self.fn)
        self.key.update(self._datatype_names())
        if self.fn.asynchronous is not None or "yield" in self.file.source.text and _yields_itself(self.fn):
            raise CannotModel(f"kernel `{self.fn.name.value}` is a generator or coroutine: calling it runs none of its "
                              "body, so there is no kernel to compare", self.fn.name, kind="generator")
        self.trace.cores = kernel_cores(self.file, self.fn)
        ctxs = self._kernel_ctxs = [Ctx(core, self._params(core)) for core in self.trace.cores]
        try:
            self.exec_block(self.fn.body.body, ctxs)
        except FunctionReturn:
            pass
        except (LoopBreak, LoopContinue):
            raise CannotModel("`break`/`continue` outside a loop", self.fn) from None
        except RecursionError:
            raise CannotModel("the kernel nests too deeply to follow", self.fn) from None
        if self.periods_read:
            renamed.settle(self)
        try:
            self.uniform.finish()
        except NonUniform as exc:
            raise nonuniform(exc, self.fn.name) from None
        missed = sorted(p for p in self.uniform.periods if self.config.period and self.config.period % p)
        if missed:
            # (probe h247: `ki % 16` taken under `if ki % 8 == 7:` was called a rotation)
            source = self.uniform.period_sources.get(missed[0])
            taken = f"a period of {missed[0]} ({source})" if source else f"a period of {missed[0]}"
            raise CannotModel(f"{taken} shows only at some trip counts or in some iterations, after the check chose "
                              f"the counts for a period of {self.config.period}; take every `% k` in every iteration "
                              "(in a statement of its own, before a test that uses it) and rotate every tile group in "
                              "every iteration", self.fn.name, kind="nonuniform")
        residues = sorted((k, root) for root, k in self.uniform.root_periods.items()
                          if root in self.config.zeros and self.config.root_periods.get(root, 1) % k)
        if residues:  # the counts were run for the residues the discovery run took (probes h82, h83)
            k, root = residues[0]
            raise CannotModel(f"a residue `% {k}` of {root_words(root)}, a trip count, is taken at some values of the "
                              f"scalars or trip counts only, or in some iterations only (after `and`, `or`, in a "
                              f"conditional expression), where the check chose the counts it runs for the residues "
                              f"the discovery run took; take it in every run and iteration (in a statement of its "
                              f"own, before the test that uses it)", self.fn.name, kind="nonuniform")
        edged = sorted({var[1] for var in self.uniform.edged} & self.config.alike, key=repr)
        if edged:
            raise CannotModel("a test singles out the first or the last iteration of a loop at some trip counts, after "
                              "the check chose them for iterations that are all alike; test the loop variable in every "
                              "iteration the same way", self.fn.name, kind="nonuniform")
        found = self.uniform.rot.loop_periods(groups=self.rotation_margin is not None)
        for root, k in self.uniform.root_periods.items():  # the residues of its own trip count too
            found[root] = math.lcm(found.get(root, 1), k)
        for root, chosen in self.config.loop_periods.items():
            if root in found and chosen % found[root]:
                fix = "make the kernel take every `% k` and rotate every tile group in every iteration"
                if self.strays:  # (probe h132: a vector function's store past its slot, at some iterations only)
                    memory, lo, hi, tile_lo, _ = self.strays[0]
                    fix = (f"an op reaches outside its tile ({memory} bytes {lo:#x}..{hi:#x}, from the tile at "
                           f"{tile_lo:#x}) at some iterations only, where the same reach from another slot of its "
                           "group lands elsewhere; keep every access within its tile")
                raise CannotModel(f"what repeats in a loop repeats every {found[root]} iterations at some trip counts, "
                                  f"after the check chose them for {chosen}; {fix}", self.fn.name, kind="nonuniform")
        return self.trace

    def _ring_picks(self) -> frozenset:
        """`ringsymmetry.certified` for the generated kernel (its ring picks, when its ring
        counters pick nothing else), read once per file, when a run first picks a ring entry
        by a residue that moves (never for static sizes)."""
        memo = self._rings
        hit = memo.get(id(self.fn))
        if hit is None or hit[0] is not self.fn:
            paths = {("struct_array",)}
            hit = memo[id(self.fn)] = (self.fn, ringsymmetry.certified(self.fn, paths, self.path,
                                                                       self.file.source.text, self._walk(self.fn)))
        return hit[1]

    def _walk(self, fn: cst.FunctionDef) -> ringsymmetry.Walk:
        """`ringsymmetry.walk` of a function, once per file."""
        memo = self._walks
        hit = memo.get(id(fn))
        if hit is None or hit[0] is not fn:
            hit = memo[id(fn)] = (fn, ringsymmetry.walk(fn))
        return hit[1]

    def _renaming(self) -> renaming.Certificates:
        """`renaming.certify` for this kernel, read once per file, when a run that reads periods
        first needs it."""
        memo = self._certificates
        hit = memo.get(id(self.fn))
        if hit is None or hit[0] is not self.fn:
            functions = {**self.file.helpers, **{n: s.node for n, s in self.file.stages.items()}}
            hit = memo[id(self.fn)] = (self.fn, renaming.certify(self.fn, functions, self.path,
                                                                 self.file.source.text, self._walk))
        return hit[1]

    def _datatype_names(self) -> dict:
        """`@pl.jit(datatype={"x": "dt"})` binds `dt` to the dtype of argument `x` in every
        function: the dtype `x` is declared with, when that is a `pl` dtype (a launch that binds
        `dt` to another contradicts the declaration: the emulator refuses it). Otherwise `dt`
        stays unknown (`x` a raw `pl.Ptr`, or two parameters of the name declared apart), and a
        tile type of it is refused (its element size places its bytes)."""
        declared: dict[str, list] = {}
        params = {p.name.value: p for p in parameters(self.fn)}
        for param, name in datatypes_of(self.file, self.fn).items():
            p = params.get(param)
            ann = p.annotation.annotation if p is not None and p.annotation is not None else None
            dtype = UNKNOWN
            if isinstance(ann, cst.Subscript) and self.pl.path(ann.value) == ("Tensor",):
                items = [e.slice.value for e in ann.slice if isinstance(e.slice, cst.Index)]
                dtype = self._const(items[1]) if len(items) > 1 else UNKNOWN
            declared.setdefault(name, []).append(dtype if isinstance(dtype, Symbol) and dtype.leaf in DTYPE_BITS
                                                 else None)
        return {name: dtypes[0] for name, dtypes in declared.items()
                if None not in dtypes and len({d.leaf for d in dtypes}) == 1}

    def _params(self, core: int) -> dict:
        env: dict = {}
        for star in (self.fn.params.star_arg, self.fn.params.star_kwarg):
            if isinstance(star, cst.Param):  # `*args`, `**kw`: whatever the launch passes
                env[star.name.value] = UNKNOWN
        for p in parameters(self.fn):
            name = p.name.value
            ann = p.annotation.annotation if p.annotation is not None else None
            if isinstance(ann, cst.Subscript) and self.pl.path(ann.value) == ("Tensor",):
                env[name] = self._tensor(name, ann)
            elif (types := tiling_field_types(self.file, p)) is not None:
                # tiling data: each scalar field is a run-time value of its own, `tiling.blocks`
                methods = tiling_methods(self.file, p)
                special = operator_methods(methods)
                if special:
                    raise CannotModel(f"the class of tiling data `{name}` defines `{special[0]}`, which Python runs "
                                      "on the value where the kernel formats, tests, compares or computes with it, "
                                      "unseen by the check: read its fields in the kernel instead", p,
                                      kind="construct")
                env[name] = StructV({f: Opaque(("float", f"{name}.{f}")) if t == "float"
                                     else self._scalar(f"{name}.{f}") for f, t in types.items()}, "tiling",
                                    methods)
            elif not declared_integer(self.file, p, self.pl.path):
                # a number no sampled integer stands for (`if alpha == 0.5:`): data, named by the
                # parameter, so what a test on it decides is followed both ways
                env[name] = Opaque(("float", name))
            elif sampled_default(self.file, p):
                env[name] = self._scalar(name)
            else:  # a default of another kind (`dtype=pl.DT_FP16`): the launch may pass anything
                env[name] = UNKNOWN
        return env

    def _scalar(self, name: str) -> Any:
        """A scalar integer parameter (or tiling-data field), whatever its default: a trip-count
        root, a discovery symbol, a sampled value, or unknown."""
        if ("param", name) in self.quotient_leaves:
            # a parameter a trip-count root is computed from (`n_rows // TILE`): the run-time value
            # itself, never a sample, which the count the root takes would contradict
            return Opaque(("param", name))
        if ("param", name) in self.trips or self.config.discover:
            value = self.trips.get(("param", name), DISCOVERY_TRIPS)
            self.uniform.param_values[("param", name)] = value
            return Sym(value, ((("size", ("param", name)), 1),))
        if name in self.config.scalars:
            value = self.config.scalars[name]
            # a sampled value that also says where it came from: GM offsets by it are judged for
            # every value (`Uniform.finish`)
            sampled = isinstance(value, int) and not isinstance(value, bool) and not self.config.discover
            return Sym(value, ((("scalar", name), 1),)) if sampled else value
        return UNKNOWN

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
            dtype = self._const(items[1])
            elem = elem_bytes(dtype)
            if not (isinstance(dtype, Symbol) and dtype.leaf.startswith(("DT_INT", "DT_UINT", "DT_BOOL"))):
                self.fractional.add(name)  # its elements are data, never a sampled integer (`_read_value`)
        return TensorV(name, shape, elem)


def _check_spellings(file, fn: cst.FunctionDef) -> None:
    """Python reads an identifier in its NFKC form (`ﬁ` is `fi`, `ｘ` is `x`); the model keys names
    as written, so two spellings of one name would be two names to it: refused, naming the one."""
    for node in (fn, *file.helpers.values(), *(stage.node for stage in file.stages.values())):
        for name in iter_nodes(node):
            if type(name) is cst.Name and not name.value.isascii() \
                    and unicodedata.normalize("NFKC", name.value) != name.value:
                raise CannotModel(f"`{name.value}` is the name `{unicodedata.normalize('NFKC', name.value)}` to "
                                  "Python (it reads identifiers in NFKC form): spell it so", name, kind="construct")


def _yields_itself(fn: cst.FunctionDef) -> bool:
    """Does `fn`'s own body hold a `yield` (not one of a function or class nested in it)?"""
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Yield:
            return True
        if type(node) not in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            stack.extend(children(node))
    return False


def kernel_cores(file, fn: cst.FunctionDef) -> tuple:
    """The cores one block of kernel `fn` has, read from its sections as the JIT compiles it: a
    `section_cube` and a `section_vector` make a mix kernel (the cube and two vector cores); no
    `section_cube`, a vector-only kernel, one vector core per block (a kernel with no section at
    all too); only `section_cube`, the cube alone."""
    cache = file.caches.kernel_cores
    if fn not in cache:
        kinds = {section_of(w, file.pl) for w in _with_statements(fn.body.body)} - {None}
        cache[fn] = (AIC, AIV0, AIV1) if kinds == {"cube", "vector"} else (AIC,) if kinds == {"cube"} else (AIV0,)
    return cache[fn]


def _with_statements(stmts) -> list[cst.With]:
    """Every `with` statement among `stmts` and the blocks of their compound statements (a section
    is a statement: the walk looks at no expression, a tenth of a full walk), those of functions
    and classes defined in them too: the JIT, as the emulator, reads the sections of the kernel's
    whole text (probe h133: a `section_cube` in a nested function made a mix kernel the check
    proved as a vector-only one)."""
    out: list[cst.With] = []
    todo = list(stmts)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, cst.With):
            out.append(stmt)
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and isinstance(stmt.body, cst.IndentedBlock):
            todo.extend(stmt.body.body)
        for block in blocks(stmt):
            todo.extend(block)
    return out

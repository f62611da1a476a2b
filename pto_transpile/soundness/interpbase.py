"""The state every part of the abstract interpreter shares, and what one part asks of another.

`Interpreter` (interp.py) combines one mixin per concern: the Python subset (`pysubset.py`),
loops (`loops.py`), `pl` calls (`plcalls.py`), op events and their footprints (`opevents.py`)
and vector-function calls (`vfcalls.py`). Each derives from `InterpreterBase`, which holds the
run's state, the per-file memos, the helpers all of them use (static-value checks, node texts,
`pl` paths, constants) and the declarations of the methods one mixin calls on another.
"""

from __future__ import annotations

import ast
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import libcst as cst

from pto_transpile.read.consteval import PlSymbol, literal_value
from pto_transpile.read.partial import Verbatim
from pto_transpile.read.printing import code_of as expression_code
from pto_transpile.read.vfbody import bound_to_vf
from pto_transpile.soundness import runtypes, vfextent
from pto_transpile.soundness.events import Event, Foot, Trace
from pto_transpile.soundness.runtypes import STEP_BUDGET, CannotModel, Config, Ctx, SymRange, nonuniform
from pto_transpile.soundness.tilefeet import ValidShapes
from pto_transpile.soundness.tilingdata import scalar_ranges
from pto_transpile.soundness.uniform import INDEX, NonUniform, Uniform
from pto_transpile.soundness.values import UNKNOWN, FunctionV, GroupV, Sym, Symbol, quotient_parameters


@dataclass
class FileMemo:
    """What every interpreter run on one file shares (`FileCaches.soundness`): the serial and
    the generated kernel (stage bodies are the same nodes) and every configuration. Entries
    keyed by a node's id keep the node, so an id stays its own."""

    code: dict[int, tuple] = field(default_factory=dict)  #: id(node) -> (node, its code)
    vf: dict[str, dict[int, str]] = field(default_factory=dict)  #: vector function -> role per positional parameter
    paths: dict[int, tuple] = field(default_factory=dict)  #: id(node) -> (node, `pl` reading, its `pl` path)
    strings: dict[int, tuple] = field(default_factory=dict)  #: id(string literal) -> (node, its value)
    integers: dict[int, tuple] = field(default_factory=dict)  #: id(integer literal) -> (node, its value)
    globals: dict[str, tuple] = field(default_factory=dict)  #: name -> (is a module constant, value) outside any frame
    rings: dict[int, tuple] = field(default_factory=dict)  #: id(kernel) -> (kernel, its certified ring picks)
    #: id(kernel) -> (kernel, its `renaming.Certificates`)
    renaming: dict[int, tuple] = field(default_factory=dict)
    walks: dict[int, tuple] = field(default_factory=dict)  #: id(function) -> (function, `ringsymmetry.walk` of it)
    #: id(`divmod` call) -> (call, its `n // d` and `n % d` nodes: `unpacking.divmod_operations`)
    divmods: dict[int, tuple] = field(default_factory=dict)
    #: id(test) -> (test, whether it calls anything, the names it reads: `PythonSubset._test_names`)
    tests: dict[int, tuple] = field(default_factory=dict)
    #: id(function) -> (function, whether its body holds a `yield`: `pysubset._yields`)
    yields: dict[int, tuple] = field(default_factory=dict)
    #: id(function) -> (function, the names it binds: `pysubset._bound_in`), asked at every
    #: annotated assignment whose annotation reads a name the frame has not bound
    bound: dict[int, tuple] = field(default_factory=dict)
    #: id(function) -> (function, the names Python takes for its own: `pysubset._own_locals`), asked
    #: at every read of a name its frame has not bound
    own: dict[int, tuple] = field(default_factory=dict)
    #: id(function) -> (function, the ids of its own `if`s, [its parameters it never binds again] once
    #: asked: `PythonSubset._of_kernel_arguments`)
    arguments: dict[int, tuple] = field(default_factory=dict)
    #: id(call) -> (call, its arguments in the order Python computes them: `PythonSubset._args`)
    orders: dict[int, tuple] = field(default_factory=dict)
    #: id(loop) -> (loop, its counters, the names its body binds, its first-iteration flags:
    #: `Loops._carried_names`, which reads the loop's nodes and the file's constant folder only)
    carried: dict[int, tuple] = field(default_factory=dict)
    #: id(loop) -> (loop, `loops.read_first` of its body: a function of the body's nodes); per kind
    #: of core too, and those names split at their dot (`Loops._read_first_parts`)
    read_firsts: dict[Any, tuple] = field(default_factory=dict)
    #: per tiling-key instance (its fields' values, sorted), the bytes each vector function reaches,
    #: per call's arguments: a key field is a compile-time name in a vector function too
    extents: dict[tuple, vfextent.VectorFunctions] = field(default_factory=dict)


class InterpreterBase:
    #: inside a loop's bounds (`PlCalls._range`), where a clamp of a trip count is one
    #: (`PythonSubset._builtin`)
    bounding: bool = False
    # what one mixin calls on another (each is defined by the mixin named)
    eval: Callable[[cst.BaseExpression, Ctx], Any]  #: pysubset
    truth: Callable[..., bool | None]  #: pysubset
    assign: Callable[[cst.BaseExpression, Any, Ctx], None]  #: pysubset
    _binop: Callable[[Any, Any, Any, Any], Any]  #: pysubset
    exec_block: Callable[[Any, list[Ctx]], None]  #: pysubset
    _exec_may: Callable[[Ctx, Callable[[Ctx], object]], None]  #: pysubset
    _exec_uncounted: Callable[[cst.For, Ctx], None]  #: pysubset
    _args: Callable[[cst.Call, Ctx], tuple[list, dict]]  #: pysubset
    _unknown_call: Callable[[cst.Call, Ctx], Any]  #: pysubset
    _unknown_call_of: Callable[[cst.Call, list, dict, Ctx], Any]  #: pysubset
    _builtin_called: Callable[[cst.BaseExpression, Ctx], str | None]  #: pysubset
    _sym_range: Callable[..., SymRange]  #: pysubset
    host_step: Callable[[Any, Any], bool]  #: loops
    pl_call: Callable[[tuple, cst.Call, Ctx], Any]  #: plcalls
    block_op: Callable[[str, cst.Call, Ctx], Any]  #: opevents
    pick: Callable[[GroupV, str, Ctx], Any]  #: opevents
    _element_access: Callable[[Any, Any, str, Ctx], Any]  #: opevents
    _gm_element: Callable[[Any, cst.Subscript, str, Ctx], Any]  #: opevents
    _tile_feet: Callable[[Any, int, str | None], list[Foot]]  #: opevents
    _tile_keys: Callable[[str, int, str | None], list[tuple]]  #: opevents
    _mutex: Callable[[Any], tuple[int, ...]]  #: opevents
    _op_event: Callable[..., Event]  #: opevents
    _vf_call: Callable[[FunctionV, list, dict, Any, Ctx], None]  #: vfcalls
    _ring_picks: Callable[[], frozenset]  #: interp
    _renaming: Callable[[], Any]  #: interp

    def __init__(self, file, fn: cst.FunctionDef, config: Config, auto_mutex: bool = True):
        self.file = file
        self.pl = file.pl
        self.fn = fn
        self.config = config
        self.auto_mutex = auto_mutex
        self.trace = Trace()
        self.seq = 0
        #: id -> the lists a `pl.TileType` was made from (shape, valid_shape), held so ids stay theirs:
        #: the type reads them again when a tile is made, so a change of one is refused (`_change`)
        self._type_lists: dict[int, list] = {}
        self.trips = dict(config.trips)
        #: the scalar parameters a trip-count root of this run is computed from but is not itself
        #: (`n_rows` of `n_rows // TILE`): run-time values (`Interpreter._scalar`)
        self.quotient_leaves = frozenset(p for root in self.trips for p in quotient_parameters(root)) - set(self.trips)
        self.uniform = Uniform(discover=config.discover, scalar_values=dict(config.scalars),
                               per_core_roots=config.per_core_roots,
                               scalar_ranges=scalar_ranges(file, fn))
        self.epochs = [0, 0, 0]  #: per core: the barriers of every core (`sync_all` of MIX type) passed
        #: per core: the barriers of its own kind passed (MIX, and AIV_ONLY or AIC_ONLY: `_epoch`)
        self.kind_epochs = [0, 0, 0]
        #: iterations at either end of a loop of run-time trip count whose tile-group moves may
        #: differ from the others' (boundary tests: the first and the last); None: not checked (the
        #: generated kernel runs the serial kernel's stages, checked there); 0: a hand-pipelined
        #: kernel's deepest group plus one (its own prefire and drain tests)
        self.rotation_margin: int | None = 1
        self.uniform.roots.update({("size", k): v for k, v in config.zeros.items()})
        self._views: dict[tuple, tuple] = {}  #: (id(tile), part) -> (tile, the view: `PythonSubset._view`)
        self._tile_args: dict[int, tuple] = {}  #: id(tile) -> (tile, what a vector function is given for it)
        #: inside a stage invocation: the lists and dicts it made (by id), the only ones it may
        #: change (`PythonSubset._kept_outside`); None outside stages
        self._made: dict[int, Any] | None = None
        #: the functions being run, innermost last (the kernel's own body is below them): the
        #: frame a nested `def` closes over (`PythonSubset._def`)
        self._frames: list[cst.FunctionDef] = []
        #: the frames of the functions running, callers first (`Loops._values_after` rebinds what a
        #: loop leaves in any of them: a struct a caller holds, probe h87)
        self._frame_envs: list[dict] = []
        #: each core's frame of the kernel body itself (a section runs on some of them)
        self._kernel_ctxs: list = []
        self.steps = 0
        self._field_reads: list[dict[int, int]] = [{}, {}, {}]  #: per core: id of an `s.f` node -> reads so far
        #: (id of a frame's names, a local annotated with a dtype) -> (the dtype, the value it holds):
        #: a struct field it initialises holds that dtype, as the device types it (`_field_kinds`)
        self._typed_locals: dict[tuple[int, str], tuple[str, Any]] = {}
        #: (ctx entry, field) -> why a store into it is refused: filled from a struct's field of
        #: another kind (`PythonSubset._field_kind_apart`)
        self._ring_kinds: dict[tuple[int, str], str] = {}
        self._budget = config.step_budget
        self._symbolic_names = config.symbolic_names
        self.cursors: list[dict[int, Any]] = [{}, {}, {}]
        self.flag_regions: set[tuple] = set()  #: the Acc regions whose unit flag a `phase=` call used
        #: the run-time values a discovery run took a residue of before a loop made them trip counts
        #: (`n % 4` above `pl.range(0, n)`): bound from the start, they are residues of a root
        #: (`check._discover`)
        self.opaque_residues: set = set()
        #: the values counters hold as loops of run-time trip count leave them, values of those
        #: counts (`Loops._counters_after`): a later loop that carries one is refused naming it
        self.counters_left: list = []
        #: loops of run-time trip count left so far: names the run-time values they leave behind
        #: (`Loops._values_after`), the same in the serial and the generated kernel
        self.loops_left = 0
        #: trip-count root -> the value a discovery run should have bound it to, where a later loop
        #: over it starts further on than the loop that bound it (`pl.range(0, n + 20)` then
        #: `pl.range(0, n)`) and ran fewer than `DISCOVERY_TRIPS` iterations (`Loops._bind_trips`)
        self.short_roots: dict = {}
        #: a run that reads the periods of its loops (a discovery run, one at chosen trip
        #: counts) follows which entries its rotations pick (`renaming.py`, `renamed.py`)
        self.periods_read = config.discover or bool(config.trips)
        self.sequences: dict[int, Any] = {}  #: id -> a certified tuple of tiles or event-id list made by this run
        self.made: list[tuple[cst.CSTNode, Any]] = []  #: (the `pl.make_tile` call, the tile) of every tile made
        #: (value, name) of the latest `name = value` statement: a tile it makes is called `name`
        self.named: tuple[Any, str] = (None, "")
        #: the renaming certificates' node sets and the ring picks, by node id, once read
        #: (`PythonSubset._certified_ids`, `_ring_pick_ids`)
        self._cert_ids: Any = None
        self._ring_ids: frozenset[int] | None = None
        #: the operands of the latest comparison of the block (`PythonSubset._early_return`)
        self.tested: tuple | None = None
        self.tested_at: cst.CSTNode | None = None  #: the comparison `tested` comes from
        #: the code of the tests of `if`s followed both ways that have an `elif` (`_uncounted` names it)
        self.with_elif: set[str] = set()
        #: the tests of the branches being run that may go another way on another block
        self.apart_tests: list[str] = []
        #: each `if` test around what runs now that the run cannot decide, and whether it is one
        #: that may go another way on another block (`exec_if`)
        self.may_tests: list[tuple] = []
        self.tested_apart = False  #: a test just run settled a value another block may not have
        #: the tiling-key fields of the instance proven, bound in every function (in vector
        #: functions too: their evaluator is one per instance, `FileMemo.extents`)
        self.key: dict[str, int] = dict(runtypes.INSTANCE)
        #: the instance, as a key of the file's memos of what differs between instances
        self._instance = tuple(sorted(runtypes.INSTANCE.items()))
        self.groups: list[GroupV] = []  #: every tile group made
        #: (memory, lo, hi) an op reaches outside its tiles, and (lo, hi) of the tile it reaches from
        self.strays: list[tuple[str, int, int, int, int]] = []
        self.valid = ValidShapes()
        self.stage_counts: list[Counter[str]] = [Counter(), Counter(), Counter()]
        self.code_counts: list[Counter[str]] = [Counter(), Counter(), Counter()]
        #: label -> origin of each GM read taken as one value for the whole run (`OpEvents._read_value`)
        self.gm_reads: dict[str, tuple] = {}  #: label -> (origin, tensor read)
        #: GM tensors whose elements may be fractions (a floating dtype, or one not known)
        self.fractional: set[str] = set()
        #: the entries of the kernel's own struct arrays hold what an iteration carries to the next
        #: as any struct does (`Loops._carry`): True for the judged runs of a serial kernel to
        #: transform; "numbers" for a kernel pipelined by hand, whose rings carry the beats by
        #: design, so that only the plain numbers they keep across beats are judged
        self.own_arrays: bool | str = False
        self.gm_writes: set[str] = set()  #: GM tensors written so far in this run (`OpEvents._gm_written`)
        #: the names of GM reads at an index that moves with a loop (`pl.getval(lens, b)`): another
        #: value in each iteration of that loop, under one name (`Loops._loop_root`)
        self.moving_reads: set[tuple] = set()
        self.gm_read_counts: list[Counter[tuple]] = [Counter(), Counter(), Counter()]  #: per core: reads per element
        shared = file.caches.soundness
        if shared is None:
            shared = file.caches.soundness = FileMemo()
        instance = tuple(sorted(runtypes.INSTANCE.items()))
        if instance not in shared.extents:
            # the evaluator is kept with the file (`file.caches`): what it asks of the file goes through
            # a weak reference, so that the file and its memo make no reference cycle
            held = weakref.proxy(file)
            shared.extents[instance] = vfextent.VectorFunctions(lambda name: vf_source(held, name),
                                                      partial(_vf_constant, held, self.key),
                                                      lambda name: name in held.names.stale_defaults,
                                                      lambda name: held.meaning(name) is not None,
                                                      frozenset({file.pl.module_ref or "pl"} | {
                                                          a for a, path in file.pl.aliases.items() if path == ()}),
                                                      lambda name: _names_vf(held, name))
        self._extents: vfextent.VectorFunctions = shared.extents[instance]
        #: the code of a node, remembered for the file (`Said`): a function of the memo, not of the run,
        #: so that what a run keeps of it holds no reference back to the run
        self._code_of: Callable[[Any], str] = partial(_code_in, shared.code)
        self._code = shared.code
        self._strings = shared.strings
        self._integers = shared.integers
        self._globals = shared.globals
        self._vf_roles = shared.vf
        self._paths = shared.paths
        self._yields = shared.yields
        self._names_bound = shared.bound
        self._locals_memo = shared.own
        self._orders = shared.orders
        self._tests = shared.tests
        self._arguments = shared.arguments
        #: the test of the `if ...: return` being judged as a quiet return (`PythonSubset.exec_if`)
        self._quiet_test: cst.BaseExpression | None = None
        self._rings = shared.rings
        self._certificates = shared.renaming
        self._walks = shared.walks
        self._divmods = shared.divmods
        self._carried = shared.carried
        self._read_firsts = shared.read_firsts
        self._functions = {**{n: FunctionV("helper", f) for n, f in file.helpers.items()},
                           **{n: FunctionV("vf", f) for n, f in file.vector_functions.items()},
                           **{n: FunctionV("stage", s.node) for n, s in file.stages.items()}}

    def _too_long(self, reason: str, node) -> CannotModel:
        """A run too long to follow: "long" while the check only probes whether it is (it then
        proves representative trip counts instead), "size" when it must follow the whole run."""
        return CannotModel(reason, node, kind="long" if self._budget < STEP_BUDGET else "size")

    def _const(self, node: cst.BaseExpression) -> Any:
        value = self.file.evaluator.try_eval(node, UNKNOWN)
        return import_const(value)


    def _next_seq(self) -> int:
        self.seq += 1
        return self.seq


    def _integer(self, node: cst.Integer) -> int:
        hit = self._integers.get(id(node))
        if hit is None or hit[0] is not node:
            hit = self._integers[id(node)] = (node, int(node.value.replace("_", ""), 0))
        return hit[1]

    def _string(self, node: cst.SimpleString) -> Any:
        """The value of a string literal (Python's parser computes it: remembered)."""
        hit = self._strings.get(id(node))
        if hit is None or hit[0] is not node:
            hit = self._strings[id(node)] = (node, literal_value(node))
        return hit[1]

    def path(self, node: cst.BaseExpression) -> tuple | None:
        """`self.pl.path(node)`, remembered per node (and per `pl` reading: the generated
        kernel may import `pl` where the input did not)."""
        hit = self._paths.get(id(node))
        if hit is None or hit[0] is not node or hit[1] is not self.pl:
            hit = self._paths[id(node)] = (node, self.pl, self.pl.path(node))
        return hit[2]

    def _uniform(self, run: Callable[[], Any], node) -> Any:
        try:
            return run()
        except NonUniform as exc:
            raise nonuniform(exc, node) from None

    def _plain(self, value: Any, what: str, node) -> None:
        """Refuse a value that varies with the loop variable or the trip count where only a
        static value is followed (addresses, shapes, lengths, vector-function arguments)."""
        for v in (value if isinstance(value, (list, tuple)) else (value,)):
            if isinstance(v, Sym) and not self._static_enough(v):
                raise nonuniform(NonUniform(f"{what} `{self._code_of(node)}` varies with a loop of run-time trip "
                                             "count", "pass only static values there; use the loop variable in "
                                             "GM offsets, boundary tests and residues"), node)

    def _static_enough(self, v: Sym) -> bool:
        """A value the same in every iteration and every trip count: only block queries (the
        check models block 0) or sampled parameters in it."""
        if v.residue:
            return True  # periodic: its modulus is in the period
        return not any(var[0] in INDEX or self.uniform._trip_dependent(var) and not self.config.discover
                       for var, _ in v.form)


def _names_vf(file, name: str) -> bool:
    """Is module-level `name` the `pl` module's `Vf`: imported as it (`from pypto_pro.language
    import Vf as vf`), bound to it once and for all (`Vf = pl.Vf`, a value the module surely
    ends with), or `vf` where the file binds nothing to it (the name PyPTO reserves for it)?"""
    if file.pl.path(cst.Name(name)) == ("Vf",):
        return True
    if file.meaning(name) is None:
        return name == "vf"
    return bound_to_vf(file, name)


def vf_source(file, name: str) -> str | ast.FunctionDef | None:
    fn = file.vector_functions.get(name)
    if fn is None:
        return None
    if isinstance(fn, Verbatim):
        return fn.tree if fn.tree is not None else fn.text
    tree = file.source.tree_of(fn)
    if isinstance(tree, ast.FunctionDef) and tree.name == fn.name.value:
        return tree  # read once, with the file's line numbers
    return expression_code(fn)


def import_const(value: Any) -> Any:
    """A module constant as the interpreter's value (`pl` symbols, lists copied)."""
    if isinstance(value, PlSymbol):
        return Symbol(value.path)
    if isinstance(value, list):
        return [import_const(v) for v in value]
    if isinstance(value, tuple):
        return tuple(import_const(v) for v in value)
    if isinstance(value, dict):
        return {k: import_const(v) for k, v in value.items()}
    if value is None:
        return UNKNOWN
    return value


def _code_in(memo: dict, node) -> str:
    """The code of `node`, remembered in `memo` (by id, kept with the node)."""
    hit = memo.get(id(node))
    if hit is None or hit[0] is not node:
        hit = memo[id(node)] = (node, expression_code(node))
    return hit[1]


def _vf_constant(file, key: dict[str, int], name: str) -> Any:
    """A module name's value for the vector functions' evaluator: a tiling-key field of the
    instance proven (`key`), else the file's constant (None: not a constant)."""
    if name in key:
        return key[name]
    if name not in file.constants:
        return None
    value = import_const(file.evaluator.try_eval(cst.Name(name), UNKNOWN))
    return value.leaf if isinstance(value, Symbol) else value

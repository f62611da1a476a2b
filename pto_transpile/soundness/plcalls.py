"""The `pl.*` calls of a kernel as the abstract interpreter runs them.

`pl.range`, tile types, tiles and tile groups (their addresses, slots and mutex ids), structs,
core queries (for block 0), sections and the `pl.system` syncs and barriers, each an event on
the core that runs it. A call not in the `_PL_CALLS` table is a descriptor-only op or a block
op (`opevents.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from pto_api.effects import DEFAULT_BARRIER, DEFAULT_LAYOUT, barrier_kinds, initial_valid, slot_addresses
from pto_api.memory import DTYPE_BITS
from pto_api.names import PL_PARAMETERS, bind
from pto_api.ops import DESCRIPTOR_ONLY_OPS, PIPES, SCALAR_PIPE
from pto_api.scalars import INT_FIELD, storable
from pto_api.sync import EVENT_IDS, MUTEX_IDS, mutex_slot_error
from pto_transpile.read.consteval import MAX_ITEMS, range_length
from pto_transpile.read.meaning import unknown_reasons, unknown_words
from pto_transpile.read.plnames import const_dtype_argument
from pto_transpile.read.walk import call_argument, iter_nodes
from pto_transpile.soundness.events import AIC, AIV0, CORE_KIND, CORES, INF, Event, Foot
from pto_transpile.soundness.initkinds import PLAIN, InitKinds
from pto_transpile.soundness.interpbase import InterpreterBase
from pto_transpile.soundness.opevents import OpEvents
from pto_transpile.soundness.pysubset import bound_arguments, opaque_op, opaque_operands, refuse_narrowed
from pto_transpile.soundness.runtypes import DISCOVERY_TRIPS, CannotModel, Ctx
from pto_transpile.soundness.uniform import BLOCK, INDEX, block_words, is_block_value, marks_block_index
from pto_transpile.soundness.values import (
    UNKNOWN,
    AnyTileV,
    GroupV,
    Opaque,
    StructV,
    Sym,
    Symbol,
    TensorV,
    TileTypeV,
    TileV,
    integer_valued,
    known,
    run_time,
    sampled_int,
    trip_root,
    typed_number,
)

SYNC_OPS = frozenset({"set_cross_core", "wait_cross_core"})
PIPE_BARRIERS = {"bar_all": "ALL", "bar_m": "M", "bar_mte1": "MTE1", "bar_mte2": "MTE2", "bar_mte3": "MTE3",
                 "bar_fix": "FIX", "bar_v": "V"}


def elem_bytes(dtype: Any) -> int:
    if isinstance(dtype, Symbol) and dtype.leaf in DTYPE_BITS:
        return max(1, (DTYPE_BITS[dtype.leaf] + 7) // 8)
    return 4


class PlCalls(InterpreterBase):
    def pl_call(self, path: tuple, node: cst.Call, ctx: Ctx) -> Any:
        head = path[0] if path else ""
        if path == ("system",) or not path:
            return UNKNOWN
        if head == "system" and len(path) == 2:
            return self._system(path[1], node, ctx)
        if len(path) != 1:  # `pl.store.__call__(...)`, a namespace the check does not know
            return self._unknown_call(node, ctx)
        handler = _PL_CALLS.get(head)
        if handler is not None:
            return handler(self, node, ctx)
        if head == "set_stride":
            raise CannotModel("`pl.set_stride` moves the GM elements every later access of the tensor reaches, which "
                              "the check does not follow", node, kind="stride")
        if head == "set_validshape":
            args = self._bound(path, node, ctx)
            uni = self.uniform
            where = ctx.scope if ctx.scope else ("body", tuple((loop.key, uni.values.get(loop.key))
                                                               for loop in uni.active))
            self.valid.set(args.get("tile"), args.get("shape"), ctx.core, bool(ctx.may), where,
                           fixed=not any(a.star for a in node.args)
                           and self._constant_expression(call_argument(node, 1, "shape"), ctx))
            return None
        if head in DESCRIPTOR_ONLY_OPS:
            return None
        return self.block_op(head, node, ctx)

    def _constant_expression(self, expr: cst.BaseExpression | None, ctx: Ctx) -> bool:
        """Is `expr` a compile-time constant, the same at every iteration and run (`[8, BLOCK]` of
        module constants), not only at this one (`[16 if i % 16 == 7 else 8, BLOCK]`)?"""
        if expr is None or any(n.value in ctx.env for n in iter_nodes(expr) if isinstance(n, cst.Name)):
            return False
        return self.file.evaluator.try_eval(expr, _NOT_CONSTANT) is not _NOT_CONSTANT

    def _range(self, node, ctx) -> Any:
        pos, _ = bound_arguments(self, node, ctx)
        # (the host's core count a per-core range steps by stays the run-time value it is, `host_step`)
        host = len(pos) == 3 and self.host_step(pos[0], pos[2])
        pos = [p if host and i == 2 else sampled_int(p) for i, p in enumerate(pos)]
        if any(isinstance(p, Opaque) for p in pos) and any(isinstance(p, Sym) for p in pos):
            pos = [int(p) if isinstance(p, Sym) and not self.config.discover else p for p in pos]
            stop = pos[0] if len(pos) == 1 else pos[1]
            if not (self.config.discover and isinstance(stop, Opaque) and sum(isinstance(p, Opaque) for p in pos) == 1):
                return opaque_op("range", *pos) if opaque_operands(*pos) else UNKNOWN
            root, c = trip_root(stop.origin)
            self.trips.setdefault(root, DISCOVERY_TRIPS - c)
            pos = [Sym(self.trips[root] + c, ((("size", root), 1),), const=c) if p is stop else p for p in pos]
        if any(isinstance(p, Sym) for p in pos):
            return self._sym_range(pos, node, host)
        if not pos or not known(*pos) or not all(isinstance(p, int) and not isinstance(p, bool) for p in pos):
            return opaque_op("range", *pos) if opaque_operands(*pos) else UNKNOWN
        if len(pos) == 3 and pos[2] == 0:
            raise CannotModel(f"`{self._code_of(node)}` steps by 0, and a range cannot step by 0", node)
        r = range(*pos)
        if range_length(r) > MAX_ITEMS:
            raise self._too_long("this loop runs too many iterations to follow", node)
        return r

    def _not_static(self, what: str, node: cst.CSTNode) -> CannotModel:
        """`what` is not static, with the module names the call reads that the check cannot know
        and why (a list built by a comprehension, a value a call returns, ...)."""
        return CannotModel(what + unknown_words(unknown_reasons(self.file, [node])), node)

    def _bound(self, path: tuple, node: cst.Call, ctx: Ctx) -> dict:
        """The arguments of a call of fixed signature by parameter name (`pto_api.names.bind`)."""
        pos, kw = self._args(node, ctx)
        args = bind(path, pos, kw)
        if args is None:
            either, only = PL_PARAMETERS[path]
            raise CannotModel(f"`{self._code_of(node)}` does not match `pl.{'.'.join(path)}`'s parameters "
                              f"({', '.join(either + tuple(f'{k}=' for k in only))}): give each once, by position "
                              "in that order or by its name", node, kind="construct")
        return args

    def _tile_type(self, node, ctx) -> Any:
        args = self._bound(("TileType",), node, ctx)
        for held in (args.get("shape"), args.get("valid_shape")):
            if type(held) is list:  # (`valid_shape=vs`: PyPTO's type keeps `vs` itself, probe h179)
                self._type_lists[id(held)] = held
        shape = args.get("shape", UNKNOWN)
        dtype = args.get("dtype", UNKNOWN)
        memory = args.get("target_memory", Symbol(("MemorySpace", "Vec")))
        if not isinstance(shape, (list, tuple)) or not all(isinstance(d, int) for d in shape):
            return UNKNOWN
        valid = args.get("valid_shape")
        if not shape or any(type(d) is int and d < 1 for d in shape):
            raise CannotModel(f"the shape of `{self._code_of(node)}` has no element", node, kind="declaration")
        if isinstance(valid, (list, tuple)) and len(valid) != len(shape):
            entries = f"{len(valid)} entr{'y' if len(valid) == 1 else 'ies'}"
            raise CannotModel(f"`{self._code_of(node)}` gives `valid_shape` {entries} for a shape of {len(shape)} "
                              "dimensions", node, kind="declaration")
        self._plain(list(shape) + list(valid) if isinstance(valid, (list, tuple)) else shape, "the shape of", node)
        # fixed when the kernel is compiled, as addresses are: one of a sampled parameter would be
        # proven at the samples only (probe h127: a scratch tile grew over a group's slot past them)
        self._compile_time(list(shape), "shape", node, "tile shape")
        if not (isinstance(dtype, Symbol) and dtype.leaf in DTYPE_BITS):
            given = call_argument(node, 1, "dtype")
            what = f"`{self._code_of(given)}`" if given is not None else "none"
            raise CannotModel(f"the dtype of this tile type ({what}) is not a `pl` dtype the check can read, and its "
                              "element size places the tile's bytes: write the `pl.DT_...` dtype, or declare the "
                              "tensor a `datatype=` name stands for with one", node, kind="construct")
        for keyword, value, example in (("target_memory", memory, "pl.MemorySpace.Acc"),
                                        ("layout", args.get("layout"), "pl.NZ")):
            if not isinstance(value, Symbol) and (value is not None or keyword == "target_memory"):
                # `target_memory="Acc"`, `pl.MemorySpace["Acc"]`: the emulator reads the space it names,
                # the check took it for Vec, and an Acc tile's writes went unseen (probe h126)
                raise CannotModel(f"the `{keyword}` of `{self._code_of(node)}` is not one the check can read, and it "
                                  f"places the tile's bytes: write the `pl` constant itself (`{example}`)", node,
                                  kind="construct")
        mem = memory.leaf
        known_valid = isinstance(valid, (list, tuple)) and len(valid) == len(shape) == 2 and all(
            d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in valid)
        layout = args.get("layout")
        layout = layout.leaf if isinstance(layout, Symbol) else DEFAULT_LAYOUT.get(mem, "")
        # a valid shape the check cannot read (`list(map(int, (8, 32)))`) may be any: as one of run-time
        # values, never the declared shape exact, whose writes would cover the tile (probe h126)
        readable = isinstance(valid, (list, tuple)) and all(
            d is None or isinstance(d, int) and not isinstance(d, bool) or run_time(d) for d in valid)
        at_run_time = any(run_time(d) for d in valid) if isinstance(valid, (list, tuple)) and readable \
            else valid is not None
        try:
            declared = initial_valid(shape, valid) if known_valid and not at_run_time else ()
        except ValueError as exc:  # (a run-time one past it is an error of the run: the emulator refuses it)
            raise CannotModel(f"this tile type declares a {exc}: a tile holds no more than its shape, and the NPU "
                              "and the emulator refuse it", node, kind="declaration") from None
        return TileTypeV(tuple(shape), mem, elem_bytes(dtype), declared, layout, at_run_time,
                         in_loop_body=not ctx.scope and bool(self.uniform.active))

    def _compile_time(self, value: Any, keyword: str, node: cst.Call, what: str = "tile address") -> None:
        """Tile addresses and mutex ids are fixed when the kernel is compiled: one computed from a
        scalar parameter, tiling data or the block would be checked only at the values the check
        samples (block 0 of one block)."""
        for v in _leaves(value):
            # (a value computed from a parameter other than by adding and scaling it, `d | 0`, is a
            # variable of its own, derived from the parameter: probe h129)
            names = sorted({name for var, _ in getattr(v, "form", ()) for name in _run_time_names(var)})
            if names:
                where = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == keyword), node)
                raise CannotModel(f"the {what} `{self._code_of(where)}` depends on the run-time value of "
                                  f"{', '.join(n if '`' in n or ' ' in n else f'`{n}`' for n in names)}: the check "
                                  f"proves {what}{'es' if what.endswith('s') else 's'} only "
                                  "when they are compile-time constants (module constants, tiling-key fields)",
                                  where, kind="runtime")

    def _make_tile(self, node, ctx) -> Any:
        kw = self._bound(("make_tile",), node, ctx)
        ttype = kw.get("tile_type", UNKNOWN)
        addr = kw.get("addr", UNKNOWN)
        if not isinstance(ttype, TileTypeV) or not isinstance(addr, int):
            raise self._not_static("the type or address of this tile is not static", node)
        if ctx.scope and ttype.in_loop_body and ttype.valid_at_run_time:
            # (probe h99: a delayed stage is handed another iteration's type, both taken as declared)
            raise CannotModel(f"stage `{ctx.scope[1]}` makes a tile of a type whose valid shape kernel-body code "
                              "inside the loop computes at run time, in each iteration: pipelined, the stage may be "
                              "handed another iteration's type; make the type in the stage, or set the shape there "
                              "(`pl.set_validshape`)", node, kind="construct")
        self._plain([addr, kw.get("size")], "the address of", node)
        self._compile_time([addr, kw.get("size")], "addr", node)
        size = kw.get("size")
        size = size if isinstance(size, int) else ttype.nbytes
        if size < ttype.nbytes:
            raise CannotModel(f"`{self._code_of(node)}` reserves {size} bytes, fewer than the {ttype.nbytes} of its "
                              "shape, which its ops write: give `size=` at least that, or leave it out", node,
                              kind="tile_size")
        label = self.named[1] if self.named[0] is node else self._code_of(node)
        tile = TileV(ttype.memory, addr, addr + size, (), label, ttype.shape, ttype.valid,
                     ttype.elem, ttype.layout, self.valid.number())
        if ttype.valid_at_run_time:
            self.valid.unknown(tile)
        if self.periods_read:
            self.made.append((node, tile))
        return tile

    def _make_tile_group(self, node, ctx) -> Any:
        kw = self._bound(("make_tile_group",), node, ctx)
        ttype = kw.get("type", UNKNOWN)
        addrs = kw.get("addrs", UNKNOWN)
        self._plain(addrs, "the addresses of", node)
        self._plain(kw.get("depth"), "the depth of", node)
        self._compile_time(addrs, "addrs", node)
        self._compile_time(kw.get("depth"), "depth", node, "group depth")
        mutex = kw.get("mutex_ids")
        self._compile_time(mutex, "mutex_ids", node, "mutex id")
        depth = kw.get("depth")
        if not isinstance(ttype, TileTypeV):
            raise self._not_static("the tile type of this group is not static", node)
        mutex_slots: list[tuple] = []
        if isinstance(mutex, (list, tuple)) and mutex:
            for m in mutex:
                if isinstance(m, int):
                    mutex_slots.append((m,))
                elif isinstance(m, (list, tuple)) and all(isinstance(x, int) for x in m):
                    mutex_slots.append(tuple(m))
                else:
                    raise self._not_static("the mutex ids of this group are not static", node)
            problem = mutex_slot_error([tuple(int(i) for i in ids) for ids in mutex_slots])
            if problem is not None:  # (probe h129: accepted, where the front end refuses the group)
                raise CannotModel(f"`mutex_ids=` of this group is not one PyPTO accepts: {problem}", node,
                                  kind="declaration")
        n = len(mutex_slots) or (depth if isinstance(depth, int) else None)
        static = isinstance(addrs, int) or (isinstance(addrs, (list, tuple)) and all(isinstance(a, int) for a in addrs))
        if not static:
            raise self._not_static("the addresses of this group are not static", node)
        if n is None or not 0 < n <= 64:
            raise self._not_static("the slot count of this group is not static (`depth=` or `mutex_ids=`)", node)
        try:
            starts = slot_addresses(addrs, n, ttype.nbytes)
        except ValueError as exc:
            raise CannotModel(f"this group's addresses do not fit its slots: {exc}", node) from None
        tiles = tuple(TileV(ttype.memory, starts[i], starts[i] + ttype.nbytes,
                            mutex_slots[i] if i < len(mutex_slots) else (), f"slot {i}", ttype.shape, ttype.valid,
                            ttype.elem, ttype.layout, self.valid.number())
                      for i in range(n))
        if ttype.valid_at_run_time:
            for tile in tiles:
                self.valid.unknown(tile)
        self.uniform.periods.add(n)
        self.uniform.period_source(n, lambda: f"a tile group of {n} slots")
        self.uniform.depths.add(n)
        group = GroupV("", tiles, node)
        if self.periods_read:
            self.groups.append(group)
        return group

    def _struct(self, node, ctx) -> Any:
        _, kw = self._args(node, ctx)
        _plain_fields(kw, node)
        return StructV(dict(kw), "struct", kinds=self._field_kinds(node, kw, ctx))

    def _struct_array(self, node, ctx) -> Any:
        pos, kw = self._args(node, ctx)
        n = pos[0] if pos else UNKNOWN
        self._compile_time(n, "", node, "struct array length")
        if not isinstance(n, int) or not 0 < n <= MAX_ITEMS:
            raise self._not_static("the length of this struct array is not static", node)
        self._plain(n, "the length of", node)
        _plain_fields(kw, node)
        self.uniform.rings.add(int(n))
        kinds = self._field_kinds(node, kw, ctx)
        return [StructV(dict(kw), "ctx", kinds=kinds) for _ in range(n)]

    def _field_kinds(self, node: cst.Call, fields: dict, ctx) -> dict:
        """What each field of a `pl.struct(...)` holds, from its initialiser: the dtype of a
        `pl.const(v, dtype)` or of a local annotated with one (probe h105: `pl.struct(g=row)` of a
        `row: pl.DT_UINT8`), integers for a Python int (`pto_api.scalars`); a float, or anything
        else, keeps what it is given. `pl.make_tuple(...)` types nothing."""
        if self.path(node.func) == ("make_tuple",):
            return {}
        kinds = {}
        for arg in node.args:
            if arg.keyword is None:
                continue
            name = arg.keyword.value
            dtype = self._const_dtype(arg.value, ctx)
            value = fields.get(name)
            if dtype is None and _number(value):
                # read from the code, never from the check's number (probe h111: `int(gp)` of an int8
                # parameter is its unmoved value, and a small int is one object wherever it was made):
                # `g=make_tag()` of a `return pl.const(0, pl.DT_INT16)`, a name bound to it, a stage's
                # parameter hold a dtype the check does not see (probes h107, h109)
                fn = self._frames[-1] if self._frames else self.fn
                found = InitKinds(self.file, fn, self.fn).kind(arg.value)
                if found is None:
                    raise CannotModel(f"struct field `{name}` is initialised by `{self._code_of(arg.value)}`, which "
                                      "may or may not hold a value of a `pl` dtype (which types the field): the check "
                                      f"does not follow which; initialise it with a number, `int(...)`, `float(...)` "
                                      "or `pl.const(v, dtype)`", arg.value, kind="field_init")
                if found != PLAIN and not storable(found):
                    raise CannotModel(f"struct field `{name}` is initialised by a value of `pl.{found}`, whose "
                                      "conversion the check does not follow", arg.value, kind="field_init")
                if found != PLAIN:
                    dtype = found
            if dtype is None and value is UNKNOWN:
                # a value the check does not compute (`round(x) if q else x`, probe h112): an int
                # makes a field of integers, which converts every store, a float one that keeps them
                builtin = self._converted_by(arg.value, ctx)
                if builtin is None:
                    raise CannotModel(f"struct field `{name}` is initialised by `{self._code_of(arg.value)}`, whose "
                                      "value the check does not compute, so whether the field holds integers "
                                      "(converting what is stored into it) or floats is not known: initialise it "
                                      "with `int(...)` or `float(...)` of the value", arg.value, kind="field_init")
                if builtin == "int":
                    dtype = INT_FIELD
            if dtype is not None:
                kinds[name] = dtype
            elif type(value) is int or isinstance(value, Sym) \
                    or isinstance(value, Opaque) and integer_valued(value.origin):
                kinds[name] = INT_FIELD  # (an integer the run does not know: a parameter, a size, probe h107)
        return kinds

    def _converted_by(self, node: cst.BaseExpression, ctx) -> str | None:
        """`int` or `float` for a call of that builtin (`int(round(x))`), None for anything else."""
        if type(node) is cst.Call and len(node.args) == 1 and node.args[0].keyword is None \
                and not node.args[0].star:
            builtin = self._builtin_called(node.func, ctx)
            return builtin if builtin in ("int", "float") else None
        return None

    def _const_dtype(self, node: cst.BaseExpression, ctx) -> str | None:
        """The dtype of `pl.const(v, pl.DT_X)` (or `dtype=`) when this module converts values to it:
        named where it stands or by a name bound to it (`tag_dt = pl.DT_INT16`, probe h109: taken
        for no dtype, the value followed unconverted). A dtype the check cannot name is refused."""
        if type(node) is not cst.Call or self.path(node.func) != ("const",):
            return None
        given = const_dtype_argument(node)
        if given is None:
            return None
        path = self.path(given)
        if not path:
            value = self.eval(given, ctx)
            path = value.path if isinstance(value, Symbol) else None
            if not path:
                raise CannotModel(f"the dtype of `{self._code_of(node)}` is not a `pl` dtype the check can name: "
                                  "give it as `pl.DT_...` or a name bound to one", node, kind="construct")
        return path[-1] if len(path) == 1 and storable(path[-1]) else None

    def _pl_const(self, node, ctx) -> Any:
        """`pl.const(v, dtype)`: `v` as a scalar of `dtype` holds it (a number; anything else as it is)."""
        pos, kw = self._args(node, ctx)
        value = pos[0] if pos else kw.get("value", UNKNOWN)
        dtype = self._const_dtype(node, ctx)
        if dtype is None:
            return value
        refuse_narrowed(value, dtype, f"`{self._code_of(node)}`", node, self.fn, self.pl)
        return typed_number(value, dtype, scalar=True)

    def _core_query(self, node, ctx) -> Any:
        """`pl.get_block_idx()` and friends, for block 0: an AIV's block index is
        `2 * block + sub`, so `get_block_idx() // get_subblock_num()` is the block on every core."""
        name = (self.path(node.func) or ("",))[-1]
        core, sub = ctx.core, ctx.core - AIV0
        if len(self.trace.cores) == 1:  # one core per block (aiv-only or cube-only): its index is the block's
            if name == "get_block_idx":
                return Sym(0, ((BLOCK, 1),))
            if name == "get_block_num":
                return Sym(self.config.block_num, ((("core", name), 1),))
            return {"get_subblock_idx": 0, "get_subblock_num": 1}[name]
        if name == "get_block_idx":
            # the block `b` (block 0 in the run): the cube core's index is `b`, a vector core's
            # `2 * b + sub`, so `get_block_idx() // get_subblock_num()` is `b` on every core, one
            # variable wherever the kernel computes it
            return Sym(0, ((BLOCK, 1),)) if core == AIC else Sym(sub, ((BLOCK, 2),), const=sub)
        if name == "get_block_num":
            return Sym(self.config.block_num, ((("core", name), 1),))
        return {
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
                raise self._not_static("the pipe or event id of this sync is not static", node)
            self._event_id_fixed(eid, node)
            _pipes(node, pipe)
            self._sync_event("set" if name == "set_cross_core" else "wait", pipe.leaf, eid, node, ctx)
        elif name == "sync_all":
            kind = self._barrier_type(kw.get("core_type"), node, ctx)
            if self.uniform.early_exit:
                raise CannotModel(f"`{self._code_of(node)}` waits for every block, and a block that returned early "
                                  "(`if core_id >= n: return`) never arrives; let every block reach the barrier",
                                  node, kind="nonuniform")
            if self.apart_tests and self.apart_tests[-1].startswith("_pl_"):
                # the generated kernel's test of a stage's task (`if _pl_ctx_neg1._pl_is_valid:`)
                raise CannotModel(f"`{self._code_of(node)}` is in a stage, which the pipelined kernel runs only "
                                  f"where its task is in range (`if {self.apart_tests[-1]}:`), a test the check does "
                                  "not show goes the same way on every block and core: one that skips the barrier "
                                  "leaves the others waiting for it", node, kind="barrier_in_stage")
            if self.apart_tests:
                # `sync_all` waits for every block: one the test sends the other way never arrives
                raise CannotModel(f"`{self._code_of(node)}` is under `if {self.apart_tests[-1]}:`, a test that may "
                                  "go another way on another block or on the other vector core of a block: a core "
                                  "that skips the barrier never arrives and the others wait for it forever; put the "
                                  "barrier where every core it waits for reaches it", node, kind="barrier_apart")
            uneven = next((lp for lp in self.uniform.active if lp.per_core or lp.chunk is not None
                           or (lp.root is not None and marks_block_index(lp.root[1]))), None)
            if uneven is not None:
                # `sync_all` waits for every block: one that runs fewer iterations never arrives
                raise CannotModel(f"`{self._code_of(node)}` is inside the loop over `{uneven.label}`, whose number of "
                                  "iterations differs between blocks: a block with fewer passes fewer barriers and "
                                  "the others wait for it forever; put the barrier outside the loop", node,
                                  kind="nonuniform")
            self._sync_event("barrier", kind, 0, node, ctx)
            if set(barrier_kinds(kind) or ()) == set(CORE_KIND):
                self.epochs[ctx.core] += 1  # every core waits here: GM accesses on either side are ordered
            self.kind_epochs[ctx.core] += 1  # every core of its kind waits here (`Uniform._phases`)
        elif name in ("sync_src", "sync_dst"):
            sp, wp, eid = kw.get("set_pipe"), kw.get("wait_pipe"), kw.get("event_id")
            if not (isinstance(sp, Symbol) and isinstance(wp, Symbol) and isinstance(eid, int)):
                raise self._not_static("the pipes or event id of this sync are not static", node)
            # (probe h127: an id from a parameter was followed at its samples, and at one value past
            # them a later task's wait took an earlier task's flag of another pair)
            self._event_id_fixed(eid, node)
            _pipes(node, sp, wp)
            ev = self._sync_event(name, sp.leaf, eid, node, ctx)
            ev.wait_pipe = wp.leaf
        elif name in ("mutex_lock", "mutex_unlock"):
            self._mutex_event(name, kw, node, ctx)
        elif name in PIPE_BARRIERS:
            self._sync_event("bar", PIPE_BARRIERS[name], 0, node, ctx)
        elif name == "dcci":
            self._dcci(pos, kw, node, ctx)
        return None

    def _mutex_event(self, name: str, kw: dict, node: cst.Call, ctx: Ctx) -> None:
        """`pl.system.mutex_lock(pipe=P, mutex_id=m)` / `mutex_unlock(...)` written by hand (a kernel
        with `auto_mutex=False`): on the core that runs it, an unlock on P passes on what P has
        issued to the id's next lock, and a lock on P holds P's later work until what the id's last
        unlock passed on is done, as a `sync_src`/`sync_dst` pair of pipes would. The id is the
        one `mutex_id` names (`mutex_ids`/`max_mutex_id` only list the candidates of an id known at
        run time, which the check does not follow)."""
        pipe, mid = kw.get("pipe"), kw.get("mutex_id")
        if not isinstance(pipe, Symbol) or not isinstance(mid, int) or isinstance(mid, bool):
            raise self._not_static("the pipe or mutex id of this mutex is not static", node)
        if run_time(mid):
            raise CannotModel(f"the mutex id `{self._code_of(node)}` uses depends on a value known only at run time "
                              "(the block index or count, a parameter, a trip count): give a compile-time id, or pick "
                              "it from a list of ids by a residue of the loop variable", node, kind="runtime")
        _pipes(node, pipe)
        if int(mid) not in MUTEX_IDS:
            raise CannotModel(f"`{self._code_of(node)}` uses mutex id {int(mid)}{_at_this_run(mid)}, outside the "
                              f"hardware's {MUTEX_IDS.start}..{MUTEX_IDS.stop - 1}", node, kind="event_id")
        self._sync_event(name, pipe.leaf, int(mid), node, ctx)

    def _dcci(self, pos: list, kw: dict, node: cst.Call, ctx: Ctx) -> None:
        """`pl.system.dcci(t, offset, cache_line=...)`: the core's data cache cleaned and invalidated,
        which makes the scalar pipe's accesses of GM tensor `t` consistent with other pipes' and
        cores' (`check._Report._scalar_gm`). Its reach is the event's `values`: (`t`, None) for the
        whole cache (the default), (`t`, (row, column)) for the one line at an element; a line is
        taken to hold that element alone (PyPTO gives no line size), and a line at an offset the
        check does not place reaches nothing (probes h141, h142: any dcci of `t` counted). One under
        a test the check cannot decide may not run: it counts for nothing."""
        target = pos[0] if pos else kw.get("target")
        if not isinstance(target, TensorV) or ctx.may:
            return
        line = kw.get("cache_line")
        element = None
        if isinstance(line, Symbol) and line.leaf == "SINGLE_CACHE_LINE":
            offset = pos[1] if len(pos) > 1 else kw.get("offset", 0)
            index = tuple(offset) if isinstance(offset, (list, tuple)) else offset
            foot, _ = OpEvents._element_foot(target, index, False)
            if foot.r1 == INF:
                return
            element = (foot.r0, foot.c0)
        elif line is not None and not (isinstance(line, Symbol) and line.leaf == "ENTIRE_DATA_CACHE"):
            return  # a reach the check does not read
        scope = ctx.scope
        self.seq += 2
        self.trace.events[ctx.core].append(Event(ctx.core, "dcci", SCALAR_PIPE, self.seq - 1, node=node, op="dcci",
                                                 ident=("dcci", self.seq), values=(target.name, element),
                                                 stage=scope[1] if scope else "", task=scope[2] if scope else -1))

    def _barrier_type(self, core_type: Any, node, ctx: Ctx) -> str:
        """The `core_type` of a `sync_all`, which the calling core must belong to."""
        name = core_type.leaf if isinstance(core_type, Symbol) else DEFAULT_BARRIER if core_type is None else None
        kinds = barrier_kinds(name)
        if name is None or kinds is None:
            raise self._not_static("the core type of this `sync_all` is not static", node)
        if CORE_KIND[ctx.core] not in kinds:
            # (probe h256: a defect on every run, not a limit of the check; the NPU and the emulator refuse it)
            raise CannotModel(f"{CORES[ctx.core]} reaches a `sync_all(core_type={name})`, which it is not part of: "
                              "the barrier is an error there on every run", node, kind="barrier_core")
        return name

    def _event_id_fixed(self, eid: Any, node: cst.Call) -> None:
        """Refuse an event id known only at run time: a run follows it at one value, where a
        residue of the loop variable is periodic and every phase of it is run."""
        if run_time(eid):
            raise CannotModel(f"the event id `{self._code_of(node)}` uses depends on a value known only at run "
                              "time (the block index or count, a parameter, a trip count): give a compile-time id (a "
                              "module constant, a tiling-key field), or pick it from a list of ids by a residue of "
                              "the loop variable", node, kind="runtime")

    def _sync_event(self, kind: str, pipe: str, eid: int, node, ctx: Ctx) -> Event:
        if ctx.may and not self.config.roots_only:
            if kind == "bar":  # (probe h133: the split-K "block 0 combines" epilogue; no fix was named)
                raise CannotModel(f"`{self._code_of(node)}` is under a test the check cannot decide: a pipe barrier "
                                  "orders the pipes of the core that runs it, where it runs, and the check cannot tell "
                                  "where", node, kind="pipe_barrier_test")
            if self.may_tests:  # (probe h134: the message pointed at the sync, not at the test)
                test = self._code_of(self.may_tests[-1][0])
                # a pair of one core's pipes orders that core's ops wherever it runs, as a pipe barrier does: split
                # the branch around it (probe h213: block 0's reduction after `sync_all` was told to count tasks)
                pipes = kind in ("sync_src", "sync_dst")
                # (probe h230: `if x.shape[0] > 64:` of a `pl.DYNAMIC` size no loop counts was told to count tasks)
                size = not pipes and _reads_a_size(self.may_tests[-1][0])
                sizes = (" (a tensor's size known only at run time is followed as a symbol, and a test of it decided "
                         "only where it is a loop's trip count)") if size else ""
                raise CannotModel(f"`{self._code_of(node)}` is under `if {test}:`, a test the check cannot decide, so "
                                  "whether it runs, and so which wait it matches, is not known: the check decides "
                                  "tests of a loop variable against its loop's bounds (`if k == 0:` in `for k in "
                                  "pl.range(0, my_n)`), of trip counts (`if my_n > 0:`), scalar parameters and "
                                  f"tiling-key fields{sizes}",
                                  node, kind="pipe_sync_test" if pipes else "sync_size_test" if size else "sync_test")
            raise CannotModel("a sync under a runtime condition cannot be matched statically", node)
        if kind not in ("barrier", "bar", "mutex_lock", "mutex_unlock") and int(eid) not in EVENT_IDS:
            # a residue of the loop variable takes each of its values in the runs the check makes
            raise CannotModel(f"`{self._code_of(node)}` uses event id {int(eid)}{_at_this_run(eid)}, outside the "
                              f"hardware's {EVENT_IDS.start}..{EVENT_IDS.stop - 1}", node, kind="event_id")
        # syncs are matched by counting, never by identity: no need to name them after the code
        self.seq += 2  # (`_next_seq` twice: the event's position, then its name)
        ev = Event(ctx.core, kind, pipe, self.seq - 1, event_id=eid, node=node, op=kind, ident=("sync", self.seq))
        self.trace.events[ctx.core].append(ev)
        return ev

    def _ssbuf_store(self, node, ctx) -> Any:
        return self._ssbuf("ssbuf_store", node, ctx)

    def _ssbuf_load(self, node, ctx) -> Any:
        return self._ssbuf("ssbuf_load", node, ctx)

    def _ssbuf(self, op: str, node, ctx) -> Any:
        """`pl.ssbuf_store(struct, offset)` / `pl.ssbuf_load(struct, offset)`: a scalar-pipe write
        or read of the block's SSBUF, a memory its cube and vector cores share: the struct's 32-bit
        words (a list field's element by element) from the byte `offset` on, where the offset is
        the same at every run (a number, the subblock index: `sub_id * 4` places each AIV's word
        apart, probe h110), else the whole buffer, a superset, never a cover. A load's fields are
        data named by the load."""
        pos, kw = self._args(node, ctx)
        struct = pos[0] if pos else kw.get("struct_var")
        if isinstance(struct, StructV) and struct.origin == "ctx":
            # the pipelined kernel hands a struct argument over inside the ring's entry, whose
            # bytes are not the struct's: the op would move the entry
            raise CannotModel(f"`pl.{op}` moves a struct that reaches its stage as an argument: pipelined, the stage "
                              "receives it inside the ctx ring's entry, whose bytes are not the struct's; make the "
                              "struct in the stage that moves it", node, kind="construct")
        foot = _ssbuf_foot(struct, pos[1] if len(pos) > 1 else kw.get("offset"), bool(ctx.may))
        write = op == "ssbuf_store"
        ev = self._op_event(op, "S", () if write else (foot,), (foot,) if write else (), (), node, ctx)
        if not write and isinstance(struct, StructV):
            for name in struct.fields:
                struct.fields[name] = Opaque(("read", "SSBUF", ev.ident, name))
        return None


def _ssbuf_foot(struct: Any, offset: Any, may: bool) -> Foot:
    """The bytes of SSBUF an `ssbuf_store`/`ssbuf_load` of `struct` at `offset` reaches, or the
    whole buffer (a superset) where the offset or the struct's words are not known. An offset is
    placed where it is a number or a residue of a loop variable (each of its values met in the
    runs), not where a block value or a parameter moves it: the run follows block 0 and a few
    samples, and two cores' words apart there may meet at another block or value."""
    fields = list(struct.fields.values()) if isinstance(struct, StructV) else None
    placed = isinstance(offset, int) and not isinstance(offset, bool) and known(offset) and (
        not isinstance(offset, Sym) or offset.residue and all(var[0] in INDEX for var, _ in offset.form))
    if fields is None or not placed:
        return Foot(("SSBUF",), 0, INF, 0, INF, "SSBUF", may, True)
    start = int(offset)
    end = start + 4 * sum(len(v) if isinstance(v, (list, tuple)) else 1 for v in fields)
    return Foot(("SSBUF",), 0, 1, start, end, f"SSBUF[{start}:{end}]", may)


#: what `try_eval` gives for an expression that is no compile-time constant
_NOT_CONSTANT = object()


def _at_this_run(eid: int) -> str:
    """Where an event id is computed from the loop variable or a run-time value: at which value."""
    return " in one of the iterations the check runs" if isinstance(eid, Sym) else ""


def _scalar_min_max(name: str) -> Callable:
    """`pl.min(a, b)` / `pl.max(a, b)` of scalars: the builtin's value (a run-time value's form
    kept, as for `min`), so that what a stage receives from it is compared between the runs."""
    def handler(self, node, ctx) -> Any:
        pos, kw = self._args(node, ctx)
        if kw or any(isinstance(v, (TileV, AnyTileV, TensorV)) for v in pos):
            return self.block_op(name, node, ctx)
        return self._builtin(name, node, ctx)

    return handler


_PL_CALLS: dict[str, Callable] = {
    "min": _scalar_min_max("min"),
    "max": _scalar_min_max("max"),
    "ssbuf_store": PlCalls._ssbuf_store,
    "ssbuf_load": PlCalls._ssbuf_load,
    "range": PlCalls._range,
    "TileType": PlCalls._tile_type,
    "make_tile": PlCalls._make_tile,
    "make_tile_group": PlCalls._make_tile_group,
    "struct": PlCalls._struct,
    "struct_array": PlCalls._struct_array,
    "const": PlCalls._pl_const,
    "make_tuple": PlCalls._struct,
    "section_cube": PlCalls._section,
    "section_vector": PlCalls._section,
    **{n: PlCalls._core_query for n in ("get_block_idx", "get_block_num", "get_subblock_idx", "get_subblock_num")},
}


def _number(value: Any) -> bool:
    """A number the check follows (a plain one, a `Sym`, a run-time value), which a field's kind
    converts."""
    return type(value) in (int, float, bool) or isinstance(value, (Sym, Opaque)) or value is UNKNOWN


def _plain_fields(fields: dict, node) -> None:
    """A struct's fields hold numbers (PyPTO types each from its initialiser); a list, tuple or
    dict there is no field the lowering keeps, and the model and the emulator would read it apart."""
    for name, value in fields.items():
        if isinstance(value, (list, tuple, dict)):
            raise CannotModel(f"struct field `{name}` is given a {type(value).__name__}: a field holds a number",
                              node, kind="construct")


def _leaves(value: Any) -> list:
    """The items of a value and of the lists and tuples in it (`mutex_ids=[[12], [m]]`)."""
    if not isinstance(value, (list, tuple)):
        return [value]
    return [leaf for item in value for leaf in _leaves(item)]


def _run_time_names(var: tuple) -> list[str]:
    """The words for what a variable of a value's form is known from at run time: a scalar
    parameter (or tiling data, a value read from GM), the block, or a value computed from them."""
    if var[0] == "scalar":
        return [var[1]]
    if var[0] == "derived" and any(r[0] == "scalar" for r in var[2]):
        return [r[1] for r in var[2] if r[0] == "scalar"]
    if var[0] == "core":
        return [block_words(var)]
    if is_block_value(var):
        return ["a value computed from the block index or count"]
    return []


def _pipes(node: cst.Call, *pipes: Symbol) -> None:
    """A sync's pipes are pipes a flag is set or waited on (`pl.PipeType.ALL` names them all,
    for a pipe barrier, and is none of them)."""
    for pipe in pipes:
        if pipe.leaf not in PIPES:
            raise CannotModel(f"`pl.PipeType.{pipe.leaf}` is not a pipe a sync flag is set or waited on: name one of "
                              f"{', '.join(PIPES)}", node, kind="construct")


def _reads_a_size(test: cst.BaseExpression) -> bool:
    """Does `test` read a tensor's size (`x.shape[0]`)?"""
    return any(type(n) is cst.Attribute and n.attr.value == "shape" for n in iter_nodes(test))

"""Block ops and element accesses as events, with the memory each one touches.

A block op (`pl.load`, `pl.matmul`, `pl.store`, ...) reads and writes what its roles in the op
table say, on the pipe the op runs on; a tile group hands out the slot its per-core cursor
names; an element read or write of a tile or a GM tensor runs on the scalar pipe. Each becomes
an `Event` with its footprint (`Foot`s) and the mutex ids its tiles hold, named after its code
(or its stage invocation) so the serial and the generated kernel's events can be matched.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import partial
from typing import Any, cast

import libcst as cst

from pto_api.effects import (
    ATOMIC_REDUCTIONS,
    acc_to_vec_targets,
    gm_extent,
    initial_cursor,
    pick_slot,
    source_window,
)
from pto_api.ops import (
    BLOCK_OP_ROLES,
    GM_SOURCE_OPERAND,
    MACHINE_STATE_OPS,
    MATMUL_OPERANDS,
    PARTIAL_WRITE_OPS,
    PIPE_CORES,
    SCALAR_VALUE_OPERANDS,
    SOURCE_WINDOW_OPS,
    dump_pipe,
    move_pipe,
    op_keyword_roles,
    op_keywords,
    op_pipe,
    op_roles,
    store_pipe,
)
from pto_api.sync import PHASE_OPS, unit_flag
from pto_transpile.read.walk import call_argument
from pto_transpile.soundness.events import AIC, AIV0, CORE_KIND, INF, Event, Foot, maybe, new_foot, windowed
from pto_transpile.soundness.interpbase import InterpreterBase
from pto_transpile.soundness.runtypes import CannotModel, Ctx, nonuniform
from pto_transpile.soundness.tilefeet import insert_feet
from pto_transpile.soundness.uniform import INDEX, NonUniform, Said, is_block_value, marks_block_index
from pto_transpile.soundness.values import (
    FLOAT_READ,
    UNKNOWN,
    AnyTileV,
    GroupV,
    Opaque,
    Sym,
    Symbol,
    TensorV,
    TensorView,
    TileV,
    describe_origin,
    is_unknown,
    run_time,
    vars_inside,
    whole_tile,
)

GM_WRITE_OPS = frozenset({"store", "store_tile"})
#: a tile group no pick of a core has moved yet (`OpEvents.pick`)
_NO_CURSOR = object()


class OpEvents(InterpreterBase):
    def block_op(self, op: str, node: cst.Call, ctx: Ctx) -> Any:
        pos, kw = self._args(node, ctx)
        if op in ("load", "store") and len(pos) == 2 and "offsets" in kw:
            pos.append(kw.pop("offsets"))  # `pl.store(out, y, offsets=[...])`: the third operand by name
        for i, name in enumerate(("offsets", "shapes"), 1):  # `pl.dump_data(data, offsets, shapes)`
            if op == "dump_data" and len(pos) == i and name in kw:
                pos.append(kw.pop(name))
        if op in MACHINE_STATE_OPS:
            raise CannotModel(f"`pl.{op}` reads or sets a core's special registers or vector-mask mode, which the "
                              "check does not follow across stages run ahead of one another: keep the value in a "
                              "tile or pass it as an argument", node, kind="construct")
        if op == "mrgsort":
            self._mrgsort_fits(pos, ctx.core, node)
        if op in ("matmul", "gemv") and len(pos) == 4:
            op = f"{op}_bias"  # `pl.matmul(acc, a, b, bias)` is matmul_bias: it reads the bias too
        mode = kw.get("mode")
        roles = op_roles(op, mode.leaf if isinstance(mode, Symbol) else None)
        tiles = []
        gm = False  #: a GM tensor among the operands
        for v in pos:
            if isinstance(v, (TileV, AnyTileV)):
                tiles.append(v)
            elif isinstance(v, TensorV):
                gm = True
        group = next((v for i, v in enumerate(pos) if type(v) is GroupV and roles is not None and i < len(roles)
                      and roles[i] is not None), None)
        if group is not None:  # (`pl.relu(y, x_db)`: no slot, no footprint; the emulator refuses it)
            raise CannotModel(f"`pl.{op}` is given the tile group `{group.name}` where it takes a tile: take one "
                              f"first, `slot = {group.name}.next()` (or `.current()`), and give the op `slot`",
                              node, kind="construct")
        if roles is not None and any(isinstance(v, (TileV, AnyTileV)) for v in pos[len(roles):]):
            raise CannotModel(f"`pl.{op}` is given more operands than the op table names: what it does with the "
                              "others is not known", node)
        if roles is None:
            if tiles or gm:
                raise CannotModel(f"`pl.{op}` is not in the op table, so its reads and writes are unknown", node)
            return UNKNOWN
        if op in ("load_tile", "store_tile"):
            # offsets in tiles, times the tile's extent in an order the check does not model
            raise CannotModel(f"`pl.{op}` takes its offsets in tiles, which the check does not follow: use "
                              f"`pl.{op[:-5]}` with element offsets", node, kind="construct")
        self._named_operands(op, roles, pos, kw, node)
        for name, value in kw.items():  # a tile given by keyword: one the op table names, or not followed
            if isinstance(value, (TileV, AnyTileV, TensorV)) and name not in op_keyword_roles(op):
                raise CannotModel(f"`pl.{op}` is given {name}= a tile or tensor, which the op table does not name: "
                                  "pass it by position", node, kind="construct")
        pipe = self._pipe(op, pos, node)
        atomic = kw.get("atomic")
        if atomic is not None and not (isinstance(atomic, Symbol) and atomic.leaf in ATOMIC_REDUCTIONS):
            raise CannotModel(f"the atomic mode given to `pl.{op}` is not one the check can read: write "
                              "`atomic=pl.AtomicType.AtomicAdd` (or `AtomicNone`)", node, kind="construct")
        #: the reduction of an atomic store ("add"), "" for a plain one
        reduction = (ATOMIC_REDUCTIONS[atomic.leaf] or "") if isinstance(atomic, Symbol) else ""
        acc = kw.get("acc_to_vec_mode")
        acc_mode = acc.leaf if isinstance(acc, Symbol) else None
        # read where the op takes it (`pl.load`); a store does not take it (the op table; the emulator ignores it),
        # and a window swapped by it hid the columns the store does write (probe h124)
        takes_flag = "is_transpose" in (op_keywords(op) or ())
        flag = kw.get("is_transpose") if takes_flag else None
        rank = next((len(v.shape) for v in pos if isinstance(v, TensorV)), 2)
        order = kw.get("order")
        axes = _axes(order, rank)
        if flag not in (None, True, False) or type(flag) not in (bool, type(None)) or order is not None and not axes:
            # `is_transpose=1`, `order=reversed(...)`: the emulator transposes on any truthy flag or
            # iterable order; the model only on the two it reads
            spell = "`is_transpose=True` or " if takes_flag else ""
            raise CannotModel(f"`pl.{op}` is given a transpose the check does not read: write {spell}`order=` as a "
                              f"list of two of the tensor's axes (`order=[{rank - 2}, {rank - 1}]` names its last two, "
                              "the default)", node, kind="construct")
        if axes == (rank - 2, rank - 1):  # the default spelled out (probe h126: `[1, 2]` of a rank-3 store)
            order = None
        transpose = flag is True or axes is not None and axes[0] > axes[1]
        reads: list[Foot] = []
        shapes: list[tuple] = []  #: where each tile operand's valid shape was set (`ValidShapes.provenance`)
        writes: list[Foot] = []
        tile_arg = next(iter(tiles), None)
        inserts = op == "insert" or (op == "move" and _move_inserts(pos, kw))
        # an op that places what it touches inside a tile (an element offset, an extract's or an
        # insert's window, indices, records) may reach past a view's rows: the view's whole tile
        placed = op in PLACED_OPS or "offset" in kw or any(isinstance(v, (int, list, tuple)) and not isinstance(v, bool)
                                                           for v in pos)
        exact = self._insert_feet(pos[:2] + [pos[2] if len(pos) > 2 else kw.get("offset")], ctx.core) \
            if inserts else None
        values = SCALAR_VALUE_OPERANDS.get(op, ())
        given = list(pos) + list(kw.values())
        operand = f"an operand of `pl.{op}` in"
        at = GM_OFFSETS.get(op, 2)
        for i, value in enumerate(given):
            # a GM op's place (its offsets, or the element index of `pl.getval`/`pl.setval`) is
            # judged by the GM rules (`_record_gm`), as `t[i]` is
            place = i == at or i == 2 and op == "setval"  # (setval's value: data, `ev.values`)
            if not (gm and place) and i not in values and isinstance(value, (int, list, tuple)):
                self._plain(value, operand, node)
        for i, value in enumerate(pos):
            role = roles[i] if i < len(roles) else None
            if isinstance(value, TensorV):
                write = op in GM_WRITE_OPS or op == "setval"  # `pl.setval(t, i, v)` writes an element of GM
                if op in ("getval", "setval"):  # one element, at a linear offset
                    foot, offsets = self._element_foot(value, pos[1] if len(pos) > 1 else kw.get("offset"),
                                                       bool(ctx.may))
                else:
                    offsets = pos[at] if len(pos) > at else UNKNOWN
                    written = offsets  # as the kernel wrote them, for the foot's label
                    try:
                        offsets = _flat(value, offsets, transpose or order is not None,
                                        lambda fn, a, b: self.uniform.binop(fn, a, b, fn(int(a), int(b)),
                                                                            partial(self._code_of, node)))
                    except NonUniform as exc:
                        raise nonuniform(exc, node) from None
                    foot = self._gm_foot(value, offsets, written, tile_arg, transpose, bool(ctx.may), ctx.core,
                                         pos[2] if op == "dump_data" and len(pos) > 2 else None,
                                         lambda: self._offsets_code(node, at))
                if write and op in GM_WRITE_OPS and reduction:
                    foot = foot._replace(atomic=reduction)
                self._record_gm(value, offsets, foot, write, node, self._epoch(ctx.core))
                if write and reduction:
                    self.uniform.block_atomic(value.name, offsets, foot, ctx.one_block, self._epoch(ctx.core),
                                              Said(node, self._code_of))
                elif write:
                    self.uniform.block_write(value.name, offsets, foot, ctx.one_block, self._epoch(ctx.core),
                                             Said(node, self._code_of))
                elif not write:
                    self.uniform.block_read(value.name, offsets, foot, self._epoch(ctx.core),
                                            Said(node, self._code_of))
                (writes if write else reads).append(foot)
                if write:
                    self._gm_written(value, ctx)
                if op in GM_WRITE_OPS and reduction:
                    reads.append(foot)  # an atomic add reads what it adds to
            elif role is not None and isinstance(value, (TileV, AnyTileV)):
                if ctx.scope:
                    shapes.append(self.valid.provenance(value, ctx.core))
                    if self._for_every_count:
                        self._carried_shape(value, ctx, node)
                feet = exact[i] if exact and i < 2 else \
                    self._tile_feet(whole_tile(value) if placed else value, ctx.core, acc_mode)
                if i == 0:
                    # which blocks it writes is not known, or only part of the destination
                    part = inserts and exact is None or self._writes_part(op, pos, ctx.core) \
                        or not inserts and self._writes_less(op, pos, kw, ctx.core, acc_mode)
                else:
                    part = "W" in role  # a scratch or second output: it may write less
                if part:  # the whole tile, a superset, not a cover
                    feet = [windowed(f) for f in feet]
                if "R" in role:
                    reads.extend(feet)
                if "W" in role:
                    writes.extend(feet)
        for name, role in op_keyword_roles(op).items():  # `pl.quant(..., offset=z)`
            value = kw.get(name)
            if isinstance(value, TensorV) and role and "W" in role:
                # `pl.dump_data(acc, workspace=ws)` writes the whole tile into `ws` from its start:
                # where it ends is not followed, the whole tensor, a superset, never a cover
                foot = Foot(("GM", value.name), 0, INF, 0, INF, value.name, bool(ctx.may), True)
                self._record_gm(value, UNKNOWN, foot, True, node, self._epoch(ctx.core))
                self.uniform.block_write(value.name, UNKNOWN, foot, ctx.one_block, self._epoch(ctx.core),
                                         Said(node, self._code_of))
                writes.append(foot)
                self._gm_written(value, ctx)
            elif isinstance(value, (TileV, AnyTileV)):
                feet = self._tile_feet(whole_tile(value), ctx.core, acc_mode)
                if role and "R" in role:
                    reads.extend(feet)
                if role and "W" in role:
                    writes.extend(windowed(f) for f in feet)
        flag = self._unit_flag(op, pos, kw, node, ctx)
        # with a phase, auto_mutex emits no mutex for the call's Acc tiles: the flag orders them
        held = [t for t in tiles if not (flag and _memory(t) == "Acc")]
        ev = self._op_event(op, pipe, reads, writes, self._mutex(held), node, ctx)
        ev.flag = flag
        ev.picked_mutex = self.auto_mutex and any(
            isinstance(t, AnyTileV) and len({c.mutex for c in t.choices}) > 1 for t in held)
        ev.shapes = tuple(shapes)
        if values or op == "setval":
            # (a tile there, `pl.add(y, x, z)`, is an operand its roles read, no value)
            ev.values = tuple(given[i] for i in (*values, *((2,) if op == "setval" else ()))
                              if i < len(given) and not isinstance(given[i], (TileV, AnyTileV)))
        if op == "getval":  # data: unknown, but named by this read in both runs
            # GM is one memory: the cores that run this read together read one value, as `t[i]`
            tensor = pos[0] if pos and isinstance(pos[0], TensorV) else None
            index = pos[1] if len(pos) > 1 else kw.get("offset")
            return self._moving(self._read_value(ev, gm, ctx, _element(tensor, index), _at_block(index),
                                                 tensor.name if tensor is not None else None), index)
        return None

    def _moving(self, value: Any, index: Any) -> Any:
        """`value`, a GM read at `index`, noted in `moving_reads` when the index moves with a loop."""
        if isinstance(value, Opaque) and any(var[0] in INDEX for var in vars_inside(index)):
            self.moving_reads.add(value.origin)
        return value

    def _read_value(self, ev: Event, gm: bool, ctx: Ctx, element: tuple = (), per_block: bool = False,
                    tensor: str | None = None) -> Any:
        """What a scalar read gives: data, named by the read in both runs. A read of a GM
        element the kernel's own code names by numbers (`start = starts[0]`, `starts[sub_id]`),
        before its first loop of run-time trip count, is one value for the whole run (GM is one
        memory: the cores that read the element together read one value), as a scalar parameter
        is: it is sampled like one (`Config.scalars`, under `gm_read_label`), so a GM offset
        computed from it is judged for every value (`Uniform.finish`) and a test on it is cut
        where its outcome changes. Each later read of the element on a core is a value of its
        own (a write may come between). A trip count it bounds stays the trip-count root it was."""
        # the element read joins the name: cores that read different elements at one line (`tbl[sub_id]`)
        # read different values
        origin = ("read", "GM" if gm else ev.core, ev.ident) + ((("at", *element),) if gm and element else ()) \
            + (("per block",) if per_block else ())
        if not (gm and element and ev.ident[0] == "code" and not ctx.may and not self.uniform.loops) \
                or element[0] in self.gm_writes or element[0] in self.fractional:
            # (an element of a floating tensor: a fraction no sampled integer stands for, data
            # whose tests are followed both ways, as a float parameter's are; marked a float, which
            # an integer ctx field would truncate: `values.float_valued`)
            # (of a float tensor at any index: probe h113, a read at `i % 2` was no float, and an
            # integer ctx field's truncation of it went unseen)
            fractional = gm and (element and element[0] in self.fractional or tensor in self.fractional)
            return Opaque(origin + ((FLOAT_READ,) if fractional else ()))
        counts = self.gm_read_counts[ctx.core]
        label = gm_read_label(element, counts[element])
        counts[element] += 1
        self.gm_reads[label] = (origin, element[0])
        value = self.config.scalars.get(label)
        if isinstance(value, int) and not isinstance(value, bool) and origin not in self.trips:
            return Sym(value, ((("scalar", label), 1),))
        return Opaque(origin)

    def _gm_written(self, tensor: TensorV, ctx: Ctx) -> None:
        """A write of GM tensor `tensor`: its elements are no longer one value for the whole run.
        A read of it sampled earlier in the run may differ from a later read on another core,
        which the same sample would stand for: the run is refused (the discovery run leaves the
        reads of a tensor it sees written unsampled, so only a write it did not see comes here)."""
        self.gm_writes.add(tensor.name)
        sampled = sorted(label for label, (_, read) in self.gm_reads.items()
                         if read == tensor.name and label in self.config.scalars)
        if sampled:
            raise CannotModel(f"the kernel writes `{tensor.name}`, whose element it reads as one value for the whole "
                              f"run (`{sampled[0]}`): another read of it may see the write", None, kind="runtime")

    def _writes_part(self, op: str, pos: list, core: int) -> bool:
        """Whether `op` may write less than its destination's valid window (`PARTIAL_WRITE_OPS`;
        a matmul whose lhs rows by rhs columns are not that window, or not known)."""
        if op in PARTIAL_WRITE_OPS or op.startswith("matmul_mx"):
            return True
        where = MATMUL_OPERANDS.get(op)
        if where is None:
            return False
        tiles = [pos[i] if i < len(pos) else None for i in (0, *where)]
        if not all(isinstance(t, TileV) and len(t.shape) == 2 for t in tiles):
            return True
        valid = self.valid
        dst, lhs, rhs = cast(list[TileV], tiles)
        if not all(valid.exact(t, core) for t in (dst, lhs, rhs)):
            return True
        return tuple(valid.of(dst, core)) != (valid.of(lhs, core)[0], valid.of(rhs, core)[1])

    def _mrgsort_fits(self, pos: list, core: int, node) -> None:
        """`pl.mrgsort` writes as many records as its source's valid columns hold, from its
        destination's first byte, however large the destination: refused where they may not fit."""
        dst, src = (pos + [None, None])[:2]
        if not (isinstance(dst, TileV) and isinstance(src, TileV) and self.valid.exact(src, core)
                and len(self.valid.of(src, core)) == 2
                and self.valid.of(src, core)[1] * src.elem <= dst.hi - dst.lo):
            raise CannotModel("`pl.mrgsort` writes as many records as its source's valid columns hold, past the "
                              "end of its destination where they do not fit: give the destination room for all of "
                              "them", node, kind="construct")

    def _writes_less(self, op: str, pos: list, kw: dict, core: int, acc_mode: str | None) -> bool:
        """Whether an op that writes a window of its source's (`SOURCE_WINDOW_OPS`) may write less
        than its destination's valid window (`source_window`): then it covers none of it. An
        extract (`move` at an offset) writes the destination's window."""
        if "dim" in kw:  # `pl.maximum(x, y, dim=0)`: a reduction into one row or column
            return True
        how = SOURCE_WINDOW_OPS.get(op)
        dst, src = (pos + [None, None])[:2]
        extract = op == "move" and (len(pos) > 2 or kw.get("offset") is not None) and not (
            isinstance(src, TileV) and isinstance(dst, TileV) and (src.memory, dst.memory) == ("Acc", "Vec"))
        if extract:  # an insert when the destination is bigger by the operands' shapes as given: a
            # view's own rows and columns, not followed (probe h126: a view source's insert was taken for
            # an extract covering the whole destination, which it writes only the blocks of)
            return not (isinstance(dst, TileV) and isinstance(src, TileV) and dst.desc and src.desc)
        if how is None:  # an Acc->Vec move takes no offset: it writes its source's half
            return False
        valid = self.valid
        if not (isinstance(dst, TileV) and isinstance(src, TileV) and valid.exact(dst, core)
                and valid.exact(src, core)):
            return True
        window = source_window(how, tuple(src.shape), tuple(dst.shape), tuple(valid.of(src, core)),
                               tuple(valid.of(dst, core)), src.memory, dst.memory, acc_mode)
        return window != tuple(valid.of(dst, core))

    def _insert_feet(self, pos: list, core: int) -> tuple[list[Foot], list[Foot]] | None:
        """(destination, source) feet of `pl.insert`: its exact blocks, when known."""
        dst, src, offset = (pos + [None, None, None])[:3]
        if isinstance(dst, TileV) and not dst.desc or isinstance(src, TileV) and not (src.desc or src.part):
            return None  # a view: where its blocks land is not followed, the whole tiles
        exact = isinstance(src, TileV) and self.valid.exact(src, core)
        # a valid shape known only at run time is never larger than the declared one: the blocks
        # of the declared shape at the offset, a superset (`window`: never a cover); a view's
        # is its tile's clipped by where it starts, which is not followed: at most its own rows
        # and columns (the emulator inserts from the tile's start, its valid rows and columns)
        valid = self.valid.of(src, core) if exact else self.valid.widest(src, core) if isinstance(src, TileV) \
            else ()
        if isinstance(offset, (list, tuple)) and any(run_time(o) for o in offset):
            return None  # an offset known only at run time: the whole tiles
        feet = insert_feet(dst, src, offset, valid, lambda t: self._tile_keys(t.memory, core, None))
        if feet is None:
            return None
        for tile, out in ((src, feet[0]), (dst, feet[1])):
            self.strays.extend((tile.memory, f.r0, f.r1, tile.lo, tile.hi) for f in out
                               if f.r0 < tile.lo or f.r1 > tile.hi)
        writes = feet[1] if exact else [windowed(f) for f in feet[1]]
        return writes, feet[0]

    def _named_operands(self, op: str, roles: tuple, pos: list, kw: dict, node: cst.Call) -> None:
        """Refuse an operand in a tile's or a GM tensor's place that the run cannot name: a pick
        of one of several tensors (`(ws, ws2)[d % 2]` by a parameter, `{0: ws, 1: ws2}[i % 2]`,
        `ws if alpha > 0.5 else ws2`), a view of a pointer: what it reads or writes would be no
        event at all, so no race, no read and no output could show it (probe h79)."""
        places: list[tuple[int | str, Any]] = [
            (i, v) for i, v in enumerate(pos) if i < len(roles) and roles[i] or i == GM_SOURCE_OPERAND.get(op)]
        places += [(name, kw[name]) for name in op_keyword_roles(op) if name in kw and kw[name] is not None]
        for place, value in places:
            if isinstance(value, AnyTileV) and len({t.memory for t in value.choices}) > 1:
                # the op's pipe is the memories': on one it is not the other's (probe h130: a move into
                # a Vec or a Mat tile, put on V, ran on MTE3 where the Mat tile was picked)
                given = call_argument(node, place, None) if isinstance(place, int) else call_argument(node, None, place)
                spaces = " or ".join(sorted({t.memory for t in value.choices}))
                raise CannotModel(f"`{self._code_of(given or node)}` is one of tiles in {spaces} memory, picked by a "
                                  f"value the check does not decide, so which pipe `pl.{op}` runs on is not known: "
                                  "pick among tiles of one memory, or choose the op by an `if`", node, kind="operand")
            if isinstance(value, (TileV, AnyTileV, TensorV)) or not is_unknown(value) and not isinstance(value, Opaque):
                continue
            given = call_argument(node, place, None) if isinstance(place, int) else call_argument(node, None, place)
            code = self._code_of(given or node)
            if isinstance(value, Opaque) and value.origin[0] == "float" and "." not in value.origin[1]:
                raise CannotModel(f"`{code}` is a kernel parameter the check reads as a number, so what `pl.{op}` "
                                  "reads or writes there is not known: the check reads a GM tensor parameter from a "
                                  "`pl.Tensor[[...], dtype]` annotation written on it (not a type alias, a string or "
                                  "a `pl.Ptr`)", node, kind="operand")
            if isinstance(value, TensorView):  # (probe h115: the message named causes that did not apply)
                raise CannotModel(f"`{code}` is a view of GM tensor `{value.tensor}`, which the check does not follow "
                                  f"as an operand of `pl.{op}`: give `{value.tensor}` itself and add the view's start "
                                  f"to the offsets", node, kind="tensor_view")
            raise CannotModel(f"the check cannot tell which tile or tensor `{code}` is, so what `pl.{op}` reads or "
                              "writes there is not known: one picked by a parameter, the block index or a test the "
                              "run follows both ways, or made from a pointer, is not followed", node, kind="operand")

    def _unit_flag(self, op: str, pos: list, kw: dict, node, ctx: Ctx) -> tuple:
        """`Event.flag` of a `matmul*`/`store*` call given a `phase=`; () without one. The flag
        is one per Acc region (the Acc tile's bytes), followed in program order: a call under a
        runtime condition, or whose Acc tile is not known, is refused, as is a region that
        overlaps another one without being it (which flag the hardware keeps is not documented)."""
        phase = kw.get("phase")
        if op not in PHASE_OPS or phase is None:
            return ()
        try:
            use = unit_flag(op, phase.leaf if isinstance(phase, Symbol) else "?")
        except ValueError:
            raise CannotModel(f"the `phase=` given to `pl.{op}` is not one the check can read: write "
                              "`pl.AccPhase.Partial`/`Final` or `pl.STPhase.Partial`/`Final`", node,
                              kind="construct") from None
        if use is None:  # `pl.STPhase.Unspecified`
            return ()
        acc = pos[0 if PHASE_OPS[op] == "M" else 1] if len(pos) > 1 else None
        if ctx.may or not isinstance(acc, TileV) or acc.memory != "Acc":
            why = "runs under a runtime condition" if ctx.may else "has no known Acc tile"
            raise CannotModel(f"`pl.{op}(..., phase=...)` {why}: the check follows the Acc unit flag only for calls "
                              "that always run, on a known Acc tile", node, kind="construct")
        region = (acc.memory, acc.lo, acc.hi)
        clash = next((r for r in self.flag_regions if r != region and r[1] < acc.hi and acc.lo < r[2]), None)
        if clash is not None:
            raise CannotModel(f"`pl.{op}(..., phase=...)` uses the unit flag of Acc bytes [{acc.lo}, {acc.hi}), "
                              f"which overlap bytes [{clash[1]}, {clash[2]}) another phase call used: which flag the "
                              "hardware keeps for them is not documented", node, kind="construct")
        self.flag_regions.add(region)
        return (region, *use, ".".join(phase.path[-2:]))

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
        if op == "dump_data":  # an Acc tile goes out through the cube's fixpipe; a tensor, a Vec tile on V
            data = pos[0] if pos else None
            return dump_pipe(_memory(data) if isinstance(data, (TileV, AnyTileV)) else None)
        pipe = op_pipe(op)
        if pipe is None:
            raise CannotModel(f"no pipe is known for `pl.{op}`", node)
        return pipe

    # tiles ---------------------------------------------------------------------------------
    def pick(self, group: GroupV, accessor: str, ctx: Ctx) -> Any:
        depth = len(group.tiles)  # (`group.depth`)
        if depth == 1:
            return group.tiles[0]
        cursors = self.cursors[ctx.core]
        cur = cursors.get(id(group), _NO_CURSOR)
        if cur is _NO_CURSOR:
            cur = initial_cursor(depth)
        if is_unknown(cur):
            return AnyTileV(group.tiles, f"{group.name}[?]")
        new, slot = pick_slot(cur, accessor, depth)
        running = frozenset([loop.key for loop in self.uniform.active])
        rot = self.uniform.rot
        where = (ctx.core, id(group))
        picked = rot.pick_loops.get(where)
        if picked is None:
            picked = rot.pick_loops[where] = set()
        picked.add(running)
        if new != cur:
            rot.move_loops.setdefault(where, set()).update(running)
            cursors[id(group)] = UNKNOWN if ctx.may else new
            rot.rotated(ctx.core, group, group.name or self._code_of(group.node), lost=bool(ctx.may))
        return group.tiles[slot]

    def _element_access(self, tile, node, role: str, ctx: Ctx) -> Opaque:
        """An element read or write of a tile; a read's value is named by the read."""
        op = "getval" if role == "R" else "setval"
        feet = self._tile_feet(whole_tile(tile), ctx.core, None)  # (at an offset that may pass a view's rows)
        written = [windowed(f) for f in feet]  # one element of it: never a cover
        ev = self._op_event(op, "S", feet if "R" in role else (), written if "W" in role else (),
                            self._mutex([tile]), node, ctx)
        return Opaque(("read", ev.core, ev.ident))

    def _gm_element(self, tensor: TensorV, node: cst.Subscript, role: str, ctx: Ctx) -> Any:
        """A scalar read or write of GM (`t[i]`, `t[i, j]`, `t[i] = v`) on the scalar pipe: the
        element (`_element_foot`); a read's value is named by the read."""
        index = [self.eval(e.slice.value, ctx) for e in node.slice if isinstance(e.slice, cst.Index)]
        foot, offsets = self._element_foot(tensor, index[0] if len(index) == 1 else tuple(index), bool(ctx.may))
        self._record_gm(tensor, offsets, foot, "W" in role, node, self._epoch(ctx.core))
        if "W" in role:
            self.uniform.block_write(tensor.name, index, foot, ctx.one_block, self._epoch(ctx.core),
                                     Said(node, self._code_of))
        else:
            self.uniform.block_read(tensor.name, offsets, foot, self._epoch(ctx.core), Said(node, self._code_of))
        if "W" in role:
            self._gm_written(tensor, ctx)
        ev = self._op_event("getval" if role == "R" else "setval", "S", (foot,) if "R" in role else (),
                            (foot,) if "W" in role else (), (), node, ctx)
        # GM is one memory: the cores that run this read together (kernel code outside any
        # section) read one value; a write that could come between them is a conflict of its own
        element = _element(tensor, index[0] if len(index) == 1 else index)
        return self._moving(self._read_value(ev, True, ctx, element, _at_block(index), tensor.name), index) \
            if role == "R" \
            else Opaque(("read", "GM", ev.ident))

    @staticmethod
    def _element_foot(tensor: TensorV, index: Any, may: bool) -> tuple[Foot, Any]:
        """The footprint of one element of a GM tensor, and its (row, column) for the
        uniformity conditions (`_record_gm`). `index` is a linear offset over the declared
        shape (`pl.getval(t, k)`, `t[k]`) or a row and a column (`t[i, j]`); the element is the
        one the hardware reaches: row-major over the declared shape. A linear offset into a
        2-D tensor is placed when it is a plain number and the row length is static; an
        element that cannot be placed (an offset read from GM, a row length known only at run
        time, a tensor of more dimensions) is the whole tensor, a superset."""
        coords: Any = None
        outside = ""  #: why an element named by a row and a column is not placed
        rank = len(tensor.shape)
        if isinstance(index, tuple) and len(index) == 2 and rank == 2:
            # a column past the row's end reaches the next row (the offset is linear): placed only
            # within the row, else the whole tensor
            # a row before the first (`(-1, 0)`) is no row of the tensor, not its last as a Python
            # index would be: placed only from row 0 on, below the row count where it is static
            # (probe h184: `pl.getval(out, (-1, 0))` was placed at row -1, apart from every store)
            width, height = tensor.shape[1], tensor.shape[0]
            if type(width) is int and isinstance(index[1], int) and 0 <= int(index[1]) < width \
                    and isinstance(index[0], int) and 0 <= int(index[0]) \
                    and (type(height) is not int or int(index[0]) < height):
                coords = index
            elif all(isinstance(i, int) and not isinstance(i, bool) for i in index):
                outside = (f"the element `{tensor.name}[{int(index[0])}, {int(index[1])}]` is outside its rows or "
                           "columns here, at the linear offset row * width + column on hardware")
        elif not isinstance(index, tuple) and rank == 1:
            coords = (index, 0)
        elif not isinstance(index, tuple) and rank == 2 and type(index) is int and type(tensor.shape[1]) is int \
                and tensor.shape[1] > 0:
            coords = divmod(index, tensor.shape[1])
        if coords is None or not all(isinstance(c, int) and not isinstance(c, bool) for c in coords):
            linear = not isinstance(index, tuple) and rank == 2 and not is_unknown(index)
            why = f"{ELEMENT_UNPLACED} the {rank}-D tensor `{tensor.name}` that is not a number here" if linear \
                else outside
            return Foot(("GM", tensor.name), 0, INF, 0, INF, tensor.name, may, True, unplaced=why), UNKNOWN
        r, c = coords
        label = f"{tensor.name}[{int(r)}]" if rank == 1 else f"{tensor.name}[{int(r)}, {int(c)}]"
        return Foot(("GM", tensor.name), int(r), int(r) + 1, int(c), int(c) + 1, label, may, False), [r, c]

    def _tile_feet(self, tile, core: int, acc_mode: str | None) -> list[Foot]:
        tiles, may = (tile.choices, True) if isinstance(tile, AnyTileV) else ((tile,), False)
        out = []
        valid = self.valid
        for t in tiles:
            memory = t.memory
            # a Vec tile in cube code with no documented Acc->Vec target may land on either AIV
            unsure = memory == "Vec" and core == AIC and not acc_to_vec_targets(acc_mode)[1]
            window = valid.partial(t, core)
            # (`_tile_keys`, its commonest answers without its call)
            keys = [(memory, AIC)] if memory != "Vec" else [("Vec", core)] if core != AIC \
                else self._tile_keys(memory, core, acc_mode)
            lo, hi = t.span or (t.lo, t.hi)  # (a view of whole rows: those rows' bytes)
            for key in keys:
                out.append(new_foot(Foot, (key, lo, hi, 0, 1, t.label, may or unsure, window, "", "")))
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
        return tuple(sorted(ids)) if ids else ()

    def _offsets_code(self, node: cst.Call, at: int) -> str:
        """The text of the offsets a GM op is given (argument `at`, or `offsets=`), "" when not written."""
        given = call_argument(node, at, "offsets")
        return self._code_of(given) if given is not None else ""

    def _gm_foot(self, tensor: TensorV, flat: Any, written: Any, tile: Any, transpose: bool, may: bool,
                 core: int, shapes: Any = None, code: Callable[[], str] = lambda: "") -> Foot:
        """The GM window a load or store moves: the tile's valid shape (or the `shapes` of a 2-D
        window `pl.dump_data` prints) at `flat`, the 2-D offsets of the `written` ones (`_flat`),
        which its label shows."""
        rows = cols = None
        tiled = isinstance(tile, (TileV, AnyTileV))
        valid = self.valid.widest(tile, core) if tiled else ()
        if len(valid) == 2:
            rows, cols = gm_extent(valid, transpose)
        elif len(tensor.shape) == 2 and isinstance(shapes, (list, tuple)) and len(shapes) == 2 \
                and all(type(d) is int and d > 0 for d in shapes):
            rows, cols = shapes
        if (isinstance(flat, (list, tuple)) and len(flat) == 2 and rows is not None and cols is not None
                and all(isinstance(o, int) and not isinstance(o, bool) for o in flat)):
            r, c = flat
            head = "".join(f"{int(o)}, " for o in written[:-2]) if len(written) > 2 else ""
            inner = int(written[-2])
            label = f"{tensor.name}[{head}{inner}:{inner + rows}, {c}:{c + cols}]"
            spill = _spill(tensor, r, c, rows, cols)
            if spill is not None:
                label += f" ({SPILL_NOTE} {tensor.shape[-1]} columns into the next rows)"
                return Foot(("GM", tensor.name), *spill, label, may, True)
            # a valid shape known only at run time: the window of the declared shape, a superset; one of
            # several tiles of different valid shapes: the widest's window, a superset too (probe h128)
            return Foot(("GM", tensor.name), r, r + rows, c, c + cols, label, may,
                        tiled and not (self.valid.exact(tile, core) and self.valid.one_shape(tile, core)))
        # where it lands is not known: anywhere in the tensor, a superset, never a cover
        why = _unplaced_shape(tensor) or _run_time_offset(written)
        if not why and is_unknown(written if not isinstance(written, (list, tuple)) else next(
                (o for o in written if is_unknown(o)), None)) and code():
            why = f"its offsets `{code()}` are not a value the check computes"
        return Foot(("GM", tensor.name), 0, INF, 0, INF, tensor.name, may, True, unplaced=why)

    @property
    def _for_every_count(self) -> bool:
        """Does this run stand for runs at other trip counts (loops of run-time trip count, or
        static sizes followed as such), where state one iteration hands to another must be of
        a kind the argument follows?"""
        return bool(self.config.trips) or self.config.symbolic_dims

    def _carried_shape(self, tile: Any, ctx: Ctx, node) -> None:
        """Refuse an op of a stage using a tile whose valid shape another iteration set (`ValidShapes.carried`)."""
        scope = ctx.scope
        found = self.valid.carried(tile, ctx.core, scope) if scope is not None else None
        if found is None or scope is None:
            return
        label, where = found
        by = f"stage `{where[1]}` in task {where[2]}" if where[0] == "stage" \
            else "kernel-body code inside a loop of run-time trip count"
        raise nonuniform(NonUniform(
            f"stage `{scope[1]}` (task {scope[2]}) uses the valid shape of `{label}` that {by} set: a valid "
            "shape one iteration hands to another",
            "set a tile's valid shape in every task that uses it (`pl.set_validshape` in the stage, before the op), "
            "or once before the loop"), node)

    def _epoch(self, core: int) -> tuple:
        """The barriers `core` has passed, as a GM access records them: those of every core, its
        kind, and those of its kind (`Uniform._phases` judges accesses between them)."""
        return (self.epochs[core], CORE_KIND[core], self.kind_epochs[core])

    def _record_gm(self, tensor: TensorV, offsets: Any, foot: Foot, write: bool, node, epoch: Any) -> None:
        """A GM access for the uniformity conditions (`Uniform.finish`), with the number of
        barriers of every core its core has passed."""
        if write:
            self.uniform.written.add((tensor.name, epoch))
        if not (isinstance(offsets, (list, tuple)) and len(offsets) == 2 and foot.r1 != INF):
            if isinstance(offsets, (list, tuple)) and any(isinstance(o, Sym) for o in offsets):
                self._plain(list(offsets), "the GM offset", node)
            if self.uniform.active:  # (an element, or the whole tensor: taken for one place, `Uniform.revisited`)
                self.uniform.loose.setdefault(tensor.name, []).append((node, write))
            return
        try:  # (`_uniform`, without its closure)
            self.uniform.gm_access(tensor.name, list(offsets), (foot.r1 - foot.r0, foot.c1 - foot.c0), write,
                                   partial(self._code_of, node), epoch, foot.may, node)
        except NonUniform as exc:
            raise nonuniform(exc, node) from None

    # events --------------------------------------------------------------------------------
    def _op_event(self, op: str, pipe: str, reads, writes, mutex, node, ctx: Ctx) -> Event:
        kind = "cube" if ctx.core == AIC else "vector"
        if kind not in PIPE_CORES.get(pipe, (kind,)):
            raise CannotModel(f"`{op}` runs on the {pipe} pipe, which the {kind} core does not have", node)
        if ctx.may:
            reads = [maybe(f) for f in reads]
            writes = [maybe(f) for f in writes]
        scope = ctx.scope
        self.seq += 1  # (`_next_seq`)
        ev = Event(ctx.core, "op", pipe, self.seq, tuple(reads), tuple(writes), tuple(mutex),
                   node=node, op=op, ident=self._ident(node, ctx),
                   stage=scope[1] if scope else "", task=scope[2] if scope else -1)
        self.trace.events[ctx.core].append(ev)
        return ev

    def _ident(self, node, ctx: Ctx) -> tuple:
        if ctx.scope is not None:
            ordinal = ctx.counter[0]
            ctx.counter[0] += 1
            return ctx.scope + (ordinal,)
        text = self._code_of(node)
        counts = self.code_counts[ctx.core]
        n = counts[text]
        counts[text] = n + 1
        return ("code", text, n)


#: the operand that places a GM op's window, where it is not argument 2: `pl.getval(t, i)`,
#: `pl.setval(t, i, v)`, `pl.dump_data(data, offsets, shapes)`
GM_OFFSETS = {"getval": 1, "setval": 1, "dump_data": 1}


def _axes(order: Any, rank: int) -> tuple[int, int] | None:
    """The two axes `order=` names of a tensor of `rank` dimensions (the window's rows, then its
    columns; the first after the second is a transpose), or None when it is not two of them."""
    if not (isinstance(order, (list, tuple)) and len(order) == 2
            and all(type(a) is int and 0 <= a < rank for a in order) and order[0] != order[1]):
        return None
    return order[0], order[1]


def _flat(tensor: TensorV, offsets: Any, transpose: bool, arith=None) -> Any:
    """The offsets of a load or store of a tensor of more than two dimensions in the 2-D view
    the check places GM windows in: one row per index of every axis but the last, row-major
    (GM holds the tensor so), the row `((o0 * d1 + o1) * d2 + ...) * d[-2] + o[-2]`. The
    window spans the last two axes and one index of each axis before them, so it is rows
    `row .. row + rows` of that view (a window past the end of axis -2 reaches the next
    index's rows, as in GM). Placed only when the dimensions between the first and the last
    are static, each offset is a number and the transfer names no axes (`order=[0, 1]` of such
    a tensor spans its first two axes, `[1, 0]` transposes them); else UNKNOWN: the whole
    tensor, a superset. `arith(fn, a, b)` computes with offsets that vary (`Uniform.binop`): the
    row of `[b, r, c]` with `b` a loop variable moves with it as `b * d1 + r` does, which plain
    arithmetic on the number would forget."""
    rank = len(tensor.shape)
    if rank <= 2 or not isinstance(offsets, (list, tuple)):
        return offsets
    inner = tensor.shape[1:-1]
    if transpose or len(offsets) != rank or not all(type(d) is int and d > 0 for d in inner) \
            or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets):
        return UNKNOWN
    row = offsets[0]
    for d, o in zip(inner, offsets[1:-1], strict=True):
        if arith is not None and (isinstance(row, Sym) or isinstance(o, Sym)):
            row = arith(operator.add, arith(operator.mul, row, d), o)
        else:
            row = row * d + o
    return [row, offsets[-1]]


def _unplaced_shape(tensor: TensorV) -> str:
    """Why a window of `tensor` is placed nowhere when its shape is the reason (`_flat`): a
    dimension between the first and the last known only at run time; "" otherwise."""
    inner = tensor.shape[1:-1] if len(tensor.shape) > 2 else ()
    if all(type(d) is int and d > 0 for d in inner):
        return ""
    return (f"`{tensor.name}` has {len(tensor.shape)} dimensions and {SHAPE_UNPLACED}: the check places a window of "
            "such a tensor only where those are static")


#: the words of `_unplaced_shape`, by which a report tells that reason from the others
SHAPE_UNPLACED = "one between the first and the last is known only at run time"
#: the words of an element's linear offset the check places only as a number (`_element_foot`)
ELEMENT_UNPLACED = "a linear element offset into"


def _run_time_offset(written: Any) -> str:
    """Why a window is placed nowhere when an offset is a value known only at run time: the values
    it is computed from, named (`tiling.rows`, a value read from GM); "" when none is named."""
    offsets = written if isinstance(written, (list, tuple)) else [written]
    named = sorted({words for o in offsets if isinstance(o, Opaque) for words in _leaf_words(o.origin)})
    if not named:
        return ""
    return f"an offset is computed from {' and '.join(named)}, which a run of the check does not know"


def _leaf_words(origin: Any) -> list[str]:
    """The values a run-time value is computed from, in words alike for every task (a value stage
    `finish` reads from GM, `tiling.rows`, `x.shape[0]`)."""
    if isinstance(origin, tuple) and origin and origin[0] == "op":
        return [w for part in origin[2:] for w in _leaf_words(part)]
    if isinstance(origin, tuple) and origin and origin[0] == "read" and len(origin) > 2 \
            and isinstance(origin[2], tuple) and origin[2][:1] == ("stage",):
        return [f"a value stage `{origin[2][1]}` reads from GM"]
    if isinstance(origin, tuple) and origin:
        return [describe_origin(origin)]
    return []


#: how a GM window's label says its rows run past the tensor's last axis (`_spill`)
SPILL_NOTE = "its rows run on past the tensor's"


def _spill(tensor: TensorV, r: int, c: int, rows: int, cols: int) -> tuple[int, int, int, int] | None:
    """A window that reaches past the tensor's last axis (columns `c .. c + cols` of a tensor `w`
    wide): GM holds the tensor row-major, and a transfer moves each of its rows as `cols`
    elements from `row * w + c`, which run on into the next rows of the tensor. The rows it
    reaches, across the whole width (a superset, which covers nothing); None when it stays
    within the last axis or the width is not static."""
    width = tensor.shape[-1] if tensor.shape else None
    if type(width) is not int or width <= 0 or (0 <= c and c + cols <= width) or cols <= 0 or rows <= 0:
        return None
    first = r + c // width
    last = r + rows - 1 + (c + cols - 1) // width
    return first, last + 1, 0, width


def gm_read_label(element: tuple, before: int) -> str:
    """The name a GM read is sampled under: the element (`starts[0]`), numbered from its second
    read on one core (`starts[0] #2`)."""
    name, index = element
    text = f"{name}[{', '.join(map(str, index))}]"
    return text if before == 0 else f"{text} #{before + 1}"


def _at_block(index: Any) -> bool:
    """Does a GM read's place depend on the block (`pl.getval(tbl, core_id)`, `tbl[min(core_id, 3)]`)?
    Its value may then differ from block to block (`uniform.marks_block_index`)."""
    parts = index if isinstance(index, (list, tuple)) else (index,)
    return any((isinstance(p, Sym) and any(is_block_value(v) for v, _ in p.form))
               or (isinstance(p, Opaque) and marks_block_index(p.origin)) for p in parts)


def _element(tensor: Any, index: Any) -> tuple:
    """(tensor name, index) of a GM element named by plain numbers; () for any other read (an
    index that varies with a loop, the block or a parameter, or that is not known)."""
    if not isinstance(tensor, TensorV):
        return ()
    index = tuple(index) if isinstance(index, (list, tuple)) else (index,)
    if not index or not all(type(i) is int for i in index):
        return ()
    return tensor.name, index


#: ops that place what they touch inside a tile operand by an offset, indices or a count of
#: records of their own, not by its valid window: a view given to one is its whole tile
PLACED_OPS = frozenset({"getval", "setval", "insert", "gather", "gatherb", "gathermask", "scatter", "histogram",
                        "sort32", "mrgsort", "mrgsort2", "reshape", "transpose", "ub_copy", "dump_data"}) \
    | frozenset(op for op in BLOCK_OP_ROLES if "expand" in op and op not in ("expands", "fillpad_expand"))
#: (the row and column expands read as many rows or columns of their vector operand as the destination's
#: valid shape has, from a view's first: past its rows, probe h177)


def _move_inserts(pos: list, kw: dict) -> bool:
    """`pl.move(dst, src, offset=...)` into a bigger destination is an insert (the emulator's
    `transfer.move`), but from Acc to Vec: it writes the blocks `insert_blocks` names, not the
    whole destination. Bigger by the shapes of the operands as given: a view's own rows and
    columns (`TileV.part`); a view whose bounds the check does not follow may be either, and
    `_writes_less` takes its destination as a whole, never as a cover."""
    offset = pos[2] if len(pos) > 2 else kw.get("offset")
    dst, src = (pos + [None, None])[:2]
    if offset is None or not (isinstance(dst, TileV) and isinstance(src, TileV)):
        return False
    dst_shape, src_shape = _shape_as_given(dst), _shape_as_given(src)
    return (len(dst_shape) == 2 and len(src_shape) == 2
            and (dst_shape[0] > src_shape[0] or dst_shape[1] > src_shape[1])
            # an Acc->Vec move takes no offset: it writes its source's half from the destination's
            # origin (probe h124: taken for an insert lower down, the rows it writes were unseen)
            and (src.memory, dst.memory) != ("Acc", "Vec"))


def _shape_as_given(tile: TileV) -> tuple:
    """A tile's shape as an op given it sees it: a view's own rows and columns (() when its
    bounds are not followed), else the declared shape."""
    return tile.shape if tile.desc else tile.part


def _memory(tile) -> str:
    return tile.memory if isinstance(tile, TileV) else tile.choices[0].memory

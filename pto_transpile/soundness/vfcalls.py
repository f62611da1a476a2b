"""Calls of the file's `@pl.vector_function`s as the abstract interpreter runs them.

A call is one V-pipe op. It reads and writes each tile argument as the function's parameter
roles say (`read.vfbody.param_roles`), and any bytes its register code reaches outside those
tiles (`vfextent.py` evaluates the body on the call's arguments).
"""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst

from pto_api.registers import BLOCK_BYTES as BLOCK
from pto_transpile.read import vfbody
from pto_transpile.soundness import vfextent
from pto_transpile.soundness.events import PAST_ITS_END, Foot
from pto_transpile.soundness.interpbase import InterpreterBase
from pto_transpile.soundness.runtypes import CannotModel, Ctx
from pto_transpile.soundness.uniform import roots_of as _roots_of
from pto_transpile.soundness.values import (
    AnyTileV,
    FunctionV,
    Opaque,
    Symbol,
    TileV,
    is_unknown,
    run_time,
    trip_leaves,
)


class VectorCalls(InterpreterBase):
    #: `_written`'s feet per (id(tile), spans, exact, core), each kept with its tile: a group
    #: hands out the same slot objects, so the calls of a loop store to the same tiles again
    _feet_written: dict[tuple, tuple] | None = None

    def _vf_call(self, fn: FunctionV, pos: list, kw: dict, node, ctx: Ctx) -> None:
        """One V-pipe op. Its footprint is each tile argument its roles read or write, plus any
        bytes its register code reaches outside those tiles (raw offsets past a tile's end)."""
        self._plain([v for v in list(pos) + list(kw.values()) if isinstance(v, int)],
                    f"an argument of vector function `{fn.name}` in", node)
        pos, kw = _by_position(fn, list(pos), dict(kw), node)
        roles = self._vf_param_roles(fn.name)
        reads: list[Foot] = []
        writes: list[Foot] = []
        tiles = []
        extents = self._vf_extents(fn, pos, kw, node)
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
                if kind == "W" and extent is not None and (kind in role or spans):
                    # the bytes it stores, not the whole tile; a store the roles did not see
                    # (reached through a name they do not follow) is one too
                    out.extend(self._written(value, spans, extent.exact, ctx.core))
                    out.extend(self._beyond(value, spans, True, ctx.core, extent.exact))
                    continue
                if kind in role:
                    out.extend(feet)
                if spans:  # (none: no feet beyond)
                    out.extend(self._beyond(value, spans, kind in role, ctx.core))
        ev = self._op_event(f"{fn.name}()", "V", reads, writes, self._mutex(tiles), node, ctx)
        # the numbers it computes with (a scale, a count): data the order of accesses does not show
        ev.values = tuple(v for v in pos + list(kw.values()) if isinstance(v, (int, float, Opaque)))

    def _vf_extents(self, fn: FunctionV, pos: list, kw: dict, node) -> dict:
        """The bytes the call reaches, for every value of its arguments known only at run time
        (a scalar parameter, tiling data, the block index, a value read from GM): those are
        unknown to the evaluator, which follows both ways of a test on them and refuses a loop
        or an address they bound."""
        name = fn.name
        try:
            args = tuple(self._vf_arg(v) for v in pos)
            kwargs = tuple(sorted((k, self._vf_arg(v)) for k, v in kw.items()))
            extents = self._extents.extents(name, args, kwargs)
            if self._extents.streams(name) and _share_cursors(self._extents.cursor_starts(name, args, kwargs), pos):
                extents = self._extents.extents(name, _placed(args, pos), kwargs)
            return extents
        except vfextent.Unmodelled as exc:
            # the function's own parameters that receive such a value, as its body names them
            params = _parameter_names(fn.node)
            given = [*zip(params, pos, strict=False), *kw.items()]
            varying = [(p, v) for p, v in given if run_time(v) or is_unknown(v)]
            if varying:
                names = sorted({n for _, v in varying for n in _parameters(v)})
                what = ", ".join(f"`{n}`" for n in names) if names else "values known only at run time"
                receivers = ", ".join(f"`{p}`" for p, _ in varying)
                raise CannotModel(f"which bytes vector function `{name}` reaches depends on {what}, passed to it as "
                                  f"{receivers}, and the check cannot bound them for every value ({exc})", node,
                                  kind="runtime") from None
            raise CannotModel(f"which bytes vector function `{name}` reaches: {exc}", node) from None

    def _vf_arg(self, value: Any) -> Any:
        """`_vf_argument`, remembered per tile: tiles are immutable, and a group hands out the
        same slot objects at every pick."""
        if type(value) is not TileV:
            return _vf_argument(value, self.uniform)
        hit = self._tile_args.get(id(value))
        if hit is None or hit[0] is not value:
            hit = self._tile_args[id(value)] = (value, _vf_argument(value, self.uniform))
        return hit[1]

    def _written(self, tile, spans, exact: bool, core: int) -> tuple[Foot, ...]:
        """`_stored_feet`, remembered per tile (tiles are immutable) and spans."""
        if self._feet_written is None:
            self._feet_written = {}
        key = (id(tile), spans, exact, core)
        hit = self._feet_written.get(key)
        if hit is None or hit[0] is not tile:
            hit = self._feet_written[key] = (tile, tuple(self._stored_feet(tile, spans, exact, core)))
        return hit[1]

    def _stored_feet(self, tile, spans, exact: bool, core: int) -> list[Foot]:
        """The feet of the bytes of the tile a call stores to: each span in whole 32-byte
        blocks (the hardware's unit, and the emulator's), a cover only where the evaluator
        knows the span exactly and it is whole blocks (else a superset: `window`)."""
        out = []
        may = isinstance(tile, AnyTileV)
        for t in (tile.choices if may else (tile,)):
            size = t.hi - t.lo
            keys = self._tile_keys(t.memory, core, None)
            for a, b in spans:
                a, b = max(a, 0), min(b, size)
                if a >= b:
                    continue
                lo, hi = a // BLOCK * BLOCK, min(-(-b // BLOCK) * BLOCK, size)
                label = t.label if (lo, hi) == (0, size) else f"{t.label} (bytes {lo}..{hi} from its start)"
                for key in keys:
                    out.append(Foot(key, t.lo + lo, t.lo + hi, 0, 1, label, may, not exact or (lo, hi) != (a, b)))
        return out

    def _beyond(self, tile, spans, whole: bool, core: int, exact: bool = True) -> list[Foot]:
        """Feet for the spans (bytes from the tile's first byte) not inside the tile, or all of
        them when the roles did not already count the whole tile; writes the evaluator knows
        only as a superset (not `exact`) overwrite nothing."""
        out = []
        for t in (tile.choices if isinstance(tile, AnyTileV) else (tile,)):
            size = t.hi - t.lo
            for a, b in spans:
                if whole and 0 <= a and b <= size:
                    continue
                stray = a < 0 or b > size
                label = f"{t.label} (bytes {a}..{b} from its start" + (f"{PAST_ITS_END}{size} bytes)" if stray else ")")
                if stray:
                    self.strays.append((t.memory, t.lo + a, t.lo + b, t.lo, t.hi))
                for key in self._tile_keys(t.memory, core, None):
                    out.append(Foot(key, t.lo + a, t.lo + b, 0, 1, label, isinstance(tile, AnyTileV), not exact))
        return out

    def _vf_param_roles(self, name: str) -> dict[int, str]:
        if name not in self._vf_roles:
            # an op the table does not know: assume it reads and writes whatever it reaches
            self._vf_roles[name] = vfbody.param_roles(self.file, name, lambda _function, _call: "RW")
        return self._vf_roles[name]


def _parameter_names(node: Any) -> list[str]:
    """The positional parameters of a vector function: a libcst `def`, or one kept as text
    with Python's tree (`partial.Verbatim`)."""
    if type(node) is cst.FunctionDef:
        return [p.name.value for p in (*node.params.posonly_params, *node.params.params)]
    tree = getattr(node, "tree", None)
    return [a.arg for a in (*tree.args.posonlyargs, *tree.args.args)] if isinstance(tree, ast.FunctionDef) else []


def _parameters(value: Any) -> list[str]:
    """The scalar parameters a value is computed from (a run-time value named by its origin too:
    `min(keep, 6)` of a trip count)."""
    if isinstance(value, Opaque):
        return [leaf[1] for leaf in trip_leaves(value.origin) if leaf[0] == "param"]
    out = []
    for var in _roots_of(value):
        if var[0] == "scalar":
            out.append(var[1])
        elif var[0] == "size" and isinstance(var[1], tuple) and var[1][:1] == ("param",):
            out.append(var[1][1])
    return out


def _by_position(fn: FunctionV, pos: list, kw: dict, node) -> tuple[list, dict]:
    """A call's arguments given by keyword moved to their places (`f(dst=res, src=x)` is
    `f(res, x)`), as far as the parameters run on without a gap: a tile is read by its place
    (its roles, its bytes). A tile left by keyword is refused."""
    params = _parameter_names(fn.node)
    first = _positional_only(fn.node)  # (a keyword names none of those: Python raises TypeError)
    for i, p in enumerate(params[len(pos):], len(pos)):
        if p not in kw or i < first:
            break
        pos.append(kw.pop(p))
    only = [k for k in kw if k in params[:first]]
    if only:
        raise CannotModel(f"vector function `{fn.name}` is given its positional-only parameter `{only[0]}` by keyword: "
                          "Python raises TypeError at this call", node, kind="construct")
    left = [k for k, v in kw.items() if isinstance(v, (TileV, AnyTileV))]
    if left:
        raise CannotModel(f"vector function `{fn.name}` is given the tile `{left[0]}` by keyword after a parameter "
                          "left to its default: pass its tiles by position", node, kind="construct")
    return pos, kw


def _place(value: TileV | AnyTileV) -> tuple[str, int] | None:
    """(memory, first byte) of a tile argument; None for one of several tiles at other places."""
    tiles = value.choices if isinstance(value, AnyTileV) else (value,)
    return None if len({t.lo for t in tiles}) > 1 else (tiles[0].memory, tiles[0].lo)


def _share_cursors(starts: frozenset, pos: list) -> bool:
    """Do two of the pointers a call starts `post_update` cursors at (`(argument, byte
    offset)`) name one address, or may (an argument that is one of several tiles)?"""
    seen = set()
    for arg, offset in starts:
        place = _place(pos[arg])
        if place is None:
            return len(starts) > 1
        seen.add((place[0], place[1] + offset))
    return len(seen) < len(starts)


def _placed(args: tuple, pos: list) -> tuple:
    """The tile arguments with their places (`TileArg.base`: bytes from the lowest tile of the
    same memory), for a function that moves `post_update` cursors, which the hardware keeps one
    per address: two arguments on the same bytes share them. A tile known only as one of
    several has no place: refused."""
    places: dict[int, tuple[str, int]] = {}
    for i, v in enumerate(pos):
        place = _place(v) if isinstance(v, (TileV, AnyTileV)) else None
        if isinstance(v, (TileV, AnyTileV)) and place is None:
            raise vfextent.Unmodelled("a tile argument that is one of several, given to a vector function that "
                                      "moves post_update cursors (whether it shares one with another argument is "
                                      "not known)")
        if place is not None:
            places[i] = place
    lows: dict[str, int] = {}
    for memory, lo in places.values():
        lows[memory] = min(lows.get(memory, lo), lo)
    return tuple(vfextent.TileArg(a.elem, a.shape, places[i][1] - lows[places[i][0]], places[i][0])
                 if isinstance(a, vfextent.TileArg) else a for i, a in enumerate(args))


def _vf_argument(value: Any, uniform) -> Any:
    """A call argument as the vector-function evaluator takes it (hashable: results are cached).
    A value known only at run time is unknown to it, but for the bounds it keeps on the piece
    of a sampled parameter's values this run stands for (`min(d, 16)`: at most 16)."""
    if isinstance(value, (TileV, AnyTileV)):
        choices = value.choices if isinstance(value, AnyTileV) else (value,)
        if any(t.desc == 0 for t in choices):
            # the model keeps a view's tile from its first byte, the hardware starts at the view's
            raise vfextent.Unmodelled("a tile view (`t[a:b, c:d]`) given to a vector function is not placed by the "
                                      "check: pass a whole tile (`pl.make_tile` at the view's address)")
        shapes = {(t.elem, tuple(t.shape)) for t in choices}
        if len(shapes) != 1:
            raise vfextent.Unmodelled("an argument that is one of several tiles of different types")
        ((elem, shape),) = shapes
        if not shape or not all(isinstance(d, int) and d > 0 for d in shape):
            raise vfextent.Unmodelled("a tile argument whose shape is not static")
        return vfextent.TileArg(elem, shape)
    if run_time(value):  # proven for every value, not the one of this run
        bounds = uniform.piece_bounds(value)
        if bounds is None or bounds == (None, None):
            return vfextent.UNKNOWN
        return bounds[0] if bounds[0] == bounds[1] else vfextent.Bounded(*bounds)
    if isinstance(value, Symbol):
        return value.leaf
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return vfextent.UNKNOWN


def _positional_only(node: Any) -> int:
    """How many of a vector function's first parameters are positional-only (before `/`): a libcst
    `def`, or one kept as text with Python's tree."""
    if type(node) is cst.FunctionDef:
        return len(node.params.posonly_params)
    tree = getattr(node, "tree", None)
    return len(tree.args.posonlyargs) if isinstance(tree, ast.FunctionDef) else 0

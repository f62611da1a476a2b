"""Valid shapes and the exact bytes of `pl.insert`, as the soundness interpreter follows them.

The facts are `pto_api.effects` (what the emulator runs too); this module only applies them
to the interpreter's values. A valid shape the check cannot know (computed from a value known
only at run time: a scalar parameter, tiling data, the block index, a value read from GM) is
the declared shape, marked inexact: the real one is never larger (the NPU and the emulator
refuse a valid shape past the declared one, `pto_api.effects.initial_valid` and `set_valid`:
such a run is an error of the serial kernel too), so footprints stay supersets, and an inexact
write never counts as overwriting what it may not reach.
"""

from __future__ import annotations

from itertools import count
from typing import Any

from pto_api.effects import insert_blocks, set_valid
from pto_transpile.soundness.events import Foot, new_foot
from pto_transpile.soundness.values import AnyTileV, GroupV, TileV, run_time


def _ints(value: Any, n: int) -> bool:
    return (isinstance(value, (list, tuple)) and len(value) == n
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value))


class ValidShapes:
    """Each core's valid shape per tile descriptor, after its `pl.set_validshape` calls."""

    def __init__(self) -> None:
        self._numbers = count(1)
        self._valid: list[dict[int, tuple]] = [{}, {}, {}]
        self._inexact: list[set[int]] = [set(), set(), set()]  #: descriptors whose valid shape is not known
        #: each core's descriptors -> (where their valid shape was last set inside a loop: ("stage",
        #: name, task) in a stage invocation, ("body", iterations) in kernel-body code, with the
        #: iteration of each loop of run-time trip count it runs in; whether that shape is exact)
        self._set_at: list[dict[int, tuple]] = [{}, {}, {}]
        #: descriptors whose valid shape a stage, or kernel-body code inside a loop of run-time trip
        #: count, sets: their tiles are not alike whatever the phase of a rotation (`renamed.py`)
        self.set_in_loops: set[int] = set()
        #: each core's descriptors -> every valid shape any `pl.set_validshape` gave them, `None` for
        #: one not known exactly (a run-time size, a test followed both ways, a pick of tiles) or not
        #: given by a compile-time constant (`fixed`: the same at every iteration and run)
        self._shapes_given: list[dict[int, set]] = [{}, {}, {}]

    def number(self) -> int:
        """A new descriptor's number (it starts with its type's valid shape)."""
        return next(self._numbers)

    def of(self, tile: TileV, core: int) -> tuple:
        """The tile's valid shape on `core` (its declared shape when not known). A view's is its
        tile's current one clipped, which the check does not follow: its tile's declared shape,
        the most `pl.set_validshape` can give it (`widest` clips it to the view's own rows)."""
        if not tile.desc:
            return tile.shape
        return self._valid[core].get(tile.desc) or tile.valid or tile.shape

    def exact(self, tile: TileV | AnyTileV, core: int) -> bool:
        """Whether the valid shape of `tile` (of every tile it may be) is known on `core`."""
        inexact = self._inexact[core]
        # a view (`y[0:8, :]`, descriptor 0) is part of its tile, which part the check does not follow
        if not isinstance(tile, AnyTileV):
            return tile.desc != 0 and tile.desc not in inexact
        return not any(t.desc == 0 or t.desc in inexact for t in tile.choices)

    def one_shape(self, tile: TileV | AnyTileV, core: int) -> bool:
        """Whether every tile `tile` may be has one valid shape on `core` (`widest` is then each
        one's, not only the largest)."""
        if not isinstance(tile, AnyTileV):
            return True
        return len({tuple(self.of(t, core)) for t in tile.choices}) <= 1

    def partial(self, tile: TileV, core: int) -> bool:
        """Whether an op may touch less of `tile` than the whole of it on `core`: its valid shape
        is not its declared one, or is not known (`of` and `exact` in one call, for every foot),
        or its bytes are more than its shape's (`pl.make_tile(..., size=)`: ops write the shape's
        elements, never the room past them)."""
        desc = tile.desc
        if not desc:  # a view: its declared shape, never exact
            return True
        shape = tile.shape
        valid = self._valid[core].get(desc) or tile.valid or shape
        return tuple(valid) != tuple(shape) or desc in self._inexact[core] \
            or len(shape) == 2 and tile.hi - tile.lo > shape[0] * shape[1] * tile.elem

    def unknown(self, tile: TileV) -> None:
        """A tile declared with a valid shape known only at run time: inexact on every core."""
        for inexact in self._inexact:
            inexact.add(tile.desc)

    def widest(self, tile: TileV | AnyTileV, core: int) -> tuple:
        """The valid shape of `tile`, or the largest of any tile it may be."""
        tiles = tile.choices if isinstance(tile, AnyTileV) else (tile,)
        shapes = [self.of(t, core) for t in tiles]
        if not shapes or any(len(s) != 2 for s in shapes):
            return ()
        # a view moves at most its own rows and columns (its valid shape is its tile's, clipped)
        shapes = [(min(s[0], t.part[0]), min(s[1], t.part[1])) if t.part else s
                  for s, t in zip(shapes, tiles, strict=True)]
        return (max(s[0] for s in shapes), max(s[1] for s in shapes))

    def carried(self, tile: TileV | AnyTileV, core: int, scope: tuple) -> tuple[str, tuple] | None:
        """For an op of stage invocation `scope` (("stage", name, task)) using `tile`: (its label,
        where its valid shape was set) when that was an exact shape set in another task, or any
        shape set by kernel-body code inside a loop of run-time trip count. Such a
        shape is state one iteration hands to another, which the runs at a few trip counts do not
        stand for at every count (probe h97: a slot sized in the first task and stored from in task
        13, one sized 15 tasks ahead); None when it was set in the same task, outside those loops,
        or never. A shape known only at run time is taken as the declared one, its footprints the
        largest, whichever task set it (the README's row tail)."""
        set_at = self._set_at[core]
        for t in tile.choices if isinstance(tile, AnyTileV) else (tile,):
            desc = t.desc or t.base  # a view's shape is its tile's, clipped
            found = set_at.get(desc) if desc else None
            if found is None:
                continue
            where, exact = found
            if len(given := self._shapes_given[core].get(desc, set())) == 1 and None not in given:
                continue  # one shape whoever set it: the same at every use (probe h99: `[8, BLOCK]` set
                # before the loop and again in every task was refused as a shape one task hands to another)
            # a stage's own shape set in another task counts where it is exact: one known only at run
            # time is taken as the declared one, the largest (the README's row tail); code of the
            # kernel body inside the loop hands every shape it sets on
            if where[0] == "stage" and where[2] != scope[2] and exact or where[0] == "body":
                return t.label, where
        return None

    def provenance(self, tile: TileV | AnyTileV, core: int) -> tuple:
        """Where the valid shape of `tile` (of each tile it may be) was last set inside a loop:
        ("stage", name, task), ("body",), or None. A stage op's twin in the other run must see
        the shape set at the same place: a shape one task sets and another task's op uses is data
        the footprints do not show (probe h99: a shape set under a test followed both ways, one
        known only at run time set by kernel-body code, one used through a view)."""
        set_at = self._set_at[core]
        out: list = []
        for t in tile.choices if isinstance(tile, AnyTileV) else (tile,):
            found = set_at.get(t.desc or t.base)
            # an exact shape shows in the op's footprints, but for a view's (its tile's declared)
            if found is None or found[1] and t.desc:
                out.append(None)
            else:
                out.append(found[0] if found[0][0] == "stage" else ("body",))
        return tuple(out)

    def set(self, target: Any, shape: Any, core: int, may: bool, where: tuple = (), fixed: bool = False) -> None:
        """`pl.set_validshape(target, shape)` on `core`: one tile or every slot of a group.
        Which tile (an unknown index), the shape or whether it runs (`may`) unknown: each tile
        it may change keeps the larger of what it may be."""
        if isinstance(target, GroupV):
            tiles, sure = target.tiles, True
        elif isinstance(target, (TileV, AnyTileV)):
            tiles, sure = (target.choices, False) if isinstance(target, AnyTileV) else ((target,), True)
        else:
            return
        known = _ints(shape, 2) and not any(run_time(d) for d in shape)
        inexact = self._inexact[core]
        for t in tiles:
            if not t.desc or len(t.shape) != 2:
                continue  # a view: the check keeps its declared extent
            new = t.shape
            if known:
                try:
                    new = set_valid(t.shape, shape)
                except ValueError:
                    new = t.shape
            if may or not sure:
                old = self.of(t, core)
                if tuple(old) != tuple(new):  # either shape: the larger, a superset, never exact (probe h128:
                    inexact.add(t.desc)  # a store of it set under a data test covered rows it may not write)
                new = (max(old[0], new[0]), max(old[1], new[1]))
            in_loop = bool(where) and (where[0] == "stage" or bool(where[1]))
            if t.desc not in self._shapes_given[core]:
                # first set inside a loop: an earlier iteration's uses saw the tile's own shape
                self._shapes_given[core][t.desc] = {tuple(self.of(t, core))} if in_loop else set()
            self._valid[core][t.desc] = tuple(new)
            self._shapes_given[core][t.desc].add(
                tuple(int(d) for d in new) if fixed and known and not (may or not sure) else None)
            if where and (where[0] == "stage" or where[1]):
                # set inside a loop: what a later use sees is this set's (exact: a shape known here,
                # set whatever the test around it does), and the tiles it sets are not alike
                self._set_at[core][t.desc] = (where, known and not (may or not sure))
                self.set_in_loops.add(t.desc)
            elif where:  # set before the loop: the state every iteration starts from
                self._set_at[core].pop(t.desc, None)
            if not known:
                inexact.add(t.desc)
            elif not (may or not sure):
                inexact.discard(t.desc)


def insert_feet(dst: Any, src: Any, offset: Any, src_valid: tuple, keys_of) -> tuple[list[Foot], list[Foot]] | None:
    """(reads, writes) of `pl.insert(dst, src, offset)`: the 32-byte blocks
    `effects.insert_blocks` names, in every memory `keys_of(tile)` gives; None when a tile,
    the offset or a layout is not known or not one insert accepts (the caller takes whole tiles)."""
    if not (isinstance(dst, TileV) and isinstance(src, TileV) and _ints(offset, 2) and len(src_valid) == 2
            and len(dst.shape) == 2 and len(src.shape) == 2 and src.layout == "NZ"
            and dst.layout in ("NZ", "ZN") and src.elem == dst.elem):
        return None
    try:
        src_off, dst_off, run = insert_blocks(src.shape[0], src_valid, src.elem, dst.shape, dst.layout, tuple(offset))
    except ValueError:
        return None
    r, c = offset
    label = f"{dst.label}[{r}:{r + src_valid[0]}, {c}:{c + src_valid[1]}]"
    reads = [new_foot(Foot, (key, src.lo + o, src.lo + o + run, 0, 1, src.label, False, False, "", ""))
             for key in keys_of(src) for o in src_off]
    writes = [new_foot(Foot, (key, dst.lo + o, dst.lo + o + run, 0, 1, label, False, False, "", ""))
              for key in keys_of(dst) for o in dst_off]
    return reads, writes

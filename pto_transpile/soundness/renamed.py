"""Are the entries a rotation picks interchangeable? What one run shows (`settle`).

The code shows which subscripts pick entries of which sequences (`renaming.py`); only a run
shows where the entries are. A renaming of entries leaves a run's verdict as it is when the
entries are alike and nothing else reaches them, which is checked here on every run that reads
periods, over every tile the run made and every byte an op reached outside its tiles:

* a tuple of tiles: its entries are tiles of one type, each made by its own `pl.make_tile` call,
  and no other tile, no byte reached outside a tile, and no tile an iteration reads before
  binding it (`Rotations.carried`) overlaps one of them;
* a tile group picked by a subscript (a counter, `G[C]`, or a residue of its depth, `G[ki % 2]`):
  no other tile overlaps its slots, its slots do not overlap each other, no other slot holds
  one of its mutex ids, and no cursor moves it;
* a tile group moved by its cursor (`.next()`): the same, except that groups whose slots
  overlap slot for slot (one memory seen as several types: FlashAttention's `p_f16_db`,
  `p_main_db` and `p_back_db`) are one class, renamed together, whose cursors move the same
  number of times in an iteration of every loop, on every core that moves them (a loop of fewer
  than three iterations is not measured: the runs where it is longer measure it; a kernel whose
  moves are not measured at all, one pipelined by hand, renames no group); no member is picked
  by a subscript or moved under a condition the check follows both ways, and no slot is reached
  other than through the cursors' rotation inside a loop that moves the class (`_held`).

A sequence that fails is treated as picked by anything (`Rotations.picked(seq, None)`), a group
is left out of `Rotations.renamed_groups`: their rotations join the periods as before.
"""

from __future__ import annotations

from typing import Any

from pto_transpile.soundness.values import GroupV, TileV
from pto_transpile.sync.graph import components

#: (id of the owner node, slot index, memory, lo, hi, mutex ids, a group's slot) of every tile
#: a run made
_Region = tuple


def settle(interp: Any) -> None:
    rot = interp.uniform.rot
    regions = _regions(interp)
    strays = interp.strays
    made = {id(tile): id(node) for node, tile in interp.made}
    reshaped = interp.valid.set_in_loops
    for seq in interp.sequences.values():
        if id(seq) in rot.picks and seq and all(isinstance(v, TileV) for v in seq) \
                and (not _tuple_alone(seq, made, regions, strays) or any(t.desc in reshaped for t in seq)
                     or any(_meet((t.memory, t.lo, t.hi), held) for t in seq for held in rot.carried)):
            rot.picked(seq, None, len(seq))
    by_node: dict[int, list[GroupV]] = {}
    for group in interp.groups:
        by_node.setdefault(id(group.node), []).append(group)
    for group in interp.groups:
        if id(group) in rot.picks:
            moved = any((core, id(g)) in rot.moved for g in by_node[id(group.node)] for core in range(3))
            if moved or not _class_alone({id(group.node)}, regions, strays):
                rot.picked(group, None, group.depth)
    if interp.rotation_margin != 1:
        return  # group moves are measured in serial kernels only (`Loops._dynamic_for`)
    for nodes in _classes(regions):
        members = [g for n in nodes for g in by_node.get(n, [])]
        keys = [(core, id(g)) for g in members for core in range(3) if (core, id(g)) in rot.moved]
        if not keys or any(id(g) in rot.picks for g in members) or any(k in rot.lost_groups for k in keys):
            continue
        if len({g.depth for g in members}) != 1 or not _class_alone(nodes, regions, strays):
            continue
        if any(t.desc in reshaped for g in members for t in g.tiles):
            continue  # a slot's valid shape set in a loop: the slots are not alike at every phase
        # the same moves in an iteration of every loop (one that ran too few iterations to
        # measure, None for every member, is measured by the runs where it runs longer)
        loops = {loop for loop, key in rot.group_moves if key in keys}
        if _held(rot, keys, [(core, id(g)) for g in members for core in range(3)], nodes, regions):
            continue
        if all(len({rot.group_moves.get((loop, k), "absent") for k in keys}) == 1 for loop in loops):
            rot.renamed_groups.update(keys)


def _held(rot: Any, keys: list, every: list, nodes: set, regions: list[_Region]) -> bool:
    """Does an access reach a slot of the class other than through the rotation of its cursors?
    Inside a loop that moves the class (one running at some move of a member's cursor: `keys`
    are the members' cursors that moved, `every` all of them):
    * a slot picked outside that loop (`g0 = g_db.current()` before it, read by a stage in it);
    * a slot an iteration reads before binding it (`Rotations.carried`: bound before the loop,
      or `if ki == 0: bias0 = bias_db.current()` in its first iteration);
    * a pick of a member whose own cursor never moves (a second group laid over the same
      memory, picked by `.current()`).
    Each reaches one fixed slot whatever phase the rotation is in, so the slots are not
    interchangeable: a renaming would move the rotation's picks and not it."""
    moving = set().union(*(rot.move_loops.get(key, ()) for key in keys))
    if any(key in rot.pick_loops and key not in rot.moved for key in every):
        return True
    if any(not moving <= where for key in every for where in rot.pick_loops.get(key, ())):
        return True
    mine = [r[2:5] for r in regions if r[0] in nodes]
    return any(loops & moving and any(_meet(held, r) for r in mine) for held, loops in rot.carried.items())


def _regions(interp: Any) -> list[_Region]:
    out: dict[tuple, _Region] = {}
    for node, tile in interp.made:
        out[(id(node), 0, tile.memory, tile.lo, tile.hi)] = (id(node), 0, tile.memory, tile.lo, tile.hi, tile.mutex,
                                                             False)
    for group in interp.groups:
        for i, t in enumerate(group.tiles):
            out[(id(group.node), i, t.memory, t.lo, t.hi)] = (id(group.node), i, t.memory, t.lo, t.hi, t.mutex, True)
    return list(out.values())


def _meet(a: tuple, b: tuple) -> bool:
    """Two (memory, lo, hi) ranges share a byte."""
    return a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


def _tuple_alone(seq: Any, made: dict, regions: list[_Region], strays: list) -> bool:
    """Entries of one type, each its own `pl.make_tile` call's (`made`: id of a tile -> id of
    its call), that nothing else reaches."""
    kinds = {(t.memory, t.hi - t.lo, t.shape, t.valid, t.elem, t.layout) for t in seq}
    owners = [made.get(id(t)) for t in seq]
    if None in owners or len(kinds) != 1 or len(set(owners)) != len(owners):
        return False
    for t, owner in zip(seq, owners, strict=True):
        mine = (t.memory, t.lo, t.hi)
        if any(_meet(mine, r[2:5]) and not (r[0] == owner and r[2:5] == mine) for r in regions):
            return False
        if any(_stray_at(mine, s) for s in strays):
            return False
    return True


def _class_alone(nodes: set, regions: list[_Region], strays: list) -> bool:
    """The slots of the groups `nodes` overlap nothing but each other, slot for slot, and hold
    mutex ids no other slot holds."""
    mine = [r for r in regions if r[0] in nodes]
    for r in mine:
        for q in regions:
            if q is r:
                continue
            if _meet(r[2:5], q[2:5]) and not (q[0] in nodes and q[0] != r[0] and q[1] == r[1]):
                return False
            if set(r[5]) & set(q[5]) and not (q[0] in nodes and q[1] == r[1]):
                return False
        if any(_stray_at(r[2:5], s) for s in strays):
            return False
    return True


def _stray_at(mine: tuple, stray: tuple) -> bool:
    """Does an op's reach outside its tile (`Interpreter.strays`) meet the range `mine`, or start
    from it? From a slot, the same reach lands elsewhere from another slot (probe h132: a vector
    function's store past its slot landed in the other slot of its group from slot 0 and in unused
    memory from slot 1), so the slots are no longer alike."""
    memory, lo, hi, from_lo, from_hi = stray
    return _meet(mine, (memory, lo, hi)) or _meet(mine, (memory, from_lo, from_hi))


def _classes(regions: list[_Region]) -> list[set]:
    """The groups' nodes, joined where their slots overlap."""
    slots = [r for r in regions if r[6]]
    pairs = [(r[0], q[0]) for i, r in enumerate(slots) for q in slots[i + 1:] if r[0] != q[0] and _meet(r[2:5], q[2:5])]
    out: dict[int, set] = {}
    for node, rep in components({r[0] for r in slots}, pairs).items():
        out.setdefault(rep, set()).add(node)
    return list(out.values())

"""Which entry of a rotation a task uses does not matter: the certificates read from the code.

The trip-count argument runs a loop through a period of everything that rotates (docs/design.md,
"For every trip count"). A rotation that only chooses among interchangeable entries need not
count ("Renamed rotations" there): two steady tasks that differ in it do the same with the
entries renamed. This module reads off the code which sequences hold such entries and which
subscripts pick them; the interpreter checks the rest on every run (each pick's residue, that
the entries' memory is theirs alone: `renamed.py`).

* A tuple of tiles `S = (a, b, c)` (`tile_tuples`): each entry a name bound once to
  `pl.make_tile(...)` and used nowhere else, `S` bound once and used only as `S[...]` or as an
  argument of a file function whose parameter is used only as `P[...]`.
* A list of event ids `L = [0, 1]` (`event_lists`): distinct integer literals, disjoint from
  every other such list, `L` used only as the `event_id=` of cross-core syncs (`L[...]`), every
  cross-core sync of the function picks its id from such a list, no other function syncs across
  cores, and every sync picking from `L` sets on one pipe. A pick by a constant is allowed only
  in a block of consecutive syncs of one kind and one pipe that picks every entry of its lists
  exactly once (the prefire and the drain): such a block does the same in any order.
* A counter that picks a tile group's slot (`index_counters`): `C = <int>`,
  `C = (C + <int>) % k`, `G[C]` with `G` bound once to `pl.make_tile_group(...)`, and
  `x.f = C` whose field is read only as `G[x.f]` and spelled in no other function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from pto_transpile.soundness.ringsymmetry import Walk

#: the `pl` paths of the syncs whose `event_id=` picks from an event-id list
_SYNCS: dict[tuple, str] = {("system", "set_cross_core"): "set", ("system", "wait_cross_core"): "wait"}


@dataclass(frozen=True)
class Certificates:
    """What one function's code shows (node sets, compared by identity)."""

    tuples: frozenset = frozenset()  #: tuple displays of renamable tiles
    lists: frozenset = frozenset()  #: list displays of renamable event ids
    constant_picks: frozenset = frozenset()  #: `L[i]` in a block that picks every entry of `L`
    updates: frozenset = frozenset()  #: the `(C + c) % k` of a counter that picks group slots
    counter_picks: frozenset = frozenset()  #: `G[C]` and `G[x.f]` picks by such a counter
    counters: frozenset = frozenset()  #: the names of such counters

    @property
    def displays(self) -> frozenset:
        return self.tuples | self.lists


def certify(fn: cst.FunctionDef, functions: dict, path_of, elsewhere: str,
            walk: Callable[[cst.FunctionDef], Walk]) -> Certificates:
    """The certificates of `fn`. `functions`: the file's functions a call may name (stages and
    helpers) by name; `elsewhere`: the text of every other function of the file; `walk`: one
    walk of a function (`ringsymmetry.walk`, remembered)."""
    walked = walk(fn)
    mentions: dict[str, list] = {}
    for name, parents in walked.names:
        mentions.setdefault(name.value, []).append((name, parents))
    lists, constant_picks = event_lists(walked, mentions, path_of, elsewhere)
    updates, counter_picks, counters = index_counters(walked.bound, mentions, walked.attributes, path_of, elsewhere)
    callees = {name: (f, walk) for name, f in functions.items()}
    return Certificates(tile_tuples(walked.bound, mentions, callees, path_of), lists, constant_picks, updates,
                        counter_picks, counters)


# --- tuples of tiles ----------------------------------------------------------------------------
def tile_tuples(bound: dict, mentions: dict, functions: dict, path_of) -> frozenset:
    out = set()
    for name, values in bound.items():
        if len(values) != 1 or type(values[0]) not in (cst.Tuple, cst.List):
            continue
        display = values[0]
        entries = [e.value for e in display.elements]
        if len(entries) < 2 or not all(type(e) is cst.Element for e in display.elements) \
                or not all(isinstance(e, cst.Name) and _made_tile(e.value, bound, mentions, path_of)
                           for e in entries):
            continue
        if len({e.value for e in entries if isinstance(e, cst.Name)}) != len(entries):
            continue
        if all(_binding(n, p) or _loaded(n, p) or _passed_to_loader(n, p, functions)
               for n, p in mentions.get(name, [])):
            out.add(display)
    return frozenset(out)


def _made_tile(name: str, bound: dict, mentions: dict, path_of) -> bool:
    """Bound once, to `pl.make_tile(...)`, and mentioned only there and in one display."""
    values = bound.get(name, [])
    return (len(values) == 1 and isinstance(values[0], cst.Call) and path_of(values[0].func) == ("make_tile",)
            and len(mentions.get(name, [])) == 2)


def _binding(name: cst.Name, parents: dict) -> bool:
    target = parents.get(name)
    return isinstance(target, cst.AssignTarget) and target.target is name


def _loaded(name: cst.Name, parents: dict) -> bool:
    """`name[i]` read: by one index (a slice, `name[:1][0]`, reaches an entry by no pick the
    run records), not assigned (nor within a target, `a, name[0] = ...`), not deleted."""
    sub = parents.get(name)
    if not (isinstance(sub, cst.Subscript) and sub.value is name and len(sub.slice) == 1
            and isinstance(sub.slice[0].slice, cst.Index)):
        return False
    node: cst.CSTNode = sub
    up = parents.get(sub)
    while up is not None:
        if isinstance(up, (cst.AssignTarget, cst.Del)) \
                or type(up) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr) \
                and getattr(up, "target", None) is node:
            return False
        if type(up) not in (cst.Tuple, cst.List, cst.Element, cst.StarredElement):
            return True  # past the tuple or list a target could be
        node, up = up, parents.get(up)
    return True


def _passed_to_loader(name: cst.Name, parents: dict, functions: dict) -> bool:
    """An argument of a call of a file function whose matching parameter is only subscripted."""
    arg = parents.get(name)
    call = parents.get(arg)
    if not (isinstance(arg, cst.Arg) and arg.value is name and arg.star == "" and isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name) and call.func.value in functions):
        return False
    callee, walk = functions[call.func.value]
    params = callee.params
    if arg.keyword is not None:
        param = arg.keyword.value
        if param not in [p.name.value for p in (*params.params, *params.kwonly_params)]:
            return False
    else:
        index = call.args.index(arg)
        if any(a.keyword is not None or a.star for a in call.args[:index]):
            return False
        positional = [*params.posonly_params, *params.params]
        if index >= len(positional):
            return False
        param = positional[index].name.value
    walked = walk(callee)
    uses = [(n, p) for n, p in walked.names if n.value == param and not isinstance(p.get(n), cst.Param)]
    return param not in walked.bound and all(_loaded(n, p) for n, p in uses)


# --- event-id lists -----------------------------------------------------------------------------
def event_lists(walked: Walk, mentions: dict, path_of, elsewhere: str) -> tuple:
    """(list displays, constant picks in full blocks): empty when any cross-core sync of `fn`
    takes its id otherwise (from a list used for anything else too), when two such lists share
    an id, or when another function syncs across cores."""
    if "set_cross_core" in elsewhere or "wait_cross_core" in elsewhere:
        return frozenset(), frozenset()
    lists: dict[str, tuple] = {}
    for name, values in walked.bound.items():
        if len(values) == 1 and isinstance(values[0], cst.List) and values[0].elements \
                and all(type(e) is cst.Element and isinstance(e.value, cst.Integer) for e in values[0].elements):
            ids = tuple(int(e.value.value, 0) for e in values[0].elements)  # type: ignore[attr-defined]
            # a list of integers used for anything else is none of these (an `order=` list)
            if len(set(ids)) == len(ids) and all(_binding(n, p) or _event_pick(n, p, path_of)
                                                 for n, p in mentions.get(name, [])):
                lists[name] = (values[0], ids)
    seen: set = set()
    for name in sorted(lists):
        taken = set(lists[name][1])
        if taken & seen:
            return frozenset(), frozenset()
        seen |= taken
    pipes: dict[str, set] = {}
    for kind, pipe, pick in _syncs(walked.calls, path_of):
        listed = _list_pick(pick, lists)
        if listed is None:
            return frozenset(), frozenset()
        if kind == "set":
            pipes.setdefault(listed, set()).add(pipe)
    single = {name for name in lists if len(pipes.get(name, ())) <= 1}
    constant = _full_blocks(walked.suites, lists, path_of)
    return (frozenset(lists[n][0] for n in single),
            frozenset(pick for pick, name in constant.items() if name in single))


def _syncs(calls: list, path_of) -> list:
    """(kind, pipe code, event_id expression) of every cross-core sync among `calls`."""
    out = []
    module = cst.Module([])
    for node in calls:
        kind = _SYNCS.get(path_of(node.func) or ())
        if kind is not None:
            kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
            pipe = kw.get("pipe")
            out.append((kind, module.code_for_node(pipe) if pipe is not None else "", kw.get("event_id")))
    return out


def _list_pick(pick, lists: dict) -> str | None:
    """The list an `event_id=` expression picks from (`L[...]`), or None."""
    if isinstance(pick, cst.Subscript) and isinstance(pick.value, cst.Name) and pick.value.value in lists \
            and len(pick.slice) == 1 and isinstance(pick.slice[0].slice, cst.Index):
        return pick.value.value
    return None


def _event_pick(name: cst.Name, parents: dict, path_of) -> bool:
    """`name[...]` as the `event_id=` of a cross-core sync."""
    sub = parents.get(name)
    arg = parents.get(sub) if isinstance(sub, cst.Subscript) and sub.value is name else None
    call = parents.get(arg) if isinstance(arg, cst.Arg) else None
    return (isinstance(call, cst.Call) and arg.keyword is not None and arg.keyword.value == "event_id"  # type: ignore[union-attr]
            and (path_of(call.func) or ()) in _SYNCS)


def _full_blocks(suites: list, lists: dict, path_of) -> dict:
    """Constant picks `L[i]` that stand in a block of consecutive syncs (one statement each, one
    kind, one pipe) picking every entry of each list it picks from exactly once: pick -> list."""
    out: dict = {}
    module = cst.Module([])
    for node in suites:
        run: list = []
        for stmt in [*node, None]:
            sync = _constant_sync(stmt, lists, path_of, module) if stmt is not None else None
            if sync is not None and run and sync[:2] != run[0][:2]:
                out.update(_covering(run, lists))
                run = []
            if sync is not None:
                run.append(sync)
                continue
            out.update(_covering(run, lists))
            run = []
    return out


def _constant_sync(stmt, lists: dict, path_of, module: cst.Module) -> tuple | None:
    """(kind, pipe code, list, index, pick) of a statement that is one sync picking a constant."""
    if not (type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Expr
            and isinstance(stmt.body[0].value, cst.Call)):
        return None
    call = stmt.body[0].value
    kind = _SYNCS.get(path_of(call.func) or ())
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    pick = kw.get("event_id")
    name = _list_pick(pick, lists)
    if kind is None or name is None:
        return None
    index = pick.slice[0].slice.value  # type: ignore[union-attr]
    if not isinstance(index, cst.Integer):
        return None
    pipe = kw.get("pipe")
    return kind, module.code_for_node(pipe) if pipe is not None else "", name, int(index.value, 0), pick


def _covering(run: list, lists: dict) -> dict:
    """The picks of a block whose picks of every list it names are each of its entries once."""
    by_list: dict[str, list[int]] = {}
    for _kind, _pipe, name, index, _pick in run:
        by_list.setdefault(name, []).append(index)
    if all(sorted(found) == list(range(len(lists[name][1]))) for name, found in by_list.items()):
        return {pick: name for *_, name, _index, pick in run}
    return {}


# --- counters that pick a group's slot ----------------------------------------------------------
def index_counters(bound: dict, mentions: dict, attributes: list, path_of, elsewhere: str) -> tuple:
    """(the `(C + c) % k` update nodes, the `G[C]` / `G[x.f]` pick nodes, the names) of the
    counters that do nothing but pick a slot of a tile group."""
    groups = {name for name, values in bound.items() if len(values) == 1 and isinstance(values[0], cst.Call)
              and path_of(values[0].func) == ("make_tile_group",)}
    updates: set = set()
    picks: set = set()
    names: set = set()
    for counter, uses in mentions.items():
        if counter in groups or not any(_group_pick(n, p, groups) for n, p in uses):
            continue
        mine_updates, mine_picks, fields = set(), set(), set()
        for name, parents in uses:
            update = _update(name, parents)
            if update is not None:
                mine_updates.add(update)
            elif _group_pick(name, parents, groups):
                mine_picks.add(parents[parents[parents[name]]])
            elif (field := _counter_store(name, parents)) is not None:
                fields.add(field)
            elif not _plus_one(name, parents) and not _set_literal(name, parents):
                break
        else:
            field_picks = _field_picks(fields, attributes, groups, counter)
            if field_picks is not None and not any(f in elsewhere for f in fields):
                updates |= mine_updates
                picks |= mine_picks | field_picks
                names.add(counter)
    return frozenset(updates), frozenset(picks), frozenset(names)


def _group_pick(name: cst.CSTNode, parents: dict, groups: set) -> bool:
    """`G[name]` with `G` a tile group."""
    index = parents.get(name)
    element = parents.get(index) if type(index) is cst.Index else None
    sub = parents.get(element) if type(element) is cst.SubscriptElement else None
    return (type(sub) is cst.Subscript and len(sub.slice) == 1 and type(sub.value) is cst.Name
            and sub.value.value in groups and _loaded(sub.value, {sub.value: sub, sub: parents.get(sub)}))


def _update(name: cst.Name, parents: dict) -> cst.BinaryOperation | None:
    """The `(C + c) % k` of `C = (C + c) % k`, for the `C` being assigned."""
    target = parents.get(name)
    assign = parents.get(target) if isinstance(target, cst.AssignTarget) else None
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and target.target is name):  # type: ignore[union-attr]
        return None
    value = assign.value
    if (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo)
            and isinstance(value.right, cst.Integer) and isinstance(value.left, cst.BinaryOperation)
            and isinstance(value.left.operator, cst.Add) and isinstance(value.left.left, cst.Name)
            and value.left.left.value == name.value and isinstance(value.left.right, cst.Integer)):
        return value
    return None


def _plus_one(name: cst.Name, parents: dict) -> bool:
    """The `C` inside `(C + c) % k` of its own update."""
    plus = parents.get(name)
    mod = parents.get(plus)
    assign = parents.get(mod)
    return (isinstance(plus, cst.BinaryOperation) and plus.left is name and isinstance(mod, cst.BinaryOperation)
            and mod.left is plus and isinstance(assign, cst.Assign) and assign.value is mod
            and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)
            and assign.targets[0].target.value == name.value)


def _set_literal(name: cst.Name, parents: dict) -> bool:
    """`C = <int>`."""
    target = parents.get(name)
    assign = parents.get(target) if isinstance(target, cst.AssignTarget) else None
    return (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and target.target is name  # type: ignore[union-attr]
            and isinstance(assign.value, cst.Integer))


def _counter_store(name: cst.Name, parents: dict) -> str | None:
    """The field `f` of `x.f = C`."""
    assign = parents.get(name)
    if isinstance(assign, cst.Assign) and assign.value is name and len(assign.targets) == 1 \
            and isinstance(assign.targets[0].target, cst.Attribute):
        return assign.targets[0].target.attr.value
    return None


def _field_picks(fields: set, attributes: list, groups: set, counter: str) -> set | None:
    """The `G[x.f]` picks of the fields; None when a field is read otherwise or stores
    anything but the counter."""
    picks = set()
    for attr, parents in attributes:
        if attr.attr.value not in fields:
            continue
        if _group_pick(attr, parents, groups):
            picks.add(parents[parents[parents[attr]]])
            continue
        target = parents.get(attr)
        assign = parents.get(target) if isinstance(target, cst.AssignTarget) else None
        if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Name) and assign.value.value == counter:
            continue
        return None
    return picks

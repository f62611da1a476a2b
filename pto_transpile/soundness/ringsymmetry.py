"""Which slot of the ctx ring a task uses does not matter: the certificate, read from the code.

The generated kernel picks its ctx entries as `_pl_ctx_arr[(_pl_task_id + c) % D]`, a residue
of the task counter. Counted in the period like any other residue, it would make the check
run longer trip counts for nothing (FlashAttention at preload 2: a ring of 4 beside rotations
of 2 and 3, a period of 12 where 6 holds everything else). It need not count when the task
counter can change nothing but which entry is picked (docs/design.md, "For every trip
count", the ring paragraph): then a run whose counter starts `delta` higher, `delta` a
multiple of every other modulus the counter is taken by, is the same run with the ring's
entries renamed (they start alike, `pl.struct_array`, and every pick turns with the others),
so two steady tasks a period of the other rotations apart behave alike.

`certified` reads that condition off the kernel's code, trusting nothing the emitter meant:
every mention of a ring (a name bound to `pl.struct_array(D, ...)` and never rebound) is that
binding or a pick `ring[C % D]` / `ring[(C + c) % D]` with integer literals `c` and the same
`D`; every mention of a counter `C` used in such a pick is `C = <integer>`, `C = C + <integer>`,
a pick, or the value of an attribute store `x.f = C`; every read of such a field `f` (any
`.f`, on anything) is `.f % k` with an integer literal `k`, and no other function of the file
spells `f` (a stage given a ctx entry whole could read it). A residue of the counter then
joins the period as any residue does, and the pick residue alone is left out.
"""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from pto_transpile.read.walk import children

#: Ancestors kept with each occurrence: a counter in a pick sits five levels below the subscript.
_DEPTH = 6


def certified(fn: cst.FunctionDef, struct_array_paths: set, path_of, elsewhere: str = "",
              walked: Walk | None = None) -> frozenset:
    """The ring picks of `fn` (its `ring[...]` subscript nodes) when every use of its ctx-ring
    counters only picks ring entries (above); empty when not.
    `path_of(expr)`: the `pl` path an expression names (None if none); a ring is bound by a
    call whose function's path is in `struct_array_paths`. `elsewhere`: the text of every
    other function the kernel can call (its stages receive ctx entries whole, the `"ctx"`
    form of an argument): a field holding a counter must not be spelled there at all."""
    names, attributes, _, _, bound = walked or walk(fn)
    rings = _rings(bound, struct_array_paths, path_of)
    if not rings:
        return frozenset()
    counters: set[str] = set()
    picks: set[cst.CSTNode] = set()
    for name, parents in names:
        if name.value not in rings or _ring_binding(name, parents):
            continue
        picked = _pick(name, parents, rings[name.value])
        if picked is None:
            return frozenset()
        counters.add(picked)
        picks.add(parents[name])
    if not counters or counters & set(rings):
        return frozenset()
    fields: set[str] = set()
    for name, parents in names:
        if name.value not in counters:
            continue
        use = _counter_use(name, parents, rings)
        if use is None:
            return frozenset()
        if use:
            fields.add(use)
    for attr, parents in attributes:
        if attr.attr.value in fields and not _residue_read(attr, parents):
            if not _field_store(attr, parents):
                return frozenset()
    return frozenset() if any(f in elsewhere for f in fields) else frozenset(picks)


class Parents:
    """The ancestors of one occurrence, as `parents.get(node)` / `parents[node]` ask for them:
    the next node up the chain (the node, its parent, its grandparent, ...) from `node`. A chain
    is a few nodes long, so a scan costs less than building a dict for every name."""

    __slots__ = ("chain",)

    def __init__(self, chain: tuple) -> None:
        self.chain = chain

    def get(self, node: object, default: object = None) -> object:
        chain = self.chain
        for i in range(len(chain) - 1):
            if chain[i] is node:
                return chain[i + 1]
        return default

    def __getitem__(self, node: object) -> object:
        found = self.get(node, _MISSING)
        if found is _MISSING:
            raise KeyError(node)
        return found


_MISSING = object()


class Walk(NamedTuple):
    """One walk of a function: every occurrence of a variable name (not the `f` of `x.f`, nor a
    keyword) and of an attribute, each with its own ancestors (node -> parent, `_DEPTH` levels
    up: a node the generated code shares between two places, a statement of the steady loop
    repeated in the drain, is judged in each place it stands); every call; every block's
    statements; every name bound, with the value of each binding (None where it is not an
    assignment's: a loop target, an unpacking, `as`)."""

    names: list
    attributes: list
    calls: list
    suites: list
    bound: dict


def walk(fn: cst.FunctionDef) -> Walk:
    names: list[tuple[cst.Name, dict]] = []
    attributes: list[tuple[cst.Attribute, dict]] = []
    calls: list = []
    suites: list[list] = []
    bound: dict[str, list] = {}
    stack: list[tuple[cst.CSTNode, tuple]] = [(fn, ())]
    while stack:
        node, chain = stack.pop()
        kind = type(node)
        if kind is cst.Name or kind is cst.Attribute:
            parents = Parents((node, *chain))
            if kind is cst.Attribute:
                attributes.append((node, parents))  # type: ignore[arg-type]
            elif not (chain and (type(chain[0]) is cst.Attribute and chain[0].attr is node
                                 or type(chain[0]) is cst.Arg and chain[0].keyword is node)):
                names.append((node, parents))  # type: ignore[arg-type]  # a variable, not `x.f` or `k=`
        elif kind is cst.Call:
            calls.append(node)
        elif kind is cst.IndentedBlock:
            suites.append(list(node.body))  # type: ignore[attr-defined]
        elif kind in _BINDERS:
            _bind(node, bound)
        inner = (node, *chain[:_DEPTH])
        stack.extend((child, inner) for child in reversed(children(node)))
    return Walk(names, attributes, calls, suites, bound)


_BINDERS = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.AsName)


def _bind(node: cst.CSTNode, bound: dict[str, list]) -> None:
    """The names a binding statement binds, into `bound` with the value each is bound to."""
    targets: list = []
    value: cst.BaseExpression | None = None
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
        value = node.value
    elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        targets, value = [node.target], node.value
    elif isinstance(node, (cst.For, cst.AsName)):
        targets = [node.target if isinstance(node, cst.For) else node.name]
    for t in targets:
        if isinstance(t, cst.Name):
            bound.setdefault(t.value, []).append(value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                if isinstance(el.value, cst.Name):
                    bound.setdefault(el.value.value, []).append(None)


def _rings(bound: dict, paths: set, path_of) -> dict[str, int]:
    """Names bound once, to `pl.struct_array(D, ...)` with a literal `D`: name -> D."""
    rings: dict[str, int] = {}
    for name, values in bound.items():
        if len(values) != 1 or not isinstance(values[0], cst.Call):
            continue
        call = values[0]
        if path_of(call.func) in paths and call.args and isinstance(call.args[0].value, cst.Integer) \
                and call.args[0].keyword is None:
            rings[name] = int(call.args[0].value.value)
    return rings


def _ring_binding(name: cst.Name, parents: dict) -> bool:
    target = parents.get(name)
    return isinstance(target, cst.AssignTarget) and target.target is name


def _pick(name: cst.Name, parents: dict, depth: int) -> str | None:
    """The counter of a pick `name[C % D]` / `name[(C + c) % D]`, else None."""
    sub = parents.get(name)
    if not isinstance(sub, cst.Subscript) or sub.value is not name:
        return None
    return _picked_by(sub, depth)


def _picked_by(sub: cst.Subscript, depth: int) -> str | None:
    """The counter `C` of a subscript `x[C % D]` / `x[(C + c) % D]` with `D == depth`."""
    if len(sub.slice) != 1:
        return None
    index = sub.slice[0].slice
    if not isinstance(index, cst.Index):
        return None
    mod = index.value
    if not (isinstance(mod, cst.BinaryOperation) and isinstance(mod.operator, cst.Modulo)
            and isinstance(mod.right, cst.Integer) and int(mod.right.value) == depth):
        return None
    left = mod.left
    if isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Add) \
            and isinstance(left.right, cst.Integer):
        left = left.left
    return left.value if isinstance(left, cst.Name) else None


def _counter_use(name: cst.Name, parents: dict, rings: dict[str, int]) -> str | None:
    """'' for a use that moves or picks nothing else (`C = <int>`, `C = C + <int>`, the `C`
    of a pick, the `C` in `C = C + k`), the field `f` of a store `x.f = C`, else None."""
    parent = parents.get(name)
    if isinstance(parent, cst.AssignTarget):  # C = ...
        assign = parents.get(parent)
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
            value = assign.value
            if isinstance(value, cst.Integer):
                return ""
            if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add) \
                    and isinstance(value.left, cst.Name) and value.left.value == name.value \
                    and isinstance(value.right, cst.Integer):
                return ""
        return None
    if isinstance(parent, cst.BinaryOperation):
        grand = parents.get(parent)
        # `C + 1` in `C = C + 1`
        if isinstance(parent.operator, cst.Add) and parent.left is name and isinstance(parent.right, cst.Integer) \
                and isinstance(grand, cst.Assign) and len(grand.targets) == 1 \
                and isinstance(grand.targets[0].target, cst.Name) and grand.targets[0].target.value == name.value:
            return ""
        # the counter of a pick: C % D, or (C + c) % D
        mod = grand if isinstance(parent.operator, cst.Add) else parent
        if isinstance(parent.operator, cst.Add) and not (parent.left is name and isinstance(parent.right, cst.Integer)):
            return None
        if isinstance(mod, cst.BinaryOperation) and isinstance(mod.operator, cst.Modulo):
            index = parents.get(mod)
            element = parents.get(index) if isinstance(index, cst.Index) else None
            sub = parents.get(element) if isinstance(element, cst.SubscriptElement) else None
            if isinstance(sub, cst.Subscript) and isinstance(sub.value, cst.Name) and sub.value.value in rings \
                    and _picked_by(sub, rings[sub.value.value]) == name.value:
                return ""
        return None
    if isinstance(parent, cst.Assign) and parent.value is name and len(parent.targets) == 1:
        target = parent.targets[0].target
        if isinstance(target, cst.Attribute):
            return target.attr.value
    return None


def _residue_read(attr: cst.Attribute, parents: dict) -> bool:
    """`x.f % k` with a literal `k`."""
    parent = parents.get(attr)
    return isinstance(parent, cst.BinaryOperation) and parent.left is attr \
        and isinstance(parent.operator, cst.Modulo) and isinstance(parent.right, cst.Integer)


def _field_store(attr: cst.Attribute, parents: dict) -> bool:
    """`x.f = <value>`: the attribute is an assignment's target (what it stores is checked
    where the value is the counter; any other value only makes the field hold it)."""
    target = parents.get(attr)
    return isinstance(target, cst.AssignTarget) and target.target is attr

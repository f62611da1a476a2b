"""What travels in the ctx ring: fields, their fills, and each stage argument's form.

A delayed stage must see the values of ITS task, not the newest ones, so every live value a
stage receives (scalars, struct fields, expressions over them, slots picked in the outer
loop) is snapshotted into the ring each beat. Handles (tensors, groups, tiles) and
compile-time constants pass through unchanged; a handle picked by live values (`bufs[ki %
2]`) is picked where the stage runs, with those values carried in the ring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from pto_api.scalars import storable
from pto_transpile import codes
from pto_transpile.diagnostics import Finding
from pto_transpile.read.effects import MUTATING_METHODS
from pto_transpile.read.kinds import names_in
from pto_transpile.read.localnames import local_names
from pto_transpile.read.model import (
    HANDLE_KINDS,
    STRUCT,
    STRUCT_ARRAY,
    TENSOR,
    TILE,
    UNKNOWN,
    Kernel,
    OuterPick,
    PipelineLoop,
)
from pto_transpile.read.plnames import const_dtype_argument
from pto_transpile.read.printing import code_of
from pto_transpile.read.walk import BINDERS, children, function_choices, iter_nodes, names_stored, root_name
from pto_transpile.sync.ctxtypes import INT, ScalarTypes, bindings, dtype_bound, field_kind, join, stage_use_type
from pto_transpile.sync.kindcause import cause_of


@dataclass(frozen=True)
class Fill:
    field: str
    value: cst.BaseExpression  #: evaluated at the snapshot (the user's own node, or a generated name)
    sections: tuple[str, ...] | None  #: None: plain fill (every core); else the sections it runs in

    @property
    def source(self) -> str:
        return code_of(self.value)


@dataclass(frozen=True)
class ArgForm:
    """How a stage argument is passed: "keep", "ctx", "field", "slot" or "parts" (a keyword
    argument holding a live value travels just like a positional one)."""

    form: str
    field: str = ""
    group: str = ""
    #: for "parts", a handle picked by values of the iteration (`bufs[ki % 2]`): each of those
    #: values (a node of the argument) and the field that carries it; the rest is passed as written
    parts: tuple[tuple[cst.BaseExpression, str], ...] = ()
    #: for "parts" of a name the loop body binds to such a pick (`bias = bias_db[i % 2]`): the
    #: pick, passed in the name's place with its task's values (the name holds a later task's)
    picked: cst.BaseExpression | None = None


@dataclass
class CtxPlan:
    fields: list[str]  #: ordered, with _pl_is_valid first and _pl_task_id last
    fills: list[Fill]
    args: dict[int, list[ArgForm]]  #: stage index -> one form per (non-starred) argument, in call order
    slot_fields: dict[str, str]  #: outer-pick target -> ctx field
    findings: list[Finding] = field(default_factory=list)
    #: field -> the scalar type it carries ("int", "float" or a dtype such as "DT_FP16"; `ctxtypes.py`)
    types: dict[str, str] = field(default_factory=dict)


def sections_of(kernel: Kernel, name: str) -> tuple[str, ...] | None:
    if name in kernel.bound_plain or name not in kernel.var_sections:
        return None
    return tuple(sorted(kernel.var_sections[name]))


def slot_field_names(loop: PipelineLoop) -> dict[str, str]:
    """One ctx field per picked slot variable: `_pl_idx_<group>`, or `_pl_idx_<group>_<var>` when
    the group has several picked variables or the pick does not simply follow the cursor."""
    by_group: dict[str, list[OuterPick]] = {}
    for p in loop.outer_picks:
        by_group.setdefault(p.group, []).append(p)
    names = {}
    for group, picks in by_group.items():
        for p in picks:
            simple = len(picks) == 1 and p.accessor in ("next", "current")
            names[p.target] = f"_pl_idx_{group}" if simple else f"_pl_idx_{group}_{p.target}"
    return names


def plan_ctx(file, kernel: Kernel, loop: PipelineLoop) -> CtxPlan:
    fills: dict[tuple[str, tuple | None], Fill] = {}
    args: dict[int, list[ArgForm]] = {}
    findings: list[Finding] = []
    slot_fields = slot_field_names(loop)
    picks = {p.target: p for p in loop.outer_picks}
    aliases = loop.pick_aliases
    struct_fields: set[str] = set()
    for s in loop.stages:
        for a in s.passed:
            if isinstance(a.value, cst.Name) and a.value.value in kernel.structs:
                struct_fields.update(kernel.structs[a.value.value][0].fields)

    receivers: dict[str, list[tuple[cst.FunctionDef, str]]] = {}  #: field -> (stage, parameter) receiving it
    anchors: dict[str, cst.CSTNode] = {}  #: field -> where its value is written (for a report)

    def add(fill: Fill) -> None:
        fills.setdefault((fill.field, fill.sections), fill)

    def received(fname: str, s, arg: cst.Arg) -> None:
        anchors.setdefault(fname, arg.value)
        func = file.stages.get(s.func)
        if func is not None:
            for param, a in s.bind(func.params):
                if a is arg:
                    receivers.setdefault(fname, []).append((func.node, param))

    in_loop = {n.value for n in names_stored(loop.node.body, file.find(loop.node.body, BINDERS))}
    named: dict[str, tuple] = {}  #: ctx field of an argument -> (stage, argument, part) it carries

    def arg_field(s, pos: int, arg: cst.Arg, part: int | None = None) -> str:
        """The ctx field of an argument (or of a part of it): `_pl_arg_<stage>_<position or
        keyword>[_<part>]`, made unique where a keyword's name ends like a part's (`dst_0=...`
        beside `dst=` whose part 0 travels: probe h113, one value dropped)."""
        key = (s.index, pos, part)
        base = f"_pl_arg_{s.func}_{pos if arg.keyword is None else arg.keyword.value}" + \
            ("" if part is None else f"_{part}")
        name, n = base, 1
        while named.setdefault(name, key) != key:
            name, n = f"{base}_{n}", n + 1
        return name

    for s in loop.stages:
        forms: list[ArgForm] = []
        for pos, arg in enumerate(s.passed):
            value = arg.value
            name = value.value if isinstance(value, cst.Name) else None
            if name is not None and name in kernel.structs and not kernel.structs[name][0].is_array:
                for f in kernel.structs[name][0].fields:
                    add(Fill(f, cst.Attribute(cst.Name(name), cst.Name(f)), sections_of(kernel, name)))
                    anchors.setdefault(f, kernel.structs[name][0].call)
                forms.append(ArgForm("ctx"))
                continue
            if name is not None and aliases.get(name) in picks:
                pick = picks[aliases[name]]
                fname = slot_fields[pick.target]
                add(Fill(fname, cst.Name(fname), sections_of(kernel, pick.target)))
                forms.append(ArgForm("slot", fname, pick.group))
                continue
            changing = _changing_tuple(file, kernel, loop, value, in_loop)
            if changing is not None:
                # `cfg = pl.make_tuple(bias=...)` in the body, or `cfg.bias = ...` there: a handle, passed
                # as written, so a delayed stage would read what a later task's body left in it (h112)
                findings.append(Finding(codes.CTX_FIELD_TYPE_UNKNOWN, value, {
                    "value": changing[0], "stage": f"stage `{s.func}`", "_hint": "made_tuple",
                    "why": f"it is a `pl.make_tuple` {changing[1]}, a handle the ring cannot hand on (a ctx field "
                           "holds a number): a delayed stage would read what a later iteration left in it"}))
                forms.append(ArgForm("keep"))
                continue
            body_name = name if name is not None and name in in_loop else None  # (a name the loop body binds)
            picked = _bound_pick(file, kernel, loop, body_name) if body_name is not None else None
            viewed = _view_base(value)
            if body_name is None and viewed is not None and viewed.value in in_loop:
                # a view of a bound pick (`bias[0:HALF, :]` of `bias = bias_db[i % 2]`, probe h113): the
                # view of the pick itself, as if written in the call (`bias_db[i % 2][0:HALF, :]`)
                body_name = viewed.value
                of_view = _bound_pick(file, kernel, loop, body_name)
                if of_view is not None:
                    picked = cast(cst.BaseExpression, value.deep_replace(viewed, of_view))
            kind = kernel.kinds.get(body_name) if body_name is not None else None
            if picked is None and body_name is not None and (
                    kind in HANDLE_KINDS and _chosen_in_body(file, loop, body_name)
                    or kind in (*HANDLE_KINDS, UNKNOWN) and _picked_in_body(file, kernel, loop, body_name)
                    or kind in (*HANDLE_KINDS, UNKNOWN) and _item_of_changing(file, loop, body_name)):
                # `dst = even` / `if i % 2: dst = odd`: passed by its name, a delayed stage would get
                # a later iteration's choice (probe h113)
                rebound = _rebound_in_pick(file, loop, body_name)
                findings.append(Finding(codes.CTX_FIELD_TYPE_UNKNOWN, value, {
                    "value": body_name, "stage": f"stage `{s.func}`", "_hint": "handle_chosen",
                    "why": "it is a handle (a tensor, tile or tile group) the loop body chooses per iteration, and "
                           "a ctx field holds a number: passed by its name, a delayed stage would get a later "
                           "iteration's"} | ({
                        "_hint": "pick_rebound", "names": ", ".join(f"`{n}`" for n in rebound),
                        "why": f"it is picked from {', '.join(f'`{n}`' for n in rebound)}, which the loop body "
                               "rebinds, and a ctx field holds a number: passed by its name, a delayed stage would "
                               "get a later iteration's handle"} if rebound else {})))
                forms.append(ArgForm("keep"))
                continue
            if picked is not None:
                carried = []
                for k, part in enumerate(_live_parts(kernel, picked)):
                    fname = arg_field(s, pos, arg, k)
                    add(Fill(fname, part, (s.section,) if s.section in ("cube", "vector") else None))
                    carried.append((part, fname))
                forms.append(ArgForm("parts", parts=tuple(carried), picked=picked))
                continue
            travels, unknown = _travels(kernel, value)
            if unknown and not travels:
                findings.append(_kind_unknown(file, kernel, s.func, value, unknown))
            elif not travels and (unknown_picks := [n for n in _unknown_names(kernel, value) if n in in_loop]):
                # `bufs[sel]` of a `sel` the loop binds: the pick is the iteration's, and a name of
                # unknown kind cannot travel; passed as written, a delayed stage would get the
                # current iteration's tile (probe h101)
                findings.append(_kind_unknown(file, kernel, s.func, value, unknown_picks))
            parts = [] if travels or unknown else _live_parts(kernel, value)
            if parts:
                carried = []
                for k, part in enumerate(parts):
                    if isinstance(part, cst.Name):
                        fname = f"_pl_{part.value}" if part.value in struct_fields else part.value
                        add(Fill(fname, cst.Name(part.value), sections_of(kernel, part.value)))
                    else:
                        fname = arg_field(s, pos, arg, k)
                        add(Fill(fname, part, (s.section,) if s.section in ("cube", "vector") else None))
                    carried.append((part, fname))
                forms.append(ArgForm("parts", parts=tuple(carried)))
            elif not travels:
                forms.append(ArgForm("keep"))
            elif name is not None:
                fname = f"_pl_{name}" if name in struct_fields else name
                add(Fill(fname, cst.Name(name), sections_of(kernel, name)))
                forms.append(ArgForm("field", fname))
                received(fname, s, arg)
            else:
                fname = arg_field(s, pos, arg)
                section = (s.section,) if s.section in ("cube", "vector") else None
                add(Fill(fname, value, section))
                forms.append(ArgForm("field", fname))
                received(fname, s, arg)
        args[s.index] = forms
    names = sorted({f.field for f in fills.values()})
    plan = CtxPlan(["_pl_is_valid"] + names + ["_pl_task_id"], list(fills.values()), args, slot_fields, findings)
    plan.types = _field_types(file, kernel, plan, receivers, anchors)
    return plan


def _kind_unknown(file, kernel: Kernel, stage: str, value: cst.BaseExpression, unknown: list[str]) -> Finding:
    """PTO054 for a stage argument: naming what made its names unknown when that is known
    (a parameter's annotation, an item of a tuple of numbers), as the fix is there."""
    fields = {"stage": stage, "names": ", ".join(unknown)}
    for name in unknown:
        cause = cause_of(file, kernel, name)
        if cause is not None:
            fields.update(cause.fields, name=name, _message=cause.key, _hint=cause.hint or cause.key)
            return Finding(codes.ARGUMENT_KIND_UNKNOWN, value, fields, ((cause.note, cause.node),))
    return Finding(codes.ARGUMENT_KIND_UNKNOWN, value, fields)


def _field_types(file, kernel: Kernel, plan: CtxPlan, receivers, anchors) -> dict[str, str]:
    """The type each field carries: what its fills hold, else what the stage parameters
    receiving it do with it (`ctxtypes.py`); a field neither says is reported (PTO072)
    rather than typed by a guess."""
    types = ScalarTypes(file, kernel)
    bound = dict(bindings(file, kernel.node))
    out: dict[str, str] = {"_pl_is_valid": INT, "_pl_task_id": INT}
    out.update({f: INT for f in plan.slot_fields.values()})
    for fname in plan.fields:
        if fname in out:
            continue
        fills = [f for f in plan.fills if f.field == fname]
        kind = types.of(fills[0].value)
        for f in fills[1:]:
            kind = join(kind, types.of(f.value))
        if kind is None:
            uses = [stage_use_type(file, types, fn, param) for fn, param in receivers.get(fname, [])]
            kind = uses[0] if uses and all(u == uses[0] for u in uses) else None
        if kind is None:
            names = sorted({fn.name.value for fn, _ in receivers.get(fname, [])})
            stages = "stage " + ", ".join(f"`{n}`" for n in names) if names else "a stage"
            fields = {"value": fills[0].source, "stage": stages,
                      "why": "whether it is an integer or a float cannot be told; the field's initialiser would "
                             "have to guess its type"}
            struct = _struct_named(kernel, fills[0].value)
            division = types.division_in(fills[0].value)
            if all(function_choices(f.value, lambda n: n if n in file.functions_by_name else None) for f in fills):
                fields.update(why="it is a function of the file, which a ctx field cannot hold", _hint="function")
            elif (inner := _struct_in_struct(file, kernel, fills[0].value)) is not None:  # (probe h251)
                holder = fills[0].value.value.value  # type: ignore[attr-defined]
                fields.update(why=f"it is `{inner}`, a struct held in a field of `{holder}`, and a ctx field holds a "
                                  "number", inner=inner, holder=holder, _hint="struct_in_struct")
            elif (handle := _handle_in_struct(file, kernel, fills[0].value)) is not None:  # (probe h109: `o=out`)
                fields.update(why=f"it is `{handle}`, a handle (a tensor, a tile or a tile group) held in the struct, "
                                  "and a ctx field holds a number", handle=handle, _hint="handle")
            elif struct is not None:  # (probe h106: `st, bias = cfg, 0.0`, or `cfg` bound again)
                fields.update(why=f"it is the struct `{struct}` under another name, which the ring follows only when "
                                  "both are bound once and the second on a line of its own", struct=struct,
                              _hint="struct")
            elif (array := _struct_array_of(kernel, bound, fills[0].value)) is not None:  # (probe h111)
                fields.update(why=f"it is an entry of the struct array `{array}`, a struct, and a ctx field holds a "
                                  "number", array=array, _hint="struct_entry")
            elif (picked := _struct_picked(file, kernel, bound, fills[0].value)) is not None:  # (probe h200)
                fields.update(why=f"it is a struct picked by a test or from a list (`{picked}`), which the ring does "
                                  "not carry, and no dtype is one of a struct", struct=picked, _hint="struct_pick")
            elif isinstance(fills[0].value, cst.Attribute) and isinstance(fills[0].value.value, cst.Name) \
                    and fills[0].value.value.value in kernel.structs:  # a field of a struct handed whole (h113)
                fields.update(_hint="struct_field", field=fills[0].value.attr.value)
            elif isinstance(fills[0].value, (cst.Tuple, cst.List)):  # `(g, 0.25 * (i % 3))` (probe h114)
                fields.update(why="it is a tuple, and a ctx field holds one number", _hint="display")
            elif not isinstance(fills[0].value, cst.Name):  # an expression cannot be annotated where it is written
                fields["_hint"] = "expression"
            if division is not None and fields.get("_hint") not in ("function", "struct"):  # (probe h108: `n / 2`)
                fields.update(why=f"it is computed by `{file.source.code(division)}`, a `/` of integers, and whether "
                                  "the device's `/` of integers gives an integer or a float is not documented")
            plan.findings.append(Finding(codes.CTX_FIELD_TYPE_UNKNOWN, anchors.get(fname, kernel.node.name), fields))
            kind = INT
        out[fname] = _declared_dtype(file, kernel, fills, bound) or field_kind(kind)
    return out


def _named_dtype(file, bound: dict, name: str, local: frozenset) -> str | None:
    """The `pl` dtype of every value the kernel binds `name` to (`bound`: `ctxtypes.bindings`):
    `pl.const(v, pl.DT_X)` or an annotation `name: pl.DT_X = ...` (probe h111: `st =
    pl.struct(g=tag)` of a `tag = pl.const(0, pl.DT_INT8)` had its field carried in a field of
    integers); None otherwise. `local`: the kernel's own names, never a module's dtype alias."""
    found: set[str] = set()
    for kind, node in bound.get(name, []):
        if kind == "annotation":
            path = file.pl.path(node.annotation)
            dtype = path[0] if path and len(path) == 1 and storable(path[0]) else None
        else:
            dtype = _const_dtype(file, node, local, bound) if kind == "value" else None
        if dtype is None:
            return None
        found.add(dtype)
    return found.pop() if len(found) == 1 else None


def _const_dtype(file, node: cst.BaseExpression | None, local: frozenset, bound: dict) -> str | None:
    """The dtype `pl.const(v, dtype)` converts to, named where it stands, by a name the kernel
    binds to it alone (`bound`: `ctxtypes.bindings`; `tag_dt = pl.DT_INT8`, probe h110) or by a
    module name bound to one (`TAG_DT = pl.DT_INT8`) that the kernel does not bind itself (its
    `local` names: probe h111); None for anything else."""
    if not (isinstance(node, cst.Call) and file.pl.path(node.func) == ("const",)):
        return None
    given = const_dtype_argument(node)
    if isinstance(given, cst.Name) and given.value in local:
        dtype = dtype_bound(file, bound, given.value)
        return dtype if dtype is not None and storable(dtype) else None
    path = file.pl.path(given) if given is not None else None
    if not path and given is not None and not (isinstance(given, cst.Name) and given.value in local):
        path = getattr(file.evaluator.try_eval(given, None), "path", None)
    return path[0] if path and len(path) == 1 and storable(path[0]) else None


def _bound_otherwise(file, bound: dict, name: str) -> bool:
    """Does the kernel bind `name` (`bound`: `ctxtypes.bindings`) to anything but a
    `pl.struct(...)` (`st = make_cfg()`: a struct whose fields are typed by another's
    initialisers, probe h110)?"""
    return any(kind != "value" or not (isinstance(node, cst.Call) and file.pl.path(node.func) == ("struct",))
               for kind, node in bound.get(name, []))


def _struct_in_struct(file, kernel: Kernel, value: cst.BaseExpression) -> str | None:
    """The code of the struct a struct field `st.f` is initialised with (`pl.struct(inner=inner)`
    of an `inner = pl.struct(...)`, or `pl.struct(inner=pl.struct(...))`) in a declaration, if any."""
    if not (isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name)):
        return None
    for decl in kernel.structs.get(value.value.value) or []:
        init = next((a.value for a in decl.call.args if a.keyword is not None
                     and a.keyword.value == value.attr.value), None)
        if isinstance(init, cst.Name) and init.value in kernel.structs \
                or isinstance(init, cst.Call) and file.pl.path(init.func) in (("struct",), ("struct_array",)):
            return file.source.code(init)
    return None


def _handle_in_struct(file, kernel: Kernel, value: cst.BaseExpression) -> str | None:
    """The code of the handle a struct field `st.f` is initialised with (`pl.struct(o=out)`,
    `o=outs[0]`: probe h110) in a declaration, if any."""
    if not (isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name)):
        return None
    for decl in kernel.structs.get(value.value.value) or []:
        init = next((a.value for a in decl.call.args if a.keyword is not None
                     and a.keyword.value == value.attr.value), None)
        if init is not None and _is_handle(kernel, init):
            return file.source.code(init)
    return None


def _declared_dtype(file, kernel: Kernel, fills: list, bound: dict) -> str | None:
    """The `pl` dtype of a struct field that a struct handed whole to a stage declares in every
    declaration (`pl.struct(g=pl.const(0, pl.DT_INT8))`, or of a name bound to such values):
    the field the ring stands in for holds values of that dtype alone, converted at every
    store, and so does a ctx field of that dtype, where a store in the stage converts the same
    (probe h109: a `0` field held 150 where the user's int8 field wrapped it). `bound`: the
    kernel's bindings (`ctxtypes.bindings`)."""
    found: set[str] = set()
    local = frozenset(local_names(file, kernel.node))
    for fill in fills:
        value = fill.value
        if not (isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name)):
            return None
        decls = kernel.structs.get(value.value.value) or []
        if not decls or _bound_otherwise(file, bound, value.value.value):
            return None
        for decl in decls:
            init = next((a.value for a in decl.call.args if a.keyword is not None
                         and a.keyword.value == value.attr.value), None)
            dtype = _named_dtype(file, bound, init.value, local) if isinstance(init, cst.Name) else \
                _const_dtype(file, init, local, bound)
            if dtype is None:
                return None
            found.add(dtype)
    return found.pop() if len(found) == 1 else None


def _travels(kernel: Kernel, expr: cst.BaseExpression) -> tuple[bool, list[str]]:
    """(travels, undecidable names): travels iff at least one name is live (a value of the
    iteration) and the expression is not a bare handle (a tensor, tile or group passed as it
    is). An expression that reads a handle and a live value (`pl.min(BLOCK, a.shape[0] - i *
    BLOCK)`) is that iteration's value: evaluated where the stage runs, a delayed stage would
    see a later iteration's."""
    handle = live = False
    unknown = []
    for n in names_in(expr):
        kind = kernel.kinds.get(n)
        if kind is None or kind in ("const", "type"):
            continue
        if kind in HANDLE_KINDS:
            handle = True
        elif kind == UNKNOWN:
            unknown.append(n)
        else:
            live = True
    if handle and (not live or _handle_valued(kernel, expr)):
        return False, []
    return live, unknown


def _bound_pick(file, kernel: Kernel, loop: PipelineLoop, name: str) -> cst.BaseExpression | None:
    """The pick a stage argument `name` stands for when the loop body binds it once, at its top
    level, to a handle picked by values of the iteration (`bias = bias_db[i % 2]`, `dst = (even,
    odd)[i % 2]`) from handles the body does not bind: passed by its name, a delayed stage would
    get a later task's pick (probe h112); passed as the pick, its values travel. None otherwise."""
    body_names = names_stored(loop.node.body, file.find(loop.node.body, BINDERS))
    bound = {n.value for n in body_names}  #: what the loop body binds
    stored = [n for n in body_names if n.value == name]
    if len(stored) != 1 or kernel.kinds.get(name) in (STRUCT, STRUCT_ARRAY):
        return None  # (an entry of a struct array: a struct, its fields set per task, PTO072 names it)
    calls = {id(stage.call) for stage in loop.stages}
    first = next((k for k, stmt in enumerate(loop.body)
                  if any(id(c) in calls for c in file.find(stmt, cst.Call))), len(loop.body))
    # the statements before the stages (after them, the next iteration's pick), and those of a
    # section there (`with pl.section_vector(): bias = bias_db[i % 2]`, probe h113), each with what
    # runs after it in the body
    lines: list[tuple[cst.SimpleStatementLine, list[cst.CSTNode]]] = []
    for k, stmt in enumerate(loop.body[:first]):
        if isinstance(stmt, cst.SimpleStatementLine):
            lines.append((stmt, list(loop.body[k + 1:])))
        elif isinstance(stmt, cst.With) and all(isinstance(item.item, cst.Call) and file.pl.path(item.item.func)
                                                in (("section_cube",), ("section_vector",)) for item in stmt.items):
            inner = list(stmt.body.body)
            lines += [(line, [*inner[m + 1:], *loop.body[k + 1:]]) for m, line in enumerate(inner)
                      if isinstance(line, cst.SimpleStatementLine)]
    for stmt, after in lines:
        for j, small in enumerate(stmt.body):
            # `dst = pick`, or annotated (`dst: pl.Tensor[...] = pick`: probe h113)
            given: cst.BaseExpression | None
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, given = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign):
                target, given = small.target, small.value
            else:
                continue
            if target is stored[0] and given is not None:
                value = _displays_inlined(file, given, loop, lines, stmt, bound, body_names)
                parts = _live_parts(kernel, value)
                fixed = {n for part in parts for n in names_in(part)}
                # the parts are computed again where the ctx entry is filled, after the body's
                # statements before the stages: nothing after the pick may bind what they read
                later = {n.value for node in [*stmt.body[j + 1:], *after]
                         for n in names_stored(node, file.find(node, BINDERS))} \
                    | {root for node in [*stmt.body[j + 1:], *after] for root in _stored_under(file, node)}
                called = any(isinstance(n, cst.Call) for part in parts for n in iter_nodes(part))
                # the handles it picks from are read again where the delayed stage runs: the body must
                # neither bind them nor change them in place (`outs.reverse()`: probe h114)
                held = set(names_in(value)) - fixed
                if parts and _handle_valued(kernel, value) and not held & bound \
                        and not held & _changed_in_place(file, loop) \
                        and not fixed & later and not called:  # (a call's effects would happen twice)
                    return value
    return None


def _displays_inlined(file, value: cst.BaseExpression, loop: PipelineLoop, lines: list, before: cst.CSTNode,
                      bound: set[str], body_names: list[cst.Name]) -> cst.BaseExpression:
    """`value` with each name the loop body binds once, on a line before `before`, to a display
    of handles it does not bind (`pair = (even, odd)`) written as that display (`pair[i % 2]` as
    `(even, odd)[i % 2]`, probe h113): the same handles in every iteration, as if written in place."""
    changed = _stored_under(file, loop.node.body)
    for name in [n for n in iter_nodes(value) if isinstance(n, cst.Name)]:
        if sum(n.value == name.value for n in body_names) != 1 or name.value in changed:
            continue  # (bound again, or changed in place: `pair.reverse()`, probe h115)
        for stmt, _after in lines:
            if stmt is before:
                break
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                        and isinstance(small.targets[0].target, cst.Name) \
                        and small.targets[0].target.value == name.value \
                        and isinstance(small.value, (cst.Tuple, cst.List)) and small.value.elements \
                        and all(isinstance(el, cst.Element) and isinstance(el.value, cst.Name)
                                and el.value.value not in bound for el in small.value.elements):
                    value = cast(cst.BaseExpression, value.deep_replace(name, small.value))
    return value


def _view_base(value: cst.BaseExpression) -> cst.Name | None:
    """The name a view or an item is taken of (`bias` of `bias[0:HALF, :]` or `bias[0:HALF][:, 0:8]`),
    or None for any other argument."""
    base = value
    while isinstance(base, cst.Subscript):
        base = base.value
    return base if base is not value and isinstance(base, cst.Name) else None


def _chosen_in_body(file, loop: PipelineLoop, name: str) -> bool:
    """Does the loop body bind `name` more than once (`dst = even` / `if ...: dst = odd`)? Bound
    once, under a test or not, it may hold one handle for good (`if i == core_id: b = g.current()`),
    which the check judges."""
    return sum(n.value == name for n in names_stored(loop.node.body, file.find(loop.node.body, BINDERS))) > 1


def _picked_in_body(file, kernel: Kernel, loop: PipelineLoop, name: str) -> bool:
    """Does the loop body bind `name`, at its top level (every iteration), to a pick by a value of
    the iteration (one `_bound_pick` cannot pass in the name's place: its index bound again after
    it, or calling something)?"""
    return any(isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                     for t in small.targets)
               and _handle_valued(kernel, small.value) and bool(_live_parts(kernel, small.value))
               for stmt in loop.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body)


def _rebound_in_pick(file, loop: PipelineLoop, name: str) -> list[str]:
    """The names a pick `name = (a, b)[i % 2]` at the top of the loop body reads that a later
    statement of the body binds (a swap after the stages, `a, b = b, a`: probe h131, where the help
    asked for the pick the body already made)."""
    for k, stmt in enumerate(loop.body):
        picks = [node for node in file.find(stmt, cst.Assign) if isinstance(node.value, cst.Subscript)
                 and any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets)]
        if picks:
            later = {n.value for rest in loop.body[k + 1:] for n in names_stored(rest, file.find(rest, BINDERS))}
            return sorted(set(names_in(picks[0].value.value)) & (later - {name}))
    return []


def _item_of_changing(file, loop: PipelineLoop, name: str) -> bool:
    """Is `name` bound in the loop body to an item of a list the body changes in place (`dst =
    outs[0]` with `outs.reverse()` each iteration: a ping-pong, probe h114)? Passed by its name, a
    delayed stage would get a later iteration's item."""
    changed = _changed_in_place(file, loop)
    for node in file.find(loop.node.body, (cst.Assign, cst.AnnAssign)):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        if node.value is not None and isinstance(node.value, cst.Subscript) \
                and any(isinstance(t, cst.Name) and t.value == name for t in targets) \
                and set(names_in(node.value.value)) & changed:
            return True
    return False


def _changing_tuple(file, kernel: Kernel, loop: PipelineLoop, value: cst.BaseExpression,
                    in_loop: set[str]) -> tuple[str, str] | None:
    """(name, how) of a `pl.make_tuple` a stage argument reads that the loop body changes: binds
    (`cfg = pl.make_tuple(...)` per iteration), sets a field of (`cfg.gain = alpha * i`), or whose
    members are structs or names the body changes (`pl.make_tuple(cfg=st)` with `st.g = ...`). A
    tuple is passed as written, and a delayed stage reads it after later iterations' bodies ran."""
    tuples = [name for name in names_in(value) if name in kernel.tuples]
    if not tuples:
        return None
    stored = _attribute_roots(file, loop)
    bound = dict(bindings(file, kernel.node))
    for name in tuples:
        if name in in_loop:
            return name, "the loop body makes"
        # its fields set through it or a name bound to it (`view = cfg`, `view.g = ...`: probe h113)
        aliases = {name} | {n for n, values in bound.items() if any(
            kind == "value" and isinstance(v, cst.Name) and v.value == name for kind, v in values)}
        if aliases & stored:
            return name, "whose fields the loop body sets"
        handed = _handed_to_calls(file, loop, aliases)
        if handed is not None:  # (`set_gain(cfg, k)` may set its fields: probe h113)
            return name, f"that the loop body hands to `{handed}`, which may set its fields"
        for member in kernel.tuples[name].values():
            if member in in_loop or member in stored or member in kernel.structs or member in kernel.tuples:
                return name, f"holding `{member}`, which the loop body changes or which is a struct"
    return None


def _handed_to_calls(file, loop: PipelineLoop, names: set[str]) -> str | None:
    """The code of a function the loop body calls with one of `names` (not a stage, not a `pl`
    op), if any."""
    stages = {id(s.call) for s in loop.stages}
    for call in file.find(loop.node.body, cst.Call):
        if id(call) in stages or file.pl.path(call.func) is not None:
            continue
        if any(n in names for a in call.args for n in names_in(a.value)):
            return file.source.code(call.func)
    return None


def _attribute_roots(file, loop: PipelineLoop) -> set[str]:
    """The names whose fields the loop body stores to (`cfg.gain = ...`, `cfg.a.b += ...`)."""
    return _assigned_under(file, loop.node.body)


def _changed_in_place(file, loop: PipelineLoop) -> set[str]:
    """The names whose objects the loop body changes in place: a field or item stored to (`outs[0] =
    ...`, `cfg.gain = ...`) or a changing method called (`outs.reverse()`, `bufs.append(t)`, and
    through the type, `list.reverse(outs)`: probe h115)."""
    return _stored_under(file, loop.node.body)


def _stored_under(file, node: cst.CSTNode) -> set[str]:
    """The names under which `node` stores (`st.k += 1`, `outs[0] = t`) or calls a changing method
    (`outs.reverse()`; `list.reverse(outs)` counts the names it is given too)."""
    roots = _assigned_under(file, node)
    for call in file.find(node, cst.Call):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS:
            roots.update(_roots_of([func.value, *(a.value for a in call.args)]))
    return roots


def _assigned_under(file, node: cst.CSTNode) -> set[str]:
    """The names under which an assignment in `node` stores (`st.k += 1`, `outs[0] = t`)."""
    roots: set[str] = set()
    for found in file.find(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
        targets = [t.target for t in found.targets] if isinstance(found, cst.Assign) else [found.target]
        for target in targets:
            parts = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
            roots.update(_roots_of([p for p in parts if isinstance(p, (cst.Attribute, cst.Subscript))]))
    return roots


def _roots_of(exprs: list[cst.BaseExpression]) -> set[str]:
    """The names attribute and subscript chains start at (`outs` of `outs[0].x`)."""
    return {name for e in exprs if (name := root_name(e)) is not None}


def _unknown_names(kernel: Kernel, expr: cst.BaseExpression) -> list[str]:
    """The names of unknown kind `expr` reads."""
    return [n for n in names_in(expr) if kernel.kinds.get(n) == UNKNOWN]


def _live_parts(kernel: Kernel, expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The largest parts of a handle-valued argument that are values of the iteration (the
    index of `bufs[ki % 2]`, the bounds of `t[0:rows, :]`, the test of `a if first else b`):
    a delayed stage must pick with its task's values, so they travel in the ring and the pick
    is made where the stage runs. Empty when nothing in it is a value of the iteration."""
    found: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BaseExpression) and node is not expr and _live_scalar(kernel, node):
            found.append(node)
            continue
        # (an attribute's name and a keyword's are no values: `scale` of `tiling.scale` beside a
        # scalar parameter `scale` travelled, and the stage was given `tiling._pl_ctx_neg1.scale`: study ux2)
        stack.extend(reversed([node.value] if isinstance(node, (cst.Attribute, cst.Arg)) else children(node)))
    return found


def _live_scalar(kernel: Kernel, expr: cst.BaseExpression) -> bool:
    """Does `expr` compute a number of the iteration: it reads a live value and no handle?"""
    kinds = [kernel.kinds.get(n) for n in names_in(expr)]
    return any(k is not None and k not in ("const", "type") and k not in HANDLE_KINDS and k != UNKNOWN
               for k in kinds) and not any(k in HANDLE_KINDS or k == UNKNOWN for k in kinds)


def _handle_valued(kernel: Kernel, expr: cst.BaseExpression) -> bool:
    """Is `expr` a handle itself: a pick of a handle (`bufs[ki % 2]`), a view of a tensor or
    tile (`t[0:8, :]`) or a method of one (`grp.next()`)? A ctx field holds numbers, not tiles
    (such an argument is passed as written); an element of a tensor or tile (`sc[i]`) is a
    number of the iteration. A choice between two handles (`a if first else b`) is one too."""
    if isinstance(expr, cst.IfExp):
        return all(_is_handle(kernel, arm) for arm in (expr.body, expr.orelse))
    if isinstance(expr, cst.Subscript) and _handle_display(kernel, expr.value):
        return True
    base = expr.func if isinstance(expr, cst.Call) else expr
    while isinstance(base, (cst.Subscript, cst.Attribute)):
        base = base.value
    if base is expr or not isinstance(base, cst.Name) or kernel.kinds.get(base.value) not in HANDLE_KINDS:
        return False
    element = isinstance(expr, cst.Subscript) and expr.value is base and kernel.kinds.get(base.value) in (
        TENSOR, TILE) and not any(isinstance(e.slice, cst.Slice) for e in expr.slice)
    return not element


def _is_handle(kernel: Kernel, expr: cst.BaseExpression) -> bool:
    """Is `expr` a handle: a name bound to one, or an expression whose value is one."""
    return isinstance(expr, cst.Name) and kernel.kinds.get(expr.value) in HANDLE_KINDS or _handle_valued(kernel, expr)


def _handle_display(kernel: Kernel, expr: cst.BaseExpression) -> bool:
    """Is `expr` a tuple, list or dict written out whose items are all handles (`(r0, r1)`,
    `{0: r0, 1: r1}`)? An item picked from it (`(r0, r1)[i % 2]`) is a handle, as an item
    of a name bound to it (`rs[i % 2]`) is: its index travels, the pick is made where the stage runs."""
    if isinstance(expr, (cst.Tuple, cst.List)):
        items = [e.value for e in expr.elements if isinstance(e, cst.Element)]
        return bool(items) and len(items) == len(expr.elements) and all(_is_handle(kernel, v) for v in items)
    if isinstance(expr, cst.Dict):
        pairs = [e for e in expr.elements if isinstance(e, cst.DictElement)]
        return bool(pairs) and len(pairs) == len(expr.elements) and all(_is_handle(kernel, e.value) for e in pairs)
    return False


def _struct_array_of(kernel, bound: dict, value: cst.BaseExpression) -> str | None:
    """The struct array a name is bound to an entry of (`ent = arr[i % 2]` of an `arr =
    pl.struct_array(...)`: `bound`, `ctxtypes.bindings`), if any."""
    if not isinstance(value, cst.Name):
        return None
    for kind, node in bound.get(value.value, []):
        if kind == "value" and isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) \
                and any(decl.is_array for decl in kernel.structs.get(node.value.value) or []):
            return node.value.value
    return None


def _struct_picked(file, kernel, bound: dict, value: cst.BaseExpression) -> str | None:
    """A struct the value picks among others (`even if i % 2 == 0 else odd`, `sts[i % 2]` of a list
    of `pl.struct(...)`), itself or through a name bound to the pick: the name of one of them;
    None for any other value."""
    values = [value] + ([v for kind, v in bound.get(value.value, []) if kind == "value"]
                        if isinstance(value, cst.Name) else [])
    for v in values:
        if not isinstance(v, (cst.IfExp, cst.Subscript)):
            continue
        for n in iter_nodes(v):
            if isinstance(n, cst.Name) and n.value in kernel.structs:
                return n.value
            if isinstance(n, cst.Name) and any(kind == "value" and isinstance(made, (cst.List, cst.Tuple)) and any(
                    isinstance(e.value, cst.Call) and file.pl.path(e.value.func) == ("struct",)
                    for e in made.elements) for kind, made in bound.get(n.value, [])):
                return n.value
    return None


def _struct_named(kernel, value: cst.BaseExpression) -> str | None:
    """The struct a name is bound to in the kernel (`st = cfg`, `st, bias = cfg, 0.0` of a
    `cfg = pl.struct(...)`), where the ring does not take it for that struct; None for any other."""
    if not isinstance(value, cst.Name):
        return None
    for node in iter_nodes(kernel.node):
        if not isinstance(node, cst.Assign):
            continue
        for target in node.targets:
            pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = [(target.target, node.value)]
            if isinstance(target.target, (cst.Tuple, cst.List)) and isinstance(node.value, (cst.Tuple, cst.List)) \
                    and len(target.target.elements) == len(node.value.elements):
                pairs = [(t.value, v.value) for t, v in zip(target.target.elements, node.value.elements, strict=True)]
            for bound, source in pairs:
                if isinstance(bound, cst.Name) and bound.value == value.value and isinstance(source, cst.Name) \
                        and source.value in kernel.structs:
                    return source.value
    return None

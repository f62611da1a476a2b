"""Why a stage argument's kind is unknown (PTO054): the value its unknown name is computed from.

"Cannot tell whether `sh` is a scalar or a handle" is true of `sh` but names neither what
made it unknown nor what to change, when `sh` is an int computed from something else. The
cause is found by following the kernel's bindings from the unknown name to the first of:
a parameter whose annotation does not say what it holds (`tiling: "TD"`, `TD | None`, none),
an item of a tuple or list of numbers picked by a value of the run (`(0, 0, 1)[d]`), which
the check does not follow for every index, a pick of tiles or tensors (`biases[h % 2]`),
which is a handle the stage call should pick itself, a call of one of the file's functions (a
helper that makes the kernel's tile group), or a list, dict or set display (no ctx field carries
a container). Each hint names the fix for that cause: a dtype annotation, the general hint,
would type a ctx field of numbers for a handle or a container (probe h241).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import libcst as cst

from pto_transpile.read.consteval import literal_value
from pto_transpile.read.kinds import names_in
from pto_transpile.read.meaning import Class
from pto_transpile.read.model import TENSOR, TILE, UNKNOWN, Kernel
from pto_transpile.read.printing import code_of
from pto_transpile.read.walk import iter_nodes, parameters


@dataclass(frozen=True)
class Cause:
    """What made a name's kind unknown: the message and hint keys of PTO054, their fields,
    and the node to point a note at."""

    key: str  #: "parameter", "item", "handle", "helper" or "container": the message's
    fields: dict[str, str]
    node: cst.CSTNode
    note: str
    hint: str = ""  #: the hint's key where it is not `key`


def cause_of(file, kernel: Kernel, name: str) -> Cause | None:
    """The cause of `name`'s unknown kind, following the names its bindings read (None: none
    of the known causes; the general message stands)."""
    bindings = _value_bindings(kernel.node)
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop(0)
        if current in seen:
            continue
        seen.add(current)
        if current in kernel.params:
            if kernel.params[current] == UNKNOWN:
                return _parameter(file, kernel, current)
            continue
        for value in bindings.get(current, []):
            item = _item_pick(kernel, bindings, value) or _handle_pick(kernel, bindings, value) \
                or _helper_call(file, value) or _container(value)
            if item is not None:
                return item
            todo += [n for n in names_in(value) if kernel.kinds.get(n) == UNKNOWN and n not in seen]
    return None


def _value_bindings(fn: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """name -> the values plain assignments in `fn` bind to it (nested functions left out)."""
    out: dict[str, list[cst.BaseExpression]] = {}
    for node in iter_nodes(fn.body, skip_functions=True):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    out.setdefault(t.target.value, []).append(node.value)
                elif isinstance(t.target, (cst.Tuple, cst.List)):  # (`g, spare = make_groups()`: probe h245)
                    for element in t.target.elements:
                        if isinstance(element.value, cst.Name):
                            out.setdefault(element.value.value, []).append(node.value)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and isinstance(node.target, cst.Name) \
                and node.value is not None:
            out.setdefault(node.target.value, []).append(node.value)
    return out


def _parameter(file, kernel: Kernel, name: str) -> Cause:
    """A parameter whose annotation says nothing the tool reads: name it, and the annotation
    to write (the tiling-data class itself when the annotation names one: `tiling: TD`)."""
    param = next(p for p in parameters(kernel.node) if p.name.value == name)
    ann = param.annotation.annotation if param.annotation is not None else None
    said = "has no annotation" if ann is None else f"is annotated `{code_of(ann)}`, which the tool does not read"
    classes = [c for c in _named_in(ann) if isinstance(file.meaning(c), Class)]
    write = f"`{name}: {classes[0]}`" if classes else \
        f"`{name}: int`, `{name}: pl.DT_INT32`, `{name}: pl.Tensor[...]` or the tiling-data class"
    if ann is not None:
        write += " (a string or a union annotation is not read)"
    return Cause("parameter", {"param": name, "said": said, "write": write}, param, f"`{name}` is declared here")


def _named_in(ann: cst.BaseExpression | None) -> list[str]:
    """The plain names an annotation mentions, inside a string annotation too (`"TD"`)."""
    if ann is None:
        return []
    out: list[str] = []
    for node in iter_nodes(ann):
        if isinstance(node, cst.Name):
            out.append(node.value)
        elif isinstance(node, cst.SimpleString):
            text = literal_value(node)
            if isinstance(text, str) and text.isidentifier():
                out.append(text)
    return out


def _item_pick(kernel: Kernel, bindings, value: cst.BaseExpression) -> Cause | None:
    """An item of a tuple or list of numbers picked by a value of the run (`(0, 0, 1)[d]`,
    or through a name bound to the tuple), in `value`."""
    for node in iter_nodes(value):
        if not (isinstance(node, cst.Subscript) and len(node.slice) == 1
                and isinstance(node.slice[0].slice, cst.Index)):
            continue
        display = _numbers(node.value, bindings)
        index = node.slice[0].slice.value
        if display is None or not any(kernel.kinds.get(n) not in (None, "const", "type") for n in names_in(index)):
            continue
        fields = {"pick": code_of(node), "index": code_of(index), "example": _example(display, code_of(index))}
        return Cause("item", fields, node, f"`{code_of(node)}` is picked here")
    return None


def _handle_pick(kernel: Kernel, bindings, value: cst.BaseExpression) -> Cause | None:
    """`value` is a pick of a tuple of tiles or tensors (`biases[h % 2]` of `biases = (b0, b1)`,
    bound in the loop around the pipeline loop): a handle, which no ctx field carries to a delayed
    stage under the name it is bound to (probe h122: the help asked for a dtype annotation, which
    the check then refused as a tile in a field of numbers)."""
    if not (isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index)):
        return None
    items = value.value
    if isinstance(items, cst.Name) and len(bindings.get(items.value, [])) == 1:
        items = bindings[items.value][0]
    if not (isinstance(items, (cst.Tuple, cst.List)) and items.elements and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name)
            and kernel.kinds.get(e.value.value) in (TILE, TENSOR) for e in items.elements)):
        return None
    fields = {"pick": code_of(value), "index": code_of(value.slice[0].slice.value)}
    return Cause("handle", fields, value, f"`{code_of(value)}` is picked here")


def _helper_call(file, value: cst.BaseExpression) -> Cause | None:
    """`value` is a call of one of the file's plain functions (`make_vec_group(0x0, [0, 1])`),
    whose result the tool does not read: the kernel's own `pl` call is what tells a tile group,
    a tile or a tensor from a number."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return None
    fn = file.helpers.get(value.func.value)
    if fn is None:
        return None
    bindings = _value_bindings(fn)
    made = next((code_of(call.func) for r in iter_nodes(fn.body, skip_functions=True) if isinstance(r, cst.Return)
                 for call in _returned_calls(r.value, bindings) if file.pl.path(call.func) is not None), None)
    fields = {"call": code_of(value), "function": fn.name.value, "made": f"`{made}(...)`" if made else ""}
    return Cause("helper", fields, value, f"`{code_of(value)}` is called here",
                 hint="helper" if made else "helper_value")


def _returned_calls(value: cst.BaseExpression | None, bindings) -> list[cst.Call]:
    """The calls a `return` gives back: the value itself, the items of a tuple, and what a name
    returned is bound to in the function (`g = pl.make_tile_group(...); return g`: probe h245)."""
    if isinstance(value, cst.Name):
        return [c for bound in bindings.get(value.value, []) for c in _returned_calls(bound, {})]
    if isinstance(value, (cst.Tuple, cst.List)):
        return [c for e in value.elements for c in _returned_calls(e.value, bindings)]
    return [value] if isinstance(value, cst.Call) else []


def _container(value: cst.BaseExpression) -> Cause | None:
    """`value` is a list, dict or set display (`box = [0.0]`): a container, which no ctx field
    carries; its items may travel."""
    if not isinstance(value, (cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return None
    kind = {cst.List: "list", cst.ListComp: "list", cst.Tuple: "tuple", cst.Dict: "dict",
            cst.DictComp: "dict"}.get(type(value), "set")
    return Cause("container", {"container": kind, "value": code_of(value)}, value, f"the {kind} is made here")


def _numbers(node: cst.BaseExpression, bindings) -> cst.Tuple | cst.List | None:
    """The tuple or list of number literals `node` is, or a name bound only to one is."""
    if isinstance(node, cst.Name) and len(bindings.get(node.value, [])) == 1:
        node = bindings[node.value][0]
    if isinstance(node, (cst.Tuple, cst.List)) and node.elements and all(
            isinstance(e, cst.Element) and _number(e.value) is not None for e in node.elements):
        return node
    return None


def _number(node: cst.BaseExpression) -> int | float | None:
    """The value of a number literal (`4`, `-1`, `0.5`), else None."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return literal_value(node)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _number(node.expression)
        return None if inner is None else -inner
    return None


def _example(display: cst.Tuple | cst.List, index: str) -> str:
    """The pick written as tests the check follows (`1 if d == 4 else 0` for `(0, 0, 0, 0, 1)[d]`),
    when the items are one value but for at most two; else a general form."""
    values = [_number(e.value) for e in display.elements if isinstance(e, cst.Element)]
    common, _ = Counter(values).most_common(1)[0]
    others = [(k, v) for k, v in enumerate(values) if v != common]
    if not 1 <= len(others) <= 2:
        return f"arithmetic of `{index}`"
    text = repr(common)
    for k, v in reversed(others):
        text = f"{v!r} if {index} == {k} else {text}"
    return f"`{text}`"

"""Mutation operators: each makes one plausible one-place edit of a kernel file.

A mutator takes the file's `Anatomy` and a `random.Random` and returns `(new text,
description)`, or None when it has nothing to edit in this file. Everything it picks comes
from the rng, so a mutant is a pure function of (file, mutator, rng seed). The weights bias
the mix toward edits a kernel author could plausibly make (ids, addresses, moved or
conditional ops), which the transpiler often accepts, over raw line damage, which it
mostly rejects.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable

from fuzzing.anatomy import ID_KEYWORDS, SECTIONS, Anatomy, blocks, first_line, is_docstring, is_pl_call

Mutation = tuple[str, str] | None
Mutator = Callable[[Anatomy, random.Random], Mutation]

COMPOUND = (ast.For, ast.While, ast.If, ast.With, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class NothingToMutate(Exception):
    """The file has nothing this mutator edits."""


def _choose(rng: random.Random, items):
    items = list(items)
    if not items:
        raise NothingToMutate
    return rng.choice(items)


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def _int_list(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _reindent(text: str, extra: str = "    ") -> str:
    return "".join(extra + line if line.strip() else line for line in text.splitlines(keepends=True))


def _statements(a: Anatomy, simple_only: bool = True) -> list[tuple[list[ast.stmt], ast.stmt]]:
    """(block, statement) for every statement of the stages and kernels, docstrings excepted."""
    out = []
    for fn in a.functions:
        for block in blocks(fn):
            for stmt in block:
                if is_docstring(stmt) or (simple_only and isinstance(stmt, COMPOUND)):
                    continue
                out.append((block, stmt))
    return out


def _args_in_order(call: ast.Call) -> list[ast.AST]:
    return sorted(list(call.args) + list(call.keywords), key=lambda n: (n.lineno, n.col_offset))


def _drop_arg_edit(a: Anatomy, call: ast.Call, arg: ast.AST) -> tuple[int, int, str]:
    """Delete one argument with its comma, keeping the layout of multi-line calls."""
    args = _args_in_order(call)
    i = args.index(arg)
    start, end = a.node_span(arg)
    if i + 1 < len(args):
        end = a.node_span(args[i + 1])[0]
    elif i > 0:
        start = a.node_span(args[i - 1])[1]
    return start, end, ""


# --- lines and statements -------------------------------------------------------------------


def delete_line(a: Anatomy, rng: random.Random) -> Mutation:
    first, last = a.region
    lines = [n for n in range(first, last + 1) if a.lines[n - 1].strip()]
    n = _choose(rng, lines)
    return a.edit((*a.lines_span(n, n), "")), f"deleted line {n} `{_short(a.lines[n - 1])}`"


def duplicate_line(a: Anatomy, rng: random.Random) -> Mutation:
    first, last = a.region
    lines = [n for n in range(first, last + 1) if a.lines[n - 1].strip()]
    n = _choose(rng, lines)
    start, end = a.lines_span(n, n)
    return a.edit((end, end, a.segment(start, end))), f"duplicated line {n} `{_short(a.lines[n - 1])}`"


def swap_lines(a: Anatomy, rng: random.Random) -> Mutation:
    first, last = a.region
    lines = [n for n in range(first, last) if a.lines[n - 1].strip() and a.lines[n].strip()]
    n = _choose(rng, lines)
    s1, e1 = a.lines_span(n, n)
    s2, e2 = a.lines_span(n + 1, n + 1)
    return a.edit((s1, e2, a.segment(s2, e2) + a.segment(s1, e1))), f"swapped lines {n} and {n + 1}"


def delete_statement(a: Anatomy, rng: random.Random) -> Mutation:
    block, stmt = _choose(rng, _statements(a))
    start, end = a.stmt_span(stmt)
    new = a.indent_of(stmt) + "pass\n" if len(block) == 1 else ""
    return a.edit((start, end, new)), f"deleted line {stmt.lineno} `{_short(a.segment(start, end))}`"


def duplicate_statement(a: Anatomy, rng: random.Random) -> Mutation:
    _, stmt = _choose(rng, _statements(a))
    start, end = a.stmt_span(stmt)
    return a.edit((end, end, a.segment(start, end))), f"duplicated line {stmt.lineno} `{_short(a.segment(start, end))}`"


def swap_statements(a: Anatomy, rng: random.Random) -> Mutation:
    pairs = [(block[i], block[i + 1]) for fn in a.functions for block in blocks(fn)
             for i in range(len(block) - 1) if not is_docstring(block[i])]
    s1, s2 = _choose(rng, pairs)
    (b1, e1), (b2, e2) = a.stmt_span(s1), a.stmt_span(s2)
    return (a.edit((b1, e2, a.segment(b2, e2) + a.segment(e1, b2) + a.segment(b1, e1))),
            f"swapped line {s1.lineno} `{_short(a.segment(b1, e1), 30)}` "
            f"with line {s2.lineno} `{_short(a.segment(b2, e2), 30)}`")


def _assigned(stmts: list[ast.stmt]) -> set[str]:
    return {n.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def move_op(a: Anatomy, rng: random.Random) -> Mutation:
    """Move an op of a stage before another statement of its block (not only the next one), to a
    place where every name it uses is still bound: the kernel stays runnable, the order changes."""
    moves = [(block, i) for stage in a.stages for block in blocks(stage)
             for i, stmt in enumerate(block) if is_pl_call(stmt)]
    block, i = _choose(rng, moves)
    uses = {n.id for n in ast.walk(block[i]) if isinstance(n, ast.Name)} & _assigned(block)
    targets = [j for j in range(len(block) + 1)
               if j not in (i, i + 1) and not (j < len(block) and is_docstring(block[j]))
               and uses <= _assigned(block[:j])]
    j = _choose(rng, targets)
    stmt = block[i]
    start, end = a.stmt_span(stmt)
    text = a.segment(start, end)
    at = a.stmt_span(block[j])[0] if j < len(block) else a.stmt_span(block[-1])[1]
    where = f"before line {block[j].lineno}" if j < len(block) else "to the end of its block"
    return a.edit((start, end, ""), (at, at, text)), f"moved line {stmt.lineno} `{_short(text)}` {where}"


def conditional_op(a: Anatomy, rng: random.Random) -> Mutation:
    """Wrap an op of a stage in `if k % 2 == 0:` or `if k > 0:` (k: the loop index it gets)."""
    ops = [(stage, stmt) for stage in a.stages for block in blocks(stage) for stmt in block if is_pl_call(stmt)]
    stage, stmt = _choose(rng, ops)
    var = a.stage_param_for_loop_var(stage)
    cond = _choose(rng, [f"{var} % 2 == 0", f"{var} > 0"])
    start, end = a.stmt_span(stmt)
    text = a.segment(start, end)
    new = f"{a.indent_of(stmt)}if {cond}:\n{_reindent(text)}"
    return a.edit((start, end, new)), f"wrapped line {stmt.lineno} `{_short(text)}` in `if {cond}:`"


# --- expressions --------------------------------------------------------------------------


def change_literal(a: Anatomy, rng: random.Random) -> Mutation:
    first, last = a.region
    scopes = list(a.functions) + [s for s in a.tree.body if isinstance(s, ast.Assign) and s.lineno < first]
    nodes = [n for scope in scopes for n in ast.walk(scope)
             if isinstance(n, ast.Constant) and type(n.value) is int and hasattr(n, "end_col_offset")]
    node = _choose(rng, nodes)
    v = node.value
    options = sorted({v + 1, v - 1, v * 2, v // 2, 0, 1} - {v})
    new = _choose(rng, [o for o in options if 0 <= o <= 1 << 20])
    old_text = a.source_of(node)
    new_text = hex(new) if old_text.lower().startswith("0x") else str(new)
    return a.edit((*a.node_span(node), new_text)), f"line {node.lineno}: literal {old_text} -> {new_text}"


def change_identifier(a: Anatomy, rng: random.Random) -> Mutation:
    fn = _choose(rng, a.functions)
    local = {arg.arg for arg in fn.args.args}
    local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in local]
    if not uses or len(local) < 2:
        return None
    node = _choose(rng, uses)
    # prefer a name of the same family (`*_db` for `*_db`, a tile for a tile)
    family = [n for n in sorted(local - {node.id}) if n.endswith("_db") == node.id.endswith("_db")]
    new = _choose(rng, family or sorted(local - {node.id}))
    return a.edit((*a.node_span(node), new)), f"line {node.lineno}: `{node.id}` -> `{new}`"


def drop_argument(a: Anatomy, rng: random.Random) -> Mutation:
    calls = [n for fn in a.functions for stmt in fn.body for n in ast.walk(stmt)
             if isinstance(n, ast.Call) and (n.args or n.keywords)]
    call = _choose(rng, calls)
    arg = _choose(rng, _args_in_order(call))
    what = a.source_of(arg)
    return (a.edit(_drop_arg_edit(a, call, arg)),
            f"line {arg.lineno}: dropped argument `{_short(what, 40)}` of `{_short(ast.unparse(call.func), 30)}`")


def swap_section(a: Anatomy, rng: random.Random) -> Mutation:
    attrs = [n for k in a.kernels for n in ast.walk(k) if isinstance(n, ast.Attribute) and n.attr in SECTIONS]
    node = _choose(rng, attrs)
    new = SECTIONS[1 - SECTIONS.index(node.attr)]
    end = a.node_span(node)[1]
    return a.edit((end - len(node.attr), end, new)), f"line {node.lineno}: {node.attr} -> {new}"


# --- tile groups ----------------------------------------------------------------------------


def edit_ids(a: Anatomy, rng: random.Random) -> Mutation:
    """fwd_ids / bwd_ids / mutex_ids: drop one, change one, share another group's, or remove."""
    choices = [(g, kw) for g in a.groups for kw in ID_KEYWORDS if kw in g.keywords]
    group, kw = _choose(rng, choices)
    node = group.keywords[kw]
    values = a.int_list(node.value)
    others = [(g, k, a.int_list(g.keywords[k].value)) for g in a.groups if g is not group
              for k in ID_KEYWORDS if k in g.keywords and (k == "mutex_ids") == (kw == "mutex_ids")]
    others = [(g, k, v) for g, k, v in others if v]
    ops = ["remove"] + (["change", "change"] if values else []) + (["drop"] if values and len(values) > 1 else []) \
        + (["share", "share"] if others else [])
    op = _choose(rng, ops)
    where = f"line {node.lineno}: {group.name}.{kw}"
    if op == "remove":
        return a.edit(_drop_arg_edit(a, group.call, node)), f"{where} removed"
    if op == "drop":
        i = rng.randrange(len(values))
        new = values[:i] + values[i + 1:]
    elif op == "change":
        i = rng.randrange(len(values))
        used = sorted({v for _, _, vals in others for v in vals} - {values[i]})
        pool = used if used and rng.random() < 0.5 else [v for v in range(16) if v != values[i]]
        new = values[:i] + [_choose(rng, pool)] + values[i + 1:]
    else:
        g, k, new = _choose(rng, others)
        where += f" shared with {g.name}.{k}"
    return (a.edit((*a.node_span(node.value), _int_list(new))),
            f"{where}: {_short(a.source_of(node.value))} -> {_int_list(new)}")


def edit_address(a: Anatomy, rng: random.Random) -> Mutation:
    """Move a group's `addrs=` into, onto or across another group's range of the same memory."""
    movable = [g for g in a.groups if "addrs" in g.keywords and g.ranges and g.memory]
    pairs = [(g, h) for g in movable for h in movable if h is not g and h.memory == g.memory]
    if not pairs:
        return None
    g, h = _choose(rng, pairs)
    half = max(32, g.slot_bytes // 2 // 32 * 32)
    candidates = {
        "into": h.start + (h.end - h.start) // 2 // 32 * 32,
        "onto": h.start,
        "across the end of": h.end - half,
        "across the start of": h.start - half,
    }
    options = [(how, addr) for how, addr in candidates.items() if addr >= 0 and addr != g.start]
    if not options:
        return None
    how, addr = _choose(rng, options)
    node = g.keywords["addrs"].value
    return a.edit((*a.node_span(node), hex(addr))), \
        f"line {node.lineno}: {g.name}.addrs {a.source_of(node)} -> {hex(addr)} ({how} {h.name})"


def alias_tile(a: Anatomy, rng: random.Random) -> Mutation:
    """Move a `pl.make_tile(..., addr=...)` onto another made tile's address or a group's first
    slot: an entry of a tuple of tiles (or a group slot) no longer alone in its memory, which the
    check must then not treat as interchangeable with the others."""
    tiles, targets = [], []
    for kernel in a.kernels:
        for node in ast.walk(kernel):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("make_tile"):
                kw = {k.arg: k for k in node.keywords if k.arg}
                if "addr" in kw:
                    tiles.append(kw["addr"].value)
                    targets.append(a.source_of(kw["addr"].value))
    for g in a.groups:
        addrs = g.keywords.get("addrs")
        if addrs is not None:
            first = addrs.value.elts[0] if isinstance(addrs.value, (ast.List, ast.Tuple)) and addrs.value.elts \
                else addrs.value
            targets.append(a.source_of(first))
    pairs = [(node, target) for node in tiles for target in targets if target != a.source_of(node)]
    node, target = _choose(rng, pairs)
    return a.edit((*a.node_span(node), target)), f"line {node.lineno}: addr {a.source_of(node)} -> {target}"


# --- stage calls ----------------------------------------------------------------------------


def move_stage_call(a: Anatomy, rng: random.Random) -> Mutation:
    """Move one statement of a pipeline loop body (a section block with its stage) elsewhere in it."""
    loop = _choose(rng, a.loops)
    body = loop.node.body
    if len(body) < 2:
        return None
    holders = [i for i, stmt in enumerate(body) if any(s is stmt or s in ast.walk(stmt) for s, _ in loop.calls)]
    i = _choose(rng, holders)
    j = _choose(rng, [j for j in range(len(body) + 1) if j not in (i, i + 1)])
    start, end = a.stmt_span(body[i])
    text = a.segment(start, end)
    at = a.stmt_span(body[j])[0] if j < len(body) else a.stmt_span(body[-1])[1]
    where = f"before line {first_line(body[j])}" if j < len(body) else "to the end of the loop body"
    return a.edit((start, end, ""), (at, at, text)), f"moved the block at line {first_line(body[i])} {where}"


def wrap_stage_call(a: Anatomy, rng: random.Random) -> Mutation:
    """Wrap a stage call in `if k % 2 == 0:` or `if k > 0:` (k: the loop variable)."""
    loop = _choose(rng, a.loops)
    stmt, call = _choose(rng, loop.calls)
    cond = _choose(rng, [f"{loop.var} % 2 == 0", f"{loop.var} > 0"])
    start, end = a.stmt_span(stmt)
    new = f"{a.indent_of(stmt)}if {cond}:\n{_reindent(a.segment(start, end))}"
    return a.edit((start, end, new)), f"wrapped the call of {call.func.id} (line {stmt.lineno}) in `if {cond}:`"


# --- values known only at run time -------------------------------------------------------

#: Prefix of the scalar kernel parameters these mutators add; the oracle runs a mutant that
#: has them at several values (`oracle.RUNTIME_VALUES`).
RUNTIME_PREFIX = "fz_"


def _add_kernel_scalar(a: Anatomy, kernel: ast.FunctionDef, name: str) -> tuple[int, int, str]:
    """An edit appending `name: pl.DT_INT32` to the kernel's parameters."""
    params = kernel.args.args
    if not params:
        raise NothingToMutate
    end = a.node_span(params[-1])[1]
    return end, end, f", {name}: pl.DT_INT32"


def _is_tensor(param: ast.arg) -> bool:
    return param.annotation is not None and ast.unparse(param.annotation).startswith("pl.Tensor[")


def _add_kernel_tensor(a: Anatomy, kernel: ast.FunctionDef, declaration: str) -> tuple[int, int, str]:
    """An edit adding the parameter `declaration` after the kernel's last GM tensor, where
    production kernels have their tensors (scalars and tiling data, which goes last, follow)."""
    params = kernel.args.args
    tensors = [p for p in params if _is_tensor(p)]
    if not params:
        raise NothingToMutate
    end = a.node_span((tensors or params)[-1])[1]
    return end, end, f", {declaration}"


def _at_kernel_top(a: Anatomy, kernel: ast.FunctionDef, lines: list[str]) -> tuple[int, int, str]:
    """An edit inserting `lines` as the first statements of the kernel body (after its docstring)."""
    body = [stmt for stmt in kernel.body if not is_docstring(stmt)]
    if not body:
        raise NothingToMutate
    at = a.stmt_span(body[0])[0]
    indent = a.indent_of(body[0])
    return at, at, "".join(f"{indent}{line}\n" for line in lines)


def _kernel_of(a: Anatomy, node: ast.AST) -> ast.FunctionDef:
    for k in a.kernels:
        if k.lineno <= node.lineno <= k.end_lineno:
            return k
    raise NothingToMutate


def _stage_calls(a: Anatomy) -> list[tuple]:
    """(loop, call, stage) for every stage call of a pipeline loop that a new last argument
    can be appended to (positional arguments only, a stage with parameters)."""
    out = []
    for loop in a.loops:
        for _stmt, call in loop.calls:
            stage = next((s for s in a.stages if s.name == call.func.id), None)
            if stage is not None and stage.args.args and not call.keywords and not any(
                    isinstance(x, ast.Starred) for x in call.args):
                out.append((loop, call, stage))
    return out


def _pass_scalar(a: Anatomy, loop, call: ast.Call, stage: ast.FunctionDef, name: str) -> list:
    """Edits that make `name` a new scalar parameter of the kernel, passed on by `call` to
    `stage` as its new last parameter."""
    last_param = a.node_span(stage.args.args[-1])[1]
    last_arg = a.node_span(call.args[-1])[1] if call.args else a.node_span(call)[1] - 1
    return [(last_param, last_param, f", {name}"), (last_arg, last_arg, f", {name}" if call.args else name),
            _add_kernel_scalar(a, _kernel_of(a, loop.node), name)]


def _offset_sites(a: Anatomy) -> list[tuple]:
    """(loop, call, stage, offset) for every GM offset of a stage's `pl.load`/`pl.store`."""
    sites = []
    for loop, call, stage in _stage_calls(a):
        for node in ast.walk(stage):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("load", "store") and len(node.args) >= 3
                    and isinstance(node.args[2], ast.List) and node.args[2].elts):
                sites += [(loop, call, stage, el) for el in node.args[2].elts]
    return sites


def scalar_offset(a: Anatomy, rng: random.Random) -> Mutation:
    """Add a scalar kernel parameter to one GM offset of a stage's `pl.load`/`pl.store`: the
    stage gets it as a new last parameter, its call passes it on."""
    loop, call, stage, el = _choose(rng, _offset_sites(a))
    name = RUNTIME_PREFIX + "off"
    sign = _choose(rng, ["+", "-"])
    start, end = a.node_span(el)
    edits = [(start, end, f"({a.segment(start, end)}) {sign} {name}"), *_pass_scalar(a, loop, call, stage, name)]
    return a.edit(*edits), f"offset `{_short(a.segment(start, end), 30)}` {sign} {name} in {stage.name}"


def gm_offset(a: Anatomy, rng: random.Random) -> Mutation:
    """Add a value read from GM to one GM offset of a stage's `pl.load`/`pl.store`, as a
    grouped matmul offsets its rows by where its group starts: a new int32 tensor `fz_offs` is
    read at the kernel's top (`fz_offs[0]` or `pl.getval(fz_offs, 0)`) and passed on to the
    stage as its new last parameter (the oracle fills `fz_offs` with each of its run-time values)."""
    loop, call, stage, el = _choose(rng, _offset_sites(a))
    tensor, name = RUNTIME_PREFIX + "offs", RUNTIME_PREFIX + "off"
    kernel = _kernel_of(a, loop.node)
    read = _choose(rng, ["{t}[0]", "pl.getval({t}, 0)"]).format(t=tensor)
    sign = _choose(rng, ["+", "-"])
    start, end = a.node_span(el)
    last_param = a.node_span(stage.args.args[-1])[1]
    last_arg = a.node_span(call.args[-1])[1] if call.args else a.node_span(call)[1] - 1
    edits = [(start, end, f"({a.segment(start, end)}) {sign} {name}"), (last_param, last_param, f", {name}"),
             (last_arg, last_arg, f", {name}" if call.args else name),
             _add_kernel_tensor(a, kernel, f"{tensor}: pl.Tensor[[1], pl.DT_INT32]"),
             _at_kernel_top(a, kernel, [f"{name} = {read}"])]
    return a.edit(*edits), f"offset `{_short(a.segment(start, end), 30)}` {sign} {read} in {stage.name}"


def scalar_branch(a: Anatomy, rng: random.Random) -> Mutation:
    """Wrap an op of a stage in a test on a new scalar kernel parameter whose outcome changes
    at a value the soundness check's trials (0, 1, 2, 3, 5, 11) never take and the oracle's
    run-time values do (`fz_d == 7`, `fz_d % 8 == 7`, `fz_d == 4`): the check must split the
    parameter's values at the test, not sample them."""
    sites = [(loop, call, stage, stmt) for loop, call, stage in _stage_calls(a)
             for block in blocks(stage) for stmt in block if is_pl_call(stmt)]
    loop, call, stage, stmt = _choose(rng, sites)
    name = RUNTIME_PREFIX + "d"
    cond = _choose(rng, [f"{name} == 7", f"{name} % 8 == 7", f"{name} == 4", f"{name} != 4"])
    start, end = a.stmt_span(stmt)
    text = a.segment(start, end)
    edits = [(start, end, f"{a.indent_of(stmt)}if {cond}:\n{_reindent(text)}"),
             *_pass_scalar(a, loop, call, stage, name)]
    return a.edit(*edits), f"wrapped line {stmt.lineno} `{_short(text)}` in `if {cond}:` ({name} a new parameter)"


def _tile_stores(a: Anatomy) -> list[tuple]:
    """(loop, call, stage, store) for every `pl.store(tensor, tile, offsets)` of a stage whose
    tile argument is a plain name."""
    out = []
    for loop, call, stage in _stage_calls(a):
        for node in ast.walk(stage):
            if (_is_pl(node, "store") and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Name)):
                out.append((loop, call, stage, node))
    return out


def _statement_of(stage: ast.FunctionDef, node: ast.AST) -> ast.stmt:
    return next(s for s in ast.walk(stage) if isinstance(s, ast.Expr) and s.value is node)


def valid_from_scalar(a: Anatomy, rng: random.Random) -> Mutation:
    """Before a stage's `pl.store` of a tile, set the tile's valid rows (or columns) from a new
    scalar kernel parameter (`fz_v + 1`, so that every run-time value of the oracle is a
    valid count for a tile of 8 rows or more): the store moves as much as the run says."""
    loop, call, stage, store = _choose(rng, _tile_stores(a))
    name = RUNTIME_PREFIX + "v"
    tile = store.args[1].id
    stmt = _statement_of(stage, store)
    start, _ = a.stmt_span(stmt)
    shape = _choose(rng, [f"[{name} + 1, {tile}.shape[1]]", f"[min({name} + 1, {tile}.shape[0]), {tile}.shape[1]]",
                          f"[{tile}.shape[0], {name} + 1]"])
    line = f"{a.indent_of(stmt)}pl.set_validshape({tile}, {shape})\n"
    edits = [(start, start, line), *_pass_scalar(a, loop, call, stage, name)]
    return a.edit(*edits), f"`{tile}` stored at line {store.lineno} with valid shape {shape} ({name} a new parameter)"


def atomic_store(a: Anatomy, rng: random.Random) -> Mutation:
    """Make a stage's `pl.store` an atomic addition into GM (`atomic=pl.AtomicType.AtomicAdd`),
    once or twice in a row: what it leaves depends on every earlier write of those elements,
    in order."""
    _loop, _call, stage, store = _choose(rng, [site for site in _tile_stores(a)
                                              if not any(k.arg == "atomic" for k in site[3].keywords)])
    start, end = a.node_span(store)
    end -= 1  # before the closing parenthesis
    comma = "" if a.segment(start, end).rstrip().endswith(",") else ", "
    edits = [(end, end, f"{comma}atomic=pl.AtomicType.AtomicAdd")]
    twice = rng.random() < 0.5
    if twice:  # the tile added twice: the second addition reads the first
        stmt = _statement_of(stage, store)
        line_start, line_end = a.stmt_span(stmt)
        edits.append((line_end, line_end, a.segment(line_start, end) + f"{comma}atomic=pl.AtomicType.AtomicAdd)\n"))
    return a.edit(*edits), \
        f"the store at line {store.lineno} (in {stage.name}) adds atomically{', twice' if twice else ''}"


def trip_from_scalar(a: Anatomy, rng: random.Random) -> Mutation:
    """Make a pipeline loop's trip count depend on a scalar kernel parameter:
    `pl.range(lo, min(hi, n))`, `max(0, hi - n)`, or a multiple of a clamp of it (`min(hi,
    max(n, 0) * 2)`, `min(hi, 2 * max(0, n) + 1)`: counts of one residue class, where `hi` is of it)."""
    loops = [lp for lp in a.loops if isinstance(lp.node.iter, ast.Call) and 1 <= len(lp.node.iter.args) <= 3]
    loop = _choose(rng, loops)
    args = loop.node.iter.args
    hi = args[0] if len(args) == 1 else args[1]
    name = RUNTIME_PREFIX + "n"
    start, end = a.node_span(hi)
    bound = _choose(rng, ["min({hi}, {n})", "min({n}, {hi})", "max(0, {hi} - {n})", "min({hi}, max({n}, 0) * 2)",
                          "min({hi}, 2 * max(0, {n}) + 1)"])
    edits = [(start, end, bound.format(hi=a.segment(start, end), n=name)),
             _add_kernel_scalar(a, _kernel_of(a, loop.node), name)]
    return a.edit(*edits), f"the loop at line {loop.node.lineno} runs at most {name} times"


def rebind_module_name(a: Anatomy, rng: random.Random) -> Mutation:
    """Rebind a module-level integer constant after its definition, by `+=` or under an `if`."""
    sites = [stmt for stmt in a.tree.body if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
             and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Constant)
             and type(stmt.value.value) is int and stmt.value.value > 1]
    stmt = _choose(rng, sites)
    name = stmt.targets[0].id
    delta = _choose(rng, [1, 2, stmt.value.value // 2])
    line = _choose(rng, [f"{name} += {delta}\n", f"if {name} > 1:\n    {name} -= {delta}\n",
                         f"{name} = {name} * 2 if {name} < 0 else {name} - {delta}\n"])
    end = a.stmt_span(stmt)[1]
    at = end + 1 if a.data[end:end + 1] == b"\n" else end
    return a.edit((at, at, line)), f"rebound {name} after line {stmt.lineno}: {line.strip().splitlines()[0]}"


def lengthen_loop(a: Anatomy, rng: random.Random) -> Mutation:
    """Make a loop long: multiply a module constant that a kernel's `pl.range` or a GM tensor's
    shape reads by 5 to 7, so that trip counts pass the soundness check's bound and, with a
    lowered long-run budget (`fuzz.py --long-run`), it proves them at representative counts
    while the emulator runs every iteration."""
    used = {n.id for k in a.kernels for n in ast.walk(k) if isinstance(n, ast.Name)}
    sites = [stmt for stmt in a.tree.body if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
             and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in used
             and isinstance(stmt.value, ast.Constant) and type(stmt.value.value) is int
             and 1 < stmt.value.value <= 1024 and stmt.targets[0].id.isupper()
             and any(word in stmt.targets[0].id for word in ("N", "SEQ", "ITER", "ROWS", "TILES"))]
    stmt = _choose(rng, sites)
    factor = _choose(rng, [5, 6, 7])
    start, end = a.node_span(stmt.value)
    name = stmt.targets[0].id
    return a.edit((start, end, str(stmt.value.value * factor))), f"{name} x{factor} (line {stmt.lineno})"


def shape_dynamic(a: Anatomy, rng: random.Random) -> Mutation:
    """Make a kernel's sizes run-time ones, as production kernels have them: the tensors sized
    `N * X` by the module constant `N` that a pipeline loop counts to become `pl.DYNAMIC`, and
    the loop counts to `t.shape[0] // X` instead (the oracle launches it at several sizes)."""
    sites = []
    for loop in a.loops:
        it = loop.node.iter
        if not (isinstance(it, ast.Call) and 1 <= len(it.args) <= 2 and isinstance(it.args[-1], ast.Name)):
            continue
        name = it.args[-1].id
        kernel = _kernel_of(a, loop.node)
        dims = []
        for param in kernel.args.args:
            ann = param.annotation
            if not (isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and ann.slice.elts
                    and isinstance(ann.slice.elts[0], ast.List) and ann.slice.elts[0].elts):
                continue
            first = ann.slice.elts[0].elts[0]
            if (isinstance(first, ast.BinOp) and isinstance(first.op, ast.Mult) and isinstance(first.left, ast.Name)
                    and first.left.id == name):
                dims.append((param.arg, first))
        factors = {a.segment(*a.node_span(d.right)) for _, d in dims}
        if dims and len(factors) == 1:
            sites.append((loop, it.args[-1], dims, factors.pop()))
    loop, stop, dims, factor = _choose(rng, sites)
    counted = _choose(rng, [t for t, _ in dims])  # any of them: they are launched alike
    edits = [(*a.node_span(d), "pl.DYNAMIC") for _, d in dims]
    edits.append((*a.node_span(stop), f"{counted}.shape[0] // {factor}"))
    return a.edit(*edits), f"{', '.join(t for t, _ in dims)} of pl.DYNAMIC rows; the loop at line " \
                           f"{loop.node.lineno} counts to {counted}.shape[0] // {factor}"


def trip_from_gm(a: Anatomy, rng: random.Random) -> Mutation:
    """Make a pipeline loop's trip count a value read from GM, as production kernels have it:
    a new int32 tensor `fz_lens` is read at the kernel's top (`fz_lens[0]` or
    `pl.getval(fz_lens, 0)`) and bounds the loop, alone or as `trip_from_scalar` does (the
    oracle runs the mutant with `fz_lens` filled with each of its run-time values)."""
    loops = [lp for lp in a.loops if isinstance(lp.node.iter, ast.Call) and 1 <= len(lp.node.iter.args) <= 3]
    loop = _choose(rng, loops)
    args = loop.node.iter.args
    hi = args[0] if len(args) == 1 else args[1]
    tensor, count = RUNTIME_PREFIX + "lens", RUNTIME_PREFIX + "len"
    kernel = _kernel_of(a, loop.node)
    read = _choose(rng, ["{t}[0]", "pl.getval({t}, 0)"]).format(t=tensor)
    start, end = a.node_span(hi)
    bound = _choose(rng, ["{n}", "min({hi}, {n})", "min({n}, {hi})", "max(0, {hi} - {n})"])
    edits = [(start, end, bound.format(hi=a.segment(start, end), n=count)),
             _add_kernel_tensor(a, kernel, f"{tensor}: pl.Tensor[[1], pl.DT_INT32]"),
             _at_kernel_top(a, kernel, [f"{count} = {read}"])]
    return a.edit(*edits), f"the loop at line {loop.node.lineno} runs to " \
                           f"{bound.format(hi=_short(a.segment(start, end), 30), n=read)}"


def _is_pl(node: ast.AST, name: str) -> bool:
    """`node` is a call of `pl.<name>`."""
    return isinstance(node, ast.Call) and ast.unparse(node.func) == f"pl.{name}"


def _uses(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _store_offsets(node: ast.AST) -> list[ast.expr]:
    """The GM offset of every `pl.store(tensor, tile, offsets)` under `node`."""
    return [call.args[2] for call in ast.walk(node) if _is_pl(call, "store") and len(call.args) >= 3]


def _loop_stores(a: Anatomy, loop) -> list[tuple[ast.expr, set[str]]]:
    """(GM offset, names that carry the loop variable there) of every store the loop makes:
    in its body, and in each stage it calls, where the loop variable arrives as the
    parameters whose argument uses it."""
    out = [(offset, {loop.var}) for stmt in loop.node.body for offset in _store_offsets(stmt)]
    stages = {s.name: s for s in a.stages}
    for _, call in loop.calls:
        stage = stages.get(call.func.id)
        if stage is None:
            continue
        params = [p.arg for p in stage.args.args]
        carried = {p for p, arg in zip(params, call.args, strict=False) if _uses(arg, {loop.var})}
        carried |= {kw.arg for kw in call.keywords if kw.arg and _uses(kw.value, {loop.var})}
        out += [(offset, carried) for offset in _store_offsets(stage)]
    return out


def _splits_over_blocks(a: Anatomy, loop) -> bool:
    """Whether giving each block every `num_cores`-th iteration of `loop` splits its work:
    it counts from 0 by 1, and every GM store it makes is at an offset that moves with the
    loop variable (so the blocks write different rows)."""
    it = loop.node.iter
    if not (_is_pl(it, "range") and not it.keywords and len(it.args) in (1, 2)):
        return False
    if len(it.args) == 2 and not (isinstance(it.args[0], ast.Constant) and it.args[0].value == 0):
        return False
    stores = _loop_stores(a, loop)
    return bool(stores) and all(_uses(offset, names) for offset, names in stores)


def _stores_elsewhere(a: Anatomy, kernel: ast.FunctionDef, loops: list) -> bool:
    """Whether the kernel stores to GM outside `loops`: in its body, or in a stage it calls
    there. Every block would make those stores alike, so the blocks would race on them."""
    stages = {s.name: s for s in a.stages}
    inside = {id(loop.node) for loop in loops}

    def walk(node: ast.AST) -> bool:
        if id(node) in inside:
            return False
        if _is_pl(node, "store") or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                     and node.func.id in stages and _store_offsets(stages[node.func.id])):
            return True
        return any(walk(child) for child in ast.iter_child_nodes(node))

    return any(walk(stmt) for stmt in kernel.body)


def _per_core_sites(a: Anatomy, split: bool = True) -> list[tuple[ast.FunctionDef, list]]:
    """(kernel, loops to spread over the blocks): one loop, or every outermost pipeline loop
    of a kernel with several, where each splits over blocks and the kernel stores nothing
    outside them (with `split` False: where that fails, so that every block stores something at
    the same place). A kernel that already takes a block index is left alone."""
    sites = []
    for kernel in a.kernels:
        names = {n.id for n in ast.walk(kernel) if isinstance(n, ast.Name)} | {p.arg for p in kernel.args.args}
        if {"core_id", "num_cores"} & names or any(_is_pl(n, "get_block_idx") for n in ast.walk(kernel)):
            continue
        loops = [lp for lp in a.loops if lp.node in ast.walk(kernel)]
        nested = {id(n) for lp in loops for stmt in lp.node.body for n in ast.walk(stmt)}
        choices = [[lp] for lp in loops] + [[lp for lp in loops if id(lp.node) not in nested]]
        for chosen in choices:
            if not chosen or chosen in (c for _, c in sites):
                continue
            splits = all(_splits_over_blocks(a, lp) for lp in chosen) and not _stores_elsewhere(a, kernel, chosen)
            if splits == split:
                sites.append((kernel, chosen))
    return sites


def per_core_loop(a: Anatomy, rng: random.Random) -> Mutation:
    """Spread a kernel's pipeline loop over the blocks, as production kernels do: block
    `core_id` runs iterations `core_id, core_id + num_cores, ...` (`pl.range(core_id, N,
    num_cores)`), with the block index and count read at the kernel's top. In a cube/vector
    kernel the block index is `pl.get_block_idx() // pl.get_subblock_num()` (PTO075: the
    vector cores count apart). A kernel that stores from several loops has them all spread
    alike, so that no store is made by every block. The oracle launches such a mutant on
    several block counts."""
    return _spread(a, rng, *_choose(rng, _per_core_sites(a)))


def per_core_loop_shared(a: Anatomy, rng: random.Random) -> Mutation:
    """`per_core_loop` where the blocks do not split the stores: one loop of several spread,
    or a loop whose stores do not move with its variable, so that every block stores something
    at the same place (a race between blocks, which the check must refuse)."""
    return _spread(a, rng, *_choose(rng, _per_core_sites(a, split=False)))


def chunk_loop(a: Anatomy, rng: random.Random) -> Mutation:
    """Give each block a contiguous chunk of a pipeline loop's iterations, the last block the
    remainder, as production kernels do: `chunk = (N + num_cores - 1) // num_cores`, `start =
    core_id * chunk`, then `pl.range(start, min(start + chunk, N))`, or a loop over the block's
    task count `pl.range(0, min(chunk, N - start))` whose variable is added to the start (`N` the
    loop's count, or in three such chunks of ten a new scalar parameter `fz_n`); or a
    balanced split (`start = core_id * base + min(core_id, rem)`, `base + 1` tasks below `rem`),
    or the last block taking the rest, or a floor split (`core_id * N // num_cores` to `(core_id
    + 1) * N // num_cores`). The loop is a per-core range (`pl.range(core_id, N,
    num_cores)`) or a loop of a kernel that takes no block index yet (as `per_core_loop`
    chooses). One mutant in five lets each chunk reach one iteration into the next block's (a
    race between blocks the check must refuse)."""
    sites = [(k, lp, None) for k, (lp,) in ((k, lps) for k, lps in _per_core_sites(a) if len(lps) == 1)]
    sites += [(_kernel_of(a, lp.node), lp, lp.node.iter.args[2]) for lp in a.loops if _per_core_range(lp.node)]
    kernel, loop, count = _choose(rng, sites)
    node = loop.node
    if not isinstance(node.target, ast.Name) or not node.body:
        raise NothingToMutate
    edits = []
    if count is None:  # the block index and count read at the kernel's top, as `per_core_loop` does
        sections = {ast.unparse(n.context_expr.func) for w in ast.walk(kernel) if isinstance(w, ast.With)
                    for n in w.items if isinstance(n.context_expr, ast.Call)}
        index = "pl.get_block_idx() // pl.get_subblock_num()" if {f"pl.{s}" for s in SECTIONS} <= sections \
            else "pl.get_block_idx()"
        edits.append(_at_kernel_top(a, kernel, [f"core_id = {index}", "num_cores = pl.get_block_num()"]))
    blocks = "num_cores" if count is None else a.source_of(count)
    args = node.iter.args
    stop = a.source_of(args[1] if len(args) > 1 else args[0])
    extra = " + 1" if rng.random() < 0.2 else ""
    at = a.stmt_span(node)[0]
    indent = a.indent_of(node)
    form = rng.random()
    if form < 0.3:  # a balanced split, or the last block taking the rest: a count chosen by the block
        if form < 0.15:
            head = (f"blk_base = {stop} // {blocks}\nblk_rem = {stop} % {blocks}\n"
                    "blk_start = core_id * blk_base + min(core_id, blk_rem)\n"
                    f"blk_cnt = blk_base{extra or ' + 1'} if core_id {'<=' if extra else '<'} blk_rem else blk_base\n")
        else:
            head = (f"blk_chunk = {stop} // {blocks}\nblk_start = core_id * blk_chunk\n"
                    f"blk_cnt = blk_chunk if core_id < {blocks} - {2 if extra else 1} else {stop} - blk_start\n")
        edits.append((at, at, "".join(f"{indent}{line}\n" for line in head.splitlines())))
        bounds = "0, blk_cnt"
        edits.append((a.node_span(node.target)[0], a.node_span(node.target)[1], "blk_j"))
        edits.append((a.node_span(args[0])[0], a.node_span(args[-1])[1], bounds))
        first = a.stmt_span(node.body[0])[0]
        edits.append((first, first, f"{a.indent_of(node.body[0])}{node.target.id} = blk_start + blk_j\n"))
        return a.edit(*edits), (f"the loop at line {node.lineno} runs over each block's share: "
                                f"{head.splitlines()[-1]}")
    if form < 0.45:  # a floor split: block b takes [b * N // B, (b + 1) * N // B)
        edits.append((at, at, f"{indent}blk_start = core_id * {stop} // {blocks}\n"
                              f"{indent}blk_end = (core_id + 1) * {stop} // {blocks}{extra}\n"))
        edits.append((a.node_span(args[0])[0], a.node_span(args[-1])[1], "blk_start, blk_end"))
        return a.edit(*edits), (f"the loop at line {node.lineno} runs over each block's floor split: "
                                f"pl.range(core_id * {stop} // {blocks}, (core_id + 1) * {stop} // {blocks}{extra})")
    if rng.random() < 0.3:  # the task count a scalar of the host's (`n: pl.DT_INT32`), as production kernels take it
        stop = RUNTIME_PREFIX + "n"
        edits.append(_add_kernel_scalar(a, kernel, stop))
    edits.append((at, at, f"{indent}blk_chunk = ({stop} + {blocks} - 1) // {blocks}\n"
                          f"{indent}blk_start = core_id * blk_chunk\n"))
    if rng.random() < 0.5:
        bounds = f"blk_start, min(blk_start + blk_chunk{extra}, {stop})"
        edits.append((a.node_span(args[0])[0], a.node_span(args[-1])[1], bounds))
    else:
        bounds = f"0, min(blk_chunk{extra}, {stop} - blk_start)"
        edits.append((a.node_span(node.target)[0], a.node_span(node.target)[1], "blk_j"))
        edits.append((a.node_span(args[0])[0], a.node_span(args[-1])[1], bounds))
        first = a.stmt_span(node.body[0])[0]
        edits.append((first, first, f"{a.indent_of(node.body[0])}{node.target.id} = blk_start + blk_j\n"))
    return a.edit(*edits), f"the loop at line {node.lineno} runs over each block's chunk: pl.range({bounds})"


def _parity_of(node: ast.AST, var: str) -> int | None:
    """0 for `var % 2`, 1 for `(var - 1) % 2`, else None."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.right, ast.Constant)
            and node.right.value == 2):
        return None
    left = node.left
    if isinstance(left, ast.Name) and left.id == var:
        return 0
    if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Sub) and isinstance(left.left, ast.Name) \
            and left.left.id == var and isinstance(left.right, ast.Constant) and left.right.value == 1:
        return 1
    return None


def flip_index(a: Anatomy, rng: random.Random) -> Mutation:
    """Pick by a ping-pong index instead of the loop variable's parity, as hand-written double
    buffering does: `pp = 0` before the loop, `t % 2` -> `pp`, `(t - 1) % 2` -> `1 - pp`, and
    `pp = 1 - pp` (or `pp ^= 1`) at the end of the body. One mutant in five starts at 1 or leaves
    some of the parities as they were: a phase the other picks do not share."""
    sites = []
    for kernel in a.kernels:
        for node in ast.walk(kernel):
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.body:
                found = [n for stmt in node.body for n in ast.walk(stmt)
                         if _parity_of(n, node.target.id) is not None]
                if found:
                    sites.append((node, found))
    node, found = _choose(rng, sites)
    defect = rng.random() < 0.2
    start = 1 if defect and rng.random() < 0.5 else 0
    keep = set(rng.sample(range(len(found)), rng.randint(1, len(found) - 1))) if defect and len(found) > 1 else set()
    edits = []
    for i, n in enumerate(found):
        if i not in keep and not any(n is not m and a.node_span(m)[0] <= a.node_span(n)[0] < a.node_span(m)[1]
                                     for m in found):
            edits.append((*a.node_span(n), "pp" if _parity_of(n, node.target.id) == 0 else "(1 - pp)"))
    if not edits:
        raise NothingToMutate
    flip = _choose(rng, ["pp = 1 - pp", "pp ^= 1", "pp = pp ^ 1"])
    at = a.stmt_span(node)[0]
    edits.append((at, at, f"{a.indent_of(node)}pp = {start}\n"))
    end = a.stmt_span(node.body[-1])[1]
    edits.append((end, end, f"{a.indent_of(node.body[0])}{flip}\n"))
    return a.edit(*edits), (f"the loop at line {node.lineno} picks by `pp` ({flip}, from {start}) for "
                            f"{len(edits) - 2} of its {len(found)} parities")


def _per_core_range(node: ast.For) -> bool:
    """`for t in pl.range(core_id, N, num_cores)`: a per-core range whose start is `core_id`."""
    it = node.iter
    return (_is_pl(it, "range") and not it.keywords and len(it.args) == 3 and isinstance(it.args[0], ast.Name)
            and it.args[0].id == "core_id")


def _spread(a: Anatomy, rng: random.Random, kernel: ast.FunctionDef, loops: list) -> Mutation:
    """The edits of `per_core_loop`: `loops` of `kernel` run per block."""
    sections = {ast.unparse(n.context_expr.func) for w in ast.walk(kernel) if isinstance(w, ast.With)
                for n in w.items if isinstance(n.context_expr, ast.Call)}
    index = "pl.get_block_idx() // pl.get_subblock_num()" if {f"pl.{s}" for s in SECTIONS} <= sections \
        else "pl.get_block_idx()"
    named = rng.random() < 0.5  # the step as a name (tiled_scale.py) or inline (PTO075's example)
    step = "num_cores" if named else "pl.get_block_num()"
    edits = [_at_kernel_top(a, kernel, [f"core_id = {index}"] + (["num_cores = pl.get_block_num()"] if named else []))]
    ranges = []
    for loop in loops:
        args = loop.node.iter.args
        ranges.append(f"core_id, {a.source_of(args[-1])}, {step}")
        edits.append((a.node_span(args[0])[0], a.node_span(args[-1])[1], ranges[-1]))
    lines = " and ".join(str(loop.node.lineno) for loop in loops)
    what = f"the loops at lines {lines} run" if len(loops) > 1 else f"the loop at line {lines} runs"
    return a.edit(*edits), f"{what} per block: {', '.join(f'pl.range({r})' for r in ranges)}"


#: name -> (weight, mutator). Plausible one-place edits weigh most.
MUTATORS: dict[str, tuple[int, Mutator]] = {
    "edit_ids": (12, edit_ids),
    "edit_address": (9, edit_address),
    "alias_tile": (4, alias_tile),
    "conditional_op": (9, conditional_op),
    "move_op": (9, move_op),
    "delete_statement": (7, delete_statement),
    "duplicate_statement": (4, duplicate_statement),
    "swap_statements": (6, swap_statements),
    "change_literal": (8, change_literal),
    "change_identifier": (5, change_identifier),
    "drop_argument": (5, drop_argument),
    "swap_section": (5, swap_section),
    "move_stage_call": (4, move_stage_call),
    "wrap_stage_call": (2, wrap_stage_call),
    "delete_line": (3, delete_line),
    "duplicate_line": (1, duplicate_line),
    "swap_lines": (2, swap_lines),
    "scalar_offset": (5, scalar_offset),
    "trip_from_scalar": (4, trip_from_scalar),
    "scalar_branch": (4, scalar_branch),
    "rebind_module_name": (4, rebind_module_name),
    "lengthen_loop": (3, lengthen_loop),
    "shape_dynamic": (4, shape_dynamic),
    "trip_from_gm": (4, trip_from_gm),
    "gm_offset": (4, gm_offset),
    "per_core_loop": (4, per_core_loop),
    "per_core_loop_shared": (2, per_core_loop_shared),
    "chunk_loop": (3, chunk_loop),
    "valid_from_scalar": (4, valid_from_scalar),
    "atomic_store": (3, atomic_store),
    "flip_index": (3, flip_index),
}


def apply(name: str, a: Anatomy, rng: random.Random) -> Mutation:
    """Run one mutator; None when the file offers it nothing to edit."""
    try:
        return MUTATORS[name][1](a, rng)
    except NothingToMutate:
        return None


def pick(rng: random.Random) -> str:
    names = list(MUTATORS)
    return rng.choices(names, weights=[MUTATORS[n][0] for n in names])[0]

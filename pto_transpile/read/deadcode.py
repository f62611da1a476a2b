"""Code no kernel instance runs: branches whose test is a compile-time constant.

PyPTO's parser folds an `if` (or a conditional expression) whose test is a compile-time
constant, per kernel instance: module constants, and the tiling-key fields with the
instance's values. What it folds away is never compiled, so a name there that nothing
binds is not an error. A branch counts as dead only when it is dead for every instance of
every kernel of the file (a helper may be called by any of them); a test that does not
fold keeps both sides.
"""

from __future__ import annotations

from collections import ChainMap

import libcst as cst

from pto_transpile.read.consteval import ConstEvaluator, NotConstant, PlSymbol
from pto_transpile.read.localnames import local_names
from pto_transpile.read.meaning import Meaning, Value


def file_instances(file) -> list[dict[str, int]]:
    """Every tiling-key instance of the file's kernels (one empty instance for a kernel
    without a key, or whose instances cannot be listed: its fields are then unknown)."""
    seen: list[dict[str, int]] = []
    for kernel in file.kernels:
        found = file.instances(kernel)
        for key in found.keys if found.known else ({},):
            if key not in seen:
                seen.append(key)
    return seen or [{}]


def dead_nodes(file, fn: cst.FunctionDef) -> set[cst.CSTNode]:
    """The nodes of `fn` under a branch no instance takes (the names `fn` binds
    itself are never the module's, nor the key's, inside it)."""
    cache = file.caches.dead_nodes
    if fn not in cache:
        hidden = local_names(file, fn)
        tests = file.find(fn, (cst.If, cst.IfExp))
        dead: set[cst.CSTNode] | None = None
        for key in file_instances(file):
            values: dict[str, Meaning] = {name: Value(v) for name, v in key.items()}
            ev = ConstEvaluator(ChainMap(values, file.names.meanings), file.pl.path, hidden)
            here = _dead_under(file, tests, ev)
            dead = here if dead is None else dead & here
            if not dead:
                break
        cache[fn] = dead or set()
    return cache[fn]


def _dead_under(file, tests: list, ev: ConstEvaluator) -> set[cst.CSTNode]:
    dead: set[cst.CSTNode] = set()
    for node in tests:
        if node in dead:
            continue
        try:
            value = ev.eval(node.test)
        except NotConstant:
            continue
        if isinstance(value, PlSymbol):
            continue
        if isinstance(node, cst.IfExp):
            skipped: list[cst.CSTNode] = [node.orelse if value else node.body]
        elif value:
            skipped = [node.orelse] if node.orelse is not None else []
        else:
            skipped = [node.body]
        for root in skipped:
            dead.update(n for n in file.find(root, cst.CSTNode))
    return dead

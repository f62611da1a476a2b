"""Local names whose values reach nothing but one another.

A name the loop body reads before it binds it carries a value from one iteration to the next,
which the check must show repeats (a counter, a residue of one, a flag) before it can stand
a few trip counts for every count. A name whose every read is in the value of an assignment to
such names that only moves values between names (`c, e = e, c`: names and displays of them, no
operator, call or subscript) and nothing else reading `c` or `e`, anywhere in the function
(after the loop, in a nested function, through `global`), influences no op, test, bound, address
or stage argument: what it carries cannot change what the kernel does, and it need not repeat (probe
h148: a swap nothing read refused the kernel). Read from Python's own tree of the function,
whose load and store contexts say what is a read.
"""

from __future__ import annotations

import ast
import textwrap


def dead_names(function_text: str) -> frozenset[str]:
    """The names of the function whose reads all sit in assignments to such names alone."""
    try:
        tree = ast.parse(textwrap.dedent(function_text))
    except SyntaxError:
        return frozenset()
    if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return frozenset()
    fn = tree.body[0]
    if any(isinstance(node, ast.Name) and node.id in _READ_ALL for node in ast.walk(fn)):
        return frozenset()  # (`locals()`, `eval(...)`: every local may be read)
    declared = {n for node in ast.walk(fn) if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
    #: each read of a name: the plain names the assignment it feeds binds, or None (a read that
    #: reaches something else: an expression statement, a test, a call, a subscript target, ...)
    feeds: list[tuple[str, frozenset[str] | None]] = []
    _reads(fn, None, feeds)
    stored = {node.id for node in ast.walk(fn) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    dead = stored - declared - {name for name, into in feeds if into is None}
    changed = True
    while changed:  # a name feeding one that is live is live
        changed = False
        for name, into in feeds:
            if name in dead and into is not None and not into <= dead:
                dead.discard(name)
                changed = True
    return frozenset(dead)


#: the values a dead name may be given: names and displays of them, which move values between
#: names and compute nothing (an operator may raise, `1 // (n - 777)`, or decide, `e > k and f()`,
#: whether code runs: probes h151, h152)
_PURE = (ast.Name, ast.Tuple, ast.List, ast.expr_context)


#: builtins that read every local name of the function they are called in
_READ_ALL = frozenset({"locals", "vars", "eval", "exec", "dir"})


def _reads(node: ast.AST, into: frozenset[str] | None, feeds: list) -> None:
    """Each name `node` reads, with `into`: the names of the assignment it is the value of."""
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets: list[ast.expr] = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
        # (`box *= k` changes a list in place, through every name that holds it: `box = other`
        # before, probe h152; what an augmented assignment reads is live)
        names = _plain_targets(targets) if isinstance(node, ast.Assign) else None
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            feeds.append((node.target.id, None))
        for t in targets:
            if names is None:  # a subscript or attribute target reads what it stores into
                _reads(t, None, feeds)
        # (a value that runs code anywhere may run it or not by what it reads: `c = e > k and
        # box.append(1)`, probe h151; its reads are live)
        _reads(node.value, names if _pure(node.value) else None, feeds)
        return
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load):
            feeds.append((node.id, into))
        return
    if into is not None and not isinstance(node, _PURE):
        into = None  # an operator, a call, a subscript...: what it does may depend on the value
    for child in ast.iter_child_nodes(node):
        _reads(child, into, feeds)


def _pure(node: ast.AST) -> bool:
    """Is `node` a name, or a display of names, everywhere under it?"""
    return all(isinstance(n, _PURE) for n in ast.walk(node))


def _plain_targets(targets: list[ast.expr]) -> frozenset[str] | None:
    """The names of targets that are plain names (or tuples and lists of them), else None."""
    names: set[str] = set()
    stack = list(targets)
    while stack:
        t = stack.pop()
        if isinstance(t, ast.Name):
            names.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            stack.extend(t.elts)
        else:
            return None
    return frozenset(names)

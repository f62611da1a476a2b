"""Misspelt names: which finding an unbound name makes, with the name it most likely meant.

Candidates come from the scope the undefined-name rule computed for the function (its
parameters and assignments, module-level names, builtins, and whatever else that rule
counts as bound), so a name it learns to accept is a suggestion too.
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from pto_transpile.suggest import closest


def undefined(file, fn: cst.FunctionDef, name: cst.Name, scope: set[str] | frozenset[str],
              reads: list[cst.Name], is_kernel: bool) -> tuple[cst.CSTNode, dict]:
    """The finding for `name`, read in `fn` and bound nowhere in `scope`.

    When a parameter of a stage or helper is never read and is an edit or so from `name`,
    one of the two is misspelt: the spelling the rest of the file uses less often
    (`def st(..., c_vec_dbb)` reading `c_vec_db`, which the kernel passes: the finding is on
    the parameter; `def st(..., c_vec_db)` reading `c_vec_dbb`: on the read; a tie: on the
    parameter).
    A kernel's parameters are its launch interface, so there the read is the misspelling.
    Otherwise the finding is on the read, with the closest name in scope if one is close."""
    fields: dict = {"name": name.value, "function": fn.name.value}
    read = {n.value for n in reads}
    unused = {p.name.value: p.name for p in _params(fn) if p.name.value not in read}
    param = None if is_kernel else closest(name.value, unused)
    if param is not None:
        elsewhere = _names_outside(file, fn)
        if elsewhere.get(param, 0) <= elsewhere.get(name.value, 0):
            return unused[param], {**fields, "param": param, "_message": "parameter", "_hint": "parameter"}
    near = closest(name.value, scope)
    if near is not None:
        return name, {**fields, "suggestion": near, "_message": "near", "_hint": "near"}
    return name, fields


def _params(fn: cst.FunctionDef) -> list[cst.Param]:
    p = fn.params
    star = [p.star_arg] if isinstance(p.star_arg, cst.Param) else []
    kwargs = [p.star_kwarg] if p.star_kwarg is not None else []
    return [*p.posonly_params, *p.params, *star, *p.kwonly_params, *kwargs]


def _names_outside(file, fn: cst.FunctionDef) -> Counter[str]:
    """How often each name is spelt in the parsed module outside `fn`."""
    return Counter(n.value for stmt in file.source.module.body if stmt is not fn and isinstance(stmt, cst.CSTNode)
                   for n in file.find(stmt, cst.Name))


def analysed_functions(file) -> list[cst.FunctionDef]:
    """The functions the rules read (stages, vector functions, helpers, kernels), each once,
    in that order; a function kept as text is not among them."""
    out, seen = [], set()
    for fn in [s.node for s in file.stages.values()] + list(file.vector_functions.values()) \
            + list(file.helpers.values()) + [k.node for k in file.kernels]:
        if fn not in seen and isinstance(fn, cst.FunctionDef):
            seen.add(fn)
            out.append(fn)
    return out

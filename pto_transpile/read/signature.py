"""Whether a call binds its arguments to a `def`'s parameters, as Python does, or raises TypeError."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst


def binding_problem(fn: cst.FunctionDef, positional: int, keywords: Iterable[str]) -> str:
    """Why calling `fn` with `positional` positional arguments and `keywords` raises TypeError
    (too many positional arguments, a keyword it has no parameter for, a value given twice, a
    parameter given none), in Python's words; "" when it binds."""
    name = fn.name.value
    params = [*fn.params.posonly_params, *fn.params.params]
    names = [p.name.value for p in params]
    only_positional = {p.name.value for p in fn.params.posonly_params}
    by_keyword = keyword_parameters(fn)
    given = list(keywords)
    if positional > len(params) and not isinstance(fn.params.star_arg, cst.Param):
        return f"`{name}()` takes {len(params)} positional arguments but {positional} were given"
    for key in given:
        if key not in by_keyword:
            if fn.params.star_kwarg is None:
                return f"`{name}()` got an unexpected keyword argument `{key}`"
        elif key in names[:positional]:
            return f"`{name}()` got multiple values for argument `{key}`"
    # (a keyword named as a positional-only parameter gives it nothing: `**kwargs` takes it)
    missing = [p.name.value for i, p in enumerate(params) if i >= positional and p.default is None
               and (p.name.value not in given or p.name.value in only_positional)]
    missing += [p.name.value for p in fn.params.kwonly_params if p.name.value not in given and p.default is None]
    if missing:
        return f"`{name}()` is missing a required argument: `{missing[0]}`"
    return ""


def keyword_parameters(fn: cst.FunctionDef) -> set[str]:
    """The parameters a keyword argument binds: all named ones but the positional-only (a keyword
    of such a name goes to `**kwargs`, or raises TypeError without one)."""
    return {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}

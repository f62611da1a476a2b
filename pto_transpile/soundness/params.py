"""A kernel's scalar parameters as the check reads them: which integers it samples, and the
values each can take (every named parameter is bound: `read.walk.parameters`)."""

from __future__ import annotations

import libcst as cst

from pto_api.memory import scalar_int_values
from pto_transpile.read.consteval import PlSymbol
from pto_transpile.read.kinds import declared_int_type
from pto_transpile.read.meaning import Value

#: the values a scalar parameter declared `int`, or not declared, is taken to take (a launch
#: passes a 64-bit integer); a parameter of a `pl` integer dtype takes that dtype's
INT64 = (-(2 ** 63), 2 ** 63 - 1)


def sampled_default(file, param: cst.Param) -> bool:
    """Whether a scalar parameter is an integer the check samples: one with no default, or an
    integer default, which a launch may replace with any value as well."""
    if param.default is None:
        return True
    value = file.evaluator.try_eval(param.default, None)
    return isinstance(value, int)


def int_range(param: cst.Param, pl_path, file=None) -> tuple[int, int]:
    """The values an integer scalar parameter can take: those of its declared type (`bool`:
    0 and 1, a `pl` integer dtype's; `scalar_int_values`, by which the emulator and `--arg`
    refuse others), with `file` also a dtype bound to a module name (`pl_dtype`); int64's for
    `int`, no annotation or anything else."""
    declared = declared_int_type(param, pl_path)
    if declared is None and file is not None and param.annotation is not None:
        declared = pl_dtype(file, param.annotation.annotation, pl_path)
    return scalar_int_values(declared or "") or INT64


def declared_integer(file, param: cst.Param, pl_path) -> bool:
    """Whether a scalar parameter surely holds an integer: declared `int`/`bool` or with a `pl`
    integer dtype. Anything else (`float`, `pl.DT_FP32`, `np.float32`, no annotation, even with
    an integer default: a launch may pass `0.5`) may hold a fraction, and is data to the check,
    not sampled."""
    ann = param.annotation.annotation if param.annotation is not None else None
    if ann is None:
        return False
    if isinstance(ann, cst.Name) and ann.value in ("int", "bool"):
        return True
    leaf = pl_dtype(file, ann, pl_path)
    return bool(leaf) and leaf.startswith(("DT_INT", "DT_UINT", "DT_BOOL"))


def pl_dtype(file, ann: cst.BaseExpression, pl_path) -> str:
    """The `pl` dtype an annotation names, as the emulator reads it: `pl.DT_UINT8`, `DT_UINT8`
    imported by name from `pl`, or a module name bound to one (`U8 = pl.DT_UINT8`: probe h118);
    "" for anything else."""
    path = pl_path(ann)
    if path:
        return path[-1]
    meaning = file.meaning(ann.value) if isinstance(ann, cst.Name) else None
    return meaning.value.leaf if isinstance(meaning, Value) and isinstance(meaning.value, PlSymbol) else ""


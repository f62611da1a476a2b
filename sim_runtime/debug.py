"""Debugging calls: `pl.printf`, `pl.pto_assert`, `pl.trap`, `pl.dump_data`.

What a kernel prints goes to the run's log (`SimResult.log`), one entry per call, prefixed
by the core that printed it; a failed `pto_assert` is logged and the kernel goes on (the
device only logs it); `trap` stops the run with an error at its line."""

from __future__ import annotations

import linecache
import re

import numpy as np

from sim_runtime.errors import KernelError, Location
from sim_runtime.tiles import GMPointer, GMTensor, Tile

#: printf conversions the device accepts: flags, width, precision, one of d i u x f p.
_SPEC = re.compile(r"%([-+ #0]*)(\d*)(?:\.(\d+))?([a-zA-Z%])")
_CONVERSIONS = frozenset("diuxfp")


def format_message(fmt: str, args: tuple, where: Location) -> str:
    """The text `printf(fmt, *args)` prints, under the device's restricted C syntax."""
    if not isinstance(fmt, str):
        raise KernelError(f"pl.printf format must be a constant string, got {fmt!r}", where)
    specs = list(_SPEC.finditer(fmt))
    for m in specs:
        if m.group(4) not in _CONVERSIONS:
            raise KernelError(f"pl.printf: conversion %{m.group(4)} is not supported (d, i, u, x, f, p)", where)
    if len(specs) != len(args):
        raise KernelError(f"pl.printf: {len(specs)} conversion(s) but {len(args)} argument(s)", where)
    out, pos = [], 0
    for m, value in zip(specs, args, strict=True):
        out.append(fmt[pos:m.start()])
        conv = m.group(4)
        if conv == "p":
            text = f"{getattr(value, 'name', '?')}+{getattr(value, 'origin', 0):#x}" \
                if isinstance(value, (GMPointer, GMTensor)) else str(value)
        else:
            py = {"i": "d", "u": "d"}.get(conv, conv)
            spec = f"%{m.group(1)}{m.group(2)}{'.' + m.group(3) if m.group(3) is not None else ''}{py}"
            number = float(value) if conv == "f" else int(value)
            text = spec % number
        out.append(text)
        pos = m.end()
    out.append(fmt[pos:])
    return "".join(out).rstrip("\n")


def source_text(where: Location, call: str) -> str:
    """The condition of `pl.pto_assert(...)` as written on its line (for the failure message)."""
    line = linecache.getline(where.file, where.line).strip()
    m = re.search(rf"{call}\((.*)\)", line)
    if not m:
        return line
    depth, text = 0, m.group(1)
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            return text[:i].strip()
    return text.strip()


def dump_text(data, values: np.ndarray, what: str) -> str:
    rows = np.atleast_2d(values)
    body = "\n".join("  " + " ".join(f"{v:>8}" for v in row.tolist()) for row in rows)
    return f"=== dump of {what} {getattr(data, 'name', '')} shape {list(values.shape)} ===\n{body}"


def tile_window(tile: Tile, offsets, shapes, where: Location) -> tuple[int, int, int, int]:
    if offsets is None and shapes is None:
        return 0, 0, tile.shape[0], tile.shape[1]
    if offsets is None or shapes is None or len(offsets) != 2 or len(shapes) != 2:
        raise KernelError("pl.dump_data: offsets and shapes go together, one entry per dimension", where)
    r0, c0 = (int(x) for x in offsets)
    nr, nc = (int(x) for x in shapes)
    if r0 < 0 or c0 < 0 or nr <= 0 or nc <= 0 or r0 + nr > tile.shape[0] or c0 + nc > tile.shape[1]:
        raise KernelError(f"pl.dump_data: window {offsets}+{shapes} outside tile {tile.name} {list(tile.shape)}",
                          where)
    return r0, c0, nr, nc


def tensor_window(tensor: GMTensor, offsets, shapes, where: Location) -> tuple:
    arr = tensor.array
    if offsets is None and shapes is None:
        return tuple(slice(None) for _ in arr.shape)
    if offsets is None or shapes is None or len(offsets) != arr.ndim or len(shapes) != arr.ndim:
        raise KernelError("pl.dump_data: offsets and shapes go together, one entry per dimension", where)
    index = []
    for ax, (o, n) in enumerate(zip(offsets, shapes, strict=True)):
        o, n = int(o), int(n)
        if o < 0 or n <= 0 or o + n > arr.shape[ax]:
            raise KernelError(f"pl.dump_data: window {list(offsets)}+{list(shapes)} outside tensor "
                              f"'{tensor.name}' {list(arr.shape)}", where)
        index.append(slice(o, o + n))
    return tuple(index)

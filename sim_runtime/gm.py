"""Views of GM: `pl.make_tensor`, `pl.make_ptr`, `pl.addptr`, `pl.set_stride`.

A view never copies: it is a numpy view of the bytes of one kernel argument, so a store
through one view is seen by every other view of the same bytes, and footprints of all views
of one argument are offsets into the same buffer (`GMTensor.root`)."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from sim_runtime.dtypes import DType
from sim_runtime.errors import KernelError, Location
from sim_runtime.tiles import GMPointer, GMTensor


def _ints(what: str, values, where: Location) -> list[int]:
    try:
        out = [int(v) for v in values]
    except (TypeError, ValueError):
        raise KernelError(f"{what} must be a list of integers, got {values!r}", where) from None
    return out


def _typed_view(root: np.ndarray, origin: int, shape: list[int], strides: list[int], dtype: DType) -> np.ndarray:
    item = dtype.itemsize
    # the bytes from `origin` reinterpreted as elements, then strided in elements
    count = (root.size - origin) // item
    flat: np.ndarray = root[origin:origin + count * item].view(dtype.storage)
    return as_strided(flat, shape=tuple(shape), strides=tuple(s * item for s in strides))


def contiguous_strides(shape: list[int]) -> list[int]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return out[::-1]


def make_tensor(ptr, shape, stride=None, dtype=None, *, where: Location) -> GMTensor:
    """A GM tensor view of `shape` (and `stride`, in elements) at a pointer or tensor."""
    if isinstance(ptr, GMTensor):
        root, origin, base_dtype, name, key = ptr.root, ptr.origin, ptr.dtype, ptr.name, ptr.memkey
    elif isinstance(ptr, GMPointer):
        root, origin, base_dtype, name, key = ptr.root, ptr.origin, ptr.dtype, ptr.name, ptr.memkey
    else:
        raise KernelError(f"pl.make_tensor needs a pl.Ptr parameter or a GM tensor, got {ptr!r}", where)
    dt = dtype or base_dtype
    if not isinstance(dt, DType):
        raise KernelError(f"pl.make_tensor dtype must be a pl.DT_* constant, got {dt!r}", where)
    dims = _ints("pl.make_tensor shape", shape, where)
    strides = contiguous_strides(dims) if stride is None else _ints("pl.make_tensor stride", stride, where)
    if len(strides) != len(dims):
        raise KernelError(f"pl.make_tensor: {len(dims)} dims but {len(strides)} strides", where)
    arr = _checked_view(root, origin, dims, strides, dt, "pl.make_tensor", where)
    return GMTensor(name, arr, dt, root=root, origin=origin, memkey=key)


def _checked_view(root, origin, dims, strides, dt, what, where) -> np.ndarray:
    item = dt.itemsize
    if any(s < 0 for s in strides) or any(n <= 0 for n in dims):
        raise KernelError(f"{what}: shape {dims} and stride {strides} must be positive", where)
    last = origin + sum((n - 1) * s for n, s in zip(dims, strides, strict=True)) * item + item
    if origin < 0 or last > root.size:
        raise KernelError(f"{what}: a view of shape {dims}, stride {strides} at byte {origin} needs {last} bytes; "
                          f"the argument has {root.size}", where)
    return _typed_view(root, origin, dims, strides, dt)


def make_ptr(ptr, dtype=None, *, where: Location) -> GMPointer:
    """The address of a tensor or pointer, typed as `dtype` (default: its own)."""
    if isinstance(ptr, (GMTensor, GMPointer)):
        return GMPointer(ptr.name, ptr.root, dtype or ptr.dtype, ptr.origin, ptr.memkey)
    raise KernelError(f"pl.make_ptr needs a GM tensor or pointer, got {ptr!r}", where)


def addptr(ptr, offset, *, where: Location) -> GMPointer:
    """`ptr` moved by `offset` elements of its dtype (sub-byte dtypes have no pointer arithmetic)."""
    if not isinstance(ptr, GMPointer):
        raise KernelError(f"pl.addptr needs a pl.Ptr, got {ptr!r}", where)
    if ptr.dtype.bits < 8:
        raise KernelError(f"pl.addptr on a {ptr.dtype.name} pointer: re-type it with pl.make_ptr first", where)
    origin = ptr.origin + int(offset) * ptr.dtype.itemsize
    if not 0 <= origin <= ptr.root.size:
        raise KernelError(f"pl.addptr: offset {int(offset)} leaves argument '{ptr.name}' "
                          f"({ptr.root.size} bytes)", where)
    return GMPointer(ptr.name, ptr.root, ptr.dtype, origin, ptr.memkey)


def set_stride(tensor, stride, *, where: Location) -> None:
    """New element strides for a 2-D GM tensor, in place. Rows the new stride pushes past
    the argument's bytes are dropped from the view: touching them is an out-of-bounds error."""
    if not isinstance(tensor, GMTensor):
        raise KernelError(f"pl.set_stride needs a GM tensor, got {tensor!r}", where)
    strides = _ints("pl.set_stride stride", stride, where)
    if len(strides) != 2 or tensor.array.ndim != 2:
        raise KernelError("pl.set_stride takes [row_stride, col_stride] of a 2-D tensor", where)
    rows, cols = tensor.array.shape
    item = tensor.dtype.itemsize
    room = tensor.root.size - tensor.origin - ((cols - 1) * strides[1] + 1) * item
    fit = min(rows, room // (strides[0] * item) + 1) if strides[0] > 0 else rows
    if fit <= 0:
        raise KernelError(f"pl.set_stride: not one row of '{tensor.name}' fits its bytes with stride {strides}", where)
    tensor.array = _typed_view(tensor.root, tensor.origin, [fit, cols], strides, tensor.dtype)

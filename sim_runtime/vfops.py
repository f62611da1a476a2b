"""More `vf.*` register ops: the arithmetic, logic, compare, reduce, broadcast and gather
ops beyond those of `sim_runtime.vf`, each following the same rules (lane-wise, zero in
inactive lanes, one register op each). Registered into `vf.OPS`."""

from __future__ import annotations

import numpy as np

from pto_api.ops import VF_TARGET_READ_OPS
from pto_api.registers import REG_BYTES
from sim_runtime import vf
from sim_runtime.dtypes import DTYPES, DType
from sim_runtime.errors import KernelError
from sim_runtime.vf import Mask, Reg, _lanewise, _mask, _name, _reg, _result, _run, _scalar, _where

vf._OWN_FILES.add(__file__)


def _unary(op: str, fn):
    def f(src, preg, mode=None, precision=None):
        return _lanewise(op, fn, [src], preg, mode)
    f.__name__ = op
    return f


def _binary(op: str, fn):
    def f(src0, src1, preg, mode=None, dtype=None):
        return _lanewise(op, fn, [src0, src1], preg, mode)
    f.__name__ = op
    return f


def _with_scalar(op: str, fn):
    def f(src, scalar, preg, mode=None):
        src = _reg(op, src)
        s = _scalar(src, scalar)
        return _lanewise(op, lambda x: fn(x, s), [src], preg, mode)
    f.__name__ = op
    return f


def _integer(op: str, reg: Reg) -> None:
    if not reg.dtype.is_int():
        raise KernelError(f"vf.{op} works on integer registers, got {reg.dtype.name}", _where())


def _shift(op: str, left: bool):
    def f(src, shift, preg, mode=None, dtype=None):
        src = _reg(op, src)
        _integer(op, src)
        amount = shift.values() if isinstance(shift, Reg) else _scalar(src, shift)
        return _lanewise(op, lambda x: np.left_shift(x, amount) if left else np.right_shift(x, amount),
                         [src], preg, mode)
    f.__name__ = op
    return f


def _accumulate(op: str, fn):
    """`dst = vf.<op>(a, b, preg)`: the register assigned to is also read (it must already
    hold a value), as in the DSL, where the call names its accumulator by assignment."""
    assert op in VF_TARGET_READ_OPS, op

    def f(src0, src1, preg, mode=None):
        dst = vf.target_register(op, "accumulates into the register it is assigned to")
        src0 = _reg(op, src0)
        other = _scalar(src0, src1) if not isinstance(src1, Reg) else src1.values()
        acc = dst.values()
        return _lanewise(op, lambda a: fn(acc, a, other), [src0], preg, mode)
    f.__name__ = op
    return f


def _compare(op: str, fn):
    """Lane-wise compare into a mask (a lane's bits set where true and active)."""
    def f(a, b, preg, cmp_dtype=None):
        _run(op)
        a = _reg(op, a)
        bv = b.values() if isinstance(b, Reg) else _scalar(a, b)
        preg = _mask(op, preg)
        hit = fn(a.values(), bv) & preg.lanes(a.dtype)
        return Mask(np.repeat(hit, a.dtype.itemsize))
    f.__name__ = op
    return f


def select(src0, src1, preg, mode=None) -> Reg:
    """Lane i of src0 where the mask is set, else lane i of src1."""
    _run("select")
    src0, src1, preg = _reg("select", src0), _reg("select", src1), _mask("select", preg)
    on = preg.lanes(src0.dtype)
    return Reg(src0.dtype, np.where(on, src0.lanes, src1.lanes))


def _reduce(op: str, fn):
    """Over the active lanes: the result in lane 0, every other lane 0; `datablock=True`
    reduces each 32-byte block into its own first lane. fp16 sums accumulate in fp32."""
    def f(src, preg, datablock=False, merge_mode=None):
        _run(op)
        src, preg = _reg(op, src), _mask(op, preg)
        vals = src.values()
        wide = vals.astype(np.float32) if src.dtype.name in ("DT_FP16", "DT_BF16") and op == "reduce_sum" else vals
        on = preg.lanes(src.dtype)
        out = np.zeros(vals.size, dtype=wide.dtype)
        group = (32 // src.dtype.itemsize) if datablock else vals.size
        for g in range(0, vals.size, group):
            sel = wide[g:g + group][on[g:g + group]]
            if sel.size:
                out[g] = fn(sel)
        return Reg(src.dtype, src.dtype.to_storage(out.astype(src.dtype.compute)).copy())
    f.__name__ = op
    return f


def pair_reduce_sum(src, preg, mode=None) -> Reg:
    """dst[i] = src[2i] + src[2i+1] in the low half, the high half 0."""
    _run("pair_reduce_sum")
    src, preg = _reg("pair_reduce_sum", src), _mask("pair_reduce_sum", preg)
    v = np.where(preg.lanes(src.dtype), src.values(), 0)
    out = np.zeros(v.size, src.dtype.compute)
    out[:v.size // 2] = v[0::2] + v[1::2]
    return Reg(src.dtype, src.dtype.to_storage(out).copy())


def squeeze(src, preg, gather_mode=None, dtype=None) -> Reg:
    """The active lanes packed to the low end, the rest 0."""
    _run("squeeze")
    src, preg = _reg("squeeze", src), _mask("squeeze", preg)
    picked = src.lanes[preg.lanes(src.dtype)]
    out = np.zeros_like(src.lanes)
    out[:picked.size] = picked
    if _name(gather_mode, "NO_STORE_REG") == "STORE_REG":
        vf._state.run.address_register = picked.size * src.dtype.itemsize
    return Reg(src.dtype, out)


def full(src, preg=None, dtype=None, mode=None, pos=None) -> Reg:
    """Scalar form: every lane `src`. Register form (a mask required): every active lane the
    lowest (`pos=LOWEST`, default) or highest lane of `src`."""
    if not isinstance(src, Reg):
        return vf.full(src, preg, dtype=dtype, mode=mode)
    _run("full")
    if preg is None:
        raise KernelError("vf.full of a register needs a mask", _where())
    preg = _mask("full", preg)
    lane = src.lanes[-1] if _name(pos, "LOWEST") == "HIGHEST" else src.lanes[0]
    return _result(src.dtype, np.full(src.lanes.size, src.dtype.to_compute(np.asarray([lane]))[0]), preg,
                   vf._merge_base("full", mode, src.dtype))


def move(src, preg=None, mode=None):
    """A register copy (active lanes; without a mask, all of them); a mask copy with a mask
    keeps only the selected bits."""
    _run("move")
    if isinstance(src, Mask):
        bits = src.bits.copy() if preg is None else (src.bits & _mask("move", preg).bits)
        return Mask(bits)
    src = _reg("move", src)
    if preg is None:
        return Reg(src.dtype, src.lanes.copy())
    return _result(src.dtype, src.values(), _mask("move", preg), vf._merge_base("move", mode, src.dtype))


def truncate(src, preg, mode=None) -> Reg:
    return _lanewise("truncate", np.trunc, [src], preg, mode)


def mull(src0, src1, preg, mode=None) -> tuple[Reg, Reg]:
    """The full product of two integer registers: low bits, and the high (overflow) bits."""
    _run("mull")
    a, b, preg = _reg("mull", src0), _reg("mull", src1), _mask("mull", preg)
    _integer("mull", a)
    bits = a.dtype.bits
    prod = a.values().astype(object) * b.values().astype(object)
    lo = np.array([int(p) % (1 << bits) for p in prod], dtype=np.uint64)
    hi = np.array([int(p) >> bits for p in prod], dtype=np.int64)
    unsigned = np.dtype(f"u{a.dtype.itemsize}")
    lo_v: np.ndarray = lo.astype(unsigned).view(a.dtype.storage)
    hi_v: np.ndarray = hi.astype(np.int64).astype(unsigned).view(a.dtype.storage) if not a.dtype.is_signed_int() \
        else hi.astype(a.dtype.storage)
    on = preg.lanes(a.dtype)
    return Reg(a.dtype, np.where(on, lo_v, 0).astype(a.dtype.storage)), \
        Reg(a.dtype, np.where(on, hi_v, 0).astype(a.dtype.storage))


def bit_cast(src, dtype=None) -> Reg:
    """The same 256 bytes read as another dtype."""
    _run("bit_cast")
    src = _reg("bit_cast", src)
    dt = dtype or DTYPES["DT_FP32"]
    return Reg(dt, src.lanes.view(np.uint8).view(dt.storage).copy())


def arange(start, index_order=None, dtype=None) -> Reg:
    """Lane i = start + i (`IndexOrder.DECREASE`: start - i)."""
    _run("arange")
    dt = dtype or DTYPES["DT_INT32"]
    n = REG_BYTES // dt.itemsize
    step = -1 if _name(index_order, "INCREASE") == "DECREASE" else 1
    return Reg(dt, dt.to_storage((start + step * np.arange(n)).astype(dt.compute)).copy())


def unpack(src, dtype=None, part=None):
    """The low (`PackPart.LOWER`) or high half of an integer register widened to twice the
    lane width (sign-extended for signed types, zero-extended otherwise)."""
    _run("unpack")
    upper = _name(part, "LOWER") == "UPPER"
    if isinstance(src, Mask):
        half = src.bits.size // 2
        bits = src.bits[half:] if upper else src.bits[:half]
        return Mask(np.repeat(bits, 2))
    src = _reg("unpack", src)
    _integer("unpack", src)
    dt = dtype or _widened(src.dtype)
    v = src.values()
    half = v[v.size // 2:] if upper else v[:v.size // 2]
    return Reg(dt, dt.to_storage(half.astype(dt.compute)).copy())


def _widened(dt: DType) -> DType:
    name = dt.name
    bits = dt.bits * 2
    return DTYPES[f"{'DT_UINT' if 'UINT' in name else 'DT_INT'}{bits}"]


def gather(src, index, preg=None, data_copy_mode=None) -> Reg:
    """Lane i = element index[i] of the tile `src` points at (tile elements from the pointer)."""
    run = _run("gather")
    ptr = vf._ptr("gather", src)
    index = _reg("gather", index)
    dt = ptr.dtype
    n = REG_BYTES // dt.itemsize
    at = index.values().astype(np.int64)[:n]
    on = _mask("gather", preg).lanes(DTYPES[f"DT_UINT{8 * max(2, index.dtype.itemsize)}"])[:n] \
        if preg is not None else np.ones(n, bool)
    flat: np.ndarray | None = ptr.mem.buf.view(dt.storage) if ptr.addr % dt.itemsize == 0 else None
    if flat is None:
        raise KernelError("vf.gather: the pointer is not aligned to its element size", _where())
    base = ptr.addr // dt.itemsize
    out: np.ndarray = np.zeros(n, dt.storage)
    for lane in np.flatnonzero(on):
        e = base + int(at[lane])
        run.touch(ptr, e * dt.itemsize, (e + 1) * dt.itemsize, "R")
        out[lane] = flat[e]
    return Reg(dt, out)


def _abs_sub(a, b):
    return np.abs(a - b)


def _prelu(src, slope, preg, mode=None) -> Reg:
    return _lanewise("prelu", lambda x, s: np.where(x >= 0, x, x * s), [src, slope], preg, mode)


def _log(x):
    return np.log(x.astype(np.float32))


NEW_OPS = {
    "abs": _unary("abs", np.abs), "neg": _unary("neg", np.negative), "relu": _unary("relu", lambda x: np.maximum(x, 0)),
    "sqrt": _unary("sqrt", np.sqrt), "ln": _unary("ln", _log), "log": _unary("log", _log),
    "log2": _unary("log2", np.log2), "log10": _unary("log10", np.log10), "not_": _unary("not_", np.invert),
    "and_": _binary("and_", np.bitwise_and), "or_": _binary("or_", np.bitwise_or),
    "xor": _binary("xor", np.bitwise_xor), "abs_sub": _binary("abs_sub", _abs_sub),
    "shift_left": _shift("shift_left", True), "shift_right": _shift("shift_right", False),
    "subs": _with_scalar("subs", np.subtract), "maxs": _with_scalar("maxs", np.maximum),
    "mins": _with_scalar("mins", np.minimum),
    "leaky_relu": _with_scalar("leaky_relu", lambda x, s: np.where(x >= 0, x, x * s)),
    "prelu": _prelu,
    "mul_add_dst": _accumulate("mul_add_dst", lambda d, a, b: a * b + d),
    "mul_dst_add": _accumulate("mul_dst_add", lambda d, a, b: d * a + b),
    "axpy": _accumulate("axpy", lambda d, a, s: s * a + d),
    **{n: _compare(n, fn) for n, fn in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                                         ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal))},
    "select": select,
    "reduce_sum": _reduce("reduce_sum", np.sum), "reduce_max": _reduce("reduce_max", np.max),
    "reduce_min": _reduce("reduce_min", np.min), "pair_reduce_sum": pair_reduce_sum,
    "squeeze": squeeze, "full": full, "move": move, "truncate": truncate, "mull": mull, "bit_cast": bit_cast,
    "arange": arange, "unpack": unpack, "gather": gather,
}

vf.OPS.update(NEW_OPS)

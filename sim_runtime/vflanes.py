"""Register ops that move lanes or bits between registers and masks: pack, interleave,
histograms, mask generation from register bits, add/sub with carry, `muls_cast`, and the
special registers (`vf.clear_spr`, `vf.get_mask_spr`). One register op each; the facts the
docs leave open are in `assumed`. Registered into `vf.OPS`.
"""

from __future__ import annotations

import numpy as np

from pto_api.registers import REG_BYTES
from sim_runtime import assumed, rounding, vf
from sim_runtime.dtypes import DTYPES, DType
from sim_runtime.errors import KernelError
from sim_runtime.vf import Mask, Reg, _mask, _name, _reg, _run, _scalar, _where

vf._OWN_FILES.add(__file__)


def _unsigned(bits: int) -> DType:
    return DTYPES[f"DT_UINT{bits}"]


def pack(src, dtype=None, part=None):
    """Register: the low half of each lane's bits into the low (LOWER) or high (UPPER) half
    of a register of half-width lanes, the other half 0. Mask: the even bits, likewise."""
    _run("pack")
    upper = _name(part, "LOWER") == "UPPER"
    if isinstance(src, Mask):
        half = src.bits[0::2]
        bits = np.zeros_like(src.bits)
        (bits[half.size:] if upper else bits[:half.size])[:] = half
        return Mask(bits)
    src = _reg("pack", src)
    if src.dtype.bits not in (16, 32, 64):
        raise KernelError(f"vf.pack narrows 16/32/64-bit lanes, got {src.dtype.name}", _where())
    dt = dtype or _unsigned(src.dtype.bits // 2)
    if dt.bits * 2 != src.dtype.bits:
        raise KernelError(f"vf.pack: {src.dtype.name} lanes narrow to {src.dtype.bits // 2} bits, not {dt.name}",
                          _where())
    low = src.lanes.view(_unsigned(src.dtype.bits).storage).astype(_unsigned(dt.bits).storage)
    out = np.zeros(2 * low.size, low.dtype)
    (out[low.size:] if upper else out[:low.size])[:] = low
    return Reg(dt, out.view(dt.storage))


def _lane_groups(m: Mask, dtype: DType) -> np.ndarray:
    return m.bits.reshape(-1, dtype.itemsize)


def interleave(src0, src1, dtype=None):
    """Over the lanes a0 b0 a1 b1 ...: (the first register's worth, the second's). Masks
    interleave their lanes of `dtype` (default `assumed.MASK_INTERLEAVE_DTYPE`)."""
    _run("interleave")
    if isinstance(src0, Mask) or isinstance(src1, Mask):
        src0, src1 = _mask("interleave", src0), _mask("interleave", src1)
        dt = dtype or DTYPES[assumed.MASK_INTERLEAVE_DTYPE]
        a, b = _lane_groups(src0, dt), _lane_groups(src1, dt)
        seq = np.empty((2 * a.shape[0], a.shape[1]), bool)
        seq[0::2], seq[1::2] = a, b
        return Mask(seq[:a.shape[0]].reshape(-1).copy()), Mask(seq[a.shape[0]:].reshape(-1).copy())
    r0, r1 = _reg("interleave", src0), _reg("interleave", src1)
    if r0.dtype.bits != r1.dtype.bits:
        raise KernelError("vf.interleave: registers of different widths", _where())
    seq = np.empty(2 * r0.lanes.size, r0.lanes.dtype)
    seq[0::2], seq[1::2] = r0.lanes, r1.lanes.view(r0.lanes.dtype)
    n = r0.lanes.size
    return Reg(r0.dtype, seq[:n].copy()), Reg(r0.dtype, seq[n:].copy())


def histograms(src, preg, bin_type=None, hist_type=None) -> Reg:
    """`acc = vf.histograms(src, preg, ...)`: adds to the 128 uint16 lanes of `acc` the counts
    of the active bytes of `src` in the bin's range (BIN0: 0-127, BIN1: 128-255), per value
    (FREQUENCY) or cumulative up to each value (ACCUMULATE, the default)."""
    acc = vf.target_register("histograms", "adds its counts to the register it is assigned to")
    _run("histograms")
    src, preg = _reg("histograms", src), _mask("histograms", preg)
    values = src.lanes.view(np.uint8)
    base = 128 if _name(bin_type, "BIN0") == "BIN1" else 0
    picked = values[preg.lanes(DTYPES["DT_UINT8"])].astype(np.int64) - base
    counts = np.bincount(picked[(picked >= 0) & (picked < 128)], minlength=128)
    if _name(hist_type, "ACCUMULATE") == "ACCUMULATE":
        counts = np.cumsum(counts)
    u16 = DTYPES["DT_UINT16"]
    old = acc.lanes.view(np.uint16).astype(np.int64)
    return Reg(u16, ((old + counts) % 65536).astype(np.uint16))


def mask_gen_with_reg_tensor(src, offset=None) -> Mask:
    """The bits of data block `offset` of `src` (16 blocks of 16 bytes for 16-bit lanes, 32 of
    8 bytes for 32-bit ones), bit j of the block activating lane j."""
    _run("mask_gen_with_reg_tensor")
    src = _reg("mask_gen_with_reg_tensor", src)
    w = src.dtype.itemsize
    if w not in (2, 4):
        raise KernelError(f"vf.mask_gen_with_reg_tensor on 16- or 32-bit lanes, got {src.dtype.name}", _where())
    size = REG_BYTES // (8 * w)
    k = int(offset or 0)
    if not 0 <= k < REG_BYTES // size:
        raise KernelError(f"vf.mask_gen_with_reg_tensor: offset {k} outside [0, {REG_BYTES // size})", _where())
    block = src.lanes.view(np.uint8)[k * size:(k + 1) * size]
    lanes = np.unpackbits(block, bitorder="little").astype(bool)
    return Mask(np.repeat(lanes, w))


def _with_carry(op: str, sign: int, src0, src1, carry, preg) -> tuple[Mask, Reg]:
    """`carry, dst = vf.addc(a, b, carry_in, preg)`: dst = a + b + c (subc: a - b - c) modulo
    2^32, the carry (borrow) out per lane in the returned mask."""
    _run(op)
    a, b = _reg(op, src0), _reg(op, src1)
    cin, preg = _mask(op, carry), _mask(op, preg)
    if a.dtype.name not in ("DT_INT32", "DT_UINT32") or b.dtype.bits != 32:
        raise KernelError(f"vf.{op} works on 32-bit integer registers, got {a.dtype.name}", _where())
    u = DTYPES["DT_UINT32"]
    x, y = a.lanes.view(np.uint32).astype(np.int64), b.lanes.view(np.uint32).astype(np.int64)
    c = cin.lanes(u).astype(np.int64)
    total = x + sign * (y + c)
    on = preg.lanes(u)
    out = np.where(on, total % (1 << 32), 0).astype(np.uint32)
    flag = on & ((total >= 1 << 32) if sign > 0 else (total < 0))
    return Mask(np.repeat(flag, 4)), Reg(a.dtype, out.view(a.dtype.storage))


def addc(src0, src1, carry_src, preg, mode=None) -> tuple[Mask, Reg]:
    return _with_carry("addc", 1, src0, src1, carry_src, preg)


def subc(src0, src1, borrow_src, preg, mode=None) -> tuple[Mask, Reg]:
    return _with_carry("subc", -1, src0, src1, borrow_src, preg)


def muls_cast(src, scalar, preg, dtype=None, layout=None) -> Reg:
    """src * scalar (fp32) rounded to fp16 with CAST_ROUND, lane i of the source into lane 2i
    (ZERO) or 2i + 1 (ONE) of the fp16 result; the other lanes 0."""
    _run("muls_cast")
    src, preg = _reg("muls_cast", src), _mask("muls_cast", preg)
    fp16 = DTYPES["DT_FP16"]
    if src.dtype.name != "DT_FP32" or (dtype is not None and dtype is not fp16):
        raise KernelError("vf.muls_cast turns DT_FP32 lanes into DT_FP16", _where())
    product = (src.values() * _scalar(src, scalar)).astype(np.float32)
    vals = np.where(preg.lanes(src.dtype), rounding.convert(product, src.dtype, fp16, "CAST_ROUND"), 0)
    out = np.zeros(REG_BYTES // 2, np.float16)
    out[(0 if _name(layout, "ZERO") == "ZERO" else 1)::2] = vals
    return Reg(fp16, out)


def clear_spr() -> None:
    """Resets the AR special register to 0."""
    run = _run("clear_spr")
    run.address_register = 0


def get_mask_spr(width=None) -> Mask:
    """The vector mask `pl.set_vec_mask` set ({MASK1, MASK0}): B32 spreads the 64 bits of MASK0
    over 4-byte lanes, B16 the 128 bits of both over 2-byte lanes; in count mode the first
    MASK0 lanes."""
    run = _run("get_mask_spr")
    state = run.core.machine.vector_masks.get(run.core.name, {"mode": "norm", "mask": (-1, -1)})
    w = 2 if _name(width, "B32") == "B16" else 4
    lanes = REG_BYTES // w
    high, low = (int(v) & ((1 << 64) - 1) for v in state["mask"])
    if state["mode"] == "count":
        active = np.arange(lanes) < low
    else:
        word = low | (high << 64)
        active = np.array([(word >> i) & 1 for i in range(lanes)], bool)
    return Mask(np.repeat(active, w))


OPS = {f.__name__: f for f in (pack, interleave, histograms, mask_gen_with_reg_tensor, addc, subc, muls_cast,
                               clear_spr, get_mask_spr)}
vf.OPS.update(OPS)

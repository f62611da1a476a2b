"""More `vf.*` register ops: the arithmetic, logic, compare, reduce, broadcast and gather
ops beyond those of `sim_runtime.vf`, each following the same rules (lane-wise, zero in
inactive lanes, one register op each). Registered into `vf.OPS`."""

from __future__ import annotations

import numpy as np

from pto_api.ops import VF_TARGET_READ_OPS
from pto_api.registers import BLOCK_BYTES, BLOCKS_PER_REG, REG_BYTES
from sim_runtime import assumed, vf
from sim_runtime.dtypes import DTYPES, DType
from sim_runtime.errors import KernelError
from sim_runtime.vf import Mask, Reg, _lanewise, _mask, _name, _precision, _reg, _result, _run, _scalar, _where

vf._OWN_FILES.add(__file__)


def _unary(op: str, fn):
    def f(src, preg, mode=None):
        return _lanewise(op, fn, [src], preg, mode)
    f.__name__ = op
    return f


def _unary_precise(op: str, fn):
    """A unary op that also takes PyPTO's `precision` (only its default is emulated)."""
    def f(src, preg, mode=None, precision=None):
        _precision(op, precision)
        return _lanewise(op, fn, [src], preg, mode)
    f.__name__ = op
    return f


def _binary(op: str, fn):
    def f(src0, src1, preg, mode=None):
        return _lanewise(op, fn, [src0, src1], preg, mode)
    f.__name__ = op
    return f


def _logic(op: str, fn, srcs: list, preg, mode):
    """The logic ops take registers or masks. On registers they work on the bits of each
    lane, whatever its dtype (a float lane's encoding too). On masks they work on the
    predicate bits themselves: each of the 256 bits is `fn` of the source bits, and a bit
    `preg` does not select is 0 (ZEROING; these ops do not support MERGING on masks)."""
    _run(op)
    if not any(isinstance(s, Mask) for s in srcs):
        regs = [_reg(op, r) for r in srcs]
        dtype = regs[0].dtype
        if any(r.dtype.bits != dtype.bits for r in regs):
            raise KernelError(f"vf.{op}: operands of different widths ({', '.join(r.dtype.name for r in regs)})",
                              _where())
        unsigned = np.dtype(f"u{max(1, dtype.itemsize)}")
        bits = fn(*(r.lanes.view(unsigned) for r in regs)).astype(unsigned)
        out = bits.view(regs[0].lanes.dtype).copy()
        base = vf._merge_base(op, mode, dtype)
        off = ~_mask(op, preg).lanes(dtype)
        out[off] = 0 if base is None else base.lanes.view(out.dtype)[off]
        return Reg(dtype, out)
    vf._zeroing(op, mode)
    if not all(isinstance(s, Mask) for s in srcs):
        raise KernelError(f"vf.{op}: the sources must be all masks or all registers, got "
                          f"{', '.join(repr(s) for s in srcs)}", _where())
    return Mask(fn(*(s.bits for s in srcs)) & _mask(op, preg).bits)


def and_(src0, src1, preg, mode=None):
    return _logic("and_", np.bitwise_and, [src0, src1], preg, mode)


def or_(src0, src1, preg, mode=None):
    return _logic("or_", np.bitwise_or, [src0, src1], preg, mode)


def xor(src0, src1, preg, mode=None, dtype=None):
    """`dtype` names the lanes' type, which a bitwise op does not change."""
    return _logic("xor", np.bitwise_xor, [src0, src1], preg, mode)


def not_(src, preg, mode=None):
    return _logic("not_", np.invert, [src], preg, mode)


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


def _shift(op: str, fn, src, shift, preg, mode):
    src = _reg(op, src)
    _integer(op, src)
    amount = shift.values() if isinstance(shift, Reg) else _scalar(src, shift)
    return _lanewise(op, lambda x: fn(x, amount), [src], preg, mode)


def shift_left(src, shift, preg, mode=None):
    return _shift("shift_left", np.left_shift, src, shift, preg, mode)


def shift_right(src, shift, preg, mode=None, dtype=None):
    """`dtype` names the lanes' type, which the shift keeps."""
    return _shift("shift_right", np.right_shift, src, shift, preg, mode)


def _accumulate(op: str, fn, src, other, preg, mode):
    """`dst = vf.<op>(a, b, preg)`: the register assigned to is also read (it must already
    hold a value), as in the DSL, where the call names its accumulator by assignment."""
    assert op in VF_TARGET_READ_OPS, op
    dst = vf.target_register(op, "accumulates into the register it is assigned to")
    src = _reg(op, src)
    value = _scalar(src, other) if not isinstance(other, Reg) else other.values()
    acc = dst.values()
    return _lanewise(op, lambda a: fn(acc, a, value), [src], preg, mode)


def mul_add_dst(src0, src1, preg, mode=None):
    return _accumulate("mul_add_dst", lambda d, a, b: a * b + d, src0, src1, preg, mode)


def mul_dst_add(src0, src1, preg, mode=None):
    return _accumulate("mul_dst_add", lambda d, a, b: d * a + b, src0, src1, preg, mode)


def axpy(src, scalar, preg, mode=None):
    return _accumulate("axpy", lambda d, a, s: s * a + d, src, scalar, preg, mode)


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


def select(src0, src1, preg, mode=None):
    """Lane i of src0 where the mask is set, else lane i of src1. Of two masks: bit by bit,
    the bit of src0 where the bit of `preg` is set, else the bit of src1."""
    _run("select")
    if isinstance(src0, Mask) or isinstance(src1, Mask):
        m0, m1, pm = _mask("select", src0), _mask("select", src1), _mask("select", preg)
        return Mask(np.where(pm.bits, m0.bits, m1.bits))
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
    """Lane i = start + i; `IndexOrder.DECREASE_ORDER` gives the same values in reverse lane
    order, lane i = start + (lanes - 1 - i) (`assumed.ARANGE_DECREASE_REVERSES`); integer
    lanes wrap to the dtype."""
    _run("arange")
    dt = dtype or DTYPES["DT_INT32"]
    n = REG_BYTES // dt.itemsize
    order = _name(index_order, "INCREASE_ORDER")
    if order not in ("INCREASE_ORDER", "DECREASE_ORDER"):
        raise KernelError(f"vf.arange: unknown IndexOrder {order!r}", _where())
    i = np.arange(n)
    offsets = (n - 1 - i if assumed.ARANGE_DECREASE_REVERSES else -i) if order == "DECREASE_ORDER" else i
    return Reg(dt, dt.to_storage((start + offsets).astype(dt.compute)).copy())


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


#: `vf.gather` from a tile, NORM mode: source dtype width -> the index widths it takes.
GATHER_INDEX_BITS = {1: (16,), 2: (16, 32), 4: (32,), 8: (32, 64)}


def gather(src, index, preg=None, data_copy_mode=None) -> Reg:
    """From a tile (`src` a pointer, 32-byte aligned): NORM gathers element index[i] (in
    elements) into lane i; 8-bit data is zero-extended into 16-bit lanes, and 16-bit data
    with DT_UINT32 indices fills the low half of 32-bit slots (lane 2i, lane 2i + 1 zero).
    DATA_BLOCK_LOAD gathers DataBlock b (32 bytes) from byte offset index[b], a multiple of
    32. From a register: lane i = src[index[i] mod lanes], no mask, any width-matched index.
    The mask: `assumed.GATHER_MASK_AT_RESULT_SLOTS`."""
    run = _run("gather")
    index = _reg("gather", index, "index")
    if isinstance(src, Reg):
        return _gather_register(src, index, preg, data_copy_mode)
    ptr = vf._ptr("gather", src)
    vf._aligned("gather", ptr.addr, 32)
    if index.dtype.name not in ("DT_UINT8", "DT_UINT16", "DT_UINT32", "DT_UINT64"):
        raise KernelError(f"vf.gather: the index register holds unsigned integers, got {index.dtype.name}", _where())
    mode = _name(data_copy_mode, "NORM")
    if mode == "DATA_BLOCK_LOAD":
        return _gather_blocks(run, ptr, index, preg)
    if mode != "NORM":
        raise KernelError(f"vf.gather: data_copy_mode {mode} (NORM or DATA_BLOCK_LOAD)", _where())
    dt = ptr.dtype
    w = dt.itemsize
    if w == 1 and dt.name not in ("DT_INT8", "DT_UINT8") or w not in GATHER_INDEX_BITS:
        raise KernelError(f"vf.gather from a tile does not take {dt.name} data", _where())
    if index.dtype.bits not in GATHER_INDEX_BITS[w]:
        raise KernelError(f"vf.gather of {dt.name} from a tile takes indices of "
                          f"{' or '.join(f'DT_UINT{b}' for b in GATHER_INDEX_BITS[w])}, got {index.dtype.name}",
                          _where())
    # bytes of the result each gathered element occupies
    slot = 2 if w == 1 else index.dtype.itemsize if w == 2 else w
    n = REG_BYTES // slot
    at = index.lanes[:n].astype(np.int64)
    on = _mask("gather", preg).lanes(DTYPES[f"DT_UINT{8 * slot}"]) if preg is not None else np.ones(n, bool)
    out = np.zeros(REG_BYTES, np.uint8)
    buf = ptr.mem.buf
    for lane in np.flatnonzero(on).tolist():
        a = ptr.addr + int(at[lane]) * w
        run.touch(ptr, a, a + w, "R")
        out[lane * slot:lane * slot + w] = buf[a:a + w]
    rdt = DTYPES[dt.name.replace("INT8", "INT16")] if w == 1 else dt
    return Reg(rdt, out.view(rdt.storage))


def _gather_blocks(run: vf.VfRun, ptr: vf.Ptr, index: Reg, preg) -> Reg:
    if index.dtype.name != "DT_UINT32":
        raise KernelError(f"vf.gather DATA_BLOCK_LOAD takes DT_UINT32 byte offsets, got {index.dtype.name}",
                          _where())
    dt = ptr.dtype
    on = _mask("gather", preg).lanes(dt) if preg is not None else np.ones(REG_BYTES // dt.itemsize, bool)
    on_bytes = np.repeat(on, dt.itemsize)
    out = np.zeros(REG_BYTES, np.uint8)
    for b in range(BLOCKS_PER_REG):
        lo, hi = b * BLOCK_BYTES, (b + 1) * BLOCK_BYTES
        if not on_bytes[lo:hi].any():
            continue
        off = int(index.lanes[b])
        if off % BLOCK_BYTES:
            raise KernelError(f"vf.gather DATA_BLOCK_LOAD: byte offset {off} (index lane {b}) is not a multiple of "
                              f"{BLOCK_BYTES}", _where())
        a = ptr.addr + off
        run.touch(ptr, a, a + BLOCK_BYTES, "R")
        out[lo:hi] = np.where(on_bytes[lo:hi], ptr.mem.buf[a:a + BLOCK_BYTES], 0)
    return Reg(dt, out.view(dt.storage))


def _gather_register(src: Reg, index: Reg, preg, data_copy_mode) -> Reg:
    if preg is not None or data_copy_mode is not None:
        raise KernelError("vf.gather from a register takes no mask and no data_copy_mode", _where())
    if src.dtype.bits not in (8, 16, 32) or index.dtype.name != f"DT_UINT{src.dtype.bits}":
        raise KernelError(f"vf.gather from a {src.dtype.name} register takes DT_UINT{src.dtype.bits} indices, "
                          f"got {index.dtype.name}", _where())
    n = src.lanes.size
    return Reg(src.dtype, src.lanes[index.lanes.astype(np.int64) % n].copy())


def _abs_sub(a, b):
    return np.abs(a - b)


def _prelu(src, slope, preg, mode=None) -> Reg:
    return _lanewise("prelu", lambda x, s: np.where(x >= 0, x, x * s), [src, slope], preg, mode)


def _log(x):
    return np.log(x.astype(np.float32))


NEW_OPS = {
    "abs": _unary("abs", np.abs), "neg": _unary("neg", np.negative), "relu": _unary("relu", lambda x: np.maximum(x, 0)),
    "sqrt": _unary_precise("sqrt", np.sqrt), "ln": _unary_precise("ln", _log), "log": _unary_precise("log", _log),
    "log2": _unary("log2", np.log2), "log10": _unary("log10", np.log10), "not_": not_,
    "and_": and_, "or_": or_, "xor": xor, "abs_sub": _binary("abs_sub", _abs_sub),
    "shift_left": shift_left, "shift_right": shift_right,
    "subs": _with_scalar("subs", np.subtract), "maxs": _with_scalar("maxs", np.maximum),
    "mins": _with_scalar("mins", np.minimum),
    "leaky_relu": _with_scalar("leaky_relu", lambda x, s: np.where(x >= 0, x, x * s)),
    "prelu": _prelu,
    "mul_add_dst": mul_add_dst, "mul_dst_add": mul_dst_add, "axpy": axpy,
    **{n: _compare(n, fn) for n, fn in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                                         ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal))},
    "select": select,
    "reduce_sum": _reduce("reduce_sum", np.sum), "reduce_max": _reduce("reduce_max", np.max),
    "reduce_min": _reduce("reduce_min", np.min), "pair_reduce_sum": pair_reduce_sum,
    "squeeze": squeeze, "full": full, "move": move, "truncate": truncate, "mull": mull, "bit_cast": bit_cast,
    "arange": arange, "unpack": unpack, "gather": gather,
}

vf.OPS.update(NEW_OPS)

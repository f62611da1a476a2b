"""`@pl.vector_function` calls and the `vf.*` register ops (the `pl.Vf` namespace).

A vector function is inlined at its call site on the hardware and runs as one piece of
V-pipe work, so here a call is ONE op of the calling AIV: the body runs to completion inside
it (no scheduling point), its register ops are counted for the cost model, and the bytes
its loads and stores touched become that op's accesses (merged into byte ranges per memory
and direction) for the race detector.

Inside the body a tile argument is a `Ptr`: a typed pointer to the tile's element (0, 0);
`ptr + k` moves it by k elements of the tile's dtype whatever the layout, and load/store
offsets count tile elements too (a `[row, col]` offset means `row * shape[1] + col` of the
declared shape). Registers are 256 bytes: 64 lanes of fp32, 128 of fp16. A mask holds one
bit per register byte (`assumed.lane_bits`). Results of lane-wise ops are zero in inactive
lanes (zeroing, see `assumed`); stores leave memory of inactive lanes unchanged.

Post-update cursors: code generation keeps one pointer variable per distinct target
expression of a `post_update=True` access, initialised once per call to the expression's
address and advanced in place. The emulator identifies that variable by the address the
expression evaluates to (the expression itself does not move), so `x + 512` and `x` get
separate cursors and every later use of the same expression continues where the last one
stopped.
"""

from __future__ import annotations

import functools
import linecache
import re
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from pto_api.registers import (
    BLOCK_BYTES,
    BLOCKS_PER_REG,
    FLOAT_LITERAL_DTYPE,
    INT_LITERAL_DTYPE,
    MASK_PATTERNS,
    REG_BYTES,
)
from sim_runtime import assumed, costs, minifloat, rounding
from sim_runtime.dtypes import DTYPES, DType
from sim_runtime.errors import KernelError, Location, UnsupportedOpError
from sim_runtime.memory import Footprint, Memory
from sim_runtime.opplan import OpPlan
from sim_runtime.scheduler import current_core
from sim_runtime.tiles import Tile

#: `pl.LoadDist` members.
LOAD_DISTS = ("NORM", "BRC", "BRC_B8", "BRC_B16", "BRC_B32", "US", "US_B8", "US_B16", "DS", "DS_B8", "DS_B16",
              "UNPK", "UNPK_B8", "UNPK_B16", "UNPK_B32", "UNPK4", "BLK", "E2B", "E2B_B16", "E2B_B32",
              "DINTLV_B8", "DINTLV_B16", "DINTLV_B32")
#: `pl.DataCopyMode` members: element-wise (default), DataBlock gather, block-strided copy.
DATA_COPY_MODES = ("NORM", "DATA_BLOCK_LOAD", "DATA_BLOCK_COPY")
CAST_LAYOUTS = ("ZERO", "ONE", "TWO", "THREE")
MERGE_MODES = ("ZEROING", "MERGING")
MEM_BAR_MODES = ("VV_ALL", "VST_VLD", "VLD_VST", "VST_VST", "VLD_VLD")

_state = threading.local()

#: Modules whose frames `_where` and `target_value` skip to find the kernel line (the
#: register-op modules add themselves).
_OWN_FILES: set[str] = {__file__}


def _where() -> Location:
    """The innermost kernel-file line on the stack (the first frame outside this module)."""
    f = sys._getframe(1)
    while f.f_back is not None and f.f_code.co_filename in _OWN_FILES:
        f = f.f_back
    return Location(f.f_code.co_filename, f.f_lineno)


def active() -> bool:
    """Is the calling thread inside a vector function body?"""
    return getattr(_state, "run", None) is not None


def _name(value, default: str) -> str:
    return default if value is None else getattr(value, "name", value)


# -- registers, masks, pointers -------------------------------------------------------------

class Reg:
    """A 256-byte vector register: `lanes` in the storage dtype of `dtype`."""

    __slots__ = ("dtype", "lanes")

    def __init__(self, dtype: DType, lanes: np.ndarray):
        self.dtype, self.lanes = dtype, lanes

    @staticmethod
    def of(dtype: DType, values) -> Reg:
        n = REG_BYTES // dtype.itemsize
        return Reg(dtype, dtype.to_storage(np.broadcast_to(np.asarray(values, dtype.compute), (n,))).copy())

    def values(self) -> np.ndarray:
        return self.dtype.to_compute(self.lanes)

    def __repr__(self) -> str:
        return f"<register {self.dtype.name} x{self.lanes.size}>"


class Mask:
    """A 256-bit predicate: one bit per register byte."""

    __slots__ = ("bits", "full")

    def __init__(self, bits: np.ndarray):
        self.bits = bits
        self.full = bool(bits.all())

    def lanes(self, dtype: DType) -> np.ndarray:
        return self.bits[assumed.lane_bits(dtype.itemsize)]

    def __repr__(self) -> str:
        return f"<mask {int(self.bits.sum())}/256 bits>"


class Ptr:
    """A tile argument inside a vector function: a typed UB pointer (tile, memory, byte address)."""

    __slots__ = ("tile", "mem", "addr")

    def __init__(self, tile: Tile, mem: Memory, addr: int):
        self.tile, self.mem, self.addr = tile, mem, addr

    @property
    def dtype(self) -> DType:
        return self.tile.dtype

    def __add__(self, k):
        if not isinstance(k, (int, np.integer)):
            raise KernelError(f"a tile pointer moves by a whole number of elements, got {k!r}", _where())
        return Ptr(self.tile, self.mem, self.addr + int(k) * self.dtype.itemsize)

    __radd__ = __add__

    def __repr__(self) -> str:
        return f"<pointer into {self.tile.name} at {self.mem.space}+{self.addr:#x}>"


class VfRun:
    """One vector-function invocation: register-op count, cursors, bytes touched."""

    def __init__(self, core, name: str, where: Location):
        self.core, self.name, self.where = core, name, where
        self.ops = 0
        #: The AR special register (bytes counted by `vf.squeeze(..., STORE_REG)`), kept per
        #: core across calls: `pl.get_spr()` reads it after the call.
        self.address_register: int | None = core.machine.address_registers.get(core.name)
        self.cursors: dict[tuple, int] = {}
        self.touched: dict[tuple, tuple[Memory, list, list]] = {}

    def touch(self, ptr: Ptr, start: int, end: int, kind: str) -> None:
        mem = ptr.mem
        if start < 0 or end > mem.capacity:
            raise KernelError(f"vector function {self.name}: access [{start:#x}, {end:#x}) outside "
                              f"{mem.space} (capacity {mem.capacity} bytes)", _where())
        lo, hi = ptr.tile.addr, ptr.tile.addr + ptr.tile.type.nbytes
        if start < lo or end > hi:
            note = (f"{_where()}: vector function {self.name} accesses bytes [{start:#x}, {end:#x}) "
                    f"outside its argument {ptr.tile.name} [{lo:#x}, {hi:#x})")
            if note not in self.core.machine.warnings:
                self.core.machine.warnings.append(note)
        entry = self.touched.setdefault((mem.key, kind), (mem, [], []))
        entry[1].append(start)
        entry[2].append(end)

    def accesses(self) -> list:
        return [(mem, Footprint.of(key, starts, ends), kind)
                for (key, kind), (mem, starts, ends) in self.touched.items()]

    def cursor(self, ptr: Ptr) -> int:
        return self.cursors.setdefault((ptr.mem.key, ptr.addr), ptr.addr)

    def advance(self, ptr: Ptr, to: int) -> None:
        self.cursors[(ptr.mem.key, ptr.addr)] = to


def _run(op: str) -> VfRun:
    run = getattr(_state, "run", None)
    if run is None:
        raise KernelError(f"vf.{op} is only allowed inside a @pl.vector_function", _where())
    run.ops += 1
    return run


def _reg(op: str, value, what: str = "operand") -> Reg:
    if not isinstance(value, Reg):
        raise KernelError(f"vf.{op}: the {what} must be a register, got {value!r}", _where())
    return value


def _mask(op: str, value) -> Mask:
    if not isinstance(value, Mask):
        raise KernelError(f"vf.{op}: expected a mask (vf.create_mask / vf.update_mask), got {value!r}", _where())
    return value


def target_value(op: str):
    """The value the variable assigned by `name = vf.<op>(...)` holds before the call (None
    when the line is no such assignment or the name is unbound): the DSL names an op's
    read-and-written register, or a pre-declared mask target, by assignment."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename in _OWN_FILES:
        frame = frame.f_back
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
    found = [m for m in re.finditer(rf"(?:^|;)\s*([A-Za-z_]\w*)\s*=\s*([\w.]*\b{op.rstrip('_')}_?\()", line)]
    column = _call_column(frame)
    if column is not None:  # `pm = vf.load_align(a); x = vf.load_align(b)`: the statement of this call
        found = [m for m in found if m.start(2) == column]
    if len(found) > 1:
        raise KernelError(f"vf.{op}: which of the assignments on this line it is cannot be told: write one per line",
                          _where())
    return frame.f_locals.get(found[0].group(1)) if found else None


def _call_column(frame) -> int | None:
    """The column where the call `frame` is running starts, on its line (Python's positions
    of the current instruction), or None when they do not say."""
    try:
        line, _, column, _ = list(frame.f_code.co_positions())[frame.f_lasti // 2]
    except (AttributeError, IndexError, ValueError):
        return None
    return column if line == frame.f_lineno else None


def target_register(op: str, why: str) -> Reg:
    """The register `acc` of `acc = vf.<op>(...)`, which the op reads (`why` says what for)."""
    value = target_value(op)
    if not isinstance(value, Reg):
        raise KernelError(f"vf.{op} {why}: write `acc = vf.{op}(...)` with `acc` already holding a register",
                          _where())
    return value


def _zeroing(op: str, mode) -> None:
    if _name(mode, "ZEROING") != "ZEROING":
        raise UnsupportedOpError(f"vf.{op} with MergeMode.{_name(mode, '')} is not emulated", _where())


def _merge_base(op: str, mode, dtype: DType) -> Reg | None:
    """MergeMode.MERGING: the register assigned to, whose inactive lanes the result keeps."""
    m = _name(mode, "ZEROING")
    if m == "ZEROING":
        return None
    if m != "MERGING":
        raise KernelError(f"vf.{op}: unknown MergeMode {m!r}", _where())
    base = target_register(op, "with MergeMode.MERGING keeps the inactive lanes of its target")
    if base.dtype.itemsize != dtype.itemsize:
        raise KernelError(f"vf.{op}: MERGING into a {base.dtype.name} register from {dtype.name} lanes", _where())
    return base


def _result(dtype: DType, values: np.ndarray, mask: Mask | None, base: Reg | None = None) -> Reg:
    out = dtype.to_storage(np.asarray(values, dtype.compute))
    if mask is not None and not mask.full:
        out = out.copy()
        off = ~mask.lanes(dtype)
        out[off] = 0 if base is None else base.lanes.view(out.dtype)[off]
    return Reg(dtype, out)


def _lanewise(op: str, fn, regs: list, mask, mode=None) -> Reg:
    _run(op)
    regs = [_reg(op, r) for r in regs]
    mask = _mask(op, mask)
    dtype = regs[0].dtype
    base = _merge_base(op, mode, dtype)
    if any(r.dtype is not dtype for r in regs):
        raise KernelError(f"vf.{op}: operands of different dtypes ({', '.join(r.dtype.name for r in regs)})",
                          _where())
    return _result(dtype, fn(*(r.values() for r in regs)), mask, base)


def _scalar(reg: Reg, value):
    return np.asarray(assumed.scalar_literal(value)).astype(reg.dtype.compute)


# -- masks ----------------------------------------------------------------------------------

def _lanes_mask(dtype: DType, active: np.ndarray) -> Mask:
    return Mask(np.repeat(active, dtype.itemsize))


def create_mask(pattern=None, dtype=None) -> Mask:
    """`pset`: a mask of `pattern` at `dtype` granularity (default ALL, fp32)."""
    _run("create_mask")
    dtype = dtype or DTYPES["DT_FP32"]
    lanes = REG_BYTES // dtype.itemsize
    p = _name(pattern, "ALL")
    idx = np.arange(lanes)
    if p == "ALL":
        active = idx >= 0
    elif p == "ALLF":
        active = idx < 0
    elif p.startswith("VL") and p in MASK_PATTERNS:
        active = idx < int(p[2:])
    elif p in ("M3", "M4"):
        active = idx % int(p[1]) == 0
    elif p == "H":
        active = idx < lanes // 2
    elif p == "Q":
        active = idx < lanes // 4
    else:
        raise KernelError(f"vf.create_mask: unknown pattern {p!r}", _where())
    return _lanes_mask(dtype, active)


def update_mask(scalar, dtype=None) -> Mask:
    """`plt`: lanes [0, min(scalar, lanes)) active (the scalar itself is not changed)."""
    _run("update_mask")
    dtype = dtype or DTYPES["DT_FP32"]
    lanes = REG_BYTES // dtype.itemsize
    return _lanes_mask(dtype, np.arange(lanes) < max(0, min(int(scalar), lanes)))


# -- broadcasts and arithmetic -------------------------------------------------------------

def full(value, mask=None, *, dtype=None, mode=None) -> Reg:
    """Every lane = `value` (a float literal gives fp32); with a mask, inactive lanes are 0."""
    _run("full")
    if isinstance(value, Reg):
        raise UnsupportedOpError("vf.full of a register (lane broadcast) is not emulated", _where())
    if dtype is None:
        dtype = DTYPES[FLOAT_LITERAL_DTYPE if isinstance(value, float) else INT_LITERAL_DTYPE]
    m = None if mask is None else _mask("full", mask)
    reg = Reg.of(dtype, assumed.scalar_literal(value))
    return _result(dtype, reg.values(), m, _merge_base("full", mode, dtype))


def add(src0, src1, preg, mode=None) -> Reg:
    return _lanewise("add", np.add, [src0, src1], preg, mode)


def sub(src0, src1, preg, mode=None) -> Reg:
    return _lanewise("sub", np.subtract, [src0, src1], preg, mode)


def mul(src0, src1, preg, mode=None) -> Reg:
    return _lanewise("mul", np.multiply, [src0, src1], preg, mode)


def div(src0, src1, preg, mode=None) -> Reg:
    return _lanewise("div", np.divide, [src0, src1], preg, mode)


def max_(src0, src1, preg, mode=None) -> Reg:
    """`vf.max`: NaN if either lane is NaN."""
    return _lanewise("max", np.maximum, [src0, src1], preg, mode)


def min_(src0, src1, preg, mode=None) -> Reg:
    """`vf.min`."""
    return _lanewise("min", np.minimum, [src0, src1], preg, mode)


def adds(src, scalar, preg, mode=None) -> Reg:
    src = _reg("adds", src)
    return _lanewise("adds", lambda x: x + _scalar(src, scalar), [src], preg, mode)


def muls(src0, scaler, preg, mode=None) -> Reg:
    """`scaler` is PyPTO's spelling."""
    src0 = _reg("muls", src0)
    return _lanewise("muls", lambda x: x * _scalar(src0, scaler), [src0], preg, mode)


def _precision(op: str, precision) -> None:
    """The `precision` of exp, ln, log and sqrt: what a value other than the default changes is
    not documented, so only the default is emulated."""
    if precision is not None:
        raise UnsupportedOpError(f"vf.{op} with precision={precision!r} is not emulated", _where())


def exp(src, preg, mode=None, precision=None) -> Reg:
    _precision("exp", precision)
    return _lanewise("exp", assumed.exp32, [src], preg, mode)


def _widen(reg: Reg, layout) -> np.ndarray:
    """Even (ZERO) or odd (ONE) lanes of a 16-bit register as fp32 values."""
    part = 0 if _name(layout, "ZERO") == "ZERO" else 1
    return reg.values()[part::2].astype(np.float32)


def exp_sub(src0, src1, preg, layout=None, dtype=None) -> Reg:
    """exp(src0 - src1) lane by lane, fp32 result (`dtype`, if given, names it: DT_FP32 is the
    only result type, fp16 sources included); 16-bit sources are widened from the even
    (ZERO) or odd (ONE) lanes. `src1` is an ordinary register: there is no implicit broadcast."""
    _run("exp_sub")
    x, m, mask = _reg("exp_sub", src0), _reg("exp_sub", src1), _mask("exp_sub", preg)
    fp32 = DTYPES["DT_FP32"]
    if dtype is not None and dtype is not fp32:
        raise KernelError(f"vf.exp_sub gives DT_FP32 lanes, not {_name(dtype, '')}", _where())
    if x.dtype.bits == 16:
        xv, mv = _widen(x, layout), _widen(m, layout)
    elif x.dtype is fp32 and m.dtype is fp32:
        xv, mv = x.values(), m.values()
    else:
        raise UnsupportedOpError(f"vf.exp_sub on {x.dtype.name}/{m.dtype.name} registers is not emulated", _where())
    return _result(fp32, assumed.exp32(xv - mv), mask)


#: `vf.astype` paths to and from the 8- and 4-bit floats: (src, dst) -> (the number of
#: CastLayout parts, the accepted rounding modes; None where the path does not round).
SMALL_FLOAT_CASTS: dict[tuple[str, str], tuple[int, tuple[str, ...] | None]] = {
    ("DT_FP8E4M3FN", "DT_FP32"): (4, None),
    ("DT_FP8E5M2", "DT_FP32"): (4, None),
    ("DT_FP8E8M0", "DT_BF16"): (2, None),
    ("DT_FP4E2M1", "DT_BF16"): (4, None),
    ("DT_FP4E1M2", "DT_BF16"): (4, None),
    ("DT_FP32", "DT_FP8E4M3FN"): (4, ("CAST_RINT",)),
    ("DT_FP32", "DT_FP8E5M2"): (4, ("CAST_RINT",)),
    ("DT_BF16", "DT_FP8E8M0"): (2, None),
    ("DT_BF16", "DT_FP4E2M1"): (4, ("CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC")),
    ("DT_BF16", "DT_FP4E1M2"): (4, ("CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC")),
}


def _saturated(values: np.ndarray, dtype: DType) -> np.ndarray:
    """SaturateMode.ON of a float -> float conversion: NaN -> 0, beyond the range -> its end
    (clipping first, then rounding, gives the largest finite value in every mode)."""
    top = assumed.pad_float(dtype.name, "max")
    return np.clip(np.nan_to_num(values.astype(np.float64), nan=0.0, posinf=top, neginf=-top), -top, top)


def astype(src, preg, dtype, layout=None, round_mode=None, saturate=None, mode=None) -> Reg:
    """Convert lanes to `dtype`. Narrowing 32 -> 16 bits puts source lane i in lane 2i (ZERO)
    or 2i+1 (ONE) with the other lanes 0; widening 16 -> 32 reads the even (ZERO) or odd
    (ONE) lanes. Default rounding CAST_RINT (nearest, ties to even). SaturateMode.ON is
    emulated for float -> float conversions."""
    _run("astype")
    src, mask = _reg("astype", src), _mask("astype", preg)
    rmode = _name(round_mode, "CAST_RINT")
    lay = _name(layout, "ZERO")
    part = CAST_LAYOUTS.index(lay)
    sat = _name(saturate, "OFF") == "ON"
    if (src.dtype.name, dtype.name) in SMALL_FLOAT_CASTS:
        _zeroing("astype", mode)
        return _small_float_cast(src, mask, dtype, part, rmode, sat)
    if not (src.dtype.computable and dtype.computable):  # HiF8's encoding is not documented
        raise UnsupportedOpError(f"vf.astype {src.dtype.name} -> {dtype.name} is not emulated", _where())
    values = src.values()
    if sat:
        if dtype.name == "DT_FP32":
            raise KernelError(f"vf.astype {src.dtype.name} -> DT_FP32 takes SaturateMode.OFF only", _where())
        if not (src.dtype.is_float() and dtype.is_float()):
            raise UnsupportedOpError(f"vf.astype {src.dtype.name} -> {dtype.name} with SaturateMode.ON is not "
                                     "emulated", _where())
        values = _saturated(values, dtype)
    sb, db = src.dtype.bits, dtype.bits
    if part > 1 and sb in (db, 2 * db, db // 2):
        raise KernelError(f"vf.astype {src.dtype.name} -> {dtype.name} takes CastLayout ZERO or ONE, got {lay}",
                          _where())
    if sb == db:
        base = _merge_base("astype", mode, dtype)
        return _result(dtype, rounding.convert(values, src.dtype, dtype, rmode), mask, base)
    _zeroing("astype", mode)  # which lanes a width-changing MERGING cast keeps is not documented
    if sb == 2 * db:  # narrowing: the mask is read at the (wide) source lanes
        vals = np.where(mask.lanes(src.dtype), rounding.convert(values, src.dtype, dtype, rmode), 0)
        out = np.zeros(REG_BYTES // dtype.itemsize, dtype.compute)
        out[part::2] = vals
        return Reg(dtype, dtype.to_storage(out).copy())
    if db == 2 * sb:  # widening
        vals = rounding.convert(values[part::2], src.dtype, dtype, rmode)
        wide_mask = mask.lanes(dtype) if assumed.CAST_MASK_AT_WIDE_LANES else mask.lanes(src.dtype)[part::2]
        return Reg(dtype, dtype.to_storage(np.where(wide_mask, vals, 0).astype(dtype.compute)).copy())
    raise UnsupportedOpError(f"vf.astype {src.dtype.name} -> {dtype.name} is not emulated", _where())


def _small_float_cast(src: Reg, mask: Mask, dtype: DType, part: int, rmode: str, sat: bool) -> Reg:
    """A cast to or from an 8- or 4-bit float (`assumed.FP4_PAIR_TO_BYTE` for the lanes): the
    wide register's units (fp32 lanes, bf16 lanes, or bf16 pairs for FP4) map to bytes
    `parts * k + part` of the narrow register."""
    parts, modes = SMALL_FLOAT_CASTS[(src.dtype.name, dtype.name)]
    if part >= parts:
        raise KernelError(f"vf.astype {src.dtype.name} -> {dtype.name} takes CastLayout "
                          f"{' or '.join(CAST_LAYOUTS[:parts])}, got {CAST_LAYOUTS[part]}", _where())
    if modes is not None and rmode not in modes:
        raise KernelError(f"vf.astype {src.dtype.name} -> {dtype.name} takes round_mode {', '.join(modes)}, "
                          f"got {rmode}", _where())
    if dtype.name in minifloat.FORMATS:  # narrowing: the mask is read at the wide source lanes
        codes = minifloat.encode(src.values(), dtype.name, rmode if modes else "CAST_RINT", sat)
        active = mask.lanes(src.dtype)
        if dtype.bits == 4:
            codes, active = minifloat.pack4(codes), active[0::2]
        out = np.zeros(REG_BYTES, np.uint8)
        out[part::parts] = np.where(active, codes, 0)
        return Reg(dtype, out)
    codes = src.lanes.view(np.uint8)[part::parts]
    narrow_mask = mask.lanes(src.dtype)[part::parts]
    if src.dtype.bits == 4:
        codes, narrow_mask = minifloat.unpack4(codes), np.repeat(narrow_mask, 2)
    vals = minifloat.decode(codes, src.dtype.name)
    wide_mask = mask.lanes(dtype) if assumed.CAST_MASK_AT_WIDE_LANES else narrow_mask
    return Reg(dtype, dtype.to_storage(np.where(wide_mask, vals, 0).astype(dtype.compute)).copy())


def de_interleave(src0, src1, dtype=None) -> tuple[Reg, Reg] | tuple[Mask, Mask]:
    """Over the sequence src0 ++ src1: (even elements, odd elements), each one register. Two
    masks de-interleave their lanes of `dtype` (default `assumed.MASK_INTERLEAVE_DTYPE`):
    the inverse of `vf.interleave` of masks at the same width."""
    _run("de_interleave")
    if isinstance(src0, Mask) or isinstance(src1, Mask):
        m0, m1 = _mask("de_interleave", src0), _mask("de_interleave", src1)
        width = (dtype or DTYPES[assumed.MASK_INTERLEAVE_DTYPE]).itemsize
        seq = np.concatenate((m0.bits.reshape(-1, width), m1.bits.reshape(-1, width)))
        return Mask(seq[0::2].reshape(-1).copy()), Mask(seq[1::2].reshape(-1).copy())
    s0, s1 = _reg("de_interleave", src0), _reg("de_interleave", src1)
    if s0.dtype.bits != s1.dtype.bits:
        raise KernelError("vf.de_interleave: registers of different widths", _where())
    seq = np.concatenate((s0.lanes, s1.lanes.view(s0.lanes.dtype)))
    return Reg(s0.dtype, seq[0::2].copy()), Reg(s0.dtype, seq[1::2].copy())


def mem_bar(mode=None) -> None:
    """Orders loads and stores inside a vector function; the emulator runs them in program order."""
    _run("mem_bar")


# -- loads and stores ------------------------------------------------------------------------

def _ptr(op: str, value) -> Ptr:
    if not isinstance(value, Ptr):
        raise KernelError(f"vf.{op}: the first argument must be a tile (or tile + offset), got {value!r}", _where())
    return value


def _elements(ptr: Ptr, offset) -> int:
    if offset is None:
        return 0
    if isinstance(offset, (list, tuple)):
        row, col = offset
        return int(row) * ptr.tile.type.shape[1] + int(col)
    return int(offset)


def _aligned(op: str, addr: int, alignment: int) -> None:
    if addr % alignment:
        raise KernelError(f"vf.{op}: address {addr:#x} is not {alignment}-byte aligned", _where())


def load_align(tile, offset=None, dist=None, dtype=None, post_update=False, block_stride=None, repeat_stride=None,
               data_copy_mode=None) -> Reg:
    """NORM: 256 bytes at `tile + offset` (tile elements) as one register of the tile's dtype
    (or `dtype`); BRC_B8/16/32 (or BRC, by register width): one element broadcast to every
    lane. With `post_update`, the load reads at the cursor and moves it on by `offset`."""
    run = _run("load_align")
    ptr = _ptr("load_align", tile)
    rdt = dtype or ptr.dtype
    if _name(data_copy_mode, "NORM") == "DATA_BLOCK_COPY":
        return _load_blocks(run, ptr, rdt, offset, post_update, block_stride, repeat_stride)
    step = _elements(ptr, offset) * ptr.dtype.itemsize
    if post_update:
        addr = run.cursor(ptr)
        run.advance(ptr, addr + step)
    else:
        addr = ptr.addr + step
    d = _name(dist, "NORM")
    if d == "BRC":
        d = f"BRC_B{rdt.bits}"
    if d == "NORM":
        _aligned("load_align", addr, assumed.REGISTER_ACCESS_ALIGNMENT)
        run.touch(ptr, addr, addr + REG_BYTES, "R")
        return Reg(rdt, ptr.mem.buf[addr:addr + REG_BYTES].view(rdt.storage).copy())
    if d in assumed.BROADCAST_ALIGNMENT:
        width = assumed.BROADCAST_ALIGNMENT[d]
        if width != rdt.itemsize:
            raise KernelError(f"vf.load_align: {d} on a {rdt.name} register", _where())
        _aligned("load_align", addr, width)
        run.touch(ptr, addr, addr + width, "R")
        one: np.ndarray = ptr.mem.buf[addr:addr + width].view(rdt.storage)
        return Reg(rdt, np.repeat(one, REG_BYTES // width))
    raise UnsupportedOpError(f"vf.load_align with dist={d} is not emulated", _where())


def _load_blocks(run: VfRun, ptr: Ptr, rdt: DType, offset, post_update: bool, block_stride, repeat_stride) -> Reg:
    """DATA_BLOCK_COPY: the register's 8 blocks of 32 bytes come from `start + b * block_stride
    * 32`; `post_update` then moves the cursor by `repeat_stride * 32` bytes."""
    start = run.cursor(ptr) if post_update else ptr.addr + _elements(ptr, offset) * ptr.dtype.itemsize
    _aligned("load_align", start, assumed.REGISTER_ACCESS_ALIGNMENT)
    stride = int(block_stride if block_stride is not None else 1) * BLOCK_BYTES
    data = np.empty(REG_BYTES, np.uint8)
    for b in range(BLOCKS_PER_REG):
        a = start + b * stride
        run.touch(ptr, a, a + BLOCK_BYTES, "R")
        data[b * BLOCK_BYTES:(b + 1) * BLOCK_BYTES] = ptr.mem.buf[a:a + BLOCK_BYTES]
    if post_update:
        run.advance(ptr, start + int(repeat_stride if repeat_stride is not None else 1) * BLOCK_BYTES)
    return Reg(rdt, data.view(rdt.storage).copy())


def store_align(tile, src, preg, offset=None, *, dist=None, data_copy_mode=None, block_stride=None,
                repeat_stride=None, post_update=False) -> None:
    """NORM: the active lanes of `src` go to `tile + offset` (with `post_update` the trailing
    int is the cursor step in elements instead); NORM_B8/16/32 read the mask at lanes of
    that width instead of the register's. DATA_BLOCK_COPY: the register's 8 blocks of
    32 bytes go to `cursor + b * block_stride * 32` (the tile's address without `post_update`;
    the 4th argument is `block_stride` in this mode, as PyPTO binds it), a block only if one of
    its mask bits is set; `post_update` then moves the cursor by `repeat_stride * 32` bytes."""
    run = _run("store_align")
    ptr, reg, mask = _ptr("store_align", tile), _reg("store_align", src), _mask("store_align", preg)
    if _name(dist, "NORM") == "FIRST_ELEMENT":
        start = ptr.addr + _elements(ptr, offset) * ptr.dtype.itemsize
        width = reg.dtype.itemsize
        if mask.lanes(reg.dtype)[0]:
            run.touch(ptr, start, start + width, "W")
            ptr.mem.buf[start:start + width] = reg.lanes[:1].view(np.uint8)
        return
    d = _name(dist, "NORM")
    if d not in ("NORM", "NORM_B8", "NORM_B16", "NORM_B32"):
        raise UnsupportedOpError(f"vf.store_align with dist={d} is not emulated", _where())
    # NORM_B<w> stores the register with its mask read at w-bit lanes, whatever its dtype
    unit = reg.dtype.itemsize if d == "NORM" else int(d[len("NORM_B"):]) // 8
    data = reg.lanes.view(np.uint8)
    buf = ptr.mem.buf
    if _name(data_copy_mode, "NORM") == "DATA_BLOCK_COPY":
        if offset is not None:  # the 4th argument of a block copy is its block stride: it takes no offset
            if block_stride is not None:
                raise KernelError("vf.store_align DATA_BLOCK_COPY given its block stride twice (its 4th argument "
                                  "is the block stride in this mode)", _where())
            block_stride = offset
        start = run.cursor(ptr) if post_update else ptr.addr
        _aligned("store_align", start, assumed.REGISTER_ACCESS_ALIGNMENT)
        stride = int(block_stride if block_stride is not None else 1) * BLOCK_BYTES
        for b in range(BLOCKS_PER_REG):
            if mask.bits[b * BLOCK_BYTES:(b + 1) * BLOCK_BYTES].any():
                a = start + b * stride
                run.touch(ptr, a, a + BLOCK_BYTES, "W")
                buf[a:a + BLOCK_BYTES] = data[b * BLOCK_BYTES:(b + 1) * BLOCK_BYTES]
        if post_update:
            run.advance(ptr, start + int(repeat_stride if repeat_stride is not None else 1) * BLOCK_BYTES)
        return
    if post_update:
        start = run.cursor(ptr)
        run.advance(ptr, start + _elements(ptr, offset) * ptr.dtype.itemsize)
    else:
        start = ptr.addr + _elements(ptr, offset) * ptr.dtype.itemsize
    _aligned("store_align", start, assumed.REGISTER_ACCESS_ALIGNMENT)
    on = np.repeat(mask.lanes(DTYPES[f"DT_UINT{8 * unit}"]), unit)
    if on.all():
        run.touch(ptr, start, start + REG_BYTES, "W")
        buf[start:start + REG_BYTES] = data
        return
    edges = np.flatnonzero(np.diff(np.concatenate(([0], on.astype(np.int8), [0]))))
    for lo, hi in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
        run.touch(ptr, start + lo, start + hi, "W")
        buf[start + lo:start + hi] = data[lo:hi]


#: `vf.<name>` -> implementation.
OPS: dict[str, Callable[..., Any]] = {
    f.__name__.rstrip("_"): f for f in (create_mask, update_mask, full, add, sub, mul, div, max_, min_, adds, muls,
                                        exp, exp_sub, astype, de_interleave, mem_bar, load_align, store_align)}


# -- calls --------------------------------------------------------------------------------------

def vector_function(fn):
    """`@pl.vector_function`: calling it from a vector section is one V-pipe op of that AIV."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if active():  # a vector function calling another is inlined into the same piece of work
            return fn(*args, **kwargs)
        where = _where()
        core = current_core()
        if core is None:
            raise KernelError(f"vector function {fn.__name__} called outside a simulated kernel run", where)
        return _invoke(core, fn, args, kwargs, where)

    vars(call).update(pl_vector_function=True)
    return call


def _invoke(core, fn, args: tuple, kwargs: dict, where: Location):
    if core.kind != "aiv":
        raise KernelError(f"vector function {fn.__name__} called on {core.name}: it runs on vector cores", where)
    run = VfRun(core, fn.__name__, where)
    mutex: list[int] = []

    def bind(value):
        if not isinstance(value, Tile):
            return value
        if value.space != "Vec":
            raise KernelError(f"vector function {fn.__name__}: {value.name} is in {value.space}, not UB", where)
        if not value.dtype.computable and value.dtype.bits < 8:  # a 4-bit tile's size counts a byte per element
            raise UnsupportedOpError(f"vector function on {value.dtype.name} tiles is not emulated", where)
        mutex.extend(value.mutex)
        return Ptr(value, core.machine.memory("Vec", core), value.pointer)

    pargs = [bind(a) for a in args]
    pkwargs = {k: bind(v) for k, v in kwargs.items()}
    plan = OpPlan("V", 0, lambda: None, [], tuple(dict.fromkeys(mutex)), label=f"vector function {fn.__name__}")

    def execute():
        _state.run = run
        try:
            with np.errstate(all="ignore"):
                result = fn(*pargs, **pkwargs)
        finally:
            _state.run = None
            if run.address_register is not None:
                core.machine.address_registers[core.name] = run.address_register
        if result is not None:
            raise KernelError(f"vector function {fn.__name__} returned a value (vector functions return nothing)",
                              where)
        plan.cost = costs.vf_cost(run.ops)
        plan.accesses.extend(run.accesses())

    plan.run = execute
    return core.machine.execute(core, fn.__name__, plan, where)

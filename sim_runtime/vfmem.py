"""Register loads and stores beyond NORM: address registers, the load and store
distributions, mask loads and stores, unaligned and counted (`vf.load`/`vf.store`) access,
and `vf.scatter`. Each is one register op; the bytes it touches are recorded for the race
detector as in `sim_runtime.vf`. Registered into `vf.OPS` (replacing the NORM-only
`load_align`/`store_align`, which remain the fallback for the modes they handle).
"""

from __future__ import annotations

import numpy as np

from pto_api.registers import BLOCK_BYTES, REG_BYTES
from sim_runtime import assumed, vf
from sim_runtime.dtypes import DTYPES, DType
from sim_runtime.errors import KernelError, UnsupportedOpError
from sim_runtime.vf import Mask, Ptr, Reg, VfRun, _aligned, _mask, _name, _ptr, _reg, _run, _where

vf._OWN_FILES.add(__file__)


class AddrReg:
    """`vf.create_addr_reg`: an address offset of `nbytes` (sum of index * stride elements
    of the register's dtype)."""

    __slots__ = ("nbytes",)

    def __init__(self, nbytes: int):
        self.nbytes = nbytes

    def __repr__(self) -> str:
        return f"<address register +{self.nbytes} bytes>"


def create_addr_reg(index0, stride0, index1=0, stride1=0, index2=0, stride2=0, index3=0, stride3=0,
                    dtype=None) -> AddrReg:
    _run("create_addr_reg")
    dt = dtype or DTYPES["DT_FP32"]
    pairs = ((index0, stride0), (index1, stride1), (index2, stride2), (index3, stride3))
    elements = sum(int(i or 0) * int(s or 0) for i, s in pairs)
    return AddrReg(elements * dt.itemsize)


def _offset(ptr: Ptr, offset):
    """An AddrReg becomes the element offset of the tile it addresses (other offsets pass)."""
    if not isinstance(offset, AddrReg):
        return offset
    if offset.nbytes % ptr.dtype.itemsize:
        raise KernelError(f"vf: address register offset of {offset.nbytes} bytes is not a whole number of "
                          f"{ptr.dtype.name} elements", _where())
    return offset.nbytes // ptr.dtype.itemsize


def _address(run: VfRun, ptr: Ptr, offset, post_update: bool, step_bytes: int | None = None) -> int:
    """Start address of an access: the cursor (then moved by `step_bytes`, default the
    offset) with `post_update`, else the pointer plus the offset."""
    delta = vf._elements(ptr, _offset(ptr, offset)) * ptr.dtype.itemsize
    if not post_update:
        return ptr.addr + delta
    start = run.cursor(ptr)
    run.advance(ptr, start + (delta if step_bytes is None else step_bytes))
    return start


def _read(run: VfRun, ptr: Ptr, addr: int, n: int) -> np.ndarray:
    run.touch(ptr, addr, addr + n, "R")
    return ptr.mem.buf[addr:addr + n].copy()


def _unsigned(bits: int) -> DType:
    return DTYPES[f"DT_UINT{bits}"]


def _granule(dist: str, rdt: DType, allowed: tuple[int, ...]) -> tuple[str, int]:
    """(mode, element bits) of a distribution: `US_B16` names its width, `US` takes the
    register's."""
    mode, _, width = dist.partition("_B")
    bits = int(width) if width else rdt.bits
    if bits not in allowed:
        raise KernelError(f"vf.load_align: dist {dist} on a {rdt.name} register (widths {allowed})", _where())
    return mode, bits


# -- loads ------------------------------------------------------------------------------------

def _units(data: np.ndarray, bits: int) -> np.ndarray:
    return data.view(_unsigned(bits).storage)


def _dist_load(run: VfRun, ptr: Ptr, rdt: DType, dist: str, addr: int):
    """The single- and double-register distributions (bytes in, one register's bytes out)."""
    if dist.startswith("DINTLV_B"):
        bits = int(dist[len("DINTLV_B"):])
        _aligned("load_align", addr, 32)
        seq = _units(_read(run, ptr, addr, 2 * REG_BYTES), bits)
        kind = rdt if rdt.bits == bits else _unsigned(bits)
        return Reg(kind, seq[0::2].copy().view(kind.storage)), Reg(kind, seq[1::2].copy().view(kind.storage))
    if dist == "BLK":
        _aligned("load_align", addr, 32)
        return Reg(rdt, np.tile(_read(run, ptr, addr, BLOCK_BYTES), REG_BYTES // BLOCK_BYTES).view(rdt.storage))
    if dist == "UNPK4":
        _aligned("load_align", addr, 32)
        out = np.zeros(REG_BYTES, np.uint8)
        out[0::4] = _read(run, ptr, addr, REG_BYTES // 4)
        return Reg(rdt, out.view(rdt.storage))
    mode, bits = _granule(dist, rdt, (8, 16, 32))
    if mode == "US" and bits <= 16:
        _aligned("load_align", addr, 32)
        return Reg(rdt, np.repeat(_units(_read(run, ptr, addr, REG_BYTES // 2), bits), 2).view(rdt.storage))
    if mode == "DS" and bits <= 16:
        _aligned("load_align", addr, 32)
        return Reg(rdt, _units(_read(run, ptr, addr, 2 * REG_BYTES), bits)[0::2].copy().view(rdt.storage))
    if mode == "UNPK":
        _aligned("load_align", addr, 32)
        out = np.zeros(REG_BYTES // (bits // 8), _unsigned(bits).storage)
        out[0::2] = _units(_read(run, ptr, addr, REG_BYTES // 2), bits)
        return Reg(rdt, out.view(rdt.storage))
    if mode == "E2B" and bits >= 16:
        n = REG_BYTES // BLOCK_BYTES
        _aligned("load_align", addr, n * bits // 8)
        one = _units(_read(run, ptr, addr, n * bits // 8), bits)
        return Reg(rdt, np.repeat(one, BLOCK_BYTES * 8 // bits).view(rdt.storage))
    raise KernelError(f"vf.load_align: dist {dist} is not defined for a {rdt.name} register", _where())


def _mask_bits(data: np.ndarray) -> np.ndarray:
    return np.unpackbits(data, bitorder=assumed.MASK_BIT_ORDER).astype(bool)


def _mask_bytes(bits: np.ndarray) -> np.ndarray:
    return np.packbits(bits.astype(np.uint8), bitorder=assumed.MASK_BIT_ORDER)


#: Mask load distributions: bytes read, and how the bits become the 256 mask bits.
_MASK_LOADS = {
    "NORM": (REG_BYTES // 8, lambda b: b),
    "US": (REG_BYTES // 16, lambda b: np.repeat(b, 2)),
    "DS": (REG_BYTES // 4, lambda b: b[0::2]),
}


def _load_mask(run: VfRun, ptr: Ptr, offset, dist: str, post_update: bool) -> Mask:
    if dist not in _MASK_LOADS:
        raise KernelError(f"vf.load_align into a mask: dist {dist} (NORM, US or DS)", _where())
    if not post_update and not isinstance(offset, AddrReg) and vf._elements(ptr, offset):
        raise KernelError("vf.load_align into a mask takes an integer offset only with post_update=True", _where())
    n, spread = _MASK_LOADS[dist]
    addr = _address(run, ptr, offset, post_update)
    _aligned("load_align", addr, min(n, 32))
    return Mask(spread(_mask_bits(_read(run, ptr, addr, n))))


def load_align(tile, offset=None, dist=None, dtype=None, post_update=False, block_stride=None,
               repeat_stride=None, data_copy_mode=None):
    """Every `LoadDist`: into a register (two for DINTLV) or, when the variable assigned to
    already holds a mask, into that mask. The NORM, broadcast and block-copy forms are
    `vf.load_align`'s."""
    target = vf.target_value("load_align")
    ptr = _ptr("load_align", tile)
    d = _name(dist, "NORM")
    if isinstance(target, Mask):
        return _load_mask(_run("load_align"), ptr, offset, d, post_update)
    offset = _offset(ptr, offset)
    if d == "NORM" or d.startswith("BRC") or _name(data_copy_mode, "NORM") == "DATA_BLOCK_COPY":
        return _NORM_LOAD(ptr, offset, dist, dtype=dtype, post_update=post_update, block_stride=block_stride,
                          repeat_stride=repeat_stride, data_copy_mode=data_copy_mode)
    run = _run("load_align")
    return _dist_load(run, ptr, dtype or ptr.dtype, d, _address(run, ptr, offset, post_update))


# -- stores -----------------------------------------------------------------------------------

def _write(run: VfRun, ptr: Ptr, addr: int, data: np.ndarray, on: np.ndarray | None = None) -> None:
    """Bytes `data` at `addr`, only where `on` (per byte) is set."""
    if on is None:
        on = np.ones(data.size, bool)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], on.astype(np.int8), [0]))))
    for lo, hi in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
        run.touch(ptr, addr + lo, addr + hi, "W")
        ptr.mem.buf[addr + lo:addr + hi] = data[lo:hi]


def _store_mask(run: VfRun, ptr: Ptr, mask: Mask, offset, dist: str, post_update: bool) -> None:
    if dist not in ("NORM", "PACK"):
        raise KernelError(f"vf.store_align of a mask: dist {dist} (NORM or PACK)", _where())
    bits = mask.bits if dist == "NORM" else mask.bits[0::2]
    data = _mask_bytes(bits)
    addr = _address(run, ptr, offset, post_update)
    _aligned("store_align", addr, min(data.size, 32))
    _write(run, ptr, addr, data)


def _store_pack(run: VfRun, ptr: Ptr, reg: Reg, mask: Mask, addr: int, keep_bits: int) -> None:
    """PACK / PACK4: the low `keep_bits` of every active lane, lanes back to back."""
    if reg.dtype.bits <= keep_bits:
        raise KernelError(f"vf.store_align PACK of a {reg.dtype.name} register", _where())
    _aligned("store_align", addr, 32)
    low: np.ndarray = _units(reg.lanes.view(np.uint8), reg.dtype.bits).astype(_unsigned(keep_bits).storage)
    on = np.repeat(mask.lanes(reg.dtype), keep_bits // 8)
    _write(run, ptr, addr, low.view(np.uint8), on)


def _store_interleaved(run: VfRun, ptr: Ptr, even: Reg, odd: Reg, mask: Mask, addr: int, dist: str) -> None:
    """INTLV(_B32): element i of `even` then element i of `odd`, 2 * 256 bytes."""
    bits = 32 if dist == "INTLV_B32" else even.dtype.bits
    if odd.dtype.bits != even.dtype.bits:
        raise KernelError("vf.store_align INTLV: registers of different widths", _where())
    _aligned("store_align", addr, 32)
    a, b = _units(even.lanes.view(np.uint8), bits), _units(odd.lanes.view(np.uint8), bits)
    seq = np.empty(2 * a.size, a.dtype)
    seq[0::2], seq[1::2] = a, b
    on = np.repeat(np.repeat(mask.lanes(_unsigned(bits)), 2), bits // 8)
    _write(run, ptr, addr, seq.view(np.uint8), on)


def store_align(tile, src, *args, dist=None, data_copy_mode=None, block_stride=None, repeat_stride=None,
                post_update=False):
    """Every `StoreDist`: `store_align(t, mask, [offset], dist=NORM|PACK)` stores a mask;
    `store_align(t, even, odd, preg, [offset], dist=INTLV...)` two registers interleaved;
    PACK/PACK4 the low half/quarter of each active lane; the rest is `vf.store_align`'s."""
    ptr = _ptr("store_align", tile)
    d = _name(dist, "NORM")
    if isinstance(src, Mask):
        return _store_mask(_run("store_align"), ptr, src, args[0] if args else None, d, post_update)
    if d in ("INTLV", "INTLV_B32"):
        odd, preg, *rest = args
        run = _run("store_align")
        addr = _address(run, ptr, rest[0] if rest else None, post_update, 2 * REG_BYTES)
        return _store_interleaved(run, ptr, _reg("store_align", src), _reg("store_align", odd),
                                  _mask("store_align", preg), addr, d)
    preg, *rest = args if args else (None,)
    offset = rest[0] if rest else None
    if d in ("PACK", "PACK4"):
        run = _run("store_align")
        reg, mask = _reg("store_align", src), _mask("store_align", preg)
        keep = reg.dtype.bits // 2 if d == "PACK" else 8
        step = None if offset is not None else REG_BYTES * keep // reg.dtype.bits
        addr = _address(run, ptr, offset, post_update, step)
        return _store_pack(run, ptr, reg, mask, addr, keep)
    if _name(data_copy_mode, "NORM") != "DATA_BLOCK_COPY":
        offset = _offset(ptr, offset)
    return _NORM_STORE(ptr, src, preg, offset, *rest[1:], block_stride=block_stride, repeat_stride=repeat_stride,
                       data_copy_mode=data_copy_mode, post_update=post_update, dist=dist)


# -- unaligned and counted access ---------------------------------------------------------------

class UnalignLoadReg:
    """`vf.load_unalign_init`: primed by `load_unalign_pre` for the pointer it names."""

    __slots__ = ("primed",)

    def __init__(self):
        self.primed: set = set()


class UnalignStoreReg:
    """`vf.unalign_reg_for_store`: the bytes a store left past its last 32-byte boundary,
    written by the next store or by `store_unalign_post`."""

    __slots__ = ("pending",)

    def __init__(self):
        self.pending: tuple[Ptr, int, np.ndarray] | None = None


def load_unalign_init() -> UnalignLoadReg:
    _run("load_unalign_init")
    return UnalignLoadReg()


def unalign_reg_for_store() -> UnalignStoreReg:
    _run("unalign_reg_for_store")
    return UnalignStoreReg()


def _pair(op: str, a, b):
    """(unalign register, pointer) in either order: the reference's prototype and its
    examples disagree on it."""
    if isinstance(a, Ptr):
        a, b = b, a
    if not isinstance(a, UnalignLoadReg):
        raise KernelError(f"vf.{op}: expected the register of vf.load_unalign_init(), got {a!r}", _where())
    return a, _ptr(op, b)


def load_unalign_pre(align_reg, tile) -> None:
    ureg, ptr = _pair("load_unalign_pre", align_reg, tile)
    _run("load_unalign_pre")
    ureg.primed.add((ptr.mem.key, ptr.addr))


def load_unalign(align_reg, tile, stride=None, post_update=False) -> Reg:
    """256 bytes from any address: the pointer, or with `post_update` the cursor, which
    then moves by `stride` elements (`assumed.UNALIGNED_STRIDE_UNIT`)."""
    ureg, ptr = _pair("load_unalign", align_reg, tile)
    run = _run("load_unalign")
    if (ptr.mem.key, ptr.addr) not in ureg.primed:
        raise KernelError("vf.load_unalign: call vf.load_unalign_pre on this tile first", _where())
    step = (REG_BYTES if stride is None else int(stride) * ptr.dtype.itemsize)
    addr = _address(run, ptr, None, bool(post_update) or stride is not None, step)
    return Reg(ptr.dtype, _read(run, ptr, addr, REG_BYTES).view(ptr.dtype.storage))


def _flush(run: VfRun, ureg: UnalignStoreReg) -> None:
    if ureg.pending is not None:
        ptr, addr, data = ureg.pending
        _write(run, ptr, addr, data)
        ureg.pending = None


def store_unalign(tile, src, align_reg, stride=None, post_update=False) -> None:
    """`stride` elements of `src` (without one: the bytes the last `vf.squeeze(...,
    STORE_REG)` counted, else the whole register) at the pointer or the cursor. Bytes past
    the last 32-byte boundary wait in `align_reg` for the next store or `store_unalign_post`.
    A mask is stored packed (`_store_unalign_mask`)."""
    ptr = _ptr("store_unalign", tile)
    if not isinstance(align_reg, UnalignStoreReg):
        raise KernelError(f"vf.store_unalign: expected the register of vf.unalign_reg_for_store(), got {align_reg!r}",
                          _where())
    if isinstance(src, Mask):
        return _store_unalign_mask(_run("store_unalign"), ptr, src, align_reg, stride, bool(post_update))
    reg = _reg("store_unalign", src)
    run = _run("store_unalign")
    if stride is not None:
        n = int(stride) * reg.dtype.itemsize
    else:
        n = run.address_register if run.address_register is not None else REG_BYTES
    if not 0 <= n <= REG_BYTES:
        raise KernelError(f"vf.store_unalign: {n} bytes is more than one register", _where())
    addr = _address(run, ptr, None, bool(post_update), n)
    _store_through(run, ptr, align_reg, addr, reg.lanes.view(np.uint8)[:n])


def _store_through(run: VfRun, ptr: Ptr, align_reg: UnalignStoreReg, addr: int, data: np.ndarray) -> None:
    """What `align_reg` held, then `data` at `addr` up to its last 32-byte boundary; the
    rest waits in `align_reg`."""
    _flush(run, align_reg)
    n = data.size
    cut = max(addr, (addr + n) // BLOCK_BYTES * BLOCK_BYTES) - addr
    _write(run, ptr, addr, data[:cut])
    if cut < n:
        align_reg.pending = (ptr, addr + cut, data[cut:].copy())


def _store_unalign_mask(run: VfRun, ptr: Ptr, mask: Mask, align_reg: UnalignStoreReg, stride,
                        post_update: bool) -> None:
    """A mask packed by the tile's width: 16-bit, the low bit of every 2 (16 bytes); 32-bit,
    the low bit of every 4 (8 bytes). `assumed.MASK_UNALIGNED_STORE_BY_TILE_WIDTH`."""
    w = ptr.dtype.itemsize
    if w not in (2, 4):
        raise KernelError(f"vf.store_unalign of a mask packs it for a 16- or 32-bit tile, got {ptr.dtype.name}",
                          _where())
    if stride is not None:
        raise KernelError("vf.store_unalign of a mask takes no stride", _where())
    data = _mask_bytes(mask.bits[0::w])
    addr = _address(run, ptr, None, post_update, data.size)
    _store_through(run, ptr, align_reg, addr, data)


def store_unalign_post(tile, align_reg, stride=None, post_update=False) -> None:
    """Writes what `align_reg` holds; with `post_update` the cursor moves by `stride` elements."""
    ptr = _ptr("store_unalign_post", tile)
    if not isinstance(align_reg, UnalignStoreReg):
        raise KernelError("vf.store_unalign_post: expected the register of vf.unalign_reg_for_store()", _where())
    run = _run("store_unalign_post")
    if post_update:
        _address(run, ptr, None, True, int(stride or 0) * ptr.dtype.itemsize)
    _flush(run, align_reg)


def load(tile, stride=None, post_update=False, repeat_stride=None, count=None) -> Reg:
    """`count` elements (default a register) from any address into the low lanes, the rest
    0; with `post_update` the cursor moves by `stride` elements (default `count`)."""
    ptr = _ptr("load", tile)
    run = _run("load")
    _no_repeat("load", repeat_stride)
    lanes = REG_BYTES // ptr.dtype.itemsize
    n = lanes if count is None else int(count)
    if not 0 <= n <= lanes:
        raise KernelError(f"vf.load: count {n} is more than a register's {lanes} lanes", _where())
    step = (n if stride is None else int(stride)) * ptr.dtype.itemsize
    addr = _address(run, ptr, None, bool(post_update), step)
    out = np.zeros(REG_BYTES, np.uint8)
    out[:n * ptr.dtype.itemsize] = _read(run, ptr, addr, n * ptr.dtype.itemsize)
    return Reg(ptr.dtype, out.view(ptr.dtype.storage))


def store(tile, src, count=None, post_update=False, repeat_stride=0) -> None:
    """The low `count` lanes (default all) at any address; with `post_update` the cursor
    moves past them."""
    ptr, reg = _ptr("store", tile), _reg("store", src)
    run = _run("store")
    _no_repeat("store", repeat_stride)
    lanes = REG_BYTES // reg.dtype.itemsize
    n = lanes if count is None else int(count)
    if not 0 <= n <= lanes:
        raise KernelError(f"vf.store: count {n} is more than a register's {lanes} lanes", _where())
    nbytes = n * reg.dtype.itemsize
    addr = _address(run, ptr, None, bool(post_update), nbytes)
    _write(run, ptr, addr, reg.lanes.view(np.uint8)[:nbytes])


def _no_repeat(op: str, repeat_stride) -> None:
    if repeat_stride:
        raise UnsupportedOpError(f"vf.{op} with repeat_stride={repeat_stride} is not emulated (its effect is not "
                                 "documented)", _where())


def scatter(tile, src, index, preg) -> None:
    """Active lane i of `src` to element index[i] of the tile (8-bit sources: the even lanes,
    paired with index lane i / 2). Duplicate indices: `assumed.SCATTER_LAST_LANE_WINS`."""
    ptr, reg, idx, mask = _ptr("scatter", tile), _reg("scatter", src), _reg("scatter", index), _mask("scatter", preg)
    run = _run("scatter")
    _aligned("scatter", ptr.addr, 32)
    dt = reg.dtype
    if dt.bits == 8:
        values, on = reg.lanes[0::2], mask.lanes(_unsigned(16))
    else:
        values, on = reg.lanes, mask.lanes(dt)
    at = idx.lanes.astype(np.int64)[:values.size]
    w = dt.itemsize
    data = values.view(np.uint8)
    for lane in np.flatnonzero(on[:values.size]).tolist():
        a = ptr.addr + int(at[lane]) * w
        run.touch(ptr, a, a + w, "W")
        ptr.mem.buf[a:a + w] = data[lane * w:(lane + 1) * w]


_NORM_LOAD, _NORM_STORE = vf.load_align, vf.store_align

OPS = {f.__name__: f for f in (create_addr_reg, load_align, store_align, load_unalign_init, load_unalign_pre,
                               load_unalign, unalign_reg_for_store, store_unalign, store_unalign_post, load, store,
                               scatter)}
vf.OPS.update(OPS)

"""Index-driven vector ops: gather, gatherb, gathermask, scatter, histogram, fill_index,
argmax/argmin, and the (value, index) record sorts."""

from __future__ import annotations

import numpy as np

from sim_runtime import assumed, layouts
from sim_runtime.dtypes import DTYPES
from sim_runtime.opplan import OpPlan
from sim_runtime.ops.base import OpCall, fits, handles, local, put, values, vector_plan
from sim_runtime.tiles import Tile


def _row_major(call: OpCall, *tiles: Tile) -> None:
    for t in tiles:
        if t.layout.name not in ("ND", "DN") or (t.layout.name == "DN" and t.shape[1] != 1):
            raise call.fail(f"{t.name} must be a row-major (ND) tile, it is {t.layout.name}")


def _flat(tile: Tile, mem) -> np.ndarray:
    """The whole declared tile as a flat array of logical values (row-major)."""
    return values(tile, mem, tile.type.shape[0], tile.type.shape[1]).reshape(-1)


@handles("gather")
def gather(call: OpCall) -> OpPlan:
    """out_flat[i] = src_flat[idx_flat[i] + offset] over out's valid window (an index outside
    src is an error here; the device leaves it undefined)."""
    out, src, idx, tmp = (call.tile(i) for i in range(4))
    _row_major(call, out, src, idx)
    if out.dtype.bits != src.dtype.bits:
        raise call.fail("out and src must have one element width")
    if idx.dtype.name not in ("DT_INT16", "DT_UINT16", "DT_INT32", "DT_UINT32"):
        raise call.fail(f"idx must be a 16- or 32-bit integer tile, got {idx.dtype.name}")
    if int(call.kwargs.get("cmp_mode", 0)) != 0:
        raise call.fail("cmp_mode other than 0 is not documented")
    offset = int(call.kwargs.get("offset", 0))
    mo, ms, mi = local(call, out), local(call, src), local(call, idx)
    local(call, tmp)
    vr, vc = out.valid
    fits(call, idx, vr, vc)
    size = src.type.shape[0] * src.type.shape[1]

    def run():
        at = values(idx, mi, vr, vc).astype(np.int64) + offset
        if at.size and (at.min() < 0 or at.max() >= size):
            raise call.fail(f"an index ({int(at.min())}..{int(at.max())}) falls outside {src.name} ({size} elements)")
        put(out, mo, _flat(src, ms)[at])

    accesses = [(ms, src.footprint(ms, 0, 0, *src.type.shape), "R"), (mi, idx.footprint(mi, 0, 0, vr, vc), "R"),
                (mo, out.footprint(mo, 0, 0, vr, vc), "W")]
    return vector_plan(call, "gather", run, accesses)


@handles("scatter")
def scatter(call: OpCall) -> OpPlan:
    """out_flat[idx[i, j]] = src[i, j] over src's valid window; the rest of out keeps its bytes."""
    out, src, idx = call.tile(0), call.tile(1), call.tile(2)
    _row_major(call, out, src, idx)
    need = {8: 16, 16: 16, 32: 32, 64: 32}.get(src.dtype.bits)
    if need is None or idx.dtype.bits != need or not idx.dtype.is_int():
        raise call.fail(f"{src.dtype.name} data scatters with {need}-bit integer indices, got {idx.dtype.name}")
    mo, ms, mi = local(call, out), local(call, src), local(call, idx)
    vr, vc = src.valid
    fits(call, idx, vr, vc)
    size = out.type.shape[0] * out.type.shape[1]
    rows, cols = out.type.shape

    def run():
        at = values(idx, mi, vr, vc).astype(np.int64).reshape(-1)
        if at.size and (at.min() < 0 or at.max() >= size):
            raise call.fail(f"an index ({int(at.min())}..{int(at.max())}) falls outside {out.name} ({size} elements)")
        whole = _flat(out, mo).copy()
        whole[at] = values(src, ms, vr, vc).reshape(-1)
        put(out, mo, whole.reshape(rows, cols))

    accesses = [(ms, src.footprint(ms, 0, 0, vr, vc), "R"), (mi, idx.footprint(mi, 0, 0, vr, vc), "R"),
                (mo, out.footprint(mo, 0, 0, rows, cols), "W")]
    return vector_plan(call, "scatter", run, accesses)


@handles("gatherb")
def gatherb(call: OpCall) -> OpPlan:
    """Block j of out row i (32 bytes) = the 32 bytes of src at byte offsets[i, j]."""
    out, src, offs = call.tile(0), call.tile(1), call.tile(2)
    _row_major(call, out, src)
    if offs.dtype.name != "DT_UINT32":
        raise call.fail(f"offsets must be DT_UINT32, got {offs.dtype.name}")
    mo, ms, mf = local(call, out), local(call, src), local(call, offs)
    per = layouts.BLOCK_BYTES // out.dtype.itemsize
    vr, vc = out.valid
    if vc % per:
        raise call.fail(f"out's valid columns ({vc}) must be whole 32-byte blocks of {per} elements")
    blocks = vc // per
    fits(call, offs, vr, blocks)
    nbytes = src.type.nbytes

    def run():
        at = values(offs, mf, vr, blocks).astype(np.int64)
        if at.size and (at.min() < 0 or at.max() + layouts.BLOCK_BYTES > nbytes):
            raise call.fail(f"a byte offset falls outside {src.name} ({nbytes} bytes)")
        raw = ms.buf[src.addr:src.addr + nbytes]
        got = raw[at[..., None] + np.arange(layouts.BLOCK_BYTES)].reshape(vr, -1)
        put(out, mo, out.dtype.to_compute(np.ascontiguousarray(got).view(out.dtype.storage)))

    accesses = [(ms, src.footprint(ms, 0, 0, *src.type.shape), "R"), (mf, offs.footprint(mf, 0, 0, vr, blocks), "R"),
                (mo, out.footprint(mo, 0, 0, vr, vc), "W")]
    return vector_plan(call, "gatherb", run, accesses)


#: pattern_mode -> (first column, step)
_PATTERNS = {1: (0, 2), 2: (1, 2), 3: (0, 4), 4: (1, 4), 5: (2, 4), 6: (3, 4), 7: (0, 1)}


@handles("gathermask")
def gathermask(call: OpCall) -> OpPlan:
    out, src = call.tile(0), call.tile(1)
    _row_major(call, out, src)
    mode = call.kwargs.get("pattern_mode")
    if mode not in _PATTERNS:
        raise call.fail(f"pattern_mode must be 1..7, got {mode!r}")
    first, step = _PATTERNS[mode]
    mo, ms = local(call, out), local(call, src)
    vr, vc = src.valid
    picked = len(range(first, vc, step))
    fits(call, out, vr, picked)

    def run():
        put(out, mo, values(src, ms, vr, vc)[:, first::step])

    accesses = [(ms, src.footprint(ms, 0, 0, vr, vc), "R"), (mo, out.footprint(mo, 0, 0, vr, picked), "W")]
    return vector_plan(call, "gathermask", run, accesses)


@handles("histogram")
def histogram(call: OpCall) -> OpPlan:
    """Per row, counts of one byte of each element: the top byte (`is_msb=True`), or the low
    byte of the elements whose higher byte(s) match that row's entries of `idx`."""
    dst, src, idx = call.tile(0), call.tile(1), call.tile(2)
    is_msb = bool(call.kwargs.get("is_msb"))
    if dst.dtype.name != "DT_UINT32" or src.dtype.name not in ("DT_UINT16", "DT_UINT32"):
        raise call.fail("histogram counts DT_UINT16/DT_UINT32 elements into a DT_UINT32 tile")
    md, ms, mi = local(call, dst), local(call, src), local(call, idx)
    vr, vc = src.valid
    fits(call, dst, vr, 256)
    wide = src.dtype.name == "DT_UINT32"
    reads_idx = not (wide and is_msb)
    if reads_idx and idx.dtype.name != "DT_UINT8":
        raise call.fail(f"idx must be DT_UINT8, got {idx.dtype.name}")

    def run():
        v = values(src, ms, vr, vc).astype(np.uint64)
        top = 24 if wide else 8
        if is_msb:
            keys, keep = (v >> top) & 0xFF, np.ones(v.shape, bool)
        else:
            keys = v & 0xFF
            if wide:  # bytes 3, 2, 1 of every element must equal idx rows 0, 1, 2 of its column
                sel = values(idx, mi, 3, vc).astype(np.uint64)
                keep = np.ones(v.shape, bool)
                for k, shift in enumerate((24, 16, 8)):
                    keep &= ((v >> shift) & 0xFF) == sel[k][None, :]
            else:
                keep = ((v >> 8) & 0xFF) == values(idx, mi, vr, 1).astype(np.uint64)
        counts = np.zeros((vr, 256), np.int64)
        for r in range(vr):
            counts[r] = np.bincount(keys[r][keep[r]].astype(np.int64), minlength=256)
        put(dst, md, counts.astype(np.uint32))

    accesses = [(ms, src.footprint(ms, 0, 0, vr, vc), "R"), (md, dst.footprint(md, 0, 0, vr, 256), "W")]
    if reads_idx:
        n = (3, vc) if wide else (vr, 1)
        accesses.append((mi, idx.footprint(mi, 0, 0, *n), "R"))
    return vector_plan(call, "histogram", run, accesses)


@handles("fill_index")
def fill_index(call: OpCall) -> OpPlan:
    out, start = call.tile(0), int(call.arg(1, "start"))
    if out.dtype.name != "DT_INT32":
        raise call.fail(f"fill_index writes DT_INT32, {out.name} is {out.dtype.name}")
    mo = local(call, out)
    vr, vc = out.valid

    def run():
        put(out, mo, (start + np.arange(vr * vc, dtype=np.int64)).reshape(vr, vc).astype(np.int32))

    return vector_plan(call, "fill_index", run)


@handles("argmax", "argmin")
def arg_extreme(call: OpCall) -> OpPlan:
    """Index of the first largest (smallest) element per row (`dim=0`, a column index) or per
    column (`dim=1`, a row index) of src's valid window."""
    out, src = call.tile(0), call.tile(1)
    dim = int(call.kwargs.get("dim", 0))
    if out.dtype.name not in ("DT_INT32", "DT_UINT32"):
        raise call.fail(f"out must be DT_INT32 or DT_UINT32, got {out.dtype.name}")
    mo, ms = local(call, out), local(call, src)
    vr, vc = src.valid
    fits(call, out, *((vr, 1) if dim == 0 else (1, vc)))
    fn = np.argmax if call.name == "argmax" else np.argmin
    axis = 1 if dim == 0 else 0

    def run():
        put(out, mo, fn(values(src, ms, vr, vc), axis=axis, keepdims=True).astype(out.dtype.compute))

    return vector_plan(call, call.name, run)


# -- (value, index) record sorts ------------------------------------------------------------------

_U32 = DTYPES["DT_UINT32"]


def _records(tile: Tile, mem, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The first n (value, index) records of row 0 of a record tile."""
    raw = mem.buf[tile.addr:tile.addr + n * 8].reshape(n, 8)
    dt = tile.dtype
    vals = dt.to_compute(np.ascontiguousarray(raw[:, :dt.itemsize]).view(dt.storage).reshape(-1))
    idx = np.ascontiguousarray(raw[:, 4:8]).view(np.uint32).reshape(-1)
    return vals.astype(np.float64), idx


def _write_records(tile: Tile, mem, vals: np.ndarray, idx: np.ndarray, row: int = 0) -> None:
    n = vals.size
    rec = np.zeros((n, 8), np.uint8)
    dt = tile.dtype
    rec[:, :dt.itemsize] = np.ascontiguousarray(dt.to_storage(vals.astype(dt.compute))).view(np.uint8).reshape(n, -1)
    rec[:, 4:8] = np.ascontiguousarray(idx.astype(np.uint32)).view(np.uint8).reshape(n, 4)
    start = tile.addr + row * tile.type.shape[1] * dt.itemsize
    mem.buf[start:start + n * 8] = rec.reshape(-1)


def _order(vals: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Highest value first; ties by lower index (`assumed.SORT_TIES_LOWER_INDEX_FIRST`)."""
    return np.lexsort((idx if assumed.SORT_TIES_LOWER_INDEX_FIRST else -idx.astype(np.int64), -vals))


def _record_tile(call: OpCall, *tiles: Tile) -> None:
    _row_major(call, *tiles)
    for t in tiles:
        if t.dtype.name not in ("DT_FP16", "DT_FP32"):
            raise call.fail(f"{t.name} must be DT_FP16 or DT_FP32 (value, index) records, got {t.dtype.name}")


@handles("sort32")
def sort32(call: OpCall) -> OpPlan:
    """Each row of src in groups of 32 values, each group sorted highest first into 8-byte
    (value, index) records (the index from idx: one shared row, or one row per data row)."""
    dst, src, idx = call.tile(0), call.tile(1), call.tile(2)
    _record_tile(call, dst, src)
    if dst.dtype is not src.dtype or idx.dtype.name != "DT_UINT32":
        raise call.fail("dst has src's dtype and idx is DT_UINT32")
    md, ms, mi = local(call, dst), local(call, src), local(call, idx)
    vr, vc = src.valid
    per = 8 // src.dtype.itemsize
    if vc % 32 and len(call.args) < 4 and "tmp" not in call.kwargs:
        raise call.fail(f"src has {vc} valid columns, not whole groups of 32: pass a tmp tile")
    fits(call, dst, vr, vc * per)
    shared = idx.valid[0] == 1

    def run():
        for r in range(vr):
            v = src.read(ms, r, 0, 1, vc).reshape(-1).astype(np.float64)
            ix = idx.read(mi, 0 if shared else r, 0, 1, vc).reshape(-1)
            out_v, out_i = np.empty_like(v), np.empty_like(ix)
            for g in range(0, vc, 32):
                o = _order(v[g:g + 32], ix[g:g + 32])
                out_v[g:g + 32], out_i[g:g + 32] = v[g:g + 32][o], ix[g:g + 32][o]
            _write_records(dst, md, out_v, out_i, r)

    accesses = [(ms, src.footprint(ms, 0, 0, vr, vc), "R"),
                (mi, idx.footprint(mi, 0, 0, 1 if shared else vr, vc), "R"),
                (md, dst.footprint(md, 0, 0, vr, vc * per), "W")]
    return vector_plan(call, "sort32", run, accesses)


@handles("mrgsort")
def mrgsort(call: OpCall) -> OpPlan:
    """One row of sorted runs of `block_len` storage elements: every `assumed.MRGSORT_WAYS`
    consecutive runs merge into one sorted run."""
    dst, src = call.tile(0), call.tile(1)
    _record_tile(call, dst, src)
    block = int(call.kwargs.get("block_len", 0))
    per = 8 // src.dtype.itemsize
    if block <= 0 or block % per:
        raise call.fail(f"block_len must be a positive multiple of {per} (whole records), got {block}")
    md, ms = local(call, dst), local(call, src)
    vc = src.valid[1]
    n = vc // per
    run_len = block // per

    def run():
        v, ix = _records(src, ms, n)
        out_v, out_i = v.copy(), ix.copy()
        group = run_len * assumed.MRGSORT_WAYS
        for g in range(0, n, group):
            o = _order(v[g:g + group], ix[g:g + group])
            out_v[g:g + group], out_i[g:g + group] = v[g:g + group][o], ix[g:g + group][o]
        _write_records(dst, md, out_v, out_i)

    accesses = [(ms, src.footprint(ms, 0, 0, 1, vc), "R"), (md, dst.footprint(md, 0, 0, 1, vc), "W")]
    return vector_plan(call, "mrgsort", run, accesses)


@handles("mrgsort2")
def mrgsort2(call: OpCall) -> OpPlan:
    """2 to 4 sorted record rows merged, highest first, into dst's valid length."""
    srcs = [call.tile(0), call.tile(1), *(call.tile(i) for i in range(4, len(call.args)))]
    dst, tmp = call.tile(2), call.tile(3)
    if not 2 <= len(srcs) <= 4:
        raise call.fail(f"merges 2 to 4 sources, got {len(srcs)}")
    _record_tile(call, dst, tmp, *srcs)
    per = 8 // dst.dtype.itemsize
    md = local(call, dst)
    local(call, tmp)
    mems = [local(call, s) for s in srcs]
    out_n = dst.valid[1] // per

    def run():
        parts = [_records(s, m, s.valid[1] // per) for s, m in zip(srcs, mems, strict=True)]
        v = np.concatenate([p[0] for p in parts])
        ix = np.concatenate([p[1] for p in parts])
        o = _order(v, ix)[:out_n]
        _write_records(dst, md, v[o], ix[o])

    accesses = [(m, s.footprint(m, 0, 0, 1, s.valid[1]), "R") for s, m in zip(srcs, mems, strict=True)]
    accesses.append((md, dst.footprint(md, 0, 0, 1, dst.valid[1]), "W"))
    return vector_plan(call, "mrgsort2", run, accesses)

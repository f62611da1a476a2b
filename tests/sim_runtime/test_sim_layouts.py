"""Physical tile layouts: element -> byte offset, round trips, aliasing, exact footprints.

Expected byte orders are built here with plain numpy from the layout definitions (ND
row-major; DN column-major; NZ = column blocks of C0 = 32 / e columns, each holding every
row; ZN [R, C] = the NZ [C, R] bytes of the transpose; Acc = NZ with 16-column blocks),
never through sim_runtime's own offset maps.
"""

import numpy as np
import pytest

from sim_runtime.dtypes import DTYPES
from sim_runtime.errors import KernelError
from sim_runtime.memory import Footprint, Memory
from sim_runtime.tiles import Tile, TileLayout, TileType

pytestmark = pytest.mark.emulator

FP16, FP32 = DTYPES["DT_FP16"], DTYPES["DT_FP32"]


def tile(shape, dtype, layout, space="Vec", addr=0):
    return Tile(TileType(shape, dtype, space, layout=TileLayout[layout]), addr, owner=None)


def memory(space="Vec"):
    return Memory(("UB", "test"), space, 256 * 1024)


def nz_bytes(x, c0):
    """NZ physical order: column block j (columns j*c0..) holds all rows, row-major inside."""
    r, c = x.shape
    return x.reshape(r, c // c0, c0).transpose(1, 0, 2).ravel()


def physical(x, layout, c0):
    return {"ND": x.ravel(), "DN": x.T.ravel(), "NZ": nz_bytes(x, c0), "ZN": nz_bytes(x.T, c0)}[layout]


def test_worked_offsets():
    # fp16 NZ [65, 64]: column-block stride 65 * 16 elements; (2, 20) -> 1040 + 32 + 4
    t = tile([65, 64], FP16, "NZ")
    assert t.offsets(2, 20, 1, 1)[0, 0] == 1076
    # fp16 ZN [128, 128]: (s=70, kv=5) -> 8192 + 80 + 6, the NZ view [kv, s] agrees
    assert tile([128, 128], FP16, "ZN", "Mat").offsets(70, 5, 1, 1)[0, 0] == 8278
    assert tile([128, 128], FP16, "NZ", "Mat").offsets(5, 70, 1, 1)[0, 0] == 8278
    # fp32 ND [128, 64]: one 256-byte register per row
    assert tile([128, 64], FP32, "ND").offsets(3, 0, 1, 1)[0, 0] * 4 == 3 * 256
    # Acc fp32 NZ: 16x16 fractals, 64 bytes per fractal row
    assert tile([32, 32], FP32, "NZ", "Acc").offsets(1, 17, 1, 1)[0, 0] == 1 * 32 * 16 + 16 + 1


@pytest.mark.parametrize("layout", ["ND", "DN", "NZ", "ZN"])
@pytest.mark.parametrize("dtype,shape", [(FP16, (32, 48)), (FP32, (16, 24)), (FP32, (24, 16))])
def test_round_trip_and_physical_bytes(layout, dtype, shape):
    x = np.arange(shape[0] * shape[1]).reshape(shape).astype(dtype.storage)
    t = tile(list(shape), dtype, layout)
    mem = memory()
    t.write(mem, x)
    assert np.array_equal(t.read(mem, 0, 0, *shape), x)
    raw = mem.buf[:x.nbytes].view(dtype.storage)
    assert np.array_equal(raw, physical(x, layout, 32 // dtype.itemsize))


def test_acc_uses_sixteen_column_blocks():
    x = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    t = tile([32, 32], FP32, "NZ", "Acc")
    mem = memory("Acc")
    t.write(mem, x)
    assert np.array_equal(mem.buf[:x.nbytes].view(np.float32), nz_bytes(x, 16))


def test_zn_tile_is_the_nz_tile_of_the_transpose():
    x = np.random.default_rng(0).standard_normal((32, 64)).astype(np.float16)
    mem = memory()
    tile([32, 64], FP16, "ZN").write(mem, x)
    assert np.array_equal(tile([64, 32], FP16, "NZ").read(mem, 0, 0, 64, 32), x.T)


def test_padding_row_of_a_vec_nz_tile_is_skipped():
    # [65, 64] fp16 NZ holding [64, 64] values: row 64 of every column block stays untouched
    mem = memory()
    mem.buf[:] = 0xAB
    t = tile([65, 64], FP16, "NZ")
    x = np.ones((64, 64), np.float16)
    t.write(mem, x)
    blocks = mem.buf[:65 * 64 * 2].reshape(4, 65, 32)
    assert (blocks[:, :64].view(np.float16) == 1).all()
    assert (blocks[:, 64] == 0xAB).all()
    fp = t.footprint(mem, 0, 0, 64, 64)
    assert list(fp.intervals()) == [(j * 2080, j * 2080 + 2048) for j in range(4)]


def test_subview_keeps_the_parent_row_stride():
    t = tile([8, 16], FP32, "ND", addr=0x100)
    sub = t[2:4, 8:16]
    assert sub.pointer == 0x100 + (2 * 16 + 8) * 4
    fp = sub.footprint(memory(), 0, 0, 2, 8)
    assert list(fp.intervals()) == [(0x100 + 40 * 4, 0x100 + 48 * 4), (0x100 + 56 * 4, 0x100 + 64 * 4)]


@pytest.mark.parametrize("layout,shape,space,msg", [
    ("NZ", [16, 20], "Vec", "multiples of 8"),
    ("NZ", [20, 16], "Mat", "rows in multiples of 16"),
    ("ZN", [20, 16], "Mat", "rows in multiples of 8"),
])
def test_fractal_shapes_are_checked(layout, shape, space, msg):
    with pytest.raises(KernelError, match=msg):
        TileType(shape, FP32, space, layout=TileLayout[layout])


def test_footprint_overlap_and_containment():
    key = ("UB", "x")
    a = Footprint.of(key, [0, 100], [32, 132])
    assert a.overlaps(Footprint.of(key, [120], [121]))
    assert not a.overlaps(Footprint.of(key, [32], [100]))  # exactly the gap
    assert not a.overlaps(Footprint.of(("UB", "y"), [0], [200]))
    assert Footprint.of(key, [4, 110], [8, 120]).within(a)
    assert not Footprint.of(key, [30], [40]).within(a)
    assert Footprint.of(key, [0, 16, 32], [16, 32, 40]) == Footprint.of(key, [0], [40])  # touching runs merge

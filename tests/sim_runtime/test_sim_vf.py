"""Vector functions and the `vf.*` register ops, against numpy written from the register facts.

Each kernel loads GM data into UB on one AIV, runs one vector function, and stores the
result; expectations are built lane by lane with numpy (256-byte registers: 64 fp32 or
128 fp16 lanes; zeroed inactive lanes; stores that skip inactive lanes; block-strided
stores that place 32-byte blocks `block_stride` blocks apart).
"""

import textwrap

import numpy as np
import pytest

from sim_runtime import KernelError, RaceError, run_kernel

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\nfrom pypto_pro.language import Vf as vf\n"


def vec_kernel(vfs: str, call: str, x_shape, x_dtype="DT_FP32", out_shape=None, out_dtype=None, prefill=False):
    """A vector-only kernel: x -> UB tile a; `call` (a vector function over a, b); b -> out.

    With `prefill`, b is first loaded from GM input `y` (so untouched bytes are visible)."""
    out_shape = out_shape or x_shape
    out_dtype = out_dtype or x_dtype
    y_param = f", y: pl.Tensor[{list(out_shape)}, pl.{out_dtype}]" if prefill else ""
    body = [
        f"a = pl.make_tile_group(type=pl.TileType(shape={list(x_shape)}, dtype=pl.{x_dtype}, "
        "target_memory=pl.MemorySpace.Vec), addrs=0, mutex_ids=[0])",
        f"b = pl.make_tile_group(type=pl.TileType(shape={list(out_shape)}, dtype=pl.{out_dtype}, "
        "target_memory=pl.MemorySpace.Vec), addrs=0x10000, mutex_ids=[1])",
        "pl.load(a[0], x, [0, 0])",
        *(["pl.load(b[0], y, [0, 0])"] if prefill else []),
        call,
        "pl.store(out, b[0], [0, 0])",
    ]
    kernel = [
        "@pl.jit",
        f"def k(x: pl.Tensor[{list(x_shape)}, pl.{x_dtype}], out: pl.Tensor[{list(out_shape)}, pl.{out_dtype}]"
        f"{y_param}):",
        "    with pl.section_vector():",
        *("        " + line for line in body),
    ]
    return HEAD + textwrap.dedent(vfs) + "\n\n" + "\n".join(kernel) + "\n"


def run(src, **inputs):
    return run_kernel("vfk.py", "k", inputs, source=src)


RNG = np.random.default_rng(11)


def rows(n=4, lanes=64, dtype=np.float32):
    return RNG.standard_normal((n, lanes)).astype(dtype)


def test_load_offsets_count_tile_elements_and_pointers_move_by_elements():
    vfs = """
    @pl.vector_function
    def shuffle(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        r0 = vf.load_align(src, 192)          # element offset: row 3
        r1 = vf.load_align(src + 64, [1, 0])  # pointer + 1 row, then [row, col] = 1 row
        r2 = vf.load_align(src + 128)         # row 2
        vf.store_align(dst, r0, p)
        vf.store_align(dst + 64, r1, p)
        vf.store_align(dst, r2, p, 128)
        vf.store_align(dst, r2, p, [3, 0])
    """
    x = rows()
    out = run(vec_kernel(vfs, "shuffle(a[0], b[0])", [4, 64]), x=x).outputs["out"]
    assert np.array_equal(out, x[[3, 2, 2, 2]])


ARITH = """
@pl.vector_function
def arith(src, dst):
    p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    a = vf.load_align(src)
    b = vf.load_align(src, 64)
    r = OP
    vf.store_align(dst, r, p)
"""


@pytest.mark.parametrize("op,fn", [
    ("vf.add(a, b, p)", lambda a, b: a + b),
    ("vf.sub(a, b, p)", lambda a, b: a - b),
    ("vf.mul(a, b, p)", lambda a, b: a * b),
    ("vf.div(a, b, p)", lambda a, b: a / b),
    ("vf.max(a, b, p)", np.maximum),
    ("vf.min(a, b, p)", np.minimum),
    ("vf.adds(a, 1.5, p)", lambda a, b: a + np.float32(1.5)),
    # a float literal reaches the NPU printed with 6 decimals
    ("vf.muls(a, 0.0883883476, p)", lambda a, b: a * np.float32(0.088388)),
    ("vf.exp_sub(a, b, p)", lambda a, b: np.exp(a - b)),
    ("vf.full(-1e9)", lambda a, b: np.full_like(a, -1e9)),
])
def test_lane_wise_ops(op, fn):
    x = rows(2)
    out = run(vec_kernel(ARITH.replace("OP", op), "arith(a[0], b[0])", [2, 64], out_shape=[1, 64]),
              x=x).outputs["out"]
    assert np.array_equal(out[0], fn(x[0], x[1]).astype(np.float32))


@pytest.mark.parametrize("pattern,active", [
    ("VL8", lambda i: i < 8),
    ("H", lambda i: i < 32),
    ("Q", lambda i: i < 16),
    ("M4", lambda i: i % 4 == 0),
    ("M3", lambda i: i % 3 == 0),
    ("ALLF", lambda i: i < 0),
])
def test_masks_zero_inactive_result_lanes_and_stores_skip_them(pattern, active):
    vfs = f"""
    @pl.vector_function
    def masked(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.{pattern}, dtype=pl.DT_FP32)
        ones = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        a = vf.load_align(src)
        r = vf.adds(a, 100.0, p)
        vf.store_align(dst, r, ones)        # row 0: every lane, inactive ones were zeroed
        vf.store_align(dst + 64, a, p)      # row 1: only active lanes overwrite the prefill
        z = vf.full(7.0, p)
        vf.store_align(dst + 128, z, ones)  # row 2: full with a mask zeroes inactive lanes
    """
    x = rows(1)
    y = np.full((3, 64), -5, np.float32)
    out = run(vec_kernel(vfs, "masked(a[0], b[0])", [1, 64], out_shape=[3, 64], prefill=True), x=x, y=y).outputs["out"]
    on = active(np.arange(64))
    assert np.array_equal(out[0], np.where(on, x[0] + 100, 0).astype(np.float32))
    assert np.array_equal(out[1], np.where(on, x[0], -5))
    assert np.array_equal(out[2], np.where(on, 7, 0))


def test_update_mask_and_fp16_lanes():
    vfs = """
    @pl.vector_function
    def half(src, dst):
        p = vf.update_mask(100, dtype=pl.DT_FP16)
        a = vf.load_align(src)
        r = vf.add(a, a, p)
        vf.store_align(dst, r, p)
    """
    x = rows(1, 128, np.float16)
    y = np.full((1, 128), 3, np.float16)
    out = run(vec_kernel(vfs, "half(a[0], b[0])", [1, 128], "DT_FP16", prefill=True), x=x, y=y).outputs["out"]
    assert np.array_equal(out[0, :100], (x[0, :100] * 2).astype(np.float16))
    assert (out[0, 100:] == 3).all()


@pytest.mark.parametrize("layout,part", [("ZERO", 0), ("ONE", 1)])
def test_narrowing_cast_lane_placement_and_masked_source_lanes(layout, part):
    vfs = f"""
    @pl.vector_function
    def narrow(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.H, dtype=pl.DT_FP32)
        ones = vf.update_mask(128, dtype=pl.DT_FP16)
        a = vf.load_align(src)
        h = vf.astype(a, p, dtype=pl.DT_FP16, layout=pl.CastLayout.{layout})
        vf.store_align(dst, h, ones)
    """
    x = rows(1) * 1000
    out = run(vec_kernel(vfs, "narrow(a[0], b[0])", [1, 64], out_shape=[1, 128], out_dtype="DT_FP16"),
              x=x).outputs["out"][0]
    want = np.zeros(128, np.float16)
    want[part::2] = np.where(np.arange(64) < 32, x[0], 0).astype(np.float16)  # fp32 lane i -> fp16 lane 2i(+1)
    assert np.array_equal(out, want)


def test_widening_cast_reads_even_or_odd_lanes():
    vfs = """
    @pl.vector_function
    def widen(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        a = vf.load_align(src)
        lo = vf.astype(a, p, dtype=pl.DT_FP32, layout=pl.CastLayout.ZERO)
        hi = vf.astype(a, p, dtype=pl.DT_FP32, layout=pl.CastLayout.ONE)
        vf.store_align(dst, lo, p)
        vf.store_align(dst + 64, hi, p)
    """
    x = rows(1, 128, np.float16)
    out = run(vec_kernel(vfs, "widen(a[0], b[0])", [1, 128], "DT_FP16", out_shape=[2, 64], out_dtype="DT_FP32"),
              x=x).outputs["out"]
    assert np.array_equal(out[0], x[0, 0::2].astype(np.float32))
    assert np.array_equal(out[1], x[0, 1::2].astype(np.float32))


def test_cast_then_de_interleave_packs_two_rows_into_one_fp16_register():
    vfs = """
    @pl.vector_function
    def pack(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        ones = vf.update_mask(128, dtype=pl.DT_FP16)
        x0 = vf.load_align(src)
        x1 = vf.load_align(src, 64)
        e = vf.astype(x0, p, dtype=pl.DT_FP16, layout=pl.CastLayout.ZERO)
        o = vf.astype(x1, p, dtype=pl.DT_FP16, layout=pl.CastLayout.ZERO)
        d0, d1 = vf.de_interleave(e, o)
        vf.store_align(dst, d0, ones)
        vf.store_align(dst + 128, d1, ones)
    """
    x = rows(2)
    out = run(vec_kernel(vfs, "pack(a[0], b[0])", [2, 64], out_shape=[2, 128], out_dtype="DT_FP16"),
              x=x).outputs["out"]
    assert np.array_equal(out[0], np.concatenate([x[0], x[1]]).astype(np.float16))
    assert not out[1].any()


def test_de_interleave_takes_even_then_odd_elements_of_the_joined_sequence():
    vfs = """
    @pl.vector_function
    def deint(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        s0 = vf.load_align(src)
        s1 = vf.load_align(src, 64)
        d0, d1 = vf.de_interleave(s0, s1)
        vf.store_align(dst, d0, p)
        vf.store_align(dst, d1, p, 64)
    """
    x = rows(2)
    out = run(vec_kernel(vfs, "deint(a[0], b[0])", [2, 64]), x=x).outputs["out"]
    seq = np.concatenate([x[0], x[1]])
    assert np.array_equal(out[0], seq[0::2]) and np.array_equal(out[1], seq[1::2])


def test_broadcast_load_from_four_byte_steps():
    vfs = """
    @pl.vector_function
    def brc(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        for i in pl.range(0, 4):
            c = vf.load_align(src, i + 1, dist=pl.LoadDist.BRC_B32)
            vf.store_align(dst, c, p, 64 * i)
    """
    x = rows(1)
    out = run(vec_kernel(vfs, "brc(a[0], b[0])", [1, 64], out_shape=[4, 64]), x=x).outputs["out"]
    assert np.array_equal(out, np.repeat(x[0, 1:5, None], 64, axis=1))


def test_block_strided_stores_with_post_update_cursors_fill_an_nz_tile():
    # Two cursors (x and x + 512 fp16 elements = NZ row 32 of a [65, 64] tile). Each store
    # writes the 8 blocks of one fp16 register 65 blocks apart, then steps the cursor one block.
    vfs = """
    @pl.vector_function
    def scatter(src, dst):
        ones = vf.update_mask(128, dtype=pl.DT_FP16)
        for i in pl.range(0, 4):
            r = vf.load_align(src, 128 * i)
            vf.store_align(dst, r, ones, block_stride=65, repeat_stride=1,
                           data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY, post_update=True)
            vf.store_align(dst + 512, r, ones, block_stride=65, repeat_stride=1,
                           data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY, post_update=True)
    """
    x = rows(4, 128, np.float16)
    y = np.zeros((65, 128), np.float16)
    out = run(vec_kernel(vfs, "scatter(a[0], b[0])", [4, 128], "DT_FP16", out_shape=[65, 128], prefill=True),
              x=x, y=y).outputs["out"]
    flat = out.reshape(-1)  # the UB bytes, as fp16 elements
    want = np.zeros(65 * 128, np.float16)
    for i in range(4):
        for start in (i * 16, 512 + i * 16):  # cursor after i steps of one 16-element block
            for b in range(8):
                want[start + b * 65 * 16:start + b * 65 * 16 + 16] = x[i, 16 * b:16 * b + 16]
    assert np.array_equal(flat, want)


def test_a_vector_function_call_is_one_v_op_costed_by_its_register_ops():
    vfs = """
    @pl.vector_function
    def copy_rows(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        for i in pl.range(0, 4):
            r = vf.load_align(src, 64 * i)
            vf.store_align(dst, r, p, 64 * i)
    """
    res = run(vec_kernel(vfs, "copy_rows(a[0], b[0])", [4, 64]), x=rows())
    spans = [s for s in res.timeline.ops if s.name == "copy_rows"]
    assert len(spans) == 1 and spans[0].pipe == "V"
    assert spans[0].end - spans[0].start == 20 + 2 * 9  # start-up + 2 cycles per register op (1 mask + 8)


RACE = HEAD + """
@pl.vector_function
def read_row(src, dst, row):
    p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    r = vf.load_align(src, 32 * row)
    vf.store_align(dst, r, p)

@pl.jit
def k(a: pl.Tensor[[32, 32], pl.DT_FP32], eye: pl.Tensor[[32, 32], pl.DT_FP32], out: pl.Tensor[[2, 32], pl.DT_FP32]):
    ub = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0)
    with pl.section_cube():
        al = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat), addr=0)
        el = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat), addr=0x4000)
        lt = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left), addr=0)
        rt = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right), addr=0)
        acc = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc), addr=0)
        pl.load(al, a, [0, 0])
        pl.load(el, eye, [0, 0])
        pl.system.bar_all()
        pl.move(lt, al)
        pl.move(rt, el)
        pl.system.bar_all()
        pl.matmul(acc, lt, rt)
        pl.system.bar_all()
        pl.set_validshape(acc, [16, 32])
        pl.move(ub, acc, acc_to_vec_mode=pl.AccToVecMode.SingleModeVec0)  # writes UB rows 0..15
    with pl.section_vector():
        o = pl.make_tile(pl.TileType(shape=[1, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x8000)
        if pl.get_subblock_idx() == 0:
            read_row(ub, o, ROW)
"""


def test_race_detection_sees_the_exact_bytes_a_vector_function_reads():
    # the 256-byte register load of row 16 starts right after the move's last byte: no overlap
    run_kernel("r.py", "k", {}, source=RACE.replace("ROW", "16"))
    with pytest.raises(RaceError, match=r"read\s+by b0\.AIV0 on pipe V: vector function read_row"):
        run_kernel("r.py", "k", {}, source=RACE.replace("ROW", "14"))  # rows 14..15: written by the move


@pytest.mark.parametrize("body,msg", [
    ("r = vf.load_align(src, 4)\n    vf.store_align(dst, r, p)", "not 32-byte aligned"),
    ("pl.add(src, src, src)", r"pl.add inside a @pl.vector_function"),
    ("return 1", "returned a value"),
    ("r = vf.load_align(src, dist=pl.LoadDist.US)", "dist US is not defined for a DT_FP32 register"),
    ("r = vf.load_unalign(vf.load_unalign_init(), src)", "load_unalign_pre on this tile first"),
])
def test_vector_function_errors_name_the_line(body, msg):
    vfs = textwrap.dedent("""
    @pl.vector_function
    def bad(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        BODY
    """).replace("BODY", body)
    src = vec_kernel(vfs, "bad(a[0], b[0])", [4, 64])
    with pytest.raises(Exception, match=msg) as err:
        run(src, x=rows())
    assert "vfk.py:" in str(err.value)


def test_register_ops_outside_a_vector_function_are_errors():
    src = vec_kernel("", "vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)", [4, 64])
    line = next(i for i, text in enumerate(src.splitlines(), 1) if "vf.create_mask" in text)
    with pytest.raises(KernelError, match=f"only allowed inside a @pl.vector_function.*vfk.py:{line}"):
        run(src, x=rows())


def test_post_update_loads_read_at_the_cursor_then_step_it():
    vfs = """
    @pl.vector_function
    def walk(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        for i in pl.range(0, 2):
            r = vf.load_align(src, 128, post_update=True)  # rows 0, 2: the step is two rows
            vf.store_align(dst, r, p, 64 * i)
        s = vf.load_align(src + 64, 0, post_update=True)  # another expression: its own cursor
        vf.store_align(dst, s, p, 128)
    """
    x = rows(4)
    out = run(vec_kernel(vfs, "walk(a[0], b[0])", [4, 64], out_shape=[3, 64]), x=x).outputs["out"]
    assert np.array_equal(out, x[[0, 2, 1]])


def test_exp_sub_widens_fp16_lanes_by_layout():
    vfs = """
    @pl.vector_function
    def ex(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        x = vf.load_align(src)
        m = vf.load_align(src, 128)
        e = vf.exp_sub(x, m, p, pl.CastLayout.ONE)
        vf.store_align(dst, e, p)
        f = vf.exp(e, p)
        vf.store_align(dst + 64, f, p)
    """
    x = rows(2, 128, np.float16)
    out = run(vec_kernel(vfs, "ex(a[0], b[0])", [2, 128], "DT_FP16", out_shape=[2, 64], out_dtype="DT_FP32"),
              x=x).outputs["out"]
    want = np.exp(x[0, 1::2].astype(np.float32) - x[1, 1::2].astype(np.float32))
    with np.errstate(over="ignore"):  # exp of exp: lanes past fp32's range are inf in both
        twice = np.exp(want)
    assert np.array_equal(out[0], want) and np.array_equal(out[1], twice)


def test_load_with_a_register_dtype_reinterprets_the_bytes():
    vfs = """
    @pl.vector_function
    def bits(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_INT32)
        r = vf.load_align(src, 64, dtype=pl.DT_INT32)  # offset in tile elements: row 1
        vf.mem_bar(mode=pl.MemBarMode.VST_VLD)
        vf.store_align(dst, r, p)
    """
    x = rows(2)
    out = run(vec_kernel(vfs, "bits(a[0], b[0])", [2, 64], out_shape=[1, 64], out_dtype="DT_INT32"),
              x=x).outputs["out"]
    assert np.array_equal(out[0], x[1].view(np.int32))


def test_vector_functions_use_the_vf_namespace_without_an_import():
    # `vf` is reserved inside `@pl.vector_function`: documented kernels do not import it
    vfs = """
    @pl.vector_function
    def copy(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        vf.store_align(dst, vf.load_align(src), p)
    """
    x = rows(1)
    src = vec_kernel(vfs, "copy(a[0], b[0])", [1, 64]).replace("from pypto_pro.language import Vf as vf\n", "")
    assert "import Vf" not in src
    assert np.array_equal(run(src, x=x).outputs["out"], x)


#: a vector function storing one fp32 register by a block copy whose 4th argument is `{fourth}`
BLOCK_COPY = """
    @pl.vector_function
    def spread(src, dst):
        ones = vf.update_mask(64, dtype=pl.DT_FP32)
        r = vf.load_align(src, 0)
        vf.store_align(dst, r, ones, {fourth}, data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY)
    """


def _block_copy(fourth: str, x: np.ndarray) -> np.ndarray:
    kernel = vec_kernel(BLOCK_COPY.format(fourth=fourth), "spread(a[0], b[0])", [1, 64], "DT_FP32",
                        out_shape=[1, 128], prefill=True)
    return run(kernel, x=x, y=np.zeros((1, 128), np.float32)).outputs["out"].reshape(-1)


def test_the_fourth_argument_of_a_block_copy_store_is_its_block_stride():
    # PyPTO binds `vf.store_align(t, r, m, 2, data_copy_mode=DATA_BLOCK_COPY)` as block_stride=2:
    # block b of the register at the tile's start + b * 2 * 32 bytes (read as an element offset before)
    x = rows(1, 64, np.float32)
    want = np.zeros(128, np.float32)
    for b in range(8):  # 8 fp32 per 32-byte block, every other block
        want[16 * b:16 * b + 8] = x[0, 8 * b:8 * b + 8]
    assert np.array_equal(_block_copy("2", x), want)


def test_a_block_copy_store_given_its_block_stride_twice_is_an_error():
    with pytest.raises(KernelError, match="given its block stride twice"):
        _block_copy("2, block_stride=2", rows(1, 64, np.float32))

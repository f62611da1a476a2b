"""The bytes a vector function reaches, computed from its body: unit cases from the addressing
rules (pointer arithmetic, offsets, broadcasts, masks, block-strided and post-update stores,
nested calls), refusals for what cannot be followed, and the kernel-level consequence: a vector
function that reads past its tile into the next slot of a group is refused (PTO061), and the
emulator confirms that the pipeline written anyway races."""

from __future__ import annotations

import textwrap

import pytest

from helpers import ROOT, fixed_flash_attention
from pto_transpile import transpile
from pto_transpile.soundness.vfextent import UNKNOWN, Extent, TileArg, Unmodelled, VectorFunctions
from skeleton import Text

F32 = TileArg(4, (1, 64))
F16 = TileArg(2, (16, 64))
ROW = TileArg(4, (64, 128))
CONSTANTS = {"LANES": 64, "NZ_ROW": 16 * 16, "FP32": "DT_FP32", "PARTS": [0, 448]}


def extents(body: str, *args, **kwargs) -> dict[int, Extent]:
    functions = {}
    for chunk in textwrap.dedent(body).split("\n@pl.vector_function\n"):
        chunk = chunk.strip("\n")
        if chunk:
            name = chunk.split("def ", 1)[1].split("(", 1)[0]
            functions[name] = "@pl.vector_function\n" + chunk + "\n"
    first = next(iter(functions))
    vfs = VectorFunctions(functions.get, CONSTANTS.get)
    return vfs.extents(first, args, tuple(sorted(kwargs.items())))


def test_a_norm_load_reads_one_register_at_element_offsets():
    e = extents("""
        def f(x):
            a = vf.load_align(x)
            b = vf.load_align(x + LANES, 2 * LANES)
            c = vf.load_align(x, [1, 0])
        """, ROW)
    # x + 64 lanes + 128 elements: bytes 768..1024; [1, 0] of a [64, 128] tile: 512..768
    assert e[0].reads == ((0, 256), (512, 1024)) and e[0].writes == ()


def test_a_broadcast_load_reads_one_element():
    e = extents("""
        def f(x):
            c = vf.load_align(x, 3, dist=pl.LoadDist.BRC_B32)
            d = vf.load_align(x, 9, pl.LoadDist.BRC_B32)
        """, F32)
    assert e[0].reads == ((12, 16), (36, 40))


def test_a_store_writes_the_lanes_its_mask_enables():
    e = extents("""
        def f(x, y):
            full = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
            one = vf.create_mask(pattern=pl.MaskPattern.VL1, dtype=pl.DT_FP32)
            eight = vf.update_mask(8, dtype=FP32)
            r = vf.load_align(x)
            vf.store_align(y, r, full)
            vf.store_align(y + 64, r, one)
            vf.store_align(y + 128, r, eight)
            vf.store_align(y + 192, r, vf.create_mask(pattern=pl.MaskPattern.ALLF, dtype=pl.DT_FP32))
        """, F32, TileArg(4, (1, 256)))
    # all 64 lanes at 0, one lane at 256 (adjacent: merged), 8 lanes at 512, none at 768
    assert e[1].writes == ((0, 260), (512, 544))


def test_a_mask_of_narrower_lanes_than_the_tiles_makes_the_store_a_superset():
    # a b16 mask of 1 lane enables 2 bytes: an fp32 register writes its lane 0 (4 bytes), an
    # fp16 one 2 bytes; the evaluator does not follow a register's type, so it takes the whole
    # register, as a superset (not exact: it overwrites nothing)
    e = extents("""
        def f(x, y):
            m = vf.create_mask(pattern=pl.MaskPattern.VL1, dtype=pl.DT_FP16)
            vf.store_align(y, vf.load_align(x), m)
        """, F32, F32)
    assert e[1].writes == ((0, 256),) and not e[1].exact


def test_a_block_strided_store_with_post_update_moves_its_cursor_by_the_repeat_stride():
    e = extents("""
        def f(x, p):
            m = vf.update_mask(128, dtype=pl.DT_FP16)
            for i in pl.range(0, 2):
                r = vf.load_align(x, LANES * i)
                vf.store_align(p, r, m, block_stride=4, repeat_stride=1,
                               data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY, post_update=True)
                vf.store_align(p + 2 * NZ_ROW, r, m, block_stride=4, repeat_stride=1,
                               data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY, post_update=True)
        """, F32, F16)
    # blocks at cursor + b * 128 bytes, b = 0..7; cursors 0 then 32, and 1024 then 1056
    first = sorted({(c + b * 128, c + b * 128 + 32) for c in (0, 32, 1024, 1056) for b in range(8)})
    merged = []
    for lo, hi in first:
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    assert e[1].writes == tuple(merged)
    assert e[1].writes[0] == (0, 64) and e[1].writes[-1] == (1024 + 7 * 128, 1024 + 7 * 128 + 64)


def test_the_fourth_argument_of_a_block_copy_store_is_its_block_stride():
    # PyPTO binds it as `block_stride` in this mode (read as an element offset before): the 8
    # blocks of the register two blocks apart from the tile's start, as the emulator stores them
    e = extents("""
        def f(x, p):
            m = vf.update_mask(64, dtype=pl.DT_FP32)
            r = vf.load_align(x, 0)
            vf.store_align(p, r, m, 2, data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY)
        """, F32, TileArg(4, (1, 128)))
    assert e[1].writes == tuple((64 * b, 64 * b + 32) for b in range(8))


def test_a_block_copy_store_given_its_block_stride_twice_is_refused():
    with pytest.raises(Unmodelled, match="given its block stride twice"):
        extents("""
            def f(x, p):
                m = vf.update_mask(64, dtype=pl.DT_FP32)
                r = vf.load_align(x, 0)
                vf.store_align(p, r, m, 2, block_stride=2, data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY)
            """, F32, TileArg(4, (1, 128)))


def test_a_norm_post_update_load_moves_by_its_offset():
    e = extents("""
        def f(x):
            for i in pl.range(0, 3):
                r = vf.load_align(x, LANES, post_update=True)
        """, ROW)
    assert e[0].reads == ((0, 768),)


def test_nested_vector_functions_map_back_to_the_outer_arguments_and_share_cursors():
    e = extents("""
        def outer(a, b):
            inner(b + 64, a)
            inner(b + 64, a)

        @pl.vector_function
        def inner(dst, src):
            vf.store_align(dst, vf.load_align(src), vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32),
                           64, post_update=True)
        """, F32, ROW)
    assert e[0].reads == ((0, 256),)
    assert e[1].writes == ((256, 768),)


def test_scalar_arguments_and_static_branches_are_followed():
    body = """
        def f(x, n, first):
            for i in range(n):
                if first:
                    r = vf.load_align(x, i * LANES)
                else:
                    r = vf.load_align(x, (i + 8) * LANES)
        """
    assert extents(body, ROW, 2, True)[0].reads == ((0, 512),)
    assert extents(body, ROW, 2, False)[0].reads == ((2048, 2560),)
    # a condition that is not static: both ways
    assert extents(body, ROW, 1, UNKNOWN)[0].reads == ((0, 256), (2048, 2304))


def test_a_loop_over_a_tuple_runs_each_value_and_tuples_are_indexed():
    # the two halves of an NZ row block, spelled as real kernels spell them
    e = extents("""
        def f(x):
            for o in (0, 448):
                r = vf.load_align(x, o)
            offs = [LANES, 3 * LANES]
            for k in range(2):
                r = vf.load_align(x, offs[k])
            r = vf.load_align(x, PARTS[-1])
            for o in PARTS:
                r = vf.load_align(x, o + 1)
        """, ROW)
    assert e[0].reads == ((0, 512), (768, 1024), (1792, 2052))


@pytest.mark.parametrize("body, reason", [
    ("def f(x, n):\n    for o in (0, n):\n        r = vf.load_align(x, o)\n", "values of the loop"),
    ("def f(x, n):\n    r = vf.load_align(x, (0, 4)[n])\n", "offset that is not static"),
    ("def f(x, n):\n    for i in range(n):\n        r = vf.load_align(x, i)\n", "trip count"),
    ("def f(x, n):\n    r = vf.load_align(x, n)\n", "offset that is not static"),
    ("def f(x, n):\n    r = vf.load_align(x + n)\n", "not static"),
    ("def f(x, n):\n    r = vf.gather(x, n, n)\n", "vf.gather"),
    ("def f(x, n):\n    while n:\n        n = 0\n", "While"),
    ("def f(x, n):\n    helper(x)\n", "helper"),
    ("def f(x, n):\n    r = vf.load_align(x, dist=pl.LoadDist.UNPK_B16)\n", "dist=UNPK_B16"),
])
def test_what_cannot_be_followed_is_refused_with_a_reason(body, reason):
    with pytest.raises(Unmodelled, match=reason):
        extents(body, ROW, UNKNOWN)


def test_results_are_cached_per_argument_signature():
    calls = []
    source = "@pl.vector_function\ndef f(x):\n    r = vf.load_align(x)\n"
    vfs = VectorFunctions(lambda name: calls.append(name) or (source if name == "f" else None), {}.get)
    assert vfs.extents("f", (F32,)) is vfs.extents("f", (F32,))
    assert vfs.extents("f", (ROW,)) == vfs.extents("f", (F32,))
    assert calls == ["f"]


# -- in a kernel ------------------------------------------------------------------------------

FA = ROOT / "examples" / "flash_attention_dn.py"


def _reads_past_its_tile() -> str:
    """The FlashAttention example (at the rows of its test) with its vector-function loops
    running twice as long: the VFs read 128 rows past the 128-row S^T half tile they are given,
    into the next slot."""
    return Text(fixed_flash_attention()).replace("QUARTER = TKV // 4", "QUARTER = TKV // 2")


def test_a_vector_function_reading_past_its_tile_is_refused():
    result = transpile(_reads_past_its_tile(), preload=1, path=FA.name)
    assert result.code is None
    problems = [d for d in result.diagnostics if d.code == "PTO061"]
    assert problems, result.diagnostics
    assert any("softmax_first_vf()" in d.message
               and "qk_vec_db[0] (bytes 0..65536 from its start, past its 32768 bytes)" in d.message
               for d in problems), [d.message for d in problems]


def test_the_example_vector_functions_stay_inside_their_tiles():
    # every vector function of the real kernel is followed, and nothing it reaches is outside
    # the tiles it gets: the refusal above is the extent, not a blanket one
    for preload in (1, 2):
        assert transpile(fixed_flash_attention(), preload=preload, path=FA.name).diagnostics == []


@pytest.mark.emulator
def test_the_refused_pipeline_really_races_on_the_emulator():
    from helpers import flash_attention_inputs as inputs
    from sim_runtime import RaceError, run_kernel

    result = transpile(_reads_past_its_tile(), preload=1, path=FA.name, _skip_rules=["PTO061"])
    assert result.code is not None
    with pytest.raises(RaceError, match=r"vector function softmax_\w+_vf in compute_p"):
        run_kernel("fa_long_vf.py", FA.stem, inputs(), source=result.code)


# -- loops summarised by their step ----------------------------------------------------------

LOOPS = [
    # linear offsets, two per iteration
    "def f(x, y):\n    for i in pl.range(0, 40):\n        a = vf.load_align(x, 3 * LANES * i)\n"
    "        vf.store_align(y, a, vf.create_mask(pattern=pl.MaskPattern.VL1, dtype=pl.DT_FP32), 7 * i + 1)\n",
    # post-update cursors inside the loop, block-strided
    "def f(x, y):\n    m = vf.update_mask(128, dtype=pl.DT_FP16)\n    for i in pl.range(0, 20):\n"
    "        r = vf.load_align(x, LANES * i)\n"
    "        vf.store_align(y, r, m, block_stride=4, repeat_stride=1, "
    "data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY, post_update=True)\n",
    # nested loops with a broadcast load in the outer one
    "def f(x, y):\n    for i in pl.range(0, 30):\n        c = vf.load_align(x, i, dist=pl.LoadDist.BRC_B32)\n"
    "        for j in pl.range(0, 2):\n            vf.store_align(y, c, vf.create_mask(pattern=pl.MaskPattern.ALL, "
    "dtype=pl.DT_FP32), i * 128 + j * LANES)\n",
    # not linear (a modulo, a product of the loop variable, a carried pointer): run for real
    "def f(x, y):\n    for i in pl.range(0, 12):\n        a = vf.load_align(x, (i % 3) * LANES)\n",
    "def f(x, y):\n    for i in pl.range(0, 12):\n        a = vf.load_align(x, i * i)\n",
    "def f(x, y):\n    p = x\n    for i in pl.range(0, 12):\n        a = vf.load_align(p)\n        p = p + LANES\n",
    # a post-update cursor at an address of the loop variable (one cursor, moving): run for
    # real, `post_update` given by keyword or by position
    "def f(x, y):\n    for i in pl.range(0, 12):\n        a = vf.load_align(x + 0 * i, LANES, post_update=True)\n",
    "def f(x, y):\n    for i in pl.range(0, 12):\n"
    "        a = vf.load_align(x + 0 * i, LANES, pl.LoadDist.NORM, None, True)\n",
]


@pytest.mark.parametrize("body", LOOPS)
def test_a_loop_summarised_by_its_step_reaches_the_same_bytes_as_running_it(body, monkeypatch):
    from pto_transpile.soundness import vfextent

    args = (TileArg(4, (64, 128)), TileArg(2, (64, 128)))
    summarised = extents(body, *args)
    monkeypatch.setattr(vfextent, "_affine_loop", lambda loop, memo: False)
    assert extents(body, *args) == summarised


def test_which_loops_are_summarised():
    import ast

    from pto_transpile.soundness.vfextent import _affine_loop, _prune

    memo: dict = {}
    verdicts = [_affine_loop(next(s for s in _prune(ast.parse(b).body[0].body, memo) if isinstance(s, ast.For)), memo)
                for b in LOOPS]
    assert verdicts == [True, True, True, False, False, False, False, False]


def test_a_store_in_the_documented_norm_copy_mode_is_a_plain_store():
    e = extents("""
        def f(x, y):
            full = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
            vf.store_align(y, vf.load_align(x), full, data_copy_mode=pl.DataCopyMode.NORM)
        """, F32, F32)
    assert e[1].writes == ((0, 256),)


# -- PyPTO's parameter names ------------------------------------------------------------------

#: (a call with every argument by position, the same call naming them as PyPTO does)
BY_NAME = [
    ("r = vf.load_align(x, LANES, pl.LoadDist.NORM)", "r = vf.load_align(tile=x, offset=LANES, dist=pl.LoadDist.NORM)"),
    ("r = vf.load_align(x, 3, pl.LoadDist.BRC_B32)", "r = vf.load_align(x, dist=pl.LoadDist.BRC_B32, offset=3)"),
    ("vf.store_align(y, vf.load_align(x), vf.update_mask(8, pl.DT_FP32), LANES)",
     "vf.store_align(y, vf.load_align(tile=x), vf.update_mask(scalar=8, dtype=pl.DT_FP32), LANES)"),
    ("vf.store_align(y, vf.load_align(x), vf.create_mask(pl.MaskPattern.VL8, pl.DT_FP32))",
     "vf.store_align(y, vf.load_align(x), vf.create_mask(dtype=pl.DT_FP32, pattern=pl.MaskPattern.VL8))"),
    # a register of data, not a mask, by its operands: stored with post_update
    ("vf.store_align(y, vf.select(vf.load_align(x), vf.load_align(x), vf.create_mask()), vf.create_mask(), LANES, "
     "post_update=True)",
     "vf.store_align(y, vf.select(src0=vf.load_align(x), src1=vf.load_align(x), preg=vf.create_mask()), "
     "vf.create_mask(), LANES, post_update=True)"),
    # a mask register stored: its bits
    ("vf.store_align(y, vf.create_mask(pl.MaskPattern.H, pl.DT_FP32))",
     "vf.store_align(tile=y, src=vf.create_mask(pattern=pl.MaskPattern.H, dtype=pl.DT_FP32))"),
]


@pytest.mark.parametrize(("positional", "by_name"), BY_NAME)
def test_a_call_naming_pyptos_parameters_reaches_what_the_positional_one_does(positional, by_name):
    body = "def f(x, y):\n    {}\n"
    assert extents(body.format(by_name), ROW, ROW) == extents(body.format(positional), ROW, ROW)


@pytest.mark.parametrize(("call", "reason"), [
    # what Python would not bind
    ("vf.store_align(y, vf.load_align(x), vf.update_mask(n=8))",
     r"`vf.update_mask` whose arguments do not fit its parameters \(scalar, dtype\)"),
    ("vf.load_align(x, 0, tile=x)", "whose arguments do not fit"),
    ("vf.store_align(y, vf.load_align(x), preg=vf.create_mask())", r"\(tile, src, \*args, dist, "),
    # what the bytes would depend on and the evaluator does not read
    ("vf.load_align(x, 0, block_stride=2)", "`vf.load_align` given `block_stride`, which the check does not model"),
    ("vf.store_align(y, vf.create_mask(), 0, block_stride=2)", "given `block_stride`"),
    ("vf.store_align(y, vf.load_align(x), vf.create_mask(), 0, 1)", "more positional arguments than the check models"),
])
def test_a_call_the_check_cannot_bind_by_pyptos_parameters_is_refused(call, reason):
    with pytest.raises(Unmodelled, match=reason):
        extents(f"def f(x, y):\n    {call}\n", ROW, ROW)

"""PTO065 reads what a vector function does to a tile: one that only stores to it writes it.

Two vector stages of the demo share the local group `relu_vec_db`; each first fills its tile
with `copy_vf` (a loop of register loads and stores over the whole tile), then reads it. The
rule read only `pl` ops, so the first read looked like state kept from an earlier iteration
and the kernel was refused, although it runs as the serial one on the emulator.
"""

import pytest

from helpers import demo_text, edited
from pto_transpile import codes, transpile

_COPY_VF = '''@pl.vector_function
def copy_vf(dst, src):
    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for i in pl.range(0, TILE_HALF * TILE // 64):
        r = vf.load_align(src, 64 * i)
        vf.store_align(dst + 64 * i, r, p32)


@pl.pipeline.stage
def stage1('''


def _shared(registers_per_tile: str = "64") -> str:
    return edited(demo_text(), [
        ("@pl.pipeline.stage\ndef stage1(", _COPY_VF.replace("// 64", "// " + registers_per_tile)),
        ("    pl.relu(relu_vec, mm1_vec)", "    copy_vf(relu_vec, mm1_vec)\n    pl.relu(relu_vec, relu_vec)"),
        ("def stage4(ki, sub_id, out, out_vec_db):", "def stage4(ki, sub_id, out, out_vec_db, relu_vec_db):"),
        ("    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])",
         "    tmp = relu_vec_db.next()\n    copy_vf(tmp, out_vec)\n    pl.abs(tmp, tmp)\n"
         "    pl.store(out, tmp, [ki * TILE + sub_id * TILE_HALF, 0])"),
        ("stage4(ki, sub_id, out, out_vec_db)\n", "stage4(ki, sub_id, out, out_vec_db, relu_vec_db)\n"),
    ])


def _codes(text: str) -> list[str]:
    return [d.code for d in transpile(text, preload=1).diagnostics]


def test_a_tile_a_vector_function_fills_first_is_written_not_read():
    assert _codes(_shared()) == []


def test_a_read_through_a_vector_function_before_any_write_is_still_state():
    text = _shared().replace("    copy_vf(tmp, out_vec)\n", "    copy_vf(out_vec, tmp)\n")
    assert _codes(text) == [codes.TILE_STATE_ACROSS_ITERATIONS]


def test_a_vector_function_filling_half_the_tile_leaves_the_rest_to_the_proof():
    assert set(_codes(_shared("128"))) == {codes.PIPELINE_NOT_PROVEN}


@pytest.mark.emulator
def test_the_kernel_whose_tiles_a_vector_function_fills_runs_as_the_serial_one():
    from sim_runtime.verify import verify

    text = _shared()
    rows = verify(text, transpile(text, preload=1).code, "pipeline_demo_kernel", path="k.py").rows
    assert [row.verdict for row in rows] == ["ok", "ok"]

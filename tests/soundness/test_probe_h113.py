"""Probe h113: a ctx field typed int by what the value's type does not say, for a float the
check does not compute (`pow(1.5, i % 2)`), so no comparison showed the truncation: the stage's
use of it as a key of a dict (`SCALE_OF_GAIN[gain]`, taken for an index), and a helper's return
annotation `-> int` (Python converts nothing on return). Each was accepted and wrong on the
emulator."""

from __future__ import annotations

from pathlib import Path

from helpers import assert_proven_and_run, kernel_text, refusal_of

KERNELS = Path(__file__).parent / "kernels"
ROWS = {"a": (160, 32), "out": (160, 32)}
KEYED = KERNELS / "h113_float_arg_typed_int_by_index_use.py"
RETURNED = KERNELS / "h113_helper_return_annotation_types_ring_int.py"


def _edited(tmp_path, path: Path, old: str, new: str) -> Path:
    text = kernel_text(path)
    assert old in text
    out = tmp_path / "kernel.py"
    out.write_text(text.replace(old, new))
    return out


def test_a_dict_key_is_no_index_and_types_no_ctx_field():
    assert "whether it is an integer or a float cannot be told" in refusal_of(KEYED)


def test_the_annotation_the_help_asks_for_fixes_it(tmp_path):
    path = _edited(tmp_path, KEYED, "        gain: float = pow(1.5, i % 2)",
                   "        gain: pl.DT_FP32 = pow(1.5, i % 2)")
    assert_proven_and_run(path, "kern", shapes=ROWS)


def test_a_helpers_return_annotation_types_no_ctx_field():
    """Typed by the stage's use instead (the scalar of `pl.muls` on an fp32 tile: a float)."""
    assert_proven_and_run(RETURNED, "kern", shapes=ROWS)


def test_a_helper_annotated_int_returning_what_no_use_types_is_refused(tmp_path):
    path = _edited(tmp_path, RETURNED, "    pl.muls(res, proj, gain)", "    pl.muls(res, proj, 2.0)\n    print(gain)")
    assert "whether it is an integer or a float cannot be told" in refusal_of(path)

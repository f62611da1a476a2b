"""Probe h112: what the ring changes besides a value. A struct field initialised through `round`,
which the check did not compute, had no kind, so a field of integers (in one tiling-key instance
only) was carried in a ctx field of floats; and a test of identity (`a is b`, `type(x) is int`,
`id(a) == id(b)`), followed both ways as if both kernels took the same way, where the ring hands
two structs as one ctx entry and one typed value under two names as two plain ones. Each was
accepted and wrong on the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, kernel_text, refusal_of

KERNELS = Path(__file__).parent / "kernels"
ROWS = {"a": (160, 32), "out": (160, 32)}
ROUND = KERNELS / "h112_round_choice_field_int_serially_float_in_ring.py"
TYPED = KERNELS / "h112_typed_scalar_identity_split_by_ctx_fields.py"
RING_APART = "the ctx ring carries `budget.credits`, a field of integers as its initialiser types it"
IDENTITY = "tests whether two values are one object, which the pipelined kernel changes"


def _edited(tmp_path, path: Path, old: str, new: str) -> Path:
    text = kernel_text(path)
    assert old in text
    out = tmp_path / "kernel.py"
    out.write_text(text.replace(old, new))
    return out


@pytest.mark.parametrize("name, expected", [
    ("h112_round_choice_field_int_serially_float_in_ring", RING_APART),
    ("h112_round_choice_field_tiling_key_instance", RING_APART),
    ("h112_struct_identity_merged_in_ctx", "`cfg is base_cfg` " + IDENTITY),
    ("h112_typed_scalar_identity_split_by_ctx_fields", "`tag is base_tag` " + IDENTITY),
])
def test_the_kernel_is_refused(name, expected):
    assert expected in refusal_of(KERNELS / f"{name}.py")


@pytest.mark.parametrize("init", ["max(round(6.4), 0.5)", "round(RATIO * 8) or 0.5", "0.0 or round(RATIO * 8)"])
def test_other_initialisers_through_round_are_refused(tmp_path, init):
    path = _edited(tmp_path, ROUND, "credits=round(RATIO * 8) if QUANTISE else RATIO * 8", f"credits={init}")
    assert RING_APART in refusal_of(path)


def test_a_field_initialised_by_round_of_a_float_kept_float_is_proven(tmp_path):
    path = _edited(tmp_path, ROUND, "credits=round(RATIO * 8) if QUANTISE else RATIO * 8",
                   "credits=float(round(RATIO * 8)) if QUANTISE else RATIO * 8")
    assert_proven_and_run(path, "kern", shapes=ROWS)


@pytest.mark.parametrize("test", ["type(tag) is int", "id(tag) == id(base_tag)"])
def test_other_tests_of_identity_or_type_are_refused(tmp_path, test):
    path = _edited(tmp_path, TYPED, "    if tag is base_tag:", f"    if {test}:")
    assert "which the pipelined kernel changes" in refusal_of(path)


def test_the_help_for_identity_fixes_the_kernel(tmp_path):
    path = _edited(tmp_path, TYPED, "    if tag is base_tag:", "    if tag == base_tag:")
    assert_proven_and_run(path, "kern", shapes=ROWS)

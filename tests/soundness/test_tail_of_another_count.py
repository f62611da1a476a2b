"""A row tail (`rows = pl.min(TM, n_rows - i * TM)`) is followed for every count where the loop's
trip count is computed from the value it clamps (`n_tiles = (n_rows + TM - 1) // TM`). Bounded
by another run-time value (the tile count the host puts in the tiling data), the kernel was
refused with "pass only static values there", which would remove the tail (study ux2); the
refusal now says what to compute the count from, and doing so is proven."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages
from pto_transpile import transpile

KERNEL = (Path(__file__).parent / "kernels" / "ux2_act_matmul.py").read_text(encoding="utf-8")
OWN_COUNT = "    n_tiles = (n_rows + TM - 1) // TM\n    for i in pl.range(core_id, n_tiles, num_cores):\n"


def test_a_tail_over_a_count_from_the_same_value_is_proven():
    assert error_messages(transpile(KERNEL, path="k.py", preload=2)) == []


def test_a_tail_over_another_count_says_what_to_compute_the_count_from():
    text = edited(KERNEL, [(OWN_COUNT, "    for i in pl.range(core_id, tiling.n_tiles, num_cores):\n")])
    errors = error_messages(transpile(text, path="k.py", preload=2))
    assert errors and "the tail `pl.min(TM, n_rows - i * TM)` clamps by a value its loop's trip count is not " \
        "computed from" in errors[0], errors
    assert "n_tiles = (rows + TILE - 1) // TILE" in errors[0] and "pass only static values" not in errors[0]

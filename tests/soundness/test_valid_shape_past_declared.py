"""A valid shape past the tile's declared shape (probe h250). The check takes a valid shape known
only at run time for at most the declared one; the emulator took `TileType(valid_shape=[k, 32])`
of a `[1, 32]` tile at `k = 2` and stored two rows from it, racing with a read of the second row
in the accepted pipelined kernel. A tile holds no more than it declares: the emulator refuses
such a run, of the serial kernel as of the pipelined one, and the check refuses a static one."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "h250_runtime_valid_over_declared.py")
SHAPES = {"a": (64, 64), "out": (192, 64)}


def test_a_run_time_valid_shape_within_the_tile_runs_as_the_serial_kernel():
    result = transpile(KERNEL, path="k.py", preload=1)
    assert error_messages(result) == []
    report = verify(KERNEL, result.code, "kernel", path="k.py", shapes=SHAPES, scalars={"k": 1})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("k", [2, 4])
def test_a_run_time_valid_shape_past_the_tile_is_an_error_of_the_serial_run(k):
    result = transpile(KERNEL, path="k.py", preload=1)
    report = verify(KERNEL, result.code, "kernel", path="k.py", shapes=SHAPES, scalars={"k": k})
    assert [r.verdict for r in report.rows] == ["error"], report.rows
    assert f"valid shape [{k}, 32] past the declared [1, 32]" in report.rows[0].message


def test_a_static_valid_shape_past_the_tile_is_refused_with_its_place():
    text = KERNEL.replace("valid_shape=[k, HALF]", "valid_shape=[2, HALF]")
    assert text != KERNEL
    (found,) = [d for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error]
    assert "declares a valid shape [2, 32] past the declared [1, 32]" in found.message, found.message
    assert text.splitlines()[found.line - 1].lstrip().startswith("mark = pl.make_tile(pl.TileType("), found.line

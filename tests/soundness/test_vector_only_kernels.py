"""A kernel with no `section_cube` runs one vector core per block (the JIT compiles it aiv-only):
block index `b`, sub-block 0 of 1. The check followed it as a mix kernel, two vector cores per
block with indices `2b` and `2b + 1` (probe h98): a kernel whose block index was written the mix
way was proven though blocks 0 and 1 store the same rows, one raising a flag per vector core and
taking two was proven though it deadlocks, and the correct form was warned. It now follows the
cores the kernel has (`interp.kernel_cores`), as the emulator runs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
SHAPES = {"a": (256, 32), "out": (256, 32)}


def _kernel(name: str) -> str:
    return kernel_text(KERNELS / f"{name}.py")


def _findings(text: str) -> list[tuple[str, str, str]]:
    return [(d.code, d.severity, d.message) for d in transpile(text, path="k.py").diagnostics if d.severity != "note"]


def test_one_vector_core_per_block_is_checked_and_accepted():
    text = _kernel("vector_only_one_core_per_block")
    assert _findings(text) == []
    for blocks in (1, 2, 3):
        report = verify(text, text, "relu_rows_kernel", shapes=SHAPES, block_dim=blocks)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (blocks, report.rows)


def test_a_flag_raised_once_per_vector_core_and_taken_twice_deadlocks():
    text = _kernel("vector_only_subblock_count")
    ((code, severity, message),) = _findings(text)
    assert (code, severity) == ("PTO068", "error") and "deadlocks: AIV0 waits on event id 7" in message, message
    assert [r.verdict for r in verify(text, text, "relu_rows_kernel", shapes=SHAPES).rows][0] == "deadlock"


@pytest.mark.parametrize("blocks", [2, 3])
def test_a_block_index_written_the_mix_way_is_not_proven(blocks):
    """`get_block_idx() // 2` on one vector core per block: blocks 0 and 1 take the same tiles."""
    text = _kernel("vector_only_block_index")
    ((code, severity, message),) = _findings(text)
    assert code == "PTO077" and "could not be checked" in message, message  # no longer proven
    assert [r.verdict for r in verify(text, text, "relu_rows_kernel", shapes=SHAPES, block_dim=blocks).rows][0] \
        == "race"

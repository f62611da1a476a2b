"""The cores a block has are read from the sections of the kernel's whole text, as the JIT and
the emulator read them: a `with pl.section_cube():` in a function defined in the kernel body
(never called) makes a mix kernel, the cube and two vector cores. The check walked the kernel's
statements without entering nested functions and proved the kernel as a vector-only one, one
vector core per block, so a race of the two vector cores went unseen (probe h133: each stored its
half of a tile and loaded the other's; accepted, and racing on the emulator at 1 and 2 blocks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

TEXT = (Path(__file__).parent / "kernels" / "h133_nested_def_section_cube.py").read_text(encoding="utf-8")
SHAPES = {"a": (64, 32), "out": (64, 32), "out2": (64, 32)}


def test_a_cube_section_in_a_nested_function_makes_a_mix_kernel():
    (message,) = error_messages(transpile(TEXT, path="k.py"))
    assert "`pl.store` on MTE3 of AIV1 writes `out[16:32, 0:32]` while the kernel body at line 40, `pl.load` on MTE2 " \
           "of AIV0 reads `out[16:32, 0:32]`, and nothing orders the two" in message, message


@pytest.mark.emulator
@pytest.mark.parametrize("block_dim", [1, 2])
def test_the_emulator_shows_the_race(block_dim):
    rows = verify(TEXT, TEXT, "swap_kernel", path="k.py", shapes=SHAPES, block_dim=block_dim).rows
    assert [r.verdict for r in rows] == ["ok", "race"], rows


def test_without_the_nested_cube_section_the_kernel_is_vector_only_and_proven():
    """One vector core per block: its halves are its own."""
    text = edited(TEXT, [("    def cube_idle():\n        with pl.section_cube():\n            pass\n\n", "")])
    assert error_messages(transpile(text, path="k.py")) == []

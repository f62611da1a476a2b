"""PTO075 says the serial kernel is already wrong where the block index is `pl.get_block_idx()` on
every core, which is b on the cube and 2b, 2b + 1 on its vector cores. Spelled with
`pl.get_subblock_num()` in another form the check does not read (`divmod(...)[0]`, `int(idx / n)`,
`idx // max(n, 1)`: each b on every core), the kernel is not shown wrong, and the message said it
was (probe h121); it says the check cannot tell, with the same help."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_transpile import transpile

SCALE = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
CORE = "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"


def _pto075(core: str) -> list:
    assert SCALE.count(CORE) == 1
    return [d for d in transpile(SCALE.replace(CORE, f"    core_id = {core}\n"), path="k.py").diagnostics
            if d.code == "PTO075"]


@pytest.mark.parametrize("core", ["divmod(pl.get_block_idx(), pl.get_subblock_num())[0]",
                                  "int(pl.get_block_idx() / pl.get_subblock_num())",
                                  "pl.get_block_idx() // max(pl.get_subblock_num(), 1)"])
def test_another_form_of_the_division_is_not_called_wrong(core):
    (found,) = _pto075(core)
    assert found.message.endswith("the check reads the block index only as `pl.get_block_idx() // "
                                  "pl.get_subblock_num()`, and cannot tell whether this is it"), found.message
    assert "Write `pl.get_block_idx() // pl.get_subblock_num()`" in found.hint


def test_the_index_alone_is_still_called_wrong():
    (found,) = _pto075("pl.get_block_idx()")
    assert found.message.endswith("the serial kernel is already wrong"), found.message

"""A stage argument picking a tile from a tuple, list or dict written out in the call
(`(r0, r1)[i % 2]`, `[r0, r1][i % 2]`, `{0: r0, 1: r1}[i % 2]`) is carried as the same pick
through a name (`rs[i % 2]`) is: its index travels in the ctx ring and the pick is made where
the delayed stage runs (probe h74). Before, only a pick from a name was known to be a tile,
and the kernel was refused with PTO072 saying the tile's int/float type could not be told,
with a help to annotate the expression. An index with a `:=` (`rs[(i := i) % 2]`) is the
int it binds: it was refused with the same message."""

from __future__ import annotations

import pytest
from test_carried_picks import CALL, PICKED

from helpers import edited
from pto_transpile import transpile
from sim_runtime.verify import verify

PICKS = ["(r0, r1)[i % 2]", "[r0, r1][i % 2]", "{0: r0, 1: r1}[i % 2]", "rs[(i := i) % 2]"]


def _picking(pick: str) -> str:
    """The kernel whose vector stage multiplies by the tile `pick` selects."""
    return edited(PICKED, [(CALL, CALL.replace("rs[i % 2]", pick))])


@pytest.mark.parametrize("pick", PICKS)
@pytest.mark.parametrize("preload", [1, 2])
def test_a_pick_from_a_display_of_tiles_is_made_with_its_tasks_index_and_runs_as_the_serial_kernel(pick, preload):
    text = _picking(pick)
    result = transpile(text, path="k.py", preload=preload)
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    index = pick[pick.rindex("[") + 1:-1]
    assert f"_pl_ctx_0._pl_arg_finish_5_0 = {index}\n" in result.code, result.code
    kernel = result.code.split("def kern")[1]
    assert pick not in kernel  # no pick with the newest task's index
    for rows in (64, 160):
        report = verify(text, result.code, "kern", path="k.py", shapes={"a": (rows, 32), "out": (rows, 32)})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message

"""A view with static bounds (`y[0:8, :]`) moves at most its own rows and columns to or from
GM; the check took every view as its whole tile, so an AIV storing its half as two 8-row views
at +0 and +8 seemed to reach the other AIV's rows, and a valid kernel was refused (PTO061).
A view whose bounds the check cannot read, or that PyPTO would refuse, is still its whole tile.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile

BASE = (Path(__file__).parent / "kernels" / "dynamic_rows.py").read_text()
STORE = "    pl.relu(y, c_vec)\n    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"


def stores(body: str, params: str = "", rows: str = "pl.DYNAMIC") -> str:
    """The kernel with the vector stage's store replaced by `body` (after `pl.relu(y, c_vec)`),
    its tensors of `rows` rows."""
    text = edited(BASE, [(STORE, "    pl.relu(y, c_vec)\n" + body)])
    text = text.replace("pl.Tensor[[pl.DYNAMIC, TILE]", f"pl.Tensor[[{rows}, TILE]")
    if params:
        text = edited(text, [
            ("def scale_store(ki, sub_id, out, c_vec_db, y_db):", f"def scale_store(ki, sub_id, out, c_vec_db, y_db, "
                                                                 f"{params}):"),
            ("scale_store(ki, sub_id, out, c_vec_db, y_db)", f"scale_store(ki, sub_id, out, c_vec_db, y_db, {params})"),
            ("    out: pl.Tensor[", f"    {params}: pl.DT_INT32,\n    out: pl.Tensor[")])
    return text


HALVES = ("    pl.store(out, y[0:8, :], [ki * TILE + sub_id * HALF, 0])\n"
          "    pl.store(out, y[8:16, :], [ki * TILE + sub_id * HALF + 8, 0])\n")
VALID = {
    "two views": HALVES,
    "bound views": "    top = y[0:8, :]\n    bot = y[8:, :]\n"
                   "    pl.store(out, top, [ki * TILE + sub_id * HALF, 0])\n"
                   "    pl.store(out, bot, [ki * TILE + sub_id * HALF + 8, 0])\n",
    "views in a loop": "    for j in range(2):\n"
                       "        pl.store(out, y[j * 8:(j + 1) * 8, :], [ki * TILE + sub_id * HALF + j * 8, 0])\n",
    "view of a view": "    pl.store(out, y[0:16, :][0:8, :], [ki * TILE + sub_id * HALF, 0])\n"
                      "    pl.store(out, y[8:16, 0:32], [ki * TILE + sub_id * HALF + 8, 0])\n",
}
#: AIV0's second store reaches row 16 of the tile's 32, AIV1's first (or may)
TOP = "    pl.store(out, y[0:8, :], [ki * TILE + sub_id * HALF, 0])\n"
INVALID = {
    "one row too many": TOP + "    pl.store(out, y[0:9, :], [ki * TILE + sub_id * HALF + 8, 0])\n",
    "view of a view too far": TOP + "    pl.store(out, y[0:16, :][0:9, :], [ki * TILE + sub_id * HALF + 8, 0])\n",
    "bounds known at run time": TOP + "    pl.store(out, y[0:h, :], [ki * TILE + sub_id * HALF + 8, 0])\n",
    "a step": TOP + "    pl.store(out, y[0:16:2, :], [ki * TILE + sub_id * HALF + 8, 0])\n",
}
#: `y_db` declared 32 rows with a valid shape of 8, made 32 before the loop: a view of all its
#: rows moves 32 (its tile's current valid shape), not the 8 declared
ENLARGED = [
    ("            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
     "            addrs=0x4000,\n",
     "            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,\n"
     "                             valid_shape=[8, TILE]),\n"
     "            addrs=0x4000,\n"),
    ("            mutex_ids=[12, 13],\n        )\n", "            mutex_ids=[12, 13],\n        )\n"
                                                   "        pl.set_validshape(y_db, [TILE, TILE])\n"),
    ("    pl.relu(y, c_vec)\n", "    pl.relu(y[0:HALF, :], c_vec)\n"),
]


@pytest.mark.parametrize("rows", ["pl.DYNAMIC", "4 * TILE"])
@pytest.mark.parametrize("preload", [1, 2])
@pytest.mark.parametrize("name", VALID)
def test_views_of_static_bounds_move_their_own_rows(name, preload, rows):
    result = transpile(stores(VALID[name], rows=rows), path="views.py", preload=preload)
    assert error_messages(result) == []


@pytest.mark.parametrize("name", INVALID)
def test_views_that_reach_the_other_half_are_refused(name):
    text = stores(INVALID[name], params="h" if "run time" in name else "", rows="4 * TILE")
    (message,) = error_messages(transpile(text, path="views.py", preload=1))
    assert "AIV1 writes `out[16:" in message and "AIV0 writes `out[8:" in message, message


@pytest.mark.emulator
@pytest.mark.parametrize("preload", [1, 2])
def test_the_emulator_runs_the_view_stores(preload):
    from sim_runtime.verify import verify

    text = stores(HALVES)
    code = transpile(text, path="views.py", preload=preload).code
    assert code is not None
    report = verify(text, code, "kernel", path="views.py", shapes={"a": (128, 32), "out": (128, 32)})
    assert [row.verdict for row in report.rows] == ["ok", "ok"], [row.message for row in report.rows]


@pytest.mark.emulator
def test_the_emulator_shows_the_row_too_many():
    from sim_runtime.verify import verify

    text = stores(INVALID["one row too many"])
    code = transpile(text, path="views.py", preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    report = verify(text, code, "kernel", path="views.py", shapes={"a": (128, 32), "out": (128, 32)})
    assert report.rows[0].verdict == "race", report.rows[0].message


def test_a_view_of_a_tile_made_larger_moves_the_tile_s_current_rows():
    text = edited(stores("    pl.store(out, y[0:TILE, :], [ki * TILE + sub_id * HALF, 0])\n", rows="4 * TILE"),
                  ENLARGED)
    messages = error_messages(transpile(text, path="views.py", preload=1))
    assert any("AIV0 writes `out[0:32" in m and "AIV1 writes `out[16:48" in m for m in messages), messages


@pytest.mark.emulator
def test_the_emulator_stores_the_current_rows_of_the_view():
    from sim_runtime.verify import verify

    text = edited(stores("    pl.store(out, y[0:TILE, :], [ki * TILE + sub_id * HALF, 0])\n", rows="4 * TILE"),
                  ENLARGED)
    code = transpile(text, path="views.py", preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    report = verify(text, code, "kernel", path="views.py")
    assert report.rows[0].verdict == "race", report.rows[0].message

"""Rows of an output the serial run left as they were: shapes that do not fit the kernel's tiles
(150 rows for 32-row blocks) leave the tail unwritten, both runs agree there and the report said
`ok` without saying that nothing was checked there (first-hour study ux1)."""

from __future__ import annotations

from pathlib import Path

from pto_transpile import transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()


def _notes(rows: int) -> list[str]:
    code = transpile(TILED, path="k.py", preload=1).code
    report = verify(TILED, code, "tiled_scale_kernel", path="k.py", shapes={"a": (rows, 32), "out": (rows, 32)},
                    scalars={"scale": 0.5, "ApplyRelu": 1})
    assert [r.verdict for r in report.rows] == ["ok", "ok"]
    return report.notes


def test_rows_past_the_last_whole_tile_are_named():
    (note,) = _notes(150)
    assert note.startswith("`out`: rows 128..149 of 150 still hold what they held before the run"), note


def test_shapes_that_fit_say_nothing():
    assert _notes(160) == []

"""A block's task count or end clamped by an `if` statement, as hand-written tiling code clamps
it: `cnt = chunk; if start + cnt > n: cnt = n - start` and `end = start + chunk; if end > n:
end = n`. Each is the `min` the check proves for chunks with a remainder; an `if` whose branches
only bind names binds each to the choice between its values, and a choice that is the smaller
of two values counts as their `min` (`uniform._as_min`). Refused before ("the trip count of this
loop is not static", "the bounds of `pl.range(start, end)` are not integers the check can
follow"); the clamps that are not a `min` are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, spread
from pto_transpile import codes, transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
ROUNDED = "    chunk = (n_blocks + num_cores - 1) // num_cores\n    start = core_id * chunk\n"
PARAM = ("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    chunk: pl.DT_INT32,\n")
TASKS = "    for j in pl.range(0, cnt):\n        i = start + j\n"
COUNT = "    cnt = chunk\n    if start + cnt > n_blocks:\n        cnt = {}\n" + TASKS
END = "    end = start + chunk\n    if end > n_blocks:\n        end = {}\n    for i in pl.range(start, end):\n"

ACCEPTED = {
    "a count clamped": ([], ROUNDED + COUNT.format("n_blocks - start")),
    "a count clamped at or past the end": ([], ROUNDED + COUNT.replace(" > ", " >= ").format("n_blocks - start")),
    "an end clamped": ([], ROUNDED + END.format("n_blocks")),
    "an end clamped, a parameter chunk": ([PARAM], "    start = core_id * chunk\n" + END.format("n_blocks")),
}
DEFECTS = {
    "a count clamped one past": ROUNDED + COUNT.format("n_blocks - start + 1"),
    "a count raised, not clamped": ROUNDED + COUNT.replace(" > ", " < ").format("n_blocks - start"),
    "an end clamped one past": ROUNDED + END.format("n_blocks + 1"),
    "an end raised, not clamped": ROUNDED + END.replace(" > ", " < ").format("n_blocks"),
}


def _findings(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.severity != "note"]


def _verdicts(text: str, tiles: int, blocks: int) -> list[str]:
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    rows = (32 * tiles, 32)
    scalars = {"scale": 0.5, "ApplyRelu": 1, **({"chunk": 3} if PARAM[1] in text else {})}
    return [row.verdict for row in verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                                          scalars=scalars, block_dim=blocks).rows]


@pytest.mark.parametrize("name", spread(list(ACCEPTED), 2))  # all: campaign
def test_a_clamped_count_or_end_is_proven_and_runs_as_the_serial_kernel(name):
    edits, loop = ACCEPTED[name]
    text = edited(TILED, [*edits, (LOOP, loop)])
    assert _findings(text) == []
    for tiles, blocks in ((7, 2), (7, 3), (5, 4), (1, 2)):
        assert _verdicts(text, tiles, blocks) == ["ok", "ok"], (tiles, blocks)


@pytest.mark.parametrize("name", list(DEFECTS))
def test_a_clamp_that_is_not_a_min_is_refused(name):
    ((code, _),) = _findings(edited(TILED, [(LOOP, DEFECTS[name])]))
    assert code == "PTO061"


def test_the_emulator_shows_a_raised_count_races():
    assert _verdicts(edited(TILED, [(LOOP, DEFECTS["a count raised, not clamped"])]), 8, 2)[0] == "race"

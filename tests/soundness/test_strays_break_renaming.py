"""A tile group's slots are alike, and its rotation left out of the period the runs are drawn
for, only where nothing tells one slot from another: an op reaching outside a slot does, since
the same reach from another slot lands elsewhere (probe h132: a vector function given `j % 11`
stored one register past its source at `r == 10`, into the group's other slot from slot 0 and
into unused memory from slot 1; the race needs lcm(11, 2) = 22 iterations, and the runs, drawn
for a period of 11, stopped at 16). Such a reach from a slot now keeps its group's rotation in
the period: the run that meets it finds the longer period and the kernel is refused, naming the
reach."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

STRAY = kernel_text(Path(__file__).parent / "kernels" / "h132_vf_residue_stray.py")


@pytest.mark.parametrize("k, stray", [(11, 10), (9, 8)])
def test_a_reach_outside_its_slot_at_one_residue_is_refused(k, stray):
    text = edited(STRAY, [("scale_vf(res, proj, j % 11)", f"scale_vf(res, proj, j % {k})"),
                          ("    if r == 10:", f"    if r == {stray}:")])
    (message,) = error_messages(transpile(text, path="k.py", preload=2))
    assert f"repeats every {2 * k} iterations at some trip counts, after the check chose them for {k}; an op " \
           "reaches outside its tile (Vec bytes" in message, message


@pytest.mark.emulator
def test_the_emulator_shows_the_race_past_22_iterations():
    code = transpile(STRAY, path="k.py", preload=2, _skip_rules=("PTO061",)).code
    verdicts = {}
    for tiles in (21, 22):
        size = (32 * tiles, 32)
        rows = verify(STRAY, code, "tiled_scale_kernel", path="k.py", shapes={"a": size, "out": size},
                      scalars={"scale": 0.5, "ApplyRelu": 1}).rows
        verdicts[tiles] = [r.verdict for r in rows]
    assert verdicts == {21: ["ok", "ok"], 22: ["ok", "race"]}, verdicts

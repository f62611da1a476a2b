"""Probe h164: two more values an iteration handed the next that the comparison took for
unchanged. Each made a kernel wrong on the emulator past the counts the check runs.

- `-0.0` and `0.0`, four names holding one or the other as the bits of a count of iterations,
  read back with `math.copysign`: `==` says they are equal (from the twelfth tile the cube loads
  what the vector core stored one iteration before, pipelined before the store).
- A hand-written ring entry's field growing 1.5 times a beat and marked a residue
  (`ring[0].e = ring[0].e * 3 // 2 + t % 1`): the residues of a hand-written ring's entries were
  not judged, and from beat 32 it skipped a wait (events unbalanced on the emulator at 40 tiles).
"""

from __future__ import annotations

from probed import loads_out

from helpers import edited, error_messages, hand_pipelined_over_blocks
from pto_transpile import transpile


def _kernel(before: str, body: str) -> str:
    return "import math\n" + loads_out(before, body)


def test_minus_zero_and_zero_are_told_apart():
    before = "".join(f"    b{j} = 0.0\n" for j in range(4))
    body = ("".join(f"        t{j} = int(math.copysign(1.0, b{j}) < 0)\n" for j in range(4))
            + "        c = t0 + 2 * t1 + 4 * t2 + 8 * t3\n        f: pl.DT_INT32 = (c >= 12) * 4096\n"
            + "        m = c + 1\n"
            + "".join(f"        b{j} = -0.0 if m % {2 ** (j + 1)} >= {2 ** j} else 0.0\n" for j in range(4)))
    errors = error_messages(transpile(_kernel(before, body), path="k.py", preload=2))
    assert errors and "`b0` carries a value from one iteration to the next" in errors[0], errors


def test_a_growing_residue_in_a_hand_written_ring_entry_is_not_taken_for_checked():
    text = edited(hand_pipelined_over_blocks(), [
        ('    ring = pl.struct_array(2, "Beat", row=0)\n', '    ring = pl.struct_array(2, "Beat", row=0, e=2)\n'),
        ("        now.row = (core_id + t * num_cores) * TILE\n",
         "        now.row = (core_id + t * num_cores) * TILE\n        ring[0].e = ring[0].e * 3 // 2 + t % 1\n"),
        ("                pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[t % 2])\n",
         "                if ring[0].e < 1000000:\n"
         "                    pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[t % 2])\n")])
    found = transpile(text, path="k.py", preload=2).diagnostics
    assert [d.code for d in found if d.code in ("PTO068", "PTO077")] == ["PTO077"], found
    assert "field `ring[0].e` carries a value from one iteration to the next" in found[-1].message or any(
        "field `ring[0].e` carries a value" in d.message for d in found), found

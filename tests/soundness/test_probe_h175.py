"""Probe h175: a value computed from the loop variable and from what a struct's field held, in a
struct the check reaches only through a container (`box[0].e0 = box[0].e0 + ki`, a chain of such
sums), or in a hand-written ring entry (`ring[0].e0 = ring[0].e0 + t`): the first was judged only
for a struct a name holds, the second not at all (ring entries carry each beat's values by
design), and a `% 8` of the chain's last sum, first 7 at the 49th iteration, was taken for
periodic; both accepted and wrong on the emulator past 48 tiles. A field that moves is refused in a
struct reached through a container; in a struct array's entry, the form of what moves must be the
same at every beat's start, as a value set anew from the loop variable is (`now.row = t * TILE`)."""

from __future__ import annotations

from probed import loads_out

from helpers import edited, error_messages, hand_pipelined_over_blocks
from pto_transpile import transpile

CHAIN = 6


def _chain(holder: str, var: str) -> str:
    return f"{holder}.e0 = {holder}.e0 + {var}\n" + "".join(
        f"{holder}.e{k} = {holder}.e{k} + {holder}.e{k - 1}\n" for k in range(1, CHAIN))


def test_a_moving_field_of_a_struct_in_a_list_is_refused():
    fields = ", ".join(f"e{k}=0" for k in range(CHAIN))
    body = "".join(f"        {line}\n" for line in _chain("box[0]", "ki").splitlines())
    body += f"        f: pl.DT_INT32 = (box[0].e{CHAIN - 1} % 8 == 7) * 4096\n"
    errors = error_messages(transpile(loads_out(f"    box = [pl.struct({fields})]\n", body), path="k.py", preload=2))
    assert errors and "field `box[0].e0` carries a value computed from a loop variable" in errors[0], errors


def test_a_sum_built_up_in_a_ring_entry_is_not_followed():
    fields = ", ".join(f"e{k}=0" for k in range(CHAIN))
    chain = "".join(f"        {line}\n" for line in _chain("ring[0]", "t").splitlines())
    text = edited(hand_pipelined_over_blocks(), [
        ('pl.struct_array(2, "Beat", row=0)', f'pl.struct_array(2, "Beat", row=0, {fields})'),
        ("    for t in pl.range(0, my_n + 1):\n", "    for t in pl.range(0, my_n + 1):\n" + chain),
    ])
    warnings = [d.message for d in transpile(text, path="k.py").diagnostics if d.code == "PTO077"]
    assert warnings and "field `ring[0].e0` carries a value from one iteration to the next" in warnings[0], warnings


def test_a_ring_entry_set_anew_at_every_beat_is_proven():
    # (the example's own `now.row = ...`, and a field set from the loop variable alone)
    text = edited(hand_pipelined_over_blocks(), [
        ('pl.struct_array(2, "Beat", row=0)', 'pl.struct_array(2, "Beat", row=0, e0=0)'),
        ("    for t in pl.range(0, my_n + 1):\n", "    for t in pl.range(0, my_n + 1):\n        ring[0].e0 = t * 3\n"),
    ])
    result = transpile(text, path="k.py")
    assert result.ok and not [d for d in result.diagnostics if d.code in ("PTO068", "PTO077")], error_messages(result)

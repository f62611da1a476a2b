"""Kernels a probe found accepted and wrong on the emulator, each refused now:

- a GM write whose place the check cannot compute from the block (`min(core_id, 1)`, which it
  follows only as a run-time value), in a kernel that spreads its work over the blocks: such
  writes were judged only in kernels that give each block a chunk. Named when no run shows a
  more precise problem (another run may show the write as the race it is);
- a struct field a stage sets to a value the check cannot compute (`abs(alpha)` of a float
  parameter), read by a later task's stage: the serial value, unknown, was never compared. It
  is named now by the stage invocation that set it;
- a list the loop body keeps (`seen.append(ki)`) whose length sets a flag past 100 entries: a
  counter in disguise, which the representative and enumerated runs never reach."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import error_messages
from pto_transpile import transpile


def _messages(name: str, preload: int = 1) -> list[str]:
    return error_messages(transpile(kernel(name), path=name, preload=preload))


def test_a_write_placed_by_a_clamped_block_index_is_refused():
    (message,) = _messages("block_min_place.py")
    assert "`mid` is written at a place the check cannot follow (`pl.store(mid, acc, [i * TILE, 0])`), in a kernel " \
           "that spreads its work over the blocks" in message, message


@pytest.mark.parametrize("preload", [1, 2])
def test_a_struct_field_set_to_a_value_the_check_cannot_compute_is_compared(preload):
    messages = _messages("struct_unknown_field.py", preload)
    assert any("receives `scale` = <value of `st.scale` as stage `scale_store` (task 0) set it> in the serial "
               "kernel but 1.0 in the pipelined one" in m for m in messages), messages


def test_a_list_the_loop_keeps_is_refused_and_a_long_static_loop_followed_to_its_end():
    (message,) = _messages("list_length_flag_dynamic.py")
    assert "`seen` changes from one iteration of the loop to the next" in message, message
    (message,) = _messages("list_length_flag_static.py")  # the real run, 300 tiles, shows the defect at tile 99
    assert "stage `scale_store` (task 99)" in message, message


@pytest.mark.emulator
@pytest.mark.parametrize("alpha, same", [(2.0, False), (1.0, True)])
def test_the_emulator_shows_the_struct_field_case_wrong(alpha, same):
    from sim_runtime.verify import verify

    name = "struct_unknown_field.py"
    text = kernel(name)
    code = transpile(text, path=name, preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    shapes = {t: (4 * 32, 32) for t in ("a", "out", "out2")}
    report = verify(text, code, "kernel", path=name, shapes=shapes, scalars={"n": 4, "alpha": alpha})
    assert report.rows[-1].verdict == ("ok" if same else "mismatch"), report.rows[-1].message

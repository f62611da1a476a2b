"""A store whose place the check cannot know names the module value that made it so.

A module list handed to a call the check does not run (`@pytest.mark.parametrize("col", COLS)`)
may be changed by it, so a stage storing at `COLS[0]` stores somewhere in `out` for the check,
and the race it reports used to say only "an offset computed from a value known only at run
time, such as a `pl.min` of a `pl.DYNAMIC` dimension", in a kernel of static sizes. The message
now names `COLS`, the line of the call and the fix (a tuple cannot change); with the tuple the
kernel is accepted and runs as the serial one.
"""

from __future__ import annotations

from pathlib import Path

from test_stage_containers import ROW, _errors, accepted_and_ok, kernel

from helpers import edited, kernel_text
from pto_transpile import codes, transpile

_TEST = '''

@pytest.mark.parametrize("col", COLS)
def test_cols(col):
    assert col == 0
'''


def _kernel(cols: str) -> str:
    return kernel(f"    pl.store(out, y, [{ROW}, COLS[0]])\n", f"import pytest\nCOLS = {cols}\n") + _TEST


def test_a_module_list_handed_to_a_call_is_named_with_its_line_and_the_fix():
    text = _kernel("[0]")
    errors = _errors(text)
    assert {c for c, _ in errors} == {codes.PIPELINE_NOT_PROVEN}, errors
    line = text.splitlines().index('@pytest.mark.parametrize("col", COLS)') + 1
    assert all(f"`COLS` is not a compile-time constant (the list it holds may change: a call is given it (line {line})"
               in message and "a tuple cannot" in message for _, message in errors), errors


def test_the_same_values_in_a_tuple_are_known_and_the_kernel_runs_as_the_serial_one():
    accepted_and_ok(_kernel("(0,)"))


def test_pl_min_and_max_of_numbers_are_computed():
    # `pl.min`/`pl.max` of scalars were unknown: a store at such a row was "anywhere" (a false
    # refusal), and a stage argument computed by them was never compared between the runs
    accepted_and_ok(kernel(f"    pl.store(out, y, [pl.min({ROW}, 1000) + pl.max(0, -4), 0])\n"))
    errors = _errors(kernel(f"    pl.store(out, y, [pl.min({ROW}, 0), 0])\n"))
    assert {c for c, _ in errors} == {codes.PIPELINE_NOT_PROVEN}, errors
    assert all("writes `out[0:16, 0:32]`" in message for _, message in errors), errors


def test_a_window_placed_by_data_read_from_gm_names_the_read():
    """A scatter (`pl.store(out, res, [pl.getval(idx, i) + ...])`): where the store lands is data, and
    the refusal says so, naming the stage that reads it, not "such as a `pl.min` of a dimension"."""
    text = edited(kernel_text(Path(__file__).parent / "kernels" / "rows_two_stages.py"), [
        ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
         "    pl.store(out, res, [pl.getval(idx, i) + sub_id * HALF, 0])"),
        ("def finish(i, sub_id, out,", "def finish(i, sub_id, out, idx,"),
        ("            finish(i, sub_id, out,", "            finish(i, sub_id, out, idx,"),
        ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
         "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    idx: pl.Tensor[[64], pl.DT_INT32],\n")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert errors and "an offset is computed from a value stage `finish` reads from GM" in errors[0], errors


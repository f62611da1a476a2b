"""Loops over `enumerate`, `zip`, `reversed` and a dict's `items()`, `keys()`, `values()`.

The check used to take such a loop's items as unknown: a stage storing at a row its loop gave
was refused with a race between tasks "where `out` is reached is not known", although the
kernel runs as the serial one. The loop's items are read as Python reads them when what it is
given is a sequence or dict the model holds; a change of that sequence while the loop runs is
refused, since Python would read the changed one. The stores a loop places wrongly stay refused.
"""

from __future__ import annotations

import pytest
from test_stage_containers import ROW, _errors, _verdicts, kernel

from pto_transpile import codes

#: valid stage code: each loop stores this AIV's rows of its task once
VALID = {
    "enumerate": f"    for j, r in enumerate([{ROW}]):\n        pl.store(out, y, [r + j, 0])\n",
    "enumerate from 1": f"    for j, r in enumerate([{ROW}], 1):\n        pl.store(out, y, [r + j - 1, 0])\n",
    "zip": f"    for r, c in zip([{ROW}], [0, 5]):\n        pl.store(out, y, [r, c])\n",
    "enumerate of zip": f"    for j, (r, c) in enumerate(zip([{ROW}], (0,))):\n        pl.store(out, y, [r + j, c])\n",
    "reversed": f"    for r in reversed([7, {ROW}]):\n        pl.store(out, y, [r, 0])\n        break\n",
    "dict items": f"    for k, r in {{'r': {ROW}}}.items():\n        pl.store(out, y, [r, 0])\n",
    "dict values": f"    for r in {{'r': {ROW}}}.values():\n        pl.store(out, y, [r, 0])\n",
    "reversed dict": f"    rows = {{7: 0, 0: {ROW}}}\n    for k in reversed(rows):\n"
                     "        pl.store(out, y, [rows[k], 0])\n        break\n",
    "dict keys": f"    rows = {{0: {ROW}}}\n    for k in rows.keys():\n        pl.store(out, y, [rows[k], 0])\n",
}
#: each places both AIVs' stores at row 0 (the emulator: a race) where the loop is read as Python does
WRONG = {
    "enumerate": f"    for j, r in enumerate([{ROW}]):\n        pl.store(out, y, [r * j, 0])\n",
    "zip, shortest": f"    for r, c in zip([0, {ROW}], [0]):\n        pl.store(out, y, [r, c])\n",
    "reversed": f"    for r in reversed([{ROW}, 0]):\n        pl.store(out, y, [r, 0])\n        break\n",
    "dict items": f"    for k, r in {{'r': {ROW}, 's': 0}}.items():\n        last = r\n"
                  "    pl.store(out, y, [last, 0])\n",
}
#: the loop's sequence changed while it runs: refused, naming it
CHANGED = {
    "appended to": f"    rows = [{ROW}]\n    for j, r in enumerate(rows):\n        if j == 0:\n"
                   "            rows.append(0)\n        pl.store(out, y, [r, 0])\n",
    "a dict value replaced": f"    rows = {{'a': {ROW}, 'b': {ROW}}}\n    for k, r in rows.items():\n"
                             "        rows['b'] = 0\n        pl.store(out, y, [r, 0])\n",
}


@pytest.mark.parametrize("name", list(VALID))
def test_a_loop_over_a_view_of_a_known_sequence_is_followed_and_runs_as_the_serial_kernel(name):
    text = kernel(VALID[name])
    assert _errors(text) == []
    assert _verdicts(text) == ["ok", "ok"]


@pytest.mark.parametrize("name", list(WRONG))
def test_a_store_the_loop_places_on_one_row_for_both_aivs_is_refused(name):
    errors = _errors(kernel(WRONG[name]))
    assert {c for c, _ in errors} == {codes.PIPELINE_NOT_PROVEN}, errors
    assert all("writes `out[0:16, 0:32]`" in message for _, message in errors), errors


def test_the_emulator_shows_the_wrongly_placed_store_races():
    assert _verdicts(kernel(WRONG["zip, shortest"])) == ["race"]


@pytest.mark.parametrize("name", list(CHANGED))
def test_a_sequence_changed_while_the_loop_over_its_view_runs_is_refused_naming_it(name):
    errors = _errors(kernel(CHANGED[name]))
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN], errors
    assert "is changed while a loop runs over it" in errors[0][1], errors


def test_zip_strict_of_unequal_lengths_is_refused():
    errors = _errors(kernel(f"    for r, c in zip([{ROW}], [0, 1], strict=True):\n        pl.store(out, y, [r, c])\n"))
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN], errors
    assert "strict=True" in errors[0][1]

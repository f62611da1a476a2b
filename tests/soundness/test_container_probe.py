"""A probe of the container model (lists and dicts followed as Python changes them) found 34
kernels accepted although the emulator shows them wrong: both AIVs storing at one row (a race),
or a value smuggled to a later stage (a mismatch). Each is refused now:
- a module list of lists aliased through a slice (`x = ROWS[:][0]; x[0] = 0`): a slice is a new
  list of the same items, no level down, so the whole-file effects no longer take `ROWS[:][0]`
  (nor `ROWS[:].copy()`, `sorted(ROWS[:])`, a default `x=ROWS[:][0]`) for an element that
  cannot change;
- dict keys Python merges and the model kept apart (`{0: a, 0.0: b}`, `{**{0: b}}`, two run-time
  values, a sampled parameter equal to a key at a value not sampled): a dict display or `dict()`
  whose keys are not all plain numbers and strings is `Unkeyed`, its items unknown;
- an item set at a sampled parameter (`rows[d] = 0`): a change at a place that differs between
  values not run is refused;
- `list`, `tuple`, `dict` rebound by the file (a class, an import): not the builtins;
- `:=` (`(k := 0)` bound `k`; inside an f-string, a comprehension or a set display it is refused);
- an f-string whose format spec is computed where it runs.
"""

from __future__ import annotations

import pytest
from test_module_state import smuggled
from test_stage_containers import ROW, _errors, _verdicts, kernel

ROWS = "ROWS = [[1]]\n"
NESTED_ROW = "ki * TILE + sub_id * HALF * ROWS[0][0]"
_LOOP = "    for ki in pl.range(0, N):\n"


def _store(row: str) -> str:
    return f"    pl.store(out, y, [{row}, 0])\n"


def _init(body: str, module: str = ROWS, row: str = NESTED_ROW) -> str:
    """The kernel storing at a row scaled by `ROWS[0][0]`, which a module function changes."""
    return kernel(_store(row), module + "\n\ndef _init():\n" + body + "\n\n_init()\n")


def _in_body(statements: str) -> str:
    """The same, `ROWS` changed in the kernel body before the pipeline loop."""
    return kernel(_store(NESTED_ROW), ROWS, [(_LOOP, statements + _LOOP)])


_WALRUS_ROW = "ki * TILE + sub_id * HALF * k"
_LIST_CLASS = ("class list:\n    store = [0.0]\n\n    def __init__(self):\n        pass\n\n"
               "    def append(self, v):\n        list.store[0] = v\n\n\n")

#: each accepted before, and both AIVs stored at one row on the emulator (`race`)
RACING = {
    "a slice's item changed": _init("    x = ROWS[:][0]\n    x[0] = 0\n"),
    "a slice's item changed in the kernel body": _in_body("    x = ROWS[:][0]\n    x[0] = 0\n"),
    "a slice's item as a default": kernel(_store(NESTED_ROW), ROWS + "\n\ndef _init(x=ROWS[:][0]):\n    x[0] = 0\n"
                                                                     "\n\n_init()\n"),
    "a slice of a slice unpacked": _init("    x, = ROWS[0:1][0:1]\n    x[0] = 0\n"),
    "a slice's item by :=": _init("    if (x := ROWS[::1][0]):\n        x[0] = 0\n"),
    "a slice's item annotated": _init("    x: list = ROWS[:][0]\n    x.clear()\n    x.append(0)\n"),
    "a tuple's list in a slice": _init("    x = ROWS[:][0][1]\n    x[0] = 0\n", "ROWS = [(0, [1])]\n",
                                       "ki * TILE + sub_id * HALF * ROWS[0][1][0]"),
    "a copy of a slice": _init("    x = ROWS[:].copy()\n    x[0][0] = 0\n"),
    "a copy of a slice in the kernel body": _in_body("    x = ROWS[:].copy()\n    x[0][0] = 0\n"),
    "sorted of a slice": _init("    x = sorted(ROWS[:])\n    x[0][0] = 0\n"),
    "list of a slice": _init("    x = list(ROWS[0:])\n    x[0][0] = 0\n"),
    "max of a slice": _init("    x = max(ROWS[:])\n    x[0] = 0\n"),
    "keys 0 and 0.0": kernel(f"    rows = {{0: {ROW}, 0.0: 0}}\n" + _store("rows[0]")),
    "a key again by **": kernel(f"    rows = {{0: {ROW}, **{{0: 0}}}}\n" + _store("rows[0]")),
    "the length of keys 0 and 0.0": kernel(f"    k = {{0: 1, 0.0: 2}}\n    rows = [0, {ROW}]\n"
                                           + _store("rows[len(k) - 1]")),
    "the length of float keys merged by |": kernel(f"    k = {{1.5: 0}} | {{2.5: 0}}\n    rows = [{ROW}, 0]\n"
                                                   + _store("rows[len(k) - 1]")),
    "dict() keyed by one run-time value twice": kernel(f"    v = a[0, 0]\n    k = dict([(v, 0), (v + 0, 1)])\n"
                                                       f"    rows = [0, {ROW}]\n" + _store("rows[len(k) - 1]")),
    "a display keyed by one run-time value twice": kernel(f"    v = a[0, 0]\n    k = {{v: 0, v + 0: 1}}\n"
                                                          f"    rows = [0, {ROW}]\n" + _store("rows[len(k) - 1]")),
    "a class named list": kernel(f"    rows = list([{ROW}])\n" + _store("rows[0]"),
                                 "class list:\n    def __init__(self, xs):\n        pass\n\n"
                                 "    def __getitem__(self, i):\n        return 0\n"),
    "an import named list": kernel(f"    rows = list([{ROW}])\n" + _store("rows[0]"),
                                   "from collections import Counter as list\n"),
    ":= alone": kernel("    k = 1\n    (k := 0)\n" + _store(_WALRUS_ROW)),
    ":= in an f-string": kernel("    k = 1\n    s = f\"{(k := 0)}\"\n" + _store(_WALRUS_ROW)),
    ":= in a comprehension": kernel("    k = 1\n    s = [(k := 0) for _ in [1]]\n" + _store(_WALRUS_ROW)),
    ":= in a set display": kernel("    k = 1\n    s = {(k := 0)}\n" + _store(_WALRUS_ROW)),
}
#: each accepted before, and racing at `d = 7` only (the sampled values are 0, 1, 2, 3, 5, 11)
AT_SEVEN = {
    "a display keyed by 7 and d": kernel(f"    rows = {{7: {ROW}, d: 0}}\n" + _store("rows[7]")),
    "the length of keys 7 and d": kernel(f"    k = {{7: 0, d: 0}}\n    rows = [0, {ROW}]\n"
                                         + _store("rows[len(k) - 1]")),
    "dict() keyed by 7 and d": kernel(f"    rows = dict([(7, {ROW}), (d, 0)])\n" + _store("rows[7]")),
    "an item set at d": kernel(f"    rows = [{ROW}] * 12\n    rows[d] = 0\n" + _store("rows[7]")),
    "an item set at -d": kernel(f"    rows = [{ROW}] * 12\n    rows[-d] = 0\n" + _store("rows[-7]")),
}
#: each accepted before, and the value reached the later stage late (`mismatch`)
SMUGGLED = {
    "a list behind keys 0 and 0.0": smuggled("BOX = [0.0]\n",
                                             "    d = {0: [], 0.0: BOX}\n    d[0].append(factors[ki])\n",
                                             "    factor = BOX[-1]\n"),
    "a list behind **": smuggled("BOX = [0.0]\n", "    d = {0: [], **{0: BOX}}\n    d[0].append(factors[ki])\n",
                                 "    factor = BOX[-1]\n"),
    "a class named list": smuggled(_LIST_CLASS, "    r = list()\n    r.append(factors[ki])\n",
                                   "    factor = list.store[0]\n"),
}


@pytest.mark.parametrize("name", [*RACING, *AT_SEVEN, *SMUGGLED])
def test_a_kernel_the_container_model_misread_is_refused(name):
    assert _errors({**RACING, **AT_SEVEN, **SMUGGLED}[name])


@pytest.mark.parametrize("name", ["a slice's item changed", "keys 0 and 0.0", "a class named list", ":= alone"])
def test_the_emulator_shows_the_misread_kernels_race(name):
    assert _verdicts(RACING[name]) == ["race"]


def test_the_emulator_shows_a_key_meeting_the_parameter_races_at_that_value_only():
    from pto_transpile import codes, transpile
    from sim_runtime import verify

    text = AT_SEVEN["a display keyed by 7 and d"]
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    runs = {d: [r.verdict for r in verify(text, code, "kernel", path="k.py", scalars={"d": d}).rows] for d in (2, 7)}
    assert runs == {2: ["ok", "ok"], 7: ["race"]}


#: valid forms the probe tried, accepted and verified
VALID = {
    "dict() by keywords": kernel(f"    d = dict(r={ROW})\n" + _store("d['r']")),
    "dicts merged by |": kernel(f"    d = {{'r': 0}} | {{'r': {ROW}}}\n" + _store("d['r']")),
    "a merged dict changed": kernel(f"    d = {{'a': 0}} | {{'r': 0}}\n    d['r'] = {ROW}\n" + _store("d['r']")),
    "dict.get": kernel(f"    d = {{'r': {ROW}}}\n" + _store("d.get('r')")),
    "tuple()": kernel(f"    t = tuple([{ROW}])\n" + _store("t[0]")),
    "a self-documenting f-string": kernel("    print(f\"{ki=}\")\n" + _store(ROW)),
    "a sorted copy of a module list": kernel("    rows = list(ROWS)\n    rows.sort()\n" + _store(f"{ROW} + rows[0]"),
                                             "ROWS = [0, 1]\n"),
    "its own list of lists": kernel(f"    rows = [[0]]\n    rows[0][0] = {ROW}\n" + _store("rows[0][0]")),
}


@pytest.mark.parametrize("name", list(VALID))
def test_a_valid_container_form_is_accepted_and_runs_as_the_serial_kernel(name):
    assert _errors(VALID[name]) == []
    assert _verdicts(VALID[name]) == ["ok", "ok"]

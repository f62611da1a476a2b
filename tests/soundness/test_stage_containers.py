"""Lists and dicts a stage makes and changes, followed as Python changes them.

The check used to pass over a change it did not make itself: `rows.reverse()`, `rows.pop()`,
`del rows[0]`, `d["r"] = v`, `b += [v]` on a list another name holds, a slice assigned. It then
read the list as it was, so a store placed by what the list holds after the change was judged at
another place: each kernel below was accepted, and both AIVs store the same rows (the emulator
shows the race). Each change is now made on the model's list, or the kernel is refused naming it.

Valid stage code the check refused before is accepted and runs as the serial kernel: a list or
dict made by `list()`, `dict()`, `list(ROWS)`, `ROWS[:]` or `ROWS.copy()` of a flat module list
(changed by the stage that made it), and a `print` of an f-string of numbers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

BASE = (Path(__file__).parent / "kernels" / "branch_on_param.py").read_text()
_STORE = "    pl.relu(y, c_vec)\n    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"
_DEFECT = ("    if d == 7:\n        pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])\n", "")
ROW = "ki * TILE + sub_id * HALF"


def kernel(body: str, module: str = "", extra=()) -> str:
    """branch_on_param.py (its defect taken out) whose vector stage stores at a row `body`
    computes, with `module` code after the `pl` import and the edits `extra`."""
    text = edited(BASE, [_DEFECT, (_STORE, "    pl.relu(y, c_vec)\n" + body)])
    return edited(text, [("import pypto_pro.language as pl\n", "import pypto_pro.language as pl\n" + module), *extra])


#: each stores at row 0 from both AIVs once the change is made, the row of its task if it is not
CHANGED = {
    "reverse": f"    rows = [0, {ROW}]\n    rows.reverse()\n    pl.store(out, y, [rows[1], 0])\n",
    "pop": f"    rows = [0, {ROW}]\n    rows.pop()\n    pl.store(out, y, [rows[-1], 0])\n",
    "insert": f"    rows = [{ROW}]\n    rows.insert(0, 0)\n    pl.store(out, y, [rows[0], 0])\n",
    "del": f"    rows = [{ROW}, 0]\n    del rows[0]\n    pl.store(out, y, [rows[0], 0])\n",
    "a dict item": f"    rows = {{'r': {ROW}}}\n    rows['r'] = 0\n    pl.store(out, y, [rows['r'], 0])\n",
    "+= on a list another name holds": f"    rows = [{ROW}]\n    more = rows\n    more += [0]\n"
                                       "    pl.store(out, y, [rows[-1], 0])\n",
    "clear and append": f"    rows = [{ROW}]\n    rows.clear()\n    rows.append(0)\n"
                        "    pl.store(out, y, [rows[0], 0])\n",
    "sort": f"    rows = [{ROW}, 0]\n    rows.sort()\n    pl.store(out, y, [rows[0], 0])\n",
}
#: changes the check does not make: refused, naming them
UNFOLLOWED = {
    "a slice assigned": f"    rows = [{ROW}]\n    rows[0:1] = [0]\n    pl.store(out, y, [rows[0], 0])\n",
    "sort of a run-time value": f"    rows = [d, {ROW}]\n    rows.sort()\n    pl.store(out, y, [rows[-1], 0])\n",
    "an item at a place known only at run time": f"    rows = [{ROW}, 0]\n    rows[d] = 0\n"
                                                 "    pl.store(out, y, [rows[0], 0])\n",
}
#: valid stage code, each storing at its task's rows
VALID = {
    "list() appended to": (f"    rows = list()\n    rows.append({ROW})\n    pl.store(out, y, [rows[0], 0])\n", ""),
    "dict() given an item": (f"    rows = dict()\n    rows['r'] = {ROW}\n    pl.store(out, y, [rows['r'], 0])\n", ""),
    "a copy of a module list by a slice": (f"    rows = ROWS[:]\n    rows[0] = {ROW}\n"
                                           "    pl.store(out, y, [rows[0], 0])\n", "ROWS = [0]\n"),
    "a copy of a module list by copy()": (f"    rows = ROWS.copy()\n    rows[0] = {ROW}\n"
                                          "    pl.store(out, y, [rows[0], 0])\n", "ROWS = [0]\n"),
    "a copy of a module list by list()": (f"    rows = list(ROWS)\n    rows.append({ROW})\n"
                                          "    pl.store(out, y, [rows[-1], 0])\n", "ROWS = [0]\n"),
    "its own list reversed": (f"    rows = [{ROW}, 0]\n    rows.reverse()\n    pl.store(out, y, [rows[1], 0])\n", ""),
    "a print of an f-string": (f"    print(f\"task {{ki}} of {{N}}\")\n    pl.store(out, y, [{ROW}, 0])\n", ""),
}


def _errors(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.is_error]


def accepted_and_ok(text: str) -> None:
    """The check accepts `text`, and the emulator runs its pipelined form as the serial one."""
    assert _errors(text) == []
    assert _verdicts(text) == ["ok", "ok"]


def _verdicts(text: str) -> list[str]:
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    return [row.verdict for row in verify(text, code, "kernel", path="k.py", block_dim=1, scalars={"d": 0}).rows]


@pytest.mark.parametrize("name", list(CHANGED))
def test_a_change_of_a_stage_list_is_followed_and_the_race_it_makes_refused(name):
    errors = _errors(kernel(CHANGED[name]))
    assert {c for c, _ in errors} == {codes.PIPELINE_NOT_PROVEN}, errors
    assert all("writes `out[0:16, 0:32]`" in message for _, message in errors), errors


@pytest.mark.parametrize("name", ["reverse", "a dict item", "+= on a list another name holds"])
def test_the_emulator_shows_the_changed_list_places_both_aivs_on_one_row(name):
    assert _verdicts(kernel(CHANGED[name])) == ["race"]


@pytest.mark.parametrize("name", list(UNFOLLOWED))
def test_a_change_the_check_does_not_make_is_refused_naming_it(name):
    errors = _errors(kernel(UNFOLLOWED[name]))
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN], errors
    assert "the check does not follow" in errors[0][1], errors


@pytest.mark.parametrize("name", list(VALID))
def test_a_container_the_stage_makes_is_its_own_and_the_kernel_runs_as_the_serial_one(name, capsys):
    text = kernel(*VALID[name])
    assert _errors(text) == []
    assert _verdicts(text) == ["ok", "ok"]


def test_a_module_list_of_lists_copied_by_a_slice_still_shares_its_rows():
    # `ROWS[:]` of a list of lists holds the very inner lists: changing one changes the module's
    text = kernel(f"    rows = ROWS[:]\n    rows[0][0] = {ROW}\n    pl.store(out, y, [rows[0][0], 0])\n",
                  "ROWS = [[0]]\n")
    assert [c for c, _ in _errors(text)] == [codes.PIPELINE_NOT_PROVEN]


_SETUP = "        sub_id = pl.get_subblock_idx()\n"
_CALL = "            scale_store(ki, d, sub_id,"
#: the kernel body changing a list or struct through a call the check does not run: the model kept
#: reading `[0, 1]` (each AIV its own rows) while both AIVs stored at row 0 (accepted, and racing)
BODY_CALLS = {
    "list.__setitem__": ("        offs = [0, 1]\n        list.__setitem__(offs, 1, 0)\n", "offs[sub_id]", ""),
    "operator.setitem": ("        offs = [0, 1]\n        operator.setitem(offs, 1, 0)\n", "offs[sub_id]",
                         "import operator\n"),
    # an import binding `math` to another module: the name is not the stateless `math` (probe h92)
    "operator imported as math": ("        offs = [0, 1]\n        math.setitem(offs, 1, 0)\n", "offs[sub_id]",
                                  "import operator as math\n"),
    "setattr on a struct": ("        st = pl.struct(s=1)\n        st.s = sub_id\n        setattr(st, 's', 0)\n",
                            "st.s", ""),
    "vars of a struct": ("        st = pl.struct(s=1)\n        st.s = sub_id\n        vars(st)['s'] = 0\n",
                         "st.s", ""),
}


def _body_call(name: str) -> str:
    setup, argument, module = BODY_CALLS[name]
    return kernel(_STORE.split("\n", 1)[1], module,
                  [(_SETUP, _SETUP + setup), (_CALL, _CALL.replace("sub_id", argument))])


@pytest.mark.parametrize("name", list(BODY_CALLS))
def test_a_call_the_check_does_not_run_given_a_list_or_struct_of_the_kernel_is_refused(name):
    errors = _errors(_body_call(name))
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN], errors
    assert "does with the list, dict or struct it is given" in errors[0][1], errors


def test_the_emulator_shows_the_list_changed_by_a_call_races():
    assert _verdicts(_body_call("list.__setitem__")) == ["race"]


def test_a_module_imported_as_math_is_refused_naming_its_call():
    errors = _errors(_body_call("operator imported as math"))
    assert len(errors) == 1 and "what `math.setitem` does with the list" in errors[0][1], errors


@pytest.mark.parametrize("module", ["math", "m"])
def test_a_call_that_only_reads_a_list_of_the_kernel_is_followed(module):
    text = kernel(_STORE.split("\n", 1)[1], "import math\n" if module == "math" else "import math as m\n",
                  [(_SETUP, _SETUP + f"        offs = [0, 1]\n        width = {module}.prod(offs) + len(offs)\n"),
                   (_CALL, _CALL.replace("sub_id", "offs[sub_id]"))])
    assert _errors(text) == []
    assert _verdicts(text) == ["ok", "ok"]


def test_offsets_given_by_keyword_are_the_third_operand():
    text = kernel(f"    pl.store(out, y, offsets=[{ROW}, 0])\n")
    assert _errors(text) == []
    assert _verdicts(text) == ["ok", "ok"]
    # the kernel's defect, a store into the next task's rows of `a` which the cube stage loads, by keyword
    racy = kernel(f"    pl.store(out, y, offsets=[{ROW}, 0])\n"
                  "    pl.store(a, y, offsets=[(ki + 1) * TILE + sub_id * HALF, 0])\n")
    assert [c for c, _ in _errors(racy)] == [codes.PIPELINE_NOT_PROVEN]


_SYNCED_LOAD = (
    "    pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=5)\n"
    "    pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=5)\n"
    "    pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE2, event_id=6)\n"
    "    pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE2, event_id=6)\n"
    f"    pl.load(y, out, [{ROW}, 0]{{flag}})\n"
    "    pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=7)\n"
    "    pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=7)\n"
    f"    pl.store(out, y, [{ROW}, 0])\n")
_WIDER = [("    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],",
           "    out: pl.Tensor[[(N + 2) * TILE, TILE], pl.DT_FP32],")]


@pytest.mark.parametrize("flag", [", is_transpose=1", ", is_transpose='y'", ", is_transpose=d + 1",
                                  ", order=reversed([0, 1])", ", order=range(1, -1, -1)"])
def test_a_transpose_the_check_does_not_read_is_refused(flag):
    # a probe's kernels: the emulator transposes on any truthy flag or iterable order, reading the
    # other AIV's rows (a race); the model read a plain load
    errors = _errors(kernel(_SYNCED_LOAD.replace("{flag}", flag), "", _WIDER))
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN]
    assert "transpose the check does not read" in errors[0][1]


def test_the_emulator_shows_a_transpose_by_a_number_races():
    assert _verdicts(kernel(_SYNCED_LOAD.replace("{flag}", ", is_transpose=1"), "", _WIDER)) == ["race"]


@pytest.mark.parametrize("flag", ["", ", is_transpose=False", ", order=[0, 1]"])
def test_a_load_the_check_reads_as_plain_runs_as_the_serial_kernel(flag):
    text = kernel(_SYNCED_LOAD.replace("{flag}", flag), "", _WIDER)
    assert _errors(text) == []
    assert _verdicts(text) == ["ok", "ok"]


def test_a_stage_keeping_a_value_in_its_default_gets_the_help_for_it():
    """The refusal was right, its help about calling `pl` ops by name (probe h131)."""
    rows = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
    text = edited(rows, [("def finish(i, sub_id, out, proj_vec_db, res_db):\n    proj = proj_vec_db.next()\n",
                          "def finish(i, sub_id, out, proj_vec_db, res_db, st=[0]):\n    proj = proj_vec_db.next()\n"
                          "    st[0] = st[0] + 1\n")])
    (error,) = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert "stage `finish` changes `st`, an object it did not make" in error.message, error.message
    assert error.hint.startswith("Keep what a stage computes in its own names, or pass it to the stage"), error.hint

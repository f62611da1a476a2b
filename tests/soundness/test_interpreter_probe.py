"""A probe of the interpreter's Python (containers, names, blocks) found 24 kernels accepted
although the emulator shows them wrong: 22 with both AIVs storing at one row (`race`), 2 with a
value smuggled to a later stage (`mismatch`). The model read a value Python does not produce:
`max([x])` as `max(x)`, `z, *w = ...` binding `w` to an item, a list grown while a loop ran over
it, two spellings of one NFKC name, a nested function reading the module's name where Python's
closure reads the enclosing one (or binding by `nonlocal`), a default list changed under a
condition the check cannot decide, a comprehension target holding an item, `try`/`except` and
`with suppress(...)` where the body raises, `ROWS is ROWS` on a copy, a list changed through a
value the check does not follow (`hold[d][0] = 0`, `u.get(d)`, a comprehension's result), a
`class` body run where it stands. Each is refused now, naming the construct.
"""

from __future__ import annotations

import pytest
from test_module_state import smuggled
from test_stage_containers import _errors, _verdicts, kernel

R = "ki * TILE + sub_id * HALF"  # the task's row: the AIVs apart
A = "ki * TILE + sub_id * HALF * rows[0]"  # a kernel-body list spreads the AIVs (handed to the stage)
AS = "ki * TILE + sub_id * HALF * s0"
NESTED_COUNT = "    def _count(acc=[]):\n        acc.append(0)\n        return len(acc)\n"
_LOOP = "    for ki in pl.range(0, N):\n"
_CALL = "            scale_store(ki, d, sub_id, out, c_vec_db, y_db, a)\n"
_DEF = "def scale_store(ki, d, sub_id, out, c_vec_db, y_db, a):\n"


def store(row: str) -> str:
    return f"    pl.store(out, y, [{row}, 0])\n"


def body_kernel(statements: str, row: str, module: str = "", arg: str | None = None) -> str:
    """Kernel-body `statements` before the pipeline loop; the stage stores at `row`, given `arg`
    as an extra parameter `s`."""
    extra = [(_LOOP, statements + _LOOP)]
    if arg is not None:
        extra += [(_DEF, _DEF.replace(", a):", ", a, s):")), (_CALL, _CALL.replace(", a)", f", a, {arg})"))]
    return kernel(store(row), module, extra)


#: each accepted before: `race` at every `d` but the two smuggling ones (`ok/mismatch`)
MISREAD = {
    # --- stage code (scale_store), store row chosen by Python-subset semantics ---
    "max of a one-item list of a str (stage)":
        kernel(f"    rows = [{R}, 0]\n" + store("rows[len(max(['ab'])) - 1]")),
    "max of a one-item list of a tuple (stage)":
        kernel(f"    rows = [{R}, 0]\n    k = max([(0, 1)])\n    r = rows[0] if k == 1 else rows[1]\n" + store("r")),
    "starred assignment target (stage)":
        kernel(f"    z, *w = [0, 1]\n    r = {R} if w == 1 else 0\n" + store("r")),
    "starred for target (stage)":
        kernel(f"    for z, *w in [(0, 1)]:\n        pass\n    r = {R} if w == 1 else 0\n" + store("r")),
    "list grown while iterated (stage)":
        kernel(f"    rows = [{R}]\n    last = 0\n    for r in rows:\n        if len(rows) < 2:\n"
               "            rows.append(0)\n        last = r\n" + store("last")),
    "unicode-normalised local name (stage)":
        kernel("    fi = 1\n    \ufb01 = 0\n" + store(R.replace("HALF", "HALF * fi"))),
    "unicode-normalised dict() keyword (stage)":
        kernel(f"    dd = {{'fi': {R}}} | dict(\ufb01=0)\n" + store("dd['fi']")),
    "nested def reads enclosing local shadowing a module name (stage)":
        kernel("    S = 0\n\n    def f():\n        return S\n" + store(R.replace("HALF", "HALF * f()")), "S = 1\n"),
    "nested def default list, dict loop run twice (stage)":
        kernel(NESTED_COUNT + "    for k in {'a': 0, 'b': 0}:\n        _count()\n    m = _count()\n"
               f"    rows = [0, {R}, 0]\n" + store("rows[m - 1]")),
    "nested def default list, branch on a GM value (stage)":
        kernel(NESTED_COUNT + "    v = a[0, 0]\n    if v > 1000.0:\n        _count()\n    m = _count()\n"
               f"    rows = [0, 0, {R}]\n" + store("rows[m]")),
    "comprehension target tuple holding a subscript (stage)":
        kernel(f"    rows = [{R}]\n    [0 for (rows[0], _) in [(0, 0)]]\n" + store("rows[0]")),
    "try/except IndexError (stage)":
        kernel("    s = 1\n    try:\n        _ = [0][1]\n    except IndexError:\n        s = 0\n"
               + store(R.replace("HALF", "HALF * s"))),
    "`is` of a module list with itself (stage)":
        kernel(f"    r = 0 if ROWS is ROWS else {R}\n" + store("r"), "ROWS = [0]\n"),
    "comprehension target tuple smuggles a GM value in a module list (stage, factor_in_struct)":
        smuggled("BOX = [0.0]\n", "    f = factors[ki]\n    [0 for (BOX[0], _) in [(f, 0)]]\n",
                 "    factor = BOX[0]\n"),
    "comprehension target tuple sets a struct field (stage, factor_in_struct)":
        smuggled("", "    f = factors[ki]\n    [0 for (st.factor, _) in [(f, 0)]]\n", ""),
}

#: kernel-body statements before the pipeline loop, the row handed to the stage as an argument:
#: (name, statements, module code, the argument)
_IN_BODY = [
    ("list changed through hold[d]", "    rows = [1]\n    hold = [rows] * 12\n    hold[d][0] = 0\n", "", A),
    ("list changed through an Unkeyed dict item u[d]", "    rows = [1]\n    u = {d: rows}\n    u[d][0] = 0\n", "", A),
    ("list changed through Unkeyed u.get(d)", "    rows = [1]\n    u = {d: rows}\n    r = u.get(d)\n    r[0] = 0\n",
     "", A),
    ("Unkeyed item handed to operator.setitem", "    rows = [1]\n    u = {d: rows}\n    operator.setitem(u[d], 0, 0)\n",
     "import operator\n", A),
    ("list changed through a comprehension's result",
     "    rows = [1]\n    hold = [rows]\n    [r for r in hold][0][0] = 0\n", "", A),
    ("nested def changes enclosing list", "    rows = [1]\n\n    def f():\n        rows[0] = 0\n\n    f()\n", "", A),
    ("nonlocal in nested def", "    s0 = 1\n\n    def f():\n        nonlocal s0\n        s0 = 0\n\n    f()\n", "", AS),
    ("class statement body changes a list", "    rows = [1]\n\n    class _T:\n        rows[0] = 0\n", "", A),
    ("contextlib.suppress skips the rest of a with",
     "    s0 = 0\n    with suppress(IndexError):\n        _ = [0][1]\n        s0 = 1\n",
     "from contextlib import suppress\n", AS),
]
MISREAD.update({f"{name} (kernel body)": body_kernel(statements, "s", module=module, arg=arg)
                for name, statements, module, arg in _IN_BODY})


@pytest.mark.parametrize("name", list(MISREAD))
def test_a_kernel_the_interpreter_misread_is_refused(name):
    assert _errors(MISREAD[name])


@pytest.mark.parametrize("name", ["max of a one-item list of a str (stage)", "starred assignment target (stage)",
                                  "nested def changes enclosing list (kernel body)",
                                  "list changed through hold[d] (kernel body)"])
def test_the_emulator_shows_the_misread_kernels_race(name):
    assert _verdicts(MISREAD[name]) == ["race"]


def test_the_emulator_shows_the_value_smuggled_by_a_comprehension_target_arrives_late():
    text = MISREAD["comprehension target tuple sets a struct field (stage, factor_in_struct)"]
    from pto_transpile import codes, transpile
    from sim_runtime import verify

    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    assert [r.verdict for r in verify(text, code, "kernel", path="k.py").rows] == ["ok", "mismatch"]


#: valid forms the probe tried, accepted and verified
_VALID = [  # (name, stage code, the row it stores at)
    ("for k in a dict", f"    rows = {{'r': {R}}}\n    r = 0\n    for k in rows:\n        r = rows[k]\n", "r"),
    ("chained assignment a = b = []", f"    p = q = []\n    q.append({R})\n", "p[0]"),
    ("[[0]] * 2 aliasing", f"    g = [[0]] * 2\n    g[1][0] = {R}\n", "g[0][0]"),
    ("swap by unpacking into subscripts", f"    rows = [0, {R}]\n    rows[0], rows[1] = rows[1], rows[0]\n", "rows[0]"),
    ("rows[0] += on a list item", f"    rows = [{R}]\n    rows[0] += 0\n", "rows[0]"),
    ("a helper changes a list it is given",
     f"    def put(r, v):\n        r[0] = v\n    rows = [0]\n    put(rows, {R})\n", "rows[0]"),
    ("dict.get with a list default", f"    rows = [{R}]\n    dd = {{}}\n    x = dd.get('k', rows)\n", "x[0]"),
    ("a pop() result as the offset", f"    rows = [0, {R}]\n", "rows.pop()"),
]
ACCEPTED = {name: kernel(code + store(row)) for name, code, row in _VALID}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_a_valid_form_is_accepted_and_runs_as_the_serial_kernel(name):
    assert _errors(ACCEPTED[name]) == []
    assert _verdicts(ACCEPTED[name]) == ["ok", "ok"]

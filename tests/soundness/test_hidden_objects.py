"""Objects the file's code makes, on which Python runs code where no call is written (probe h93).

Each kernel raises an event on the cube before the loop and takes one on the vector after it,
through an object whose methods run the syncs: made by a decorator, by `type(...)` with a
lambda, in a default argument, through `global` in a setup function, as a class constant; or a
function of the file handed to `max(key=...)` through a registry, or put in place of a `math`
function. Each was accepted and raced. The check now refuses a kernel that reads a module name
(or a default) bound to what code of the file makes, a value it cannot name handed to a builtin
that calls it, and a stateless module something is stored under.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_hidden_class_code import KERNEL, KICK, SETTLE, TILED, _kernel

from helpers import edited
from pto_transpile import transpile

KICK_FN = f"def _kick(e):\n    event_id = e\n    {KICK}\n    return e\n\n\n"
SETTLE_FN = f"def _settle(e):\n    event_id = e\n    {SETTLE}\n    return e\n\n\n"
GETITEM = "{'__getitem__': lambda self, e: _kick(e)}"
#: how each variant binds what the kernel evaluates, and the two expressions
WAYS = {
    "a decorator's result": (KICK_FN + SETTLE_FN + f"def _as_object(fn):\n    return type('K', (), {GETITEM})()\n"
                             "\n\n@_as_object\ndef KICK():\n    pass\n", "KICK[0]", "_settle(0)"),
    "type() with a lambda": (KICK_FN + SETTLE_FN + f"KICK = type('K', (), {GETITEM})()\n", "KICK[0]", "_settle(0)"),
    "a default argument": (KICK_FN + SETTLE_FN + f"def fire(e, k=type('K', (), {GETITEM})()):\n    return k[e]\n",
                           "fire(0)", "_settle(0)"),
    "global in a setup function": (KICK_FN + SETTLE_FN + "KICK = None\n\n\ndef _setup():\n    global KICK\n"
                                   f"    KICK = type('K', (), {GETITEM})()\n\n\n_setup()\n", "KICK[0]", "_settle(0)"),
    "a registry handed to max(key=)": (KICK_FN + SETTLE_FN + "HOOKS = {'kick': _kick}\nON_KICK = HOOKS['kick']\n",
                                       "max((0,), key=ON_KICK)", "_settle(0)"),
    "a class constant": (KICK_FN + SETTLE_FN + f"class Sync:\n    KICK = type('K', (), {GETITEM})()\n",
                         "Sync.KICK[0]", "_settle(0)"),
    "a math function replaced": ("import math\n\n\n" + KICK_FN + SETTLE_FN + "math.erfc = _kick\n",
                                 "math.erfc(0)", "_settle(0)"),
}


@pytest.mark.parametrize("way", list(WAYS))
def test_an_object_or_callable_the_check_cannot_name_is_refused(way):
    text = _kernel(*WAYS[way])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and re.search(r"returns or makes (at module level|in the class body): a value of a kind"
                                          r"|made at module level by a call|cannot name where it takes a function"
                                          r"|is rebound through `global` \(line \d+\) in a function or class body"
                                          r"|the kernel calls `math\.erfc`", errors[0]), errors


def test_a_comprehension_variable_does_not_hide_a_module_object():
    classes, kick, settle = (f"class _Kick:\n    def __getitem__(self, event_id):\n        {KICK}\n\n\n"
                             "KICK = _Kick()\n", "KICK[0]", "[KICK for KICK in (0, 1)]")
    errors = [d.message for d in transpile(_kernel(classes, kick, settle), path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "`KICK`" in errors[0] or "`_Kick`" in errors[0], errors


def test_an_object_moving_a_tile_group_in_a_dunder_is_refused():
    """No `pl` name in its code: `ring.next()` on the group it is handed."""
    classes = "class _Advance:\n    def __getitem__(self, ring):\n        ring.next()\n        return 0\n\n\n" \
              "ADVANCE = _Advance()\n"
    text = edited(_kernel(classes, "0", "0"), [("        settled = 0\n", "        settled = ADVANCE[c_vec_db]\n")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "`ADVANCE` holds what `_Advance(...)` returns or makes" in errors[0], errors


@pytest.mark.parametrize("member, use", [("    kick = property(lambda self: self.scale)\n", "tiling.kick"),
                                         ("    def __format__(self, spec):\n        return '1'\n",
                                          "float(f'{tiling}')"),
                                         ("    def __mul__(self, other):\n        return 1.0\n", "tiling * 1.0")])
def test_tiling_data_whose_class_runs_code_where_it_is_used_is_refused(member, use):
    text = edited(TILED, [("    scale: float\n", "    scale: float\n" + member),
                          ("finish(i, sub_id, tiling.scale, out", f"finish(i, sub_id, {use}, out")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and ("runs code of the tiling data's class" in errors[0]
                                 or "which Python runs on the value" in errors[0]), errors


def test_a_host_side_method_of_tiling_data_changes_nothing():
    """A `launch` method the host calls: the kernel reads only the fields."""
    text = edited(TILED, [("    scale: float\n", "    scale: float\n\n    def launch(self, *args):\n"
                                                 "        return tiled_scale_kernel(*args, self)\n")])
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


@pytest.mark.parametrize("field", ["    hook: object = field(default_factory=list)\n",
                                   "    hook: list = None\n",
                                   "    hook: int = _kick(0)\n"])
def test_a_field_of_tiling_data_that_may_hold_an_object_is_not_read(field):
    """A field of another type than numbers, or whose default calls something: what it holds is
    an object the check does not know (probe h94 hid syncs in one's `__getitem__`)."""
    text = edited(TILED, [("from dataclasses import dataclass\n", "from dataclasses import dataclass, field\n"),
                          ("    scale: float\n", "    scale: float\n" + field),
                          ("\n@dataclass\n", "\n" + KICK_FN + "@dataclass\n"),
                          ("finish(i, sub_id, tiling.scale, out", "finish(i, sub_id, tiling.hook[0], out")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "reading `tiling.hook` runs code of the tiling data's class or gives an object" \
        in errors[0], errors


def test_a_module_level_data_class_instance_with_a_plain_method_is_read_as_data():
    """`CFG = Config(scale=0.5)` of a data class with a method the kernel never calls (probe h94:
    refused as an object); with a field made by a call, or a special method, it is an object."""
    config = ("@dataclass(frozen=True)\nclass Config:\n    scale: float\n\n    def describe(self):\n"
              "        return f'scale {self.scale}'\n\n\nCFG = Config(scale=0.5)\n\n\n")
    base = edited(TILED, [("\n@dataclass\nclass ScaleTiling:", "\n" + config + "@dataclass\nclass ScaleTiling:"),
                          ("finish(i, sub_id, tiling.scale, out", "finish(i, sub_id, CFG.scale, out")])
    result = transpile(base, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    for edit in [("CFG = Config(scale=0.5)", "CFG = Config(scale=_kick(0))"),
                 ("    def describe(self):", "    def __format__(self, spec):")]:
        text = edited(base, [edit, ("\n@dataclass(frozen=True)\n", "\n" + KICK_FN + "@dataclass(frozen=True)\n")])
        errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
        assert len(errors) == 1 and ("`CFG` holds what" in errors[0] or "reaches `CFG`" in errors[0]), (edit, errors)


def test_a_value_a_function_of_the_file_computes_names_the_name_it_was_computed_through():
    """`HALF = BLOCK // 2` with `BLOCK = align_up(30)`: the refusal named `HALF` alone and called
    the number an object (probe h94)."""
    text = edited(TILED, [("BLOCK = 32 ", "def align_up(x, a=32):\n    return (x + a - 1) // a * a\n\n\n"
                                          "BLOCK = align_up(30) ")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert errors and "holds what `align_up(...)` (through `BLOCK`) returns or makes at module level" in errors[0] \
        and "bind it to a constant (a literal, or arithmetic of constants)" in errors[0], errors


TRIP = edited(KERNEL, [
    ("def scale_store(ki, n, sub_id, out,", "def scale_store(ki, n, alpha, sub_id, a, out,"),
    ("scale_store(ki, n, sub_id, out,", "scale_store(ki, n, alpha, sub_id, a, out,"),
    ("    n: pl.DT_INT32,\n", "    n: pl.DT_INT32,\n    alpha: pl.DT_FP32,\n"),
])
STORE = "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"


@pytest.mark.parametrize("carried, refused", [("        row += TILE\n", True), ("", False)])
def test_a_loop_the_check_cannot_count_stands_for_any_of_its_iterations(carried, refused):
    """Its body ran once, with what it carries at its first iteration's value: the second
    iteration's store into the rows the cube's next task loads went unseen (probe h94)."""
    text = edited(TRIP, [(STORE, STORE + "    row = ki * TILE + sub_id * HALF\n"
                                          "    for _spare in range(a.shape[0] // TILE - n):\n"
                                          "        pl.store(a, y, [row, 0])\n" + carried)])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert bool(errors) == refused, errors


def test_a_struct_field_a_helper_sets_under_an_undecided_test_is_unknown_to_its_caller():
    """`if alpha > 0.0: st.step = 0` in a helper: the caller's `st` kept `step = 0`, as if the
    branch had surely run, and the store at `ki + 1` when it does not went unseen (probe h94)."""
    helper = "def _maybe_clear(st, alpha):\n    if alpha > 0.0:\n        st.step = 0\n    return 0\n\n\n"
    stage = "@pl.pipeline.stage\ndef scale_store("
    text = edited(TRIP, [("\n" + stage, "\n" + helper + stage),
                         (STORE, STORE + "    st = pl.struct('Step', step=1)\n    _maybe_clear(st, alpha)\n"
                                          "    pl.store(a, y, [(ki + st.step) * TILE + sub_id * HALF, 0])\n")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert errors and "writes `a`" in errors[0], errors


def test_a_number_or_string_made_at_module_level_by_a_call_is_read_as_data():
    """`"bias".upper()`, `int(time.time()) % 2`: a string and a number whatever the call inside
    (probe h94: refused as objects)."""
    text = _kernel("import time\n\n\nMODE = 'bias'.upper()\nPARITY = int(time.time()) % 2\n", "MODE", "PARITY")
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


#: ways one iteration of a loop the check cannot count hands the next its row (probe h95)
CARRIES = {
    "a struct in a list": ("    sts = [pl.struct('R', row=ki * TILE + sub_id * HALF)]\n",
                           "        pl.store(a, y, [sts[0].row, 0])\n        sts[0].row += TILE\n"),
    "a nested field": ("    st = pl.struct('O', inner=pl.struct('R', row=ki * TILE + sub_id * HALF))\n",
                       "        pl.store(a, y, [st.inner.row, 0])\n        st.inner.row += TILE\n"),
    "a walrus": ("    row = ki * TILE + sub_id * HALF\n",
                 "        pl.store(a, y, [row, 0])\n        _w = (row := row + TILE)\n"),
    "an alias": ("    st = pl.struct('R', row=ki * TILE + sub_id * HALF)\n",
                 "        for s in (st,):\n            pl.store(a, y, [s.row, 0])\n            s.row += TILE\n"),
}


@pytest.mark.parametrize("way", list(CARRIES))
def test_a_loop_the_check_cannot_count_may_hand_nothing_to_its_next_iteration(way):
    setup, body = CARRIES[way]
    text = edited(TRIP, [(STORE, STORE + setup + "    for _spare in range(a.shape[0] // TILE - n):\n" + body)])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert errors and "runs a number of times the check cannot count" in errors[0], errors


def test_a_struct_field_set_deep_inside_a_both_ways_branch_is_unknown_to_the_caller():
    helper = ("def _maybe_clear(st, alpha):\n    if alpha > 0.0:\n        st.a.b.c.d.e.step = 0\n    return 0\n\n\n")
    deep = "pl.struct('E', step=1)"
    for name in "dcba":
        deep = f"pl.struct('{name.upper()}', {chr(ord(name) + 1)}={deep})"
    stage = "@pl.pipeline.stage\ndef scale_store("
    text = edited(TRIP, [("\n" + stage, "\n" + helper + stage),
                         (STORE, STORE + f"    st = pl.struct('S', a={deep})\n    _maybe_clear(st, alpha)\n"
                                          "    step = st.a.b.c.d.e.step\n"
                                          "    pl.store(a, y, [(ki + step) * TILE + sub_id * HALF, 0])\n")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert errors and "writes `a`" in errors[0], errors


@pytest.mark.parametrize("config", [
    "@dataclass(frozen=True)\nclass Config:\n    scale: float\n\n    @classmethod\n    def default(cls):\n"
    "        return cls(0.5)\n",
    "@dataclass(frozen=True)\nclass Config:\n    scale: float = field(default=0.5)\n"])
def test_a_data_class_with_a_classmethod_or_a_field_default_is_data(config):
    """Probe h95: refused as objects."""
    text = edited(TILED, [("from dataclasses import dataclass\n", "from dataclasses import dataclass, field\n"),
                          ("\n@dataclass\nclass ScaleTiling:", f"\n{config}\n\nCFG = Config(scale=0.5)\n\n\n"
                                                             "@dataclass\nclass ScaleTiling:"),
                          ("finish(i, sub_id, tiling.scale, out", "finish(i, sub_id, CFG.scale, out")])
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


def test_pow_sum_and_divmod_of_constants_are_constants():
    text = edited(TILED, [("BLOCK = 32 ", "BLOCK = pow(2, 5) + sum((0, 0)) + divmod(7, 8)[0] ")])
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


def test_a_struct_held_in_a_nested_def_s_default_is_followed():
    """`def _clear(s=st): s.step = 0` called under a both-ways test, and a loop the check cannot
    count bumping a default's field each call: the struct the default holds was not walked (probe h96)."""
    clear = ("    st = pl.struct('S', step=1)\n\n    def _clear(s=st):\n        s.step = 0\n\n"
             "    if alpha > 0.0:\n        _clear()\n    pl.store(a, y, [(ki + st.step) * TILE + sub_id * HALF, 0])\n")
    bump = ("    def _next(cur=pl.struct('R', row=ki * TILE + sub_id * HALF)):\n        cur.row += TILE\n"
            "        return cur.row - TILE\n\n    for _spare in range(a.shape[0] // TILE - n):\n"
            "        pl.store(a, y, [_next(), 0])\n")
    for body in (clear, bump):
        errors = [d.message for d in transpile(edited(TRIP, [(STORE, STORE + body)]), path="k.py").diagnostics
                  if d.is_error]
        assert errors and ("writes `a`" in errors[0] or "the check cannot count" in errors[0]), errors


def test_a_sum_of_a_huge_range_at_module_level_is_not_folded():
    text = _kernel("BIG = sum(range(10 ** 10))\n", "0", "0")
    assert transpile(text, path="k.py").code is not None  # (it ran for minutes: the sum was folded)


@pytest.mark.parametrize("rebinding", ["def _setup():\n    global FLAG\n    FLAG = 1\n\n\n_setup()\n",
                                       "class _Setup:\n    global FLAG\n    FLAG = 1\n"],
                         ids=["a function called at module level", "a class body"])
def test_a_literal_rebound_through_global_is_named_as_such(rebinding):
    """The refusal said `FLAG` held "what a function returns or makes: a value of a kind the check
    does not know" and asked for a literal, which it is; in a class body no function is involved
    (probe h137). It names the `global` now, and the module statement that is proven."""
    rows = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
    head, scale = "HALF = BLOCK // 2\n", ("pl.muls(res, proj, 0.5)", "pl.muls(res, proj, 0.5 * FLAG)")
    text = edited(rows, [(head, head + "FLAG = 0\n\n\n" + rebinding), scale])
    errors = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "`FLAG` is rebound through `global` (line " in errors[0].message, errors
    assert "a statement of the module itself" in errors[0].hint
    proven = edited(rows, [(head, head + "FLAG = 0\nFLAG = 1\n"), scale])
    assert transpile(proven, path="k.py").ok

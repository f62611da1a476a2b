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

import pytest
from test_hidden_class_code import KICK, SETTLE, TILED, _kernel

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
    assert len(errors) == 1 and re.search(r"makes: an object of a kind the check does not know|made at module level by "
                                          r"a call|cannot name where it takes a function|the kernel calls `math\.erfc`",
                                          errors[0]), errors


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
    assert len(errors) == 1 and "`ADVANCE` is bound to what `_Advance(...)` makes" in errors[0], errors


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

"""Code Python runs without a call written, and builtins that run code of their choosing (probe h92).

Each kernel raises an event on the cube before the loop and takes one on the vector after it,
through a class of the file whose methods run the syncs where no call is written: a
subscription (`__class_getitem__`, `__getitem__`), a truth test (`__bool__`), an attribute read
(a metaclass's `__getattr__`), a class handed to a builtin as `key=`. The cube's early event
lets the vector read a slot before the cube's `pl.move` into it: each was accepted and raced.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile

KERNEL = (Path(__file__).parent / "kernels" / "trip_param.py").read_text(encoding="utf-8")
KICK = "pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=event_id)"
SETTLE = "pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=event_id)"
#: how each variant defines its classes, and the two expressions the kernel evaluates
WAYS = {
    "a subscription of the class": (
        f"class _Kick:\n    def __class_getitem__(cls, event_id):\n        {KICK}\n\n\n"
        f"class _Settle:\n    def __class_getitem__(cls, event_id):\n        {SETTLE}\n",
        "_Kick[0]", "_Settle[0]"),
    "a builtin handed the class": (
        f"class _Kick:\n    def __init__(self, event_id):\n        {KICK}\n\n\n"
        f"class _Settle:\n    def __init__(self, event_id):\n        {SETTLE}\n",
        "max((0,), key=_Kick)", "max((0,), key=_Settle)"),
    "module objects' dunders": (
        f"class _Kick:\n    def __getitem__(self, event_id):\n        {KICK}\n\n\n"
        "class _Settle:\n    def __bool__(self):\n        event_id = 0\n        " + SETTLE
        + "\n        return True\n\n\n"
        "KICK = _Kick()\nSETTLE = _Settle()\n",
        "KICK[0]", "1 if SETTLE else 0"),
    "a metaclass's __getattr__": (
        "class _KickMeta(type):\n    def __getattr__(cls, name):\n        event_id = 0\n        " + KICK + "\n"
        "        return 0\n\n\nclass _Kick(metaclass=_KickMeta):\n    pass\n\n\n"
        f"class _Settle:\n    def __class_getitem__(cls, event_id):\n        {SETTLE}\n",
        "_Kick.event", "_Settle[0]"),
}


def _kernel(classes: str, kick: str, settle: str) -> str:
    return edited(KERNEL, [("\n@pl.jit(", f"\n{classes}\n\n@pl.jit("),
                           ("            mutex_ids=[10, 11],\n        )\n",
                            f"            mutex_ids=[10, 11],\n        )\n        kicked = {kick}\n"),
                           ("            scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring)\n",
                            "            scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring)\n"
                            f"    with pl.section_vector():\n        settled = {settle}\n")])


@pytest.mark.parametrize("way", list(WAYS))
def test_a_class_whose_methods_python_runs_unasked_is_refused(way):
    text = _kernel(*WAYS[way])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and re.search(r"reaches `_Kick(Meta)?` \(line \d+\), a class whose methods run `pl` ops",
                                          errors[0]), errors


#: objects the file's code makes at module level, whose dunders run the syncs
MADE = {
    "a factory function": (
        f"class _Kick:\n    def __getitem__(self, event_id):\n        {KICK}\n\n\n"
        "def _make():\n    return _Kick()\n\n\nKICK = _make()\n", "KICK[0]"),
    "a class made by type()": (
        f"def _kick(self, event_id):\n    {KICK}\n\n\nKICK = type('K', (), {{'__getitem__': _kick}})()\n",
        "KICK[0]"),
}


@pytest.mark.parametrize("way", list(MADE))
def test_an_object_made_by_code_that_runs_pl_is_refused(way):
    classes, kick = MADE[way]
    settle = WAYS["a subscription of the class"][0].split("\n\n\n", 1)[1]
    text = _kernel(classes + "\n\n" + settle, kick, "_Settle[0]")
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and re.search(r"reaches `(KICK|_Kick|_Settle)` \(line \d+\)", errors[0]), errors


def test_a_parameter_named_as_a_module_name_of_a_harness_reaches_nothing():
    """The kernel's parameter `a` is not the module's `a` of the harness below `__main__`."""
    classes, _, _ = WAYS["a subscription of the class"]
    text = KERNEL + f"\n\n{classes}\n\nif __name__ == \"__main__\":\n    a = _Kick[0]\n"
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


def test_a_class_whose_methods_name_only_pl_types_and_constants_runs_no_pl_op():
    """`pl.DT_FP32`, `pl.PipeType.V`: names of the `pl` module that are no op."""
    shapes = "class _Shapes:\n    ROWS = 2\n\n    def dtype(self):\n        return (pl.DT_FP32, pl.PipeType.V)\n"
    text = _kernel(shapes, "_Shapes.ROWS", "_Shapes.ROWS")
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


def test_such_a_class_the_kernel_does_not_reach_changes_nothing():
    """A class of a test harness in the kernel file, used below `if __name__ == "__main__":`."""
    classes, _, _ = WAYS["a subscription of the class"]
    text = KERNEL + f"\n\n{classes}\n\nif __name__ == \"__main__\":\n    print(_Kick[0])\n"
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


@pytest.mark.parametrize("call", ['(exec)("pl.store(out, y, [0, 0])")', "exit()", "(eval)('1')"])
def test_a_builtin_running_code_of_its_choosing_in_a_stage_is_refused(call):
    text = edited(KERNEL, [("    c_vec = c_vec_db.next()\n    y = y_db.next()\n",
                            f"    c_vec = c_vec_db.next()\n    y = y_db.next()\n    {call}\n")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert errors and all(re.search(r"`(exec|exit|eval)`", e) for e in errors), errors


TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
#: a property of the tiling data that counts its reads: what each read gives depends on the
#: order of the reads on every core, which pipelining changes
RAMP = ("    scale: float\n    reads: int = 0\n\n    @property\n    def ramp(self):\n        self.reads += 1\n"
        "        return self.scale * (self.reads % 3 + 1)\n")


@pytest.mark.parametrize("read", ["tiling.ramp", 'getattr(tiling, "ramp")'])
def test_reading_a_property_of_tiling_data_is_refused(read):
    text = edited(TILED, [("    scale: float\n", RAMP),
                          ("finish(i, sub_id, tiling.scale, out", f"finish(i, sub_id, {read}, out")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "runs code of the tiling data's class" in errors[0], errors
    # the help applied: the value computed in the kernel from the fields
    fixed = edited(text, [(f"finish(i, sub_id, {read}, out", "finish(i, sub_id, tiling.scale * 2, out")])
    result = transpile(fixed, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None

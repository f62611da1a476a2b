"""Setting a function attribute (`__defaults__`, `__code__`) at module level on a name bound once
to a function changes that function alone (and its other names); the kernel's stages and helpers
stay known (probe h95: `_unused.__defaults__ = (2,)` on a function the kernel never calls made
every function unknown: PTO004 "no stage functions" and PTO070 on each stage). A set the reading
cannot pin to one function (in a function, through `setattr`, on a name bound twice) still makes
every function unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages
from pto_transpile import transpile

KERNEL = (Path(__file__).parents[1] / "soundness" / "kernels" / "trip_param.py").read_text(encoding="utf-8")
UNUSED = "\n\ndef _unused(x=1):\n    return x\n\n\n"


def _with(tail: str) -> list[str]:
    return error_messages(transpile(KERNEL + UNUSED + tail, path="k.py"))


@pytest.mark.parametrize("tail", ["_unused.__defaults__ = (2,)\n", "_unused.__code__ = (lambda x=0: x).__code__\n",
                                  "del _unused.__kwdefaults__\n"])
def test_a_function_the_kernel_never_calls_changes_nothing_else(tail):
    assert _with(tail) == []


def test_a_stage_whose_code_is_replaced_is_named():
    messages = _with("scale_store.__code__ = _unused.__code__\n")
    assert any(m.startswith("`kernel` calls `scale_store`, which at the end of the module cannot be known without "
                            "running the file: the file sets `__code__` of it (line") for m in messages), messages
    assert not any("mm_stage" in m for m in messages), messages


def test_through_an_alias_bound_once():
    messages = _with("store = scale_store\nstore.__defaults__ = (1,)\n")
    assert any("`kernel` calls `scale_store`" in m and "sets `__defaults__` of it" in m for m in messages), messages
    assert not any("mm_stage" in m for m in messages), messages


@pytest.mark.parametrize("tail", [
    "def _setup():\n    _unused.__defaults__ = (2,)\n\n\n_setup()\n",  # in a function: any object it reaches
    "setattr(_unused, '__defaults__', (2,))\n",
    "_unused = scale_store\n_unused.__defaults__ = (2,)\n",  # bound twice: which function is set?
    "(_unused if True else scale_store).__defaults__ = (2,)\n",
])
def test_a_set_the_reading_cannot_pin_to_one_function_reaches_every_function(tail):
    messages = _with(tail)
    assert any("calls `mm_stage`" in m for m in messages) and any("calls `scale_store`" in m for m in messages), \
        messages


@pytest.mark.parametrize("tail, store", [
    ("[_unused][0].__defaults__ = (2,)\n", "Set `__defaults__` (line"),
    ("setattr(_unused, '__defa' + 'ults__', (2,))\n", "Set the attribute line"),
])
def test_a_set_that_reaches_every_function_is_what_the_refusal_names(tail, store):
    """Probe h116: a set through a list item made every function unknown, and the refusal said
    the file has no stage functions (PTO004: it has two, called as that help asks) and asked to
    bind each stage to one function at module level (PTO070: each is, by its `def`). The stages
    are named where the kernel calls them, with the store as what to change."""
    errors = [d for d in transpile(KERNEL + UNUSED + tail, path="k.py").diagnostics if d.severity == "error"]
    assert [d.code for d in errors] == ["PTO070", "PTO070"], [d.message for d in errors]
    assert all(d.hint.startswith(store) and "through the function's own name" in d.hint for d in errors), \
        [d.hint for d in errors]

"""Module names bound to the file's functions by tuple unpacking are those functions (probe h88).

`full_set, full_wait, free_set, free_wait = _full_set, _full_wait, _free_set, _free_wait` made
all four names unknown, each "`_full_set` is a function" (PTO070 four times, and PTO003: the
kernel's syncs went unseen). Bound one by one (`free_set = _free_set`), the list of event ids
handed to the alias counted as handed to an unknown function, which may change it, so the
kernel's syncs were left unchecked ("not static", a warning): with a wait moved after the
loop, it raced on the emulator and passed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pto_transpile import transpile
from sim_runtime import verify

HAND = (Path(__file__).resolve().parents[2] / "examples" / "hand_pipelined.py").read_text(encoding="utf-8")
NAMES = {("set", "FIX"): "full_set", ("wait", "V"): "full_wait", ("set", "V"): "free_set", ("wait", "FIX"): "free_wait"}
HELPERS = "".join(f"def _{name}(e):\n    pl.system.{op}_cross_core(pipe=pl.PipeType.{pipe}, event_id=e)\n\n\n"
                  for (op, pipe), name in NAMES.items())
SYNC = re.compile(r"pl\.system\.(set|wait)_cross_core\(pipe=pl\.PipeType\.(FIX|V), event_id=(.*)\)$", re.M)
BINDINGS = {
    "tuple": "full_set, full_wait, free_set, free_wait = _full_set, _full_wait, _free_set, _free_wait\n\n\n",
    "one by one": "".join(f"{name} = _{name}\n" for name in NAMES.values()) + "\n\n",
}
#: the vector cores' wait for a full tile, in the loop
FULL_WAIT = "                full_wait(EV_FULL[(t - 1) % 2])\n"


def _aliased(binding: str) -> str:
    calls = SYNC.sub(lambda m: f"{NAMES[(m.group(1), m.group(2))]}({m.group(3)})", HAND)
    return calls.replace("\n@pl.jit(", "\n" + HELPERS + BINDINGS[binding] + "@pl.jit(", 1)


@pytest.mark.parametrize("binding", list(BINDINGS))
def test_syncs_through_names_bound_to_functions_are_proven(binding):
    text = _aliased(binding)
    assert [d.code for d in transpile(text, path="k.py").diagnostics] == ["PTO060"]
    assert [row.verdict for row in verify(text, text, "hand_pipelined_kernel", path="k.py").rows] == ["ok", "ok"]


@pytest.mark.parametrize("binding", list(BINDINGS))
def test_a_wait_moved_out_of_the_loop_is_an_error(binding):
    text = _aliased(binding)
    assert FULL_WAIT in text
    racy = text.replace(FULL_WAIT, "").replace("    # drain:", "    with pl.section_vector():\n"
                                               "        for k in range(N):\n            full_wait(EV_FULL[k % 2])\n"
                                               "    # drain:", 1)
    found = [d.message for d in transpile(racy, path="k.py").diagnostics if d.code == "PTO068"]
    assert found and "`pl.move` on FIX of AIC writes `x_db[" in found[0], found

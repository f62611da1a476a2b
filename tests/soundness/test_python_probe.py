"""A third probe of the interpreter's reading of Python found 57 kernels accepted although the
emulator shows them wrong (53 with both AIVs storing at one row, `race`; 4 carrying a value to a
later stage outside the pipeline, `mismatch`). Each is refused now, naming what it does:
- the truth of what the model does not know: a `pl` constant (an `IntEnum` member may be 0),
  bytes; an empty dict is false;
- `is` decided only against None, True or False (the model copies a module list at every read;
  Python may keep one object for two equal constants); a `pl` constant compared with anything
  (an `IntEnum` member equals its number, `pl.ND` may be `pl.TileLayout.ND`);
- a builtin given keywords (`max(..., key=abs)`, `int("10", base=2)`) is not computed;
- what Python may not run is not run: the right of `and`/`or` and a later operand of a chained
  comparison after an undecided test, an arm holding `:=` of a choice by an undecided test;
- an augmented assignment's place is computed once (one that calls something is refused);
- the `else` of `while` and `for` loops, and `finally` on `return`, `break` and `continue` (a
  `return` there wins);
- `*args` and `**kwargs` are bound; an import inside a function binds its names;
- a generator or coroutine helper is not run as a function;
- a struct field holds a number (the model and the emulator read a list field apart);
- a name an undecided branch rebinds to another list, however alike, is unknown after it.
The kernels are kept as their parts in `kernels/python_probe.json` (built by the probe's
builders: `kernel`, `smuggled`, `body_kernel`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_interpreter_probe import body_kernel
from test_module_state import smuggled
from test_stage_containers import _errors, _verdicts, kernel

PARTS = {entry.pop("name"): entry for entry in json.loads((Path(__file__).parent / "kernels" / "python_probe.json")
                                                            .read_text(encoding="utf-8"))}


def build(parts: dict) -> str:
    parts = dict(parts)
    kind = parts.pop("kind")
    if kind == "kernel":
        return kernel(parts["body"], parts["module"], [tuple(e) for e in parts["extra"]])
    if kind == "smuggled":
        return smuggled(parts["pre"], parts["write"], parts["read"])
    return body_kernel(parts["statements"], parts["row"], parts["module"], parts["arg"])


@pytest.mark.parametrize("name", list(PARTS))
def test_a_kernel_python_reads_otherwise_is_refused(name):
    assert _errors(build(PARTS[name]))


@pytest.mark.parametrize("name", ["empty dict is true (ifexp, stage)", "IntEnum member 0 is true (stage)",
                                  "max(..., key=abs) (stage)", "chained comparison, walrus after a false link (stage)"])
def test_the_emulator_shows_the_kernel_python_reads_otherwise_races(name):
    assert _verdicts(build(PARTS[name])) == ["race"]


def test_the_probe_holds_what_it_found():
    kinds = [parts["kind"] for parts in PARTS.values()]
    assert len(kinds) == 57 and kinds.count("smuggled") == 4

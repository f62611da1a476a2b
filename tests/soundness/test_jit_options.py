"""Options given to `@pl.jit` through a dict of the module (`**OPTS`) are read (probe h88).

`OPTS = {"auto_mutex": True}` was not a compile-time constant (dict displays were not folded),
so the check took auto_mutex as off and reported the ops the mutexes order, one stage on one
core, as four races, with a help to keep both accesses in one stage, which they were.
"""

from __future__ import annotations

import pytest
from test_probe_h83 import PICK, PICKED

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

JIT = "@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))\n"


def _with_options(options: str) -> str:
    return edited(PICKED, [(PICK, "    pl.store(ws2, res, [sub_id * HALF, 0])\n"),
                           (JIT, f"OPTS = {options}\n\n\n" + JIT.replace("auto_mutex=True", "**OPTS"))])


def test_options_from_a_dict_are_read_and_the_kernel_runs_as_the_serial_one():
    text = _with_options('{"auto_mutex": True}')
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    report = verify(text, result.code, "kern", path="k.py", shapes={"a": (128, 32), "out": (128, 32)},
                    scalars={"d": 1, "alpha": 1.0})
    assert [row.verdict for row in report.rows] == ["ok", "ok"]


@pytest.mark.parametrize("options", ['{"auto_mutex": False}', '{"auto_mutex": True, "auto_mutex": 0}'])
def test_auto_mutex_off_in_the_dict_leaves_the_ops_unordered(options):
    errors = [d.message for d in transpile(_with_options(options), path="k.py").diagnostics if d.is_error]
    assert errors and "`pl.move` on MTE1 of AIC reads `a_l1_db[0]` while stage `project` (task 0), `pl.load`" \
        in errors[0], errors


def test_a_dict_changed_in_place_through_another_name_is_not_its_first_value():
    # `PICK |= {...}` changes the dict `SEL` holds too (probe h90): `SEL["slot"]` is 1 at run
    # time, the workspace the next task's cube stage loads; read as 0, the race went unseen
    text = edited(PICKED, [(PICK, '    pl.store((ws2, ws)[SEL["slot"]], res, [sub_id * HALF, 0])\n'),
                           (JIT, 'SEL = {"slot": 0}\nPICK = SEL\nPICK |= {"slot": 1}\n\n\n' + JIT)])
    assert [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_options_the_check_cannot_read_are_named_where_the_mutexes_would_order_the_race():
    """A dict of options holding more than constants (`**OPTS` with a `PipelineConfig`) is not
    read: the check takes `auto_mutex` as off, and the races the mutexes order were shown with a
    help to keep both accesses in one stage, which they were (probe h90). The race says why; its
    advice, applied, is proven."""
    pipeline = "pl.pipeline.PipelineConfig(preload=1)"
    text = _with_options(f'{{"auto_mutex": True, "pipeline": {pipeline}}}').replace(
        f"**OPTS, pipeline={pipeline}", "**OPTS")
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert errors and all("`@pl.jit(**OPTS)` could not be read as constants" in e for e in errors), errors
    assert all(e.endswith("not in `OPTS`") for e in errors), errors  # (probe h255: `{unread}` left unfilled)
    fixed = text.replace('{"auto_mutex": True, ', "{").replace("@pl.jit(**OPTS)", "@pl.jit(**OPTS, auto_mutex=True)")
    assert [d.message for d in transpile(fixed, path="k.py").diagnostics if d.is_error] == []

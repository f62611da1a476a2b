"""Generated statements read by nodes.py are the very nodes libcst's parser builds."""

from __future__ import annotations

import libcst as cst
import pytest

from golden_cases import cases
from helpers import at_fixed_rows
from pto_transpile import transpile

#: One of each shape the emitter writes, and a few it never writes (libcst reads those).
from pto_transpile.emit import nodes

SHAPES = [
    "x = 0\n",
    "_pl_overlap_ids_0 = [4, 5]\n",
    "_pl_overlap_ids_0 = []\n",
    "_pl_idx_a_db = 1\n",
    "_pl_task_id = _pl_task_id + 1\n",
    "_pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 4]\n",
    "_pl_ctx_neg2 = _pl_ctx_arr[(_pl_task_id + 2) % 4]\n",
    "_pl_idx_a = (_pl_idx_a + 1) % 2\n",
    "_pl_ctx_0._pl_task_id = _pl_task_id\n",
    "pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_fwd_ids_p[_pl_ctx_neg2._pl_task_id % 2])\n",
    "pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_x[0])\n",
    "pl.system.wait_cross_core(\n    pipe=pl.PipeType.MTE3,\n"
    "    event_id=_pl_fwd_ids_x[_pl_ctx_neg1._pl_task_id % 2],\n)\n",
    "_pl_ctx_arr = pl.struct_array(4, \"PipeCtx\", _pl_is_valid=0, ki=0, _pl_task_id=0)\n",
    "_pl_ctx_arr = pl.struct_array(4, 'PipeCtx', _pl_is_valid=0)\n",
    "_pl_ctx_arr = pl.struct_array(\n    4,\n    \"PipeCtx\",\n    _pl_is_valid=0,\n    ki=0,\n)\n",
    "_pl_ctx_arr = pl.struct_array(2, \"PipeCtx\", scale=pl.const(0.0, pl.DT_FP32), i=0)\n",
    "with pl.section_cube():\n    pass\n",
    "with pl.section_vector():\n\tpass\n",
    "if _pl_ctx_neg1._pl_is_valid:\n    pass\n",
    "if ki < _pl_end:\n    _pl_ctx_0._pl_is_valid = 1\nelse:\n    _pl_ctx_0._pl_is_valid = 0\n",
    "for _pl_drain in pl.range(0, 3):\n    pass\n",
    # not written by the emitter: read by libcst, still equal
    "import pypto_pro.language as pl\n",
    "x = -1\n",
    "x = 0x10\n",
    "x = 1.5e3\n",
    "x = 1.\n",
    "x  = 1\n",
    "f(a,)\n",
    "if a:\n    b = 1\n    c = 2\n",
]


@pytest.mark.parametrize("code", SHAPES)
def test_statement_equals_libcst(code):
    assert nodes.statement(code).deep_equals(cst.parse_statement(code))


@pytest.mark.parametrize("code", ["_pl_ctx_0.ki", "a_db[_pl_ctx_0._pl_idx_a]", "(c + 1) % 2", "x", "-x",
                                  "a if b else c"])
def test_expression_equals_libcst(code):
    assert nodes.expression(code).deep_equals(cst.parse_expression(code))


def test_every_statement_the_goldens_generate(monkeypatch):
    """Whatever the emitter writes for the golden cases reads the same both ways."""
    seen: list[str] = []
    read = nodes.statement

    def recording(code):
        seen.append(code)
        return read(code)

    monkeypatch.setattr(nodes, "statement", recording)
    for case in cases():
        transpile(at_fixed_rows((case / "input.py").read_text(encoding="utf-8")), preload=2)
    monkeypatch.undo()
    assert len(seen) > 50
    for code in set(seen):
        assert nodes.statement(code).deep_equals(cst.parse_statement(code)), code


def test_goldens_need_no_parser(monkeypatch):
    """The emitter's own shapes are all read here: libcst's parser is never asked for them."""
    text = at_fixed_rows((cases()[0] / "input.py").read_text(encoding="utf-8"))
    expected = transpile(text, preload=2).code

    def refuse(*args, **kwargs):
        raise AssertionError(f"libcst parser called for generated code: {args[0]!r}")

    monkeypatch.setattr(nodes.cst, "parse_statement", refuse)
    monkeypatch.setattr(nodes.cst, "parse_expression", refuse)
    for case in cases():
        result = transpile(at_fixed_rows((case / "input.py").read_text(encoding="utf-8")), preload=2)
        assert result.ok == (case / "expected_p2.py").exists()  # refused exactly where the goldens say
    monkeypatch.undo()
    assert transpile(text, preload=2).code == expected

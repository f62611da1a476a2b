"""The user's expressions keep their meaning wherever generated code uses them."""

from __future__ import annotations

import ast

import libcst as cst
import pytest

from golden_cases import GOLDEN
from helpers import demo_text
from pto_transpile import transpile
from pto_transpile.emit import style

VEC_CUBE = (GOLDEN / "vec_cube_zone1" / "input.py").read_text()


def _guard_bound(code: str) -> ast.expr:
    """The right-hand side of the validity guard `if ki < END:` of the pipelined loop."""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and \
                isinstance(node.test.left, ast.Name) and node.test.left.id == "ki":
            return node.test.comparators[0]
    raise AssertionError("no validity guard")


@pytest.mark.parametrize("bound, kind", [
    ("N_ITER or 4", ast.BoolOp),
    ("N_ITER if N_ITER else 4", ast.IfExp),
    ("N_ITER +\n                     0", ast.BinOp),  # spans lines: valid only inside brackets
    ("not 0 and N_ITER", ast.BoolOp),
    ("(N_ITER)", ast.Name),
])
def test_a_loop_bound_keeps_its_meaning_in_the_guard(bound, kind):
    text = demo_text().replace("pl.range(0, N_ITER)", f"pl.range(0, {bound})")
    assert text != demo_text()
    result = transpile(text, preload=2)
    assert result.ok, result.diagnostics
    got = _guard_bound(result.code)
    assert isinstance(got, kind)
    assert ast.dump(got) == ast.dump(ast.parse(bound.replace("\n", " ").strip(), mode="eval").body)


def test_a_stage_argument_expression_keeps_its_meaning_in_the_ring():
    old = "            v1(i, scale, sub_id, a, a_db, nz_db, mbuf)"
    assert old in VEC_CUBE
    text = VEC_CUBE.replace(old, "            v1(i, scale if i else 2 * scale, sub_id, a, a_db, nz_db, mbuf)")
    result = transpile(text, preload=2)
    assert result.ok, result.diagnostics
    fills = [node for node in ast.walk(ast.parse(result.code)) if isinstance(node, ast.Assign)
             and isinstance(node.targets[0], ast.Attribute) and node.targets[0].attr == "_pl_arg_v1_1"]
    assert fills and isinstance(fills[0].value, ast.IfExp)


@pytest.mark.parametrize("text, needs, wrapped", [
    ("a or b", style.COMPARISON_OPERAND, True),
    ("a | b", style.COMPARISON_OPERAND, False),
    ("a < b", style.COMPARISON_OPERAND, True),
    ("-a", style.COMPARISON_OPERAND, False),
    ("not a", style.COMPARISON_OPERAND, True),
    ("lambda: 1", style.VALUE, False),
    ("(x := 1)", style.VALUE, False),
    ("f(x)[1].y", style.COMPARISON_OPERAND, False),
])
def test_operand_parenthesises_only_what_needs_it(text, needs, wrapped):
    expr = cst.parse_expression(text)
    out = cst.Module([]).code_for_node(style.operand(expr, needs))
    assert out == (f"({text})" if wrapped else text)

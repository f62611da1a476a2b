"""A pipeline loop whose body is factored into a helper holding the section blocks (`for i in
...: one_tile(...)`) has nothing the transform pipelines; PTO004 said "no for loop calls a stage
inside section blocks" of a loop that did, through the helper (study ux2). It names the helper and
the loop now, and asks for its body in the loop."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import transpile

KERNEL = (Path(__file__).parents[1] / "soundness" / "kernels" / "ux2_act_matmul.py").read_text(encoding="utf-8")
BODY = ("        with pl.section_cube():\n"
        "            mm_stage(i, n_rows, a, w_slot, a_l1_db, left_db, right_db, acc_db, c_vec_db)\n"
        "        with pl.section_vector():\n"
        "            act_stage(i, n_rows, sub_id, scale, out, c_vec_db, res_db)\n")
ARGS = "i, n_rows, sub_id, scale, a, out, w_slot, a_l1_db, left_db, right_db, acc_db, c_vec_db, res_db"
HELPER = f"def one_tile({ARGS}):\n" + BODY.replace("        ", "    ", 1).replace("\n        ", "\n    ") + "\n\n"


def test_a_loop_body_in_a_helper_is_named_with_the_fix():
    text = edited(KERNEL, [(BODY, f"        one_tile({ARGS})\n"),
                           ("@pl.jit(", HELPER + "@pl.jit(")])
    found = [(d.code, d.message, d.hint) for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [c for c, _, _ in found] == ["PTO004"], found
    line = text[:text.index("    for i in pl.range(core_id")].count("\n") + 1
    assert f"the loop at line {line} calls `one_tile`, whose body holds the section blocks" in found[0][1], found
    assert f"Write the body of `one_tile` in the loop at line {line}" in found[0][2], found

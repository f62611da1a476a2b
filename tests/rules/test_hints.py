"""Hints that would send the user the wrong way are replaced by ones that fit the case."""

from __future__ import annotations

import skeleton as ex
from helpers import demo_text
from pto_transpile import transpile


def test_too_few_tiles_says_the_range_grows_into_the_next_buffer():
    # at preload 3 the demo's p_mat_db (L1 at 0x8000) needs a third tile, which reaches b_l1 at 0x10000
    [d] = [d for d in transpile(demo_text(), preload=3).diagnostics if d.code == "PTO043"]
    assert "grows to [0x8000, 0x14000) and overlaps `b_l1` at 0x10000" in d.hint


def test_too_few_tiles_names_the_next_buffer_it_stays_below():
    y_db = ex.group("y_db", "Vec", "0x8000", "[12, 13]", None, None)
    text = ex.kernel(x_db=ex.group("x_db", mutex="[0]", fwd="[0]", bwd="[2]"),
                     vec_decls=ex.VEC_DECLS + "\n" + ex.textwrap.indent(y_db, "    "))
    [d] = [d for d in transpile(text).diagnostics if d.code == "PTO043"]
    assert "still below `y_db` at 0x8000" in d.hint


def test_a_cube_stage_in_a_vector_section_is_moved_not_merged():
    loop = ex.loop(ex.vector(ex.MM_CALL), ex.vector())
    [d] = [d for d in transpile(ex.kernel(loop=loop)).diagnostics if d.code == "PTO012"]
    assert d.hint == "`mm` calls `pl.matmul`, which runs on the cube core: call it in a `pl.section_cube()` block"
    assert "Merge" not in d.hint


def test_two_vector_stages_are_still_told_to_merge():
    from pto_transpile.rules import registry

    [d] = [d for d in transpile(registry()["PTO012"].invalid[0]).diagnostics if d.code == "PTO012"]
    assert d.hint.startswith("Merge `act` and `st`")


def test_a_group_given_to_a_stage_inside_a_tuple_is_named_so():
    # the help asked for one producer and one consumer, which the kernel had (probe h146)
    from pathlib import Path

    from helpers import edited

    text = edited((Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(), [
        ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):\n",
         "def finish(i, sub_id, scale, out, groups):\n    proj_vec_db, res_db = groups\n"),
        ("finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)",
         "finish(i, sub_id, tiling.scale, out, (proj_vec_db, res_db))")])
    [d] = [d for d in transpile(text).diagnostics if d.code == "PTO033"]
    assert "`finish` is given it inside a tuple, list or dict" in d.message, d.message


def test_a_stage_whose_every_op_is_the_other_cores_is_told_to_change_section():
    # the sections of the two stages swapped: one error per op, each sending the op to the other
    # core, and none at the call (first-hour study ux1)
    from pathlib import Path

    from helpers import edited

    text = edited((Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(), [
        ("        with pl.section_cube():\n            project(",
         "        with pl.section_vector():\n            project("),
        ("        with pl.section_vector():\n            finish(",
         "        with pl.section_cube():\n            finish(")])
    found = [(d.code, d.hint) for d in transpile(text).diagnostics if d.is_error]
    assert found == [("PTO066", "Call `project` in a `pl.section_cube()` block"),
                     ("PTO066", "Call `finish` in a `pl.section_vector()` block")], found


def test_a_store_from_ub_in_a_cube_section_is_named_the_vector_cores():
    text = demo_text().replace("        with pl.section_vector():\n            stage4(",
                               "        with pl.section_cube():\n            stage4(")
    [d] = [d for d in transpile(text).diagnostics if d.code == "PTO012"]
    assert d.hint == ("`stage4` calls `pl.store`, which runs on the vector core: call it in a "
                      "`pl.section_vector()` block")


def test_two_stage_arguments_swapped_are_named_at_the_call():
    # PTO052 inside the stage said its tiles did not resolve (first-hour study ux1)
    for old, new, words in (
            ("            stage4(ki, sub_id, out, out_vec_db)", "            stage4(ki, sub_id, out_vec_db, out)",
             "parameter `out` is given `out_vec_db`, a tile group, and the stage loads or stores it as a GM tensor"),
            ("            stage1(ki, a, b_l1, a_l1_db,", "            stage1(ki, a_l1_db, b_l1, a,",
             "parameter `a` is given `a_l1_db`, a tile group, and the stage loads or stores it as a GM tensor"),
            ("            stage4(ki, sub_id, out, out_vec_db)", "            stage4(ki, sub_id, out, out)",
             "parameter `out_vec_db` is given `out`, a GM tensor, and the stage takes a tile of it")):
        errors = [d for d in transpile(demo_text().replace(old, new)).diagnostics if d.is_error]
        assert [d.code for d in errors] == ["PTO083"] and words in errors[0].message, [str(d) for d in errors]

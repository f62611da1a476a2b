"""Probe h113: a ctx field typed int by what the value's type does not say, for a float the
check does not compute (`pow(1.5, i % 2)`), so no comparison showed the truncation: the stage's
use of it as a key of a dict (`SCALE_OF_GAIN[gain]`, taken for an index), a helper's return
annotation `-> int` (Python converts nothing on return), a bool module constant initialising a
struct field; a float read from GM at a moving index, not marked a float; observers of what the
ring changes besides `is`/`id`/`type` (`x.__class__`, `==` of structs, `getattr` of a field a
struct may lack); a struct carried in a number's field; a `pl.make_tuple` changed through an
alias or by a helper. Each was accepted and wrong on the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, edited, edited_kernel, kernel_text, refusal_of
from pto_transpile import transpile

KERNELS = Path(__file__).parent / "kernels"
ROWS = {"a": (160, 32), "out": (160, 32)}
KEYED = KERNELS / "h113_float_arg_typed_int_by_index_use.py"
RETURNED = KERNELS / "h113_helper_return_annotation_types_ring_int.py"


REFUSED = {
    "h113_bool_constant_struct_field_int_ring": "`st.g` travels to a stage in a ctx field, but whether it is an",
    "h113_class_attribute_observes_ring_type": "`tag.__class__` reads what object holds a value",
    "h113_struct_equality_observes_ctx_merge": "`cfg == base_cfg` compares structs",
    "h113_struct_pick_carried_by_reference": "a struct travels to a delayed stage in the ctx field `st`",
    "h113_tuple_field_set_by_helper": "a `pl.make_tuple` that the loop body hands to `set_gain`",
    "h113_tuple_field_set_through_alias_uncomputed": "a `pl.make_tuple` whose fields the loop body sets",
    "h113_two_structs_one_ctx_entry_getattr": "reads a field the struct may not have, with a default",
    "h113_gm_float_via_alias_in_int_ring_field": "receives `gain` = <value of `pl.getval(src, i % 2)`",
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_kernel_is_refused(name):
    assert REFUSED[name] in refusal_of(KERNELS / f"{name}.py")


def test_the_help_for_a_bool_initialised_field_fixes_it(tmp_path):
    path = edited_kernel(tmp_path, KERNELS / "h113_bool_constant_struct_field_int_ring.py", "pl.struct(g=USE_GAIN)",
                   "pl.struct(g=0.0)")
    assert_proven_and_run(path, "kern", shapes=ROWS)



def test_a_dict_key_is_no_index_and_types_no_ctx_field():
    assert "whether it is an integer or a float cannot be told" in refusal_of(KEYED)


def test_the_annotation_the_help_asks_for_fixes_it(tmp_path):
    path = edited_kernel(tmp_path, KEYED, "        gain: float = pow(1.5, i % 2)",
                   "        gain: pl.DT_FP32 = pow(1.5, i % 2)")
    assert_proven_and_run(path, "kern", shapes=ROWS)


def test_a_helpers_return_annotation_types_no_ctx_field():
    """Typed by the stage's use instead (the scalar of `pl.muls` on an fp32 tile: a float)."""
    assert_proven_and_run(RETURNED, "kern", shapes=ROWS)


def test_a_helper_annotated_int_returning_what_no_use_types_is_refused(tmp_path):
    path = edited_kernel(tmp_path, RETURNED, "    pl.muls(res, proj, gain)",
                         "    pl.muls(res, proj, 2.0)\n    print(gain)")
    assert "whether it is an integer or a float cannot be told" in refusal_of(path)


MODULE_LIST = KERNELS / "h113_module_list_changed_by_its_name.py"


def test_a_module_list_the_kernel_changes_is_named_with_a_help_that_fixes_it(tmp_path):
    """It said "change the list itself, by a name that holds it" of `ROW[1] = 2.5`, with a help about
    calling `pl` ops (probe h113). The help's copy, annotated, is accepted and runs."""
    result = transpile(kernel_text(MODULE_LIST), path="k.py")
    error = next(d for d in result.diagnostics if d.is_error)
    assert "`ROW` is a list, dict or object of the module" in error.message, error.message
    assert "row = list(ROW)" in (error.hint or ""), error.hint
    path = edited_kernel(tmp_path, MODULE_LIST, "    ROW[1] = 2.5\n", "    row = list(ROW)\n    row[1] = 2.5\n")
    path.write_text(edited(path.read_text(), [("g = ROW[i % 2]", "g: pl.DT_FP32 = row[i % 2]")]))
    assert_proven_and_run(path, "kern", shapes=ROWS)

"""Probe h116, on the hardened data-class folding and the module-state reading: each kernel was
accepted, a module value it reads folded otherwise than Python gives it, and raced on the
emulator. The data class changed through `type(TILING)` (a slot or `__getattribute__` replaced),
handed on by a walrus in an annotation, `dataclasses` changed through an alias of the module, a
default naming the class's own `__qualname__`, names Python mangles in a class body (`__x` is
`_Class__x`: a field, a default, a class constant, a static method's global, a tiling key's
values), a NaN default compared by object; code run in an f-string's replacement field, which
Python 3.11's tokenizer reads as one string (`globals().update(...)`, `type.__setattr__(...)`); an
item of a module list set as a `for`, `with` or comprehension target (`for ROWS[0] in ...`); the
namespace reached through `os.sys.modules`, a frame's `f_builtins`, `inspect.getmodule`; a class
through `Tiling.__mro__[0]`; a global rebound through `global` by a function a module-level call
runs, before a name reads it (mangled, `global __ROWS` in a class, or not); a function's
`__builtins__`, `object.__subclasses__()`, `gc.get_objects` imported under another name."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited_kernel, refusal_of

KERNELS = Path(__file__).parent / "kernels"
HOLES = ["class_changed_through_type", "class_handed_on_in_annotation", "dataclasses_patched_through_alias",
         "default_shadowed_by_class_namespace", "getattribute_through_type", "mangled_default_name",
         "mangled_field_name", "nan_default_instances_compared", "class_constant_mangled_member",
         "class_constant_mangled_value", "class_constant_shadowed_by_class_namespace", "static_method_mangled_global",
         "tiling_key_values_mangled", "namespace_call_inside_fstring", "static_method_replaced_inside_fstring",
         "list_item_set_by_for_target", "sys_modules_through_os_alias", "builtins_through_frame",
         "module_name_set_through_inspect", "static_method_replaced_through_mro", "global_statement_mangled",
         "attribute_read_mangled_in_other_class", "builtins_through_function_attribute",
         "class_found_through_subclasses", "gc_objects_imported_under_alias", "tiling_key_fields_merged_by_mangling",
         "tiling_key_is_valid_mangled", "tiling_key_values_shadowed_by_class_namespace"]


@pytest.mark.parametrize("name", HOLES)
def test_the_kernel_is_refused(name):
    refusal_of(KERNELS / f"h116_{name}.py")  # (fails when the kernel is accepted)


def test_a_global_rebound_by_a_function_called_at_module_level_is_unknown_after_the_call(tmp_path):
    """`narrow()` declares `global _Host__ROWS` and binds it (no mangling); called at module level
    before `STRIDE = _Host__ROWS`, Python gives the new value."""
    path = edited_kernel(tmp_path, KERNELS / "h116_global_statement_mangled.py",
                         "        global __ROWS\n        __ROWS = BLOCK",
                         "        global _Host__ROWS\n        _Host__ROWS = BLOCK")
    refusal_of(path)

"""Probe h116, on the hardened data-class folding and the module-state reading: each kernel was
accepted, a module value it reads folded otherwise than Python gives it, and raced on the
emulator. The data class changed through `type(TILING)` (a slot or `__getattribute__` replaced),
handed on by a walrus in an annotation, `dataclasses` changed through an alias of the module, a
default naming the class's own `__qualname__`, names Python mangles in a class body (`__x` is
`_Class__x`: a field, a default, a class constant, a static method's global, a tiling key's
values), a NaN default compared by object; code run in an f-string's replacement field, which
Python 3.11's tokenizer reads as one string (`globals().update(...)`, `type.__setattr__(...)`); an
item of a module list set as a `for`, `with` or comprehension target (`for ROWS[0] in ...`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import refusal_of

KERNELS = Path(__file__).parent / "kernels"
HOLES = ["class_changed_through_type", "class_handed_on_in_annotation", "dataclasses_patched_through_alias",
         "default_shadowed_by_class_namespace", "getattribute_through_type", "mangled_default_name",
         "mangled_field_name", "nan_default_instances_compared", "class_constant_mangled_member",
         "class_constant_mangled_value", "class_constant_shadowed_by_class_namespace", "static_method_mangled_global",
         "tiling_key_values_mangled", "namespace_call_inside_fstring", "static_method_replaced_inside_fstring",
         "list_item_set_by_for_target"]


@pytest.mark.parametrize("name", HOLES)
def test_the_kernel_is_refused(name):
    refusal_of(KERNELS / f"h116_{name}.py")  # (fails when the kernel is accepted)

"""Probe h115: a data class instance made at module level was folded as a constant where Python
gives its field another value at run time: an `InitVar` or `ClassVar` spelled another way (an
alias, a string), the class changed after the instance (a slot or property replaced, `setattr`, a
helper), a default that names another field (read in class scope) or a name rebound between the
class and the instance, a `field(...)` of the file's own, `dataclasses.dataclass` replaced,
`eq=False` compared by fields, two classes of one name compared equal, field names Python reads
as one (NFKC). Each kernel was accepted, its stride folded 64 where Python gives 32, and raced
on the emulator. An instance is folded now only of a class that `classnames.record_class` finds
plain; each is refused naming why."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, refusal_of

KERNELS = Path(__file__).parent / "kernels"
HOLES = ["class_changed_after_instance", "class_redefined_compared_equal", "classvar_spelled_otherwise",
         "decorator_replaced_in_module", "default_evaluated_at_instance", "default_read_in_class_scope",
         "eq_false_compared", "field_names_not_normalised", "field_not_dataclasses_field", "initvar_alias"]


@pytest.mark.parametrize("name", HOLES)
def test_the_kernel_is_refused(name):
    refusal = refusal_of(KERNELS / f"h115_dataclass_{name}.py")
    assert "is not a compile-time constant (`Tiling` is not a data class whose instances the check follows" \
        in refusal, refusal


@pytest.mark.parametrize("rows", [256, 320])
def test_the_control_is_proven_and_runs(rows):
    assert_proven_and_run(KERNELS / "h115_dataclass_control.py", "chain", shapes={"x": (rows, 32)})


def test_a_view_of_a_gm_tensor_is_named_with_the_fix():
    """`dst = out[:, (i % 2) * BLOCK:...]` handed to a stage: it was "one picked by a parameter, the block
    index or a test ..., or made from a pointer" (none applied), and a view read as a GM element. The
    refusal names the view; its help, the column in the store offset, is proven and runs."""
    refusal = refusal_of(KERNELS / "h115_view_picked_by_residue.py")
    assert "`dst` is a view of GM tensor `out`, which the check does not follow" in refusal, refusal
    assert_proven_and_run(KERNELS / "h115_view_column_in_offset.py", "kern", shapes={"a": (160, 32), "out": (160, 64)})

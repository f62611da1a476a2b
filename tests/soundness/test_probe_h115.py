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

"""A binding under a test of a tiling-key field (`if ApplyRelu == 1: st.g = ...`) runs in every
iteration of one instance and in none of the other: the walks that say what an iteration binds
before it reads it follow the branch the instance takes (`soundness/keytests.py`). Probe h105:
such a field, bound first in instance 1 and never bound in instance 0, was refused as carried
in both. What an instance does carry is still refused, and a field spelled like a key field
that the kernel binds itself is no key."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KEYED = kernel_text(Path(__file__).parent / "kernels" / "h105_field_bound_under_tiling_key.py")
BINDING = "        if ApplyRelu == 1:  # noqa: F821\n            st.g = 0.5 + 2.0 * (j % 2)\n"


def test_a_field_bound_first_under_a_key_test_carries_nothing_in_either_instance():
    result = transpile(KEYED, path="k.py")
    assert error_messages(result) == [], error_messages(result)
    for relu in (0, 1):
        report = verify(KEYED, result.code, "tiled_scale_kernel", shapes={"a": (160, 32), "out": (160, 32)},
                        scalars={"scale": 0.5, "ApplyRelu": relu}, block_dim=2)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("binding", [
    # instance 1 binds the field first; instance 0 steps it from what it held
    BINDING + "        st.g = st.g + 1.5\n",
    # instance 1 reads it before it binds it
    "        if ApplyRelu == 1:  # noqa: F821\n            st.g = st.g + 0.5\n",
    # `else` of a key test: instance 0 reads it first
    "        if ApplyRelu == 1:  # noqa: F821\n            st.g = 0.5\n"
    "        else:\n            st.g = st.g * 2.0 + 1.0\n",
])
def test_what_an_instance_carries_is_still_refused(binding):
    messages = error_messages(transpile(edited(KEYED, [(BINDING, binding)]), path="k.py"))
    assert messages and "carries a value from one iteration to the next" in messages[0], messages


def test_a_name_spelled_like_a_key_field_that_the_kernel_binds_is_no_key():
    text = edited(KEYED, [("    j = 0\n", "    j = 0\n    ApplyRelu = 1\n"),
                          ("        j = j + 1\n", "        j = j + 1\n        ApplyRelu = 0\n")])
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and "carries a value from one iteration to the next" in messages[0], messages


@pytest.mark.parametrize("test, outcome", [
    ("K == 1", True), ("K != 1", False), ("K >= 2", False), ("not M", True), ("K", True),
    ("K == 1 and M == 0", True), ("K == 1 and n > 0", None), ("K == 0 and n > 0", False),
    ("K == 0 or n > 0", None), ("K == 1 or n > 0", True), ("K + 1 == 2", None), ("K in (1, 2)", None),
    ("n == 1", None), ("L == 1", None),
])
def test_a_key_test_is_decided_only_where_the_instance_settles_it(test, outcome):
    import libcst as cst

    from pto_transpile.soundness.keytests import key_decider

    decide = key_decider({"K": 1, "M": 0, "L": 1}, lambda e: int(e.value) if isinstance(e, cst.Integer) else None,
                         lambda name: name == "L")  # `L` is bound again by the kernel: no key there
    assert decide(cst.parse_expression(test)) is outcome

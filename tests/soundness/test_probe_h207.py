"""Probe h207: a `break` or `continue` inside a `with pl.section_vector():` (or `section_cube`)
block leaves the loop on that section's cores alone; the check ended it on every core, so the cube
ran no further in the model where on hardware it ran the loop's `else` (or the rest of its body)
and took a slot of the cross-core group there. The syncs guarded the slots the model saw, and the
pipelined kernel raced from the first tile. Such an exit is refused now, as one under a test
some cores take is."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile

LOOP = "    for ki in pl.range(0, n_tiles):\n"
EXITS = {
    "break, the loop's else": "    for warm in range(1):\n        with pl.section_vector():\n"
                              "            break\n    else:\n        spare = c_vec_db.next()\n",
    "continue, the body after it": "    for warm in range(1):\n        with pl.section_vector():\n"
                                   "            continue\n        spare = c_vec_db.next()\n",
    "cube break": "    for warm in range(1):\n        with pl.section_cube():\n            break\n"
                  "    else:\n        spare = c_vec_db.next()\n",
}


@pytest.mark.parametrize("name", list(EXITS))
def test_a_loop_left_in_a_section_is_refused(name):
    errors = error_messages(transpile(edited(kernel("dynamic_rows.py"), [(LOOP, EXITS[name] + LOOP)]), path="k.py",
                                      preload=1))
    assert errors and "on some cores of a block and not on the others" in errors[0], errors


def test_a_loop_left_on_every_core_is_followed():
    """The hint's fix: the `break` outside the section, on every core; the `else` then runs on none."""
    warm = "    for warm in range(1):\n        break\n    else:\n        spare = c_vec_db.next()\n"
    assert error_messages(transpile(edited(kernel("dynamic_rows.py"), [(LOOP, warm + LOOP)]), path="k.py",
                                    preload=1)) == []

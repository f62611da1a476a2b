"""Which known name a misspelling stands for."""

from __future__ import annotations

import pytest

from pto_transpile.suggest import closest, distance


@pytest.mark.parametrize("name, candidates, expected", [
    ("c_vec_dbb", ["c_vec_db", "y_db", "a_l1"], "c_vec_db"),
    ("aa", ["a", "a_l1", "acc_db"], "a"),
    ("matmull", ["matmul", "matmul_acc", "move"], "matmul"),
    ("nxt", ["next", "current", "previous"], "next"),
    ("fwd_id", ["fwd_ids", "bwd_ids", "type"], "fwd_ids"),
    ("scale_stor", ["scale_store", "mm_stage"], "scale_store"),
    ("section_vectr", ["section_vector", "section_cube"], "section_vector"),
    ("tehn", ["then", "thin"], "then"),  # a swap of neighbours is one edit
    ("MemorySpace", ["memoryspace"], "memoryspace"),  # case counts half
    ("x", ["y", "z"], None),  # one letter: any other letter is one edit away
    ("x", ["X", "y"], "X"),
    ("histogram", ["matmul", "relu"], None),
    ("n", ["n"], None),  # the name itself is no suggestion
])
def test_closest(name, candidates, expected):
    assert closest(name, candidates) == expected


def test_ties_do_not_depend_on_order():
    assert closest("ab", ["ac", "bb"]) == closest("ab", ["bb", "ac"]) == "ac"  # longer shared prefix


def test_distance():
    assert distance("kitten", "sitting") == 3 and distance("ab", "ba") == 1 and distance("a", "A") == 0.5

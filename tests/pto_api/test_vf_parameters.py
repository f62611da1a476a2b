"""PyPTO's parameters of the `vf` register ops (`pto_api.names.VF_PARAMETERS`), and `vf_bind`,
which places a call's arguments by them as Python does."""

from __future__ import annotations

import pytest

from pto_api.names import vf_bind


@pytest.mark.parametrize(("op", "pos", "kw", "bound"), [
    ("add", ["x", "y", "m", "Z"], {}, {"src0": "x", "src1": "y", "preg": "m", "mode": "Z"}),
    ("add", ["x", "y"], {"preg": "m"}, {"src0": "x", "src1": "y", "preg": "m"}),
    ("load_align", [], {"tile": "t", "offset": 0}, {"tile": "t", "offset": 0}),
    ("store_align", ["t", "r", "m", 64], {"post_update": True},
     {"tile": "t", "src": "r", "args": ["m", 64], "post_update": True}),
    ("store_align", [], {"tile": "t", "src": "k"}, {"tile": "t", "src": "k"}),
    ("update_mask", [8], {"dtype": "D"}, {"scalar": 8, "dtype": "D"}),
    # where Python raises TypeError
    ("add", ["x", "y", "m", "Z", "extra"], {}, None),
    ("add", ["x"], {"src0": "y"}, None),
    ("update_mask", [], {"n": 8}, None),
    ("store_align", ["t", "r"], {"preg": "m"}, None),
    ("store_align", ["t", "r", "m"], {"args": []}, None),
])
def test_vf_bind_binds_as_python_does(op, pos, kw, bound):
    assert vf_bind(op, pos, kw) == bound

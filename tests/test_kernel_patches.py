"""Test kernels kept as the part that differs from another kernel of the repository (`NAME.patch`
beside the tests that read it, `helpers.kernel_text`) still apply to that kernel and are Python; a
patch whose base changed under it fails here by name, not in the test that reads it."""

from __future__ import annotations

import ast

import pytest

from helpers import ROOT, kernel_text, patched

PATCHES = sorted(ROOT.glob("tests/**/kernels/*.patch"))


@pytest.mark.parametrize("patch", PATCHES, ids=[p.stem for p in PATCHES])
def test_a_kernel_patch_applies_to_its_base(patch):
    ast.parse(kernel_text(patch.with_suffix(".py")))


def test_a_patch_that_no_longer_applies_fails_loudly():
    patch = "--- a.py\n+++ b.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
    assert patched("x = 1\ny = 2\nz = 4\n", patch) == "x = 1\ny = 3\nz = 4\n"
    with pytest.raises(AssertionError):
        patched("x = 1\ny = 5\n", patch)

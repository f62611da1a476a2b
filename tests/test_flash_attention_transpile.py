"""The FlashAttention examples transpile cleanly where they should, and are refused where not.

The DN kernel: no error and no warning at preload 1 and 2 (its own config) and 0; at
preload 3 its three forward-only P tiles are too few (PTO057, confirmed as a race on the
emulator by test_sim_flash_attention.py). The address-reuse variant: clean at preload 1,
PTO048 at preload 2 (the edge from the shared address would run inverse-time).

The examples take any number of rows (`pl.DYNAMIC`); what is checked here does not depend
on the rows, so it is checked at the sizes of their own test (`helpers.fixed_rows`: one
run each, where the proof for every size takes dozens). Their goldens (test_golden.py)
are the examples as they are.
"""

from functools import cache
from pathlib import Path

import pytest

from helpers import fixed_rows
from pto_transpile import transpile

ROOT = Path(__file__).resolve().parent.parent
FA = ROOT / "examples" / "flash_attention_dn.py"
OVERLAP = ROOT / "examples" / "flash_attention_dn_overlap.py"


@cache
def result(path, preload):
    return transpile(fixed_rows(path.read_text()), preload=preload, path=path.name)


def diagnostics(path, preload):
    return result(path, preload).diagnostics


@pytest.mark.parametrize("path,preload", [(FA, 0), (FA, 1), (FA, 2), (OVERLAP, 0), (OVERLAP, 1)])
def test_transpiles_without_errors_or_warnings(path, preload):
    assert diagnostics(path, preload) == []


def test_the_decorator_preload_is_used_without_an_override():
    assert "preload=2" in FA.read_text() and "preload=1" in OVERLAP.read_text()
    assert result(FA, None).code == result(FA, 2).code
    assert result(OVERLAP, None).code == result(OVERLAP, 1).code


@pytest.mark.parametrize("path,preload,codes", [
    (FA, 3, ["PTO057"]),  # a warning: the output is still written
    (OVERLAP, 2, ["PTO048"]),
    (OVERLAP, 3, ["PTO048", "PTO057"]),
])
def test_refused_or_warned_preloads(path, preload, codes):
    assert [d.code for d in diagnostics(path, preload)] == codes


def test_the_overlap_variant_differs_only_in_the_reused_buffer():
    """The two files are kept in step: apart from the reuse itself, they are the same kernel."""
    fa, ov = FA.read_text(), OVERLAP.read_text()
    start = "\n\nQ, K, V and O have"  # after the title and, in the variant, the paragraph on the reuse
    fa_body, ov_body = fa[fa.index(start):], ov[ov.index(start):]
    replacements = [
        ("VA_PV = VA_QK  # the P V tiles reuse the S^T tiles' bytes\nVA_P0 = VA_QK + 2 * QK_BYTES",
         "VA_PV = VA_QK + 2 * QK_BYTES\nVA_P0 = VA_PV + 2 * PV_BYTES"),
        ("mutex_ids=[14, 15],  # the same bytes as qk_vec_db: the same mutex ids", "mutex_ids=[19, 20],"),
        ("PipelineConfig(preload=1))\ndef flash_attention_dn_overlap(",
         "PipelineConfig(preload=2))\ndef flash_attention_dn("),
        ("flash_attention_dn_overlap[None, 1]", "flash_attention_dn[None, 1]"),
        ("def test_flash_attention_dn_overlap():", "def test_flash_attention_dn():"),
    ]
    for new, old in replacements:
        assert ov_body.count(new) == 1, new
        ov_body = ov_body.replace(new, old)
    assert ov_body == fa_body


@pytest.mark.parametrize("path", [FA, OVERLAP], ids=lambda p: p.stem)
def test_golden_inputs_are_the_examples(path):
    assert (ROOT / "golden" / path.stem / "input.py").read_text() == path.read_text()

"""Probe h193: the values of a scalar are those of its declared type. A tiling-data field `k:
pl.DT_UINT8` tested `k > 255` (never true) was sampled and cut as an int64 (refused as shown at
`tiling.k=256`, which `--arg` and the emulator refuse), and the first samples of every scalar
(2, 0, 1, 3, 5, 11) were taken whatever its type (`k: pl.DT_BOOL` run at 2). And a tiling field
annotated other than by a name (`bias: float | None = None`, `list[int]`, `"int"`) crashed the check
(PTO099)."""

from __future__ import annotations

import pytest

from helpers import ROOT, error_messages, kernel_text
from pto_transpile import transpile

GAIN = kernel_text(ROOT / "tests" / "soundness" / "kernels" / "h193_uint8_tiling_gain.py")


@pytest.mark.parametrize("test", ["k > 255", "k < 0"])
def test_a_test_no_value_of_the_fields_type_passes_is_proven(test):
    assert error_messages(transpile(GAIN.replace("if k > 255:", f"if {test}:"), path="k.py")) == []


@pytest.mark.parametrize(("test", "shown"), [("k > 250", "tiling.k=251"), ("k == 255", "tiling.k=255")])
def test_a_test_some_value_of_the_fields_type_passes_is_refused_there(test, shown):
    errors = error_messages(transpile(GAIN.replace("if k > 255:", f"if {test}:"), path="k.py"))
    assert errors and shown in errors[0], errors


@pytest.mark.parametrize(("kind", "test", "ok"), [("pl.DT_BOOL", "k > 1", True), ("pl.DT_BOOL", "k == 1", False),
                                                   ("pl.DT_INT4", "k > 7", True), ("pl.DT_INT4", "k == -8", False)])
def test_a_scalar_parameter_is_sampled_within_its_type(kind, test, ok):
    text = GAIN.replace("if k > 255:", f"if {test}:").replace("    tiling: GainTiling,\n", f"    k: {kind},\n") \
        .replace("mark(i, tiling.k, gain_t)", "mark(i, k, gain_t)")
    errors = error_messages(transpile(text, path="k.py"))
    assert (errors == []) == ok, errors


@pytest.mark.parametrize("annotation", ["float | None = None", "list[int] = field(default_factory=list)", '"int" = 0'])
def test_a_field_annotated_otherwise_than_by_a_name_is_read(annotation):
    # examples/tiled_scale.py with a field its kernel does not read
    text = (ROOT / "examples" / "tiled_scale.py").read_text(encoding="utf-8").replace(
        "    scale: float\n", f"    scale: float\n    extra: {annotation}\n").replace(
        "from dataclasses import dataclass", "from dataclasses import dataclass, field")
    result = transpile(text, path="k.py")
    assert result.ok, error_messages(result)

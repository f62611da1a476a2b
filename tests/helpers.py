"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "seed_demo.py"


def demo_text() -> str:
    from pto_transpile.rules._examples import Text

    return Text(DEMO.read_text(encoding="utf-8"))


def spread(values, keep: int, ids=None) -> list:
    """`values` for `pytest.mark.parametrize`: `keep` of them, spread evenly over the list
    (the first and the last included), run in the default suite; the others carry the
    `campaign` marker, so `pytest -m campaign` (run by `.ci/run` after the default suite)
    runs the whole list."""
    import pytest

    values = list(values)
    n = len(values)
    chosen = {round(i * (n - 1) / (keep - 1)) for i in range(keep)} if n > keep > 1 else set(range(min(n, keep)))
    out = []
    for i, value in enumerate(values):
        marks = () if i in chosen else (pytest.mark.campaign,)
        label = ids(value) if callable(ids) else None
        if isinstance(value, type(pytest.param(None))):
            out.append(pytest.param(*value.values, marks=(*value.marks, *marks), id=value.id))
        else:
            out.append(pytest.param(value, marks=marks, id=label))
    return out


def flash_attention_inputs(seed=0, sq=256, skv=512):
    """Random q, k, v for examples/flash_attention_dn.py (fp16, head dimension 128)."""
    import numpy as np  # only the emulator's tests need it

    rng = np.random.default_rng(seed)
    return {"q": rng.random((sq, 128)).astype(np.float16),
            "k": rng.random((skv, 128)).astype(np.float16),
            "v": rng.random((skv, 128)).astype(np.float16)}

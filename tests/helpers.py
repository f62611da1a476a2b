"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "seed_demo.py"


def demo_text() -> str:
    from pto_transpile.rules._examples import Text

    return Text(DEMO.read_text(encoding="utf-8"))

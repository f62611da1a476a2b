"""Defaults from `[tool.pto-transpile]` in the nearest pyproject.toml (CLI flags win)."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found]  # installed on 3.10 only

KEYS = {"preload", "select", "ignore", "format", "output"}


def find_pyproject(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_defaults(start: Path) -> tuple[dict, Path | None]:
    path = find_pyproject(start.resolve())
    if path is None:
        return {}, None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    section = data.get("tool", {}).get("pto-transpile", {})
    unknown = set(section) - KEYS
    if unknown:
        raise ValueError(f"{path}: unknown key(s) in [tool.pto-transpile]: {', '.join(sorted(unknown))}")
    return section, path

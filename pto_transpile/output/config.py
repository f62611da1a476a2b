"""Defaults from `[tool.pto-transpile]` in the nearest pyproject.toml (CLI flags win)."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found]  # installed on 3.10 only

#: `exclude` replaces the directories and files a directory walk skips, `extend-exclude` adds
#: to them (gitignore-style patterns, relative to the pyproject.toml's directory; see excludes.py)
KEYS = {"preload", "select", "ignore", "format", "output", "exclude", "extend-exclude", "warnings-as-errors"}


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
        from pto_transpile.suggest import closest

        words = []
        for key in sorted(unknown):
            near = closest(key, sorted(KEYS))
            words.append(f"{key} (did you mean `{near}`?)" if near else key)
        raise ValueError(f"{path}: unknown key(s) in [tool.pto-transpile]: {', '.join(words)}")
    output = section.get("output")
    if output is not None and (not isinstance(output, str) or not output or "\0" in output):
        raise ValueError(f"{path}: `output` in [tool.pto-transpile] must be a path: a folder ending in `/`, a file "
                         "name, or `-` for standard output")
    if not isinstance(section.get("warnings-as-errors", False), bool):
        raise ValueError(f"{path}: `warnings-as-errors` in [tool.pto-transpile] must be true or false")
    for key in ("exclude", "extend-exclude"):
        value = section.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{path}: `{key}` in [tool.pto-transpile] must be a list of strings")
    return section, path


def exclude_patterns(defaults: dict, default_excludes: tuple[str, ...]) -> list[str]:
    """The patterns a directory walk skips: `exclude` (or the defaults), then `extend-exclude`."""
    base = defaults["exclude"] if "exclude" in defaults else list(default_excludes)
    return [*base, *defaults.get("extend-exclude", [])]

"""Gitignore-style path patterns, for `exclude`/`extend-exclude` in `[tool.pto-transpile]`.

The subset of gitignore that configuration files use, matched against a path relative to
the directory holding the pyproject.toml (POSIX separators):

- `name` (no slash) matches a file or directory of that name at any depth;
- a slash at the start or in the middle anchors the pattern to the base directory;
- a trailing slash matches directories only;
- `*` and `?` match within one path component, `**` across components;
- `!pattern` re-includes what an earlier pattern excluded.

A directory that is excluded is not walked, so nothing under it is read (as git does).
Written with `re` instead of a dependency: the patterns above are all a config needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

#: What is never walked unless `exclude` replaces the list (ruff's defaults, plus `build`,
#: where pto-transpile writes its outputs).
DEFAULT_EXCLUDES = (".bzr", ".direnv", ".eggs", ".git", ".hg", ".mypy_cache", ".nox", ".pants.d", ".pytest_cache",
                    ".ruff_cache", ".svn", ".tox", ".venv", "__pypackages__", "__pycache__", "_build", "buck-out",
                    "build", "dist", "node_modules", "site-packages", "venv")


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    negated: bool
    dirs_only: bool


def _compile(pattern: str) -> _Pattern | None:
    text = pattern.strip()
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    text = text[1:] if negated else text
    dirs_only = text.endswith("/")
    text = text.rstrip("/")
    anchored = "/" in text
    text = text.lstrip("/")
    out = []
    i = 0
    while i < len(text):
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            out.append(".*")
            i += 2
        elif text[i] == "*":
            out.append("[^/]*")
            i += 1
        elif text[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(text[i]))
            i += 1
    body = "".join(out)
    regex = f"^{body}$" if anchored else f"^(?:.*/)?{body}$"
    return _Pattern(re.compile(regex), negated, dirs_only)


class Excludes:
    """An ordered list of patterns; the last one that matches a path decides, as in gitignore."""

    def __init__(self, patterns: Iterable[str]):
        self.patterns = [p for p in (_compile(text) for text in patterns) if p is not None]

    def excluded(self, relative: str, is_dir: bool) -> bool:
        """Whether the path (relative to the base, `/`-separated) is excluded."""
        verdict = False
        for p in self.patterns:
            if p.dirs_only and not is_dir:
                continue
            if p.regex.match(relative):
                verdict = not p.negated
        return verdict

"""Inline suppression of warnings: `# pto-transpile: ignore[PTO042]` on the reported line.

As in ruff and Fixit, the comment sits on the line a diagnostic points at and names the
codes (or rule names) it silences there; a bare `# pto-transpile: ignore` silences every
warning on its line. Errors are never silenced: a kernel with an error must not be
written, whatever a comment says. A suppression that silences nothing (no such warning on
its line, an error code, a code that names no rule, a directive not understood) is itself
reported, so that stale comments do not pile up.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from pto_transpile.diagnostics import Diagnostic
from pto_transpile.suggest import closest

_DIRECTIVE = re.compile(r"#\s*pto-transpile\s*:\s*(?P<body>.*)$")
_IGNORE = re.compile(r"ignore(?:\[(?P<codes>[^\]]*)\])?(?=\s|#|$)")


@dataclass
class Suppression:
    """One directive comment."""

    line: int
    column: int  #: 1-based column of its `#`
    end_column: int
    text: str  #: the directive as written, for messages
    codes: tuple[str, ...] | None  #: rule codes named; None: every warning on the line
    problems: list[str] = field(default_factory=list)  #: what is wrong with it, whatever the analysis finds
    used: set[str] = field(default_factory=set)  #: codes it silenced

    def unused(self, errors_found: bool) -> list[str]:
        """Why (part of) it silences nothing. Whether a warning would have been reported is
        only known when no error cut the analysis short."""
        out = list(self.problems)
        if errors_found:
            return out
        if self.codes is None:
            if not self.used:
                out.append("no warning is reported on this line")
        else:
            out += [f"no {code} warning is reported on this line" for code in self.codes if code not in self.used]
        return out


def find_suppressions(text: str, rules: dict) -> list[Suppression]:
    """Every `# pto-transpile:` directive in the comments of `text` (`rules`: code -> Rule)."""
    if "pto-transpile" not in text:
        return []  # the common case costs one substring search
    by_name = {r.name: code for code, r in rules.items()}
    out = []
    for line, column, comment in _comments(text):
        m = _DIRECTIVE.search(comment)
        if m is None:
            continue
        start = column + m.start() + 1
        directive = re.split(r"\s#", m.group(0), maxsplit=1)[0].rstrip()  # up to a further comment
        sup = Suppression(line, start, start + len(directive), directive, None)
        ignore = _IGNORE.match(m.group("body"))
        if ignore is None:
            sup.codes = ()
            sup.problems.append("it is not understood; write `# pto-transpile: ignore[CODE, ...]`")
        elif ignore.group("codes") is not None:
            sup.codes = tuple(_resolve(item.strip(), rules, by_name, sup)
                              for item in ignore.group("codes").split(",") if item.strip())
            sup.codes = tuple(c for c in sup.codes if c)
        out.append(sup)
    return out


def _resolve(item: str, rules: dict, by_name: dict, sup: Suppression) -> str:
    code = item.upper() if item.upper() in rules else by_name.get(item.lower())
    if code is None:
        near = _near(item, rules)
        sup.problems.append(f"`{item}` names no rule" + (f"; did you mean `{near}`?" if near else ""))
        return ""
    if rules[code].severity.value == "error":
        sup.problems.append(f"{code} is an error, and errors cannot be suppressed")
        return ""
    return code


def _near(item: str, rules: dict) -> str | None:
    """The rule code or name `item` most likely misspells (`PTO42`, `missing-sync-al`), or None."""
    if item.upper().startswith("PTO"):
        return closest(item.upper(), rules)
    return closest(item.lower(), [r.name for r in rules.values()])


def _comments(text: str) -> list[tuple[int, int, str]]:
    """(line, 0-based column, text) of each comment, as Python's tokenizer sees them (a `#`
    inside a string is not a comment); line by line when the tokenizer gives up."""
    try:
        return [(t.start[0], t.start[1], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        out = []
        for number, line in enumerate(text.splitlines(), 1):
            at = line.find("#")
            if at >= 0:
                out.append((number, at, line[at:]))
        return out


class Suppressions:
    """The directives of one file, and what they silenced."""

    def __init__(self, text: str, rules: dict):
        self.all = find_suppressions(text, rules)
        self._by_line = {s.line: s for s in self.all}

    def silences(self, d: Diagnostic) -> bool:
        """True (and the directive is marked used) when `d` is a warning a directive on its
        line names."""
        sup = self._by_line.get(d.line)
        if sup is None or d.is_error or (sup.codes is not None and d.code not in sup.codes):
            return False
        sup.used.add(d.code)
        return True

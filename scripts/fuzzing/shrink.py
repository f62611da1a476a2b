"""Delta debugging over Python source: delete statements, then lines, while a failure persists.

`shrink(text, fails)` first drops docstrings and comments in one try, then runs ddmin on
each block of sibling statements (the module body, then function bodies, then nested
blocks), so whole stage functions, imports and test harness code go in a few tries; then
it tries each remaining line alone (arguments of a multi-line call, docstring lines). Only
candidates that still parse are tested; results are memoised by text. The number of tests
and the time are capped: the best text so far is returned when either runs out, so a
shrink is deterministic unless the time cap hits. Protected lines (`keep`) stay, so the
shrunk text keeps the shape of the bug it shows.
"""

from __future__ import annotations

import ast
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Shrinker:
    fails: Callable[[str], bool]
    max_tests: int = 300
    max_seconds: float = 120.0
    keep: Counter = field(default_factory=Counter)  #: lines every candidate must still have
    tests: int = 0
    started: float = field(default_factory=time.monotonic)
    _memo: dict[str, bool] = field(default_factory=dict)

    @property
    def exhausted(self) -> bool:
        return self.tests >= self.max_tests or time.monotonic() - self.started >= self.max_seconds

    def check(self, text: str) -> bool:
        if text in self._memo:
            return self._memo[text]
        if self.keep and self.keep - Counter(line.strip() for line in text.splitlines()):
            return False
        try:
            ast.parse(text)
        except SyntaxError:
            return False
        if self.exhausted:
            return False
        self.tests += 1
        self._memo[text] = bool(self.fails(text))
        return self._memo[text]


def _blocks(tree: ast.AST) -> list[list[ast.stmt]]:
    """Statement lists, outermost first (breadth-first)."""
    out, queue = [], [tree]
    while queue:
        node = queue.pop(0)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                out.append(block)
                queue.extend(block)
        queue.extend(getattr(node, "handlers", ()) or ())
    return out


def _span(stmt: ast.stmt) -> tuple[int, int]:
    """0-based [first, last) line indexes of a statement, decorators included."""
    first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
    return first - 1, stmt.end_lineno


def _without(lines: list[str], block: list[ast.stmt], drop: set[int]) -> str:
    """The text with the statements `drop` (indexes into `block`) deleted; `pass` keeps a block alive."""
    out = list(lines)
    spans = [_span(block[i]) for i in sorted(drop, reverse=True)]
    for first, last in spans:
        del out[first:last]
    if len(drop) == len(block) and not isinstance(block, _ModuleBody):
        first = _span(block[0])[0]
        line = lines[first]
        out.insert(first, line[:len(line) - len(line.lstrip())] + "pass\n")
    return "".join(out)


class _ModuleBody(list):
    """Marks the module's own statement list (it may become empty)."""


def _ddmin(s: Shrinker, text: str, path: int) -> str:
    """ddmin over the statements of block number `path` (breadth-first order) of `text`."""
    tree = ast.parse(text)
    blocks = _blocks(tree)
    if path >= len(blocks):
        return text
    block = blocks[path]
    if path == 0:
        block = _ModuleBody(block)
    lines = text.splitlines(keepends=True)
    keep = list(range(len(block)))
    n = 2
    while len(keep) >= 1 and not s.exhausted:
        size = max(1, len(keep) // n)
        chunks = [keep[i:i + size] for i in range(0, len(keep), size)]
        reduced = False
        for chunk in chunks:
            rest = [i for i in keep if i not in chunk]
            if s.check(_without(lines, block, set(range(len(block))) - set(rest))):
                keep, n, reduced = rest, max(n - 1, 2), True
                break
        if not reduced:
            if size == 1:
                break
            n = min(len(keep), n * 2)
    return _without(lines, block, set(range(len(block))) - set(keep))


def _line_pass(s: Shrinker, text: str) -> str:
    lines = text.splitlines(keepends=True)
    i = len(lines) - 1
    while i >= 0 and not s.exhausted:
        if lines[i].strip():
            candidate = "".join(lines[:i] + lines[i + 1:])
            if s.check(candidate):
                lines = lines[:i] + lines[i + 1:]
        i -= 1
    return "".join(lines)


def _without_noise(text: str) -> str:
    """The text without docstrings and comment-only lines (one candidate, tried first)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    drop = {i for i, line in enumerate(lines) if line.lstrip().startswith("#")}
    for block in _blocks(tree):
        first = block[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            drop.update(range(*_span(first)))
    return "".join(line for i, line in enumerate(lines) if i not in drop)


def shrink(text: str, fails: Callable[[str], bool], *, max_tests: int = 300, max_seconds: float = 120.0,
           keep: Callable[[str], bool] = lambda line: False) -> tuple[str, int]:
    """A smaller text on which `fails` still holds (and the number of tests it took).

    Lines for which `keep(stripped line)` holds are never deleted: without them a failure
    of the same kind often reappears for another reason (a buffer losing its last id
    list, a stage losing its decorator), and the reproducer no longer shows the bug."""
    protected = Counter(line.strip() for line in text.splitlines() if keep(line.strip()))
    s = Shrinker(fails, max_tests, max_seconds, protected)
    s._memo[text] = True
    quiet = _without_noise(text)
    if quiet != text and s.check(quiet):
        text = quiet
    while not s.exhausted:
        before = text
        path = 0
        while path < len(_blocks(ast.parse(text))) and not s.exhausted:
            text = _ddmin(s, text, path)
            path += 1
        text = _line_pass(s, text)
        if text == before:
            break
    return text, s.tests

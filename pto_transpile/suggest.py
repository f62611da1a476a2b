""""Did you mean ...?": the known name a misspelling most likely stands for.

A candidate is close when few single-character edits (insert, delete, replace, swap of two
neighbours) turn one into the other: at most 1 for names of up to 4 characters, 2 up to 8,
3 beyond. Case differences count half. The closest wins; ties go to the longer shared
prefix, then to alphabetical order, so the suggestion never depends on set order.
"""

from __future__ import annotations

from collections.abc import Iterable


def _budget(name: str) -> int:
    return 1 if len(name) <= 4 else 2 if len(name) <= 8 else 3


def distance(a: str, b: str) -> float:
    """Edits from `a` to `b` (optimal string alignment); a change of case alone costs 0.5."""
    prev2: list[float] = []
    prev = [float(j) for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        row = [float(i)] + [0.0] * len(b)
        for j in range(1, len(b) + 1):
            x, y = a[i - 1], b[j - 1]
            cost = 0.0 if x == y else 0.5 if x.lower() == y.lower() else 1.0
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y and x != y:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[len(b)]


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate `name` is most likely a misspelling of, or None when none is close."""
    best: tuple | None = None
    for candidate in set(candidates):
        if candidate == name or not candidate:
            continue
        if abs(len(candidate) - len(name)) > _budget(name):
            continue
        d = distance(name, candidate)
        if d > _budget(name):
            continue
        pairs = enumerate(zip(name, candidate, strict=False))
        prefix = next((i for i, (x, y) in pairs if x != y), min(len(name), len(candidate)))
        key = (d, -prefix, candidate)
        if best is None or key < best:
            best = key
    return None if best is None else best[2]

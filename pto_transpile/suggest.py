""""Did you mean ...?": the known name a misspelling most likely stands for.

A candidate is close when few single-character edits (insert, delete, replace, swap of two
neighbours) turn one into the other: at most 1 when the longer of the two has 2 to 4
characters, 2 up to 8, 3 beyond; two one-letter names are close only when they differ in
case (any other letter is one edit away, which says nothing). Case differences count half.
The closest wins; ties go to the longer shared prefix, then to alphabetical order, so the
suggestion never depends on set order.
"""

from __future__ import annotations

from collections.abc import Iterable


def _budget(a: str, b: str) -> float:
    longer = max(len(a), len(b))
    return 0.5 if longer <= 1 else 1 if longer <= 4 else 2 if longer <= 8 else 3


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
        budget = _budget(name, candidate)
        if abs(len(candidate) - len(name)) > budget:
            continue
        d = distance(name, candidate)
        if d > budget:
            continue
        pairs = enumerate(zip(name, candidate, strict=False))
        prefix = next((i for i, (x, y) in pairs if x != y), min(len(name), len(candidate)))
        key = (d, -prefix, candidate)
        if best is None or key < best:
            best = key
    return None if best is None else best[2]

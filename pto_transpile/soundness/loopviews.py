"""What a loop over `enumerate`, `zip`, `reversed` or a dict's `items()`/`keys()`/`values()`
takes, when the interpreter holds what it is given (`Loops._loop_view`): the items, read up front
as the loop's iterator would give them, and the lists and dicts they come from, so that a loop
whose body changes one (which Python's lazy iterator would see) is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Builtins a loop may run over, and what each gives (`Loops._loop_view`).
VIEW_BUILTINS: dict[str, Callable[..., Any]] = {"enumerate": enumerate, "zip": zip, "reversed": reversed}
#: The views of a dict a loop may run over.
DICT_VIEWS: dict[str, Callable[[dict], list]] = {"items": lambda d: list(d.items()), "keys": lambda d: list(d),
                                                  "values": lambda d: list(d.values())}


class View:
    """The items of a loop over a view of sequences (`Loops._loop_view`), and the lists and dicts
    they were read from, as they were then."""

    def __init__(self, items: list, sources: list) -> None:
        self.items = items
        self.sources = [(s, _contents(s)) for s in sources]

    def changed(self) -> bool:
        """Has any source changed since the items were read (its items replaced, added or removed)?"""
        return any(_changed(_contents(s), before) for s, before in self.sources)


def computed(name: str, pos: list, kw: dict) -> bool:
    """Does the model compute `name(*pos, **kw)` (a view builtin given sequences it holds, with
    the arguments Python's takes)?"""
    if not all(isinstance(p, (range, list, tuple, str)) or type(p) is dict for p in pos):
        return False
    if name == "enumerate":
        return len(pos) == 1 and not set(kw) - {"start"} and type(kw.get("start", 0)) is int
    if name == "reversed":
        return len(pos) == 1 and not kw  # a dict: its keys, last first
    return not set(kw) - {"strict"} and type(kw.get("strict", False)) is bool


class Done:
    """The value of a loop's iterable that `Loops._loop_view` evaluated but could not read."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _contents(source: list | dict) -> tuple[list, list]:
    """What a list holds, or a dict's keys and values."""
    return (list(source), list(source.values())) if type(source) is dict else ([], list(source))


def _changed(now: tuple[list, list], before: tuple[list, list]) -> bool:
    """Do two readings of a list or dict differ? Keys (plain numbers and strings) by value,
    what is held by identity, as the loop over a list the body changes is judged."""
    (keys, held), (keys_before, held_before) = now, before
    return keys != keys_before or len(held) != len(held_before) \
        or any(a is not b for a, b in zip(held, held_before, strict=True))

"""Changes to the lists and dicts a kernel makes, done on the interpreter's own containers.

The interpreter holds a kernel's lists and dicts as Python lists and dicts of its values (numbers,
run-time values, tiles, ...). A change the model does not make leaves it reading what the kernel
no longer holds (`rows.reverse()` done, `rows[1]` read as before), so every change is either made
here exactly as Python makes it, or refused (`Unfollowed`, which the interpreter turns into a
refusal naming the construct). Only changes that run no code of the file are made: moving values
around, never comparing or hashing what the check cannot compare (`sort` and `remove` of run-time
values, a dict keyed by one).
"""

from __future__ import annotations

from typing import Any

#: A list method the model makes: the number of positional arguments it takes (a range).
_LIST_METHODS: dict[str, tuple[int, int]] = {
    "append": (1, 1), "insert": (2, 2), "pop": (0, 1), "clear": (0, 0), "reverse": (0, 0), "extend": (1, 1),
    "sort": (0, 0), "remove": (1, 1),
}
_DICT_METHODS: dict[str, tuple[int, int]] = {
    "update": (0, 1), "setdefault": (1, 2), "pop": (1, 2), "popitem": (0, 0), "clear": (0, 0),
}


class Unfollowed(Exception):
    """A change of a container the model does not make; the message says which."""


def plain_key(value: Any) -> bool:
    """A value compared and hashed as Python compares it in the model too: a whole number, a float,
    a string, a truth value or None, not a run-time value (whose number is this run's only)."""
    return type(value) in (int, float, str, bool) or value is None


def call_method(obj: list | dict, method: str, pos: list, kw: dict) -> Any:
    """`obj.method(*pos, **kw)` made on the model's container; its result."""
    table = _LIST_METHODS if type(obj) is list else _DICT_METHODS
    low, high = table.get(method, (-1, -1))
    if not low <= len(pos) <= high or kw and not (method == "update" and type(obj) is dict) \
            or method == "sort" and kw:
        raise Unfollowed(f"`{method}` of a {type(obj).__name__} with these arguments")
    if type(obj) is list:
        if method == "insert" and type(pos[0]) is not int or method == "pop" and pos and type(pos[0]) is not int:
            raise Unfollowed(f"`{method}` at a place that is not a whole number")
        if method == "extend" and type(pos[0]) not in (list, tuple, range):
            raise Unfollowed("`extend` with what is not a list, tuple or range")
        if method in ("sort", "remove") and not all(plain_key(v) for v in [*obj, *pos]):
            raise Unfollowed(f"`{method}` of values the check compares only at this run")
    else:
        keys = [*pos[:1]] if method in ("setdefault", "pop") else []
        if method == "update":
            if pos and type(pos[0]) is not dict:
                raise Unfollowed("`update` with what is not a dict")
            keys = [*(pos[0] if pos else {}), *kw]
        if not all(plain_key(k) for k in keys):
            raise Unfollowed(f"`{method}` by a key the check compares only at this run")
    try:
        return getattr(obj, method)(*pos, **kw)
    except (IndexError, KeyError, ValueError, TypeError) as exc:
        raise Unfollowed(f"`{method}`, which fails here ({type(exc).__name__})") from None


def set_item(obj: list | dict, key: Any, value: Any) -> None:
    """`obj[key] = value` made on the model's container."""
    if type(obj) is list and type(key) is not bool and isinstance(key, int) and -len(obj) <= key < len(obj):
        obj[key] = value
    elif type(obj) is dict and plain_key(key):
        obj[key] = value
    else:
        raise Unfollowed(f"a change of a {type(obj).__name__} at a place the check cannot name")


def del_item(obj: list | dict, key: Any) -> None:
    """`del obj[key]` made on the model's container."""
    if type(obj) is list and type(key) is int and -len(obj) <= key < len(obj) \
            or type(obj) is dict and plain_key(key) and key in obj:
        del obj[key]
    else:
        raise Unfollowed(f"a deletion from a {type(obj).__name__} at a place the check cannot name")


def add_in_place(old: list | dict, op: str, value: Any) -> None:
    """`old += value` (a list), `old *= n` (a list), `old |= value` (a dict): made in place, as
    Python makes it, so that every name holding `old` sees it."""
    if type(old) is list and op == "+=" and type(value) in (list, tuple, range):
        old.extend(value)
    elif type(old) is list and op == "*=" and type(value) is int:
        old *= value
    elif type(old) is dict and op == "|=" and type(value) is dict and all(plain_key(k) for k in value):
        old |= value
    else:
        raise Unfollowed(f"`{op or 'an augmented assignment'}` on a {type(old).__name__} with what it is given")

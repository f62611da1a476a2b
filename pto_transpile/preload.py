"""The `preload` override, checked once for the command line, pyproject.toml and `transpile()`.

An override is None (use each kernel's `PipelineConfig`), one int for every pipeline loop,
a non-empty list of ints, one per loop in source order (every value is >= 0), or "auto"
(`Auto`: choose per loop by simulation, `autopreload.py`). Anything else (`True`, `2.0`,
`"1,2"`, `[]`, -1) is refused with a message, never guessed at.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeGuard


@dataclass(frozen=True)
class Auto:
    """`preload="auto"`: per pipeline loop, the preload with the fewest simulated cycles.
    The fields set up the simulated run, as `--simulate` takes them."""

    seed: int = 0
    block_dim: int = 1
    shapes: dict = field(default_factory=dict)  #: tensor parameter -> shape, instead of the declared one
    scalars: dict = field(default_factory=dict)  #: scalar parameter -> value


#: An override in force: None (each kernel's own), one int, or one int per pipeline loop.
Override = None | int | Sequence[int]
#: What callers may pass: an override, or `Auto` to have one chosen by simulation.
PreloadArg = Override | Auto


def check_preload(value: object) -> PreloadArg:
    """`value` as a valid override (a list becomes a tuple); ValueError says what is wrong."""
    if value is None or isinstance(value, Auto):
        return value
    if isinstance(value, str) and value.strip().lower() == "auto":
        return Auto()
    if _is_int(value):
        if value < 0:
            raise ValueError(f"preload must be >= 0, got {value}")
        return value
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError("preload is an empty list: give one value per pipeline loop")
        for item in value:
            if not _is_int(item):
                raise ValueError(f"preload values must be ints, got {type(item).__name__} {item!r} in {value!r}")
            if item < 0:
                raise ValueError(f"preload values must be >= 0, got {item} in {value!r}")
        return tuple(value)
    raise ValueError(f"preload must be an int >= 0, a list of them or \"auto\", got {type(value).__name__} {value!r}")


def parse_preload(text: str) -> PreloadArg:
    """`--preload N` (every loop), `--preload N,M,...` (one per loop, even `N,`) or `--preload auto`."""
    if text.strip().lower() == "auto":
        return Auto()
    parts = [p.strip() for p in text.split(",")]
    if "," in text and parts[-1] == "":
        parts.pop()  # `2,` is a list of one value
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"expected N, N,M,... (integers >= 0) or auto, got {text!r}") from None
    return check_preload(values if "," in text else values[0])


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)

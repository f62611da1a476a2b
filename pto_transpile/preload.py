"""The preload: the override a caller gives, checked in one place, and the record of a choice.

An override is None (use each kernel's `PipelineConfig`), one int for every pipeline loop,
or a non-empty list of ints, one per loop in source order (every value is >= 0). `problem`
is the one judgement of a preload, for the command line, pyproject.toml, `transpile()` and
the kernel's own `PipelineConfig(preload=...)` (PTO005): anything else (`True`, `2.0`,
`"1,2"`, `[]`, -1) is refused with a message, never guessed at. "auto" (`Auto`) is no
override: it asks for one to be chosen by simulation (`autopreload.py`), which runs the
kernel file's Python; `PreloadChoice` records that choice.
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


def problem(value: object) -> str | None:
    """Why `value` is no preload (an int >= 0, or a non-empty list or tuple of them), or None."""
    if _is_int(value):
        return f"preload must be >= 0, got {value}" if value < 0 else None
    if isinstance(value, (list, tuple)):
        if not value:
            return "preload is an empty list: give one value per pipeline loop"
        for item in value:
            if not _is_int(item):
                return f"preload values must be ints, got {type(item).__name__} {item!r} in {value!r}"
            if item < 0:
                return f"preload values must be >= 0, got {item} in {value!r}"
        return None
    return f"preload must be an int >= 0, a list of them or \"auto\", got {type(value).__name__} {value!r}"


def check_preload(value: object) -> PreloadArg:
    """`value` as a valid override (a list becomes a tuple), or `Auto`; ValueError says what is wrong."""
    if value is None or isinstance(value, Auto):
        return value
    if isinstance(value, str) and value.strip().lower() == "auto":
        return Auto()
    wrong = problem(value)
    if wrong is not None:
        raise ValueError(wrong)
    if isinstance(value, (list, tuple)):
        return tuple(value)
    assert _is_int(value)  # what `problem` lets through
    return value


def loop_preload(values: Sequence[int], index: int) -> int | None:
    """The preload of pipeline loop `index` from valid `values` (one for every loop, or one
    per loop); None when the list has no value for it (PTO preload-count-mismatch)."""
    if len(values) == 1:
        return values[0]
    return values[index] if index < len(values) else None


def parse_preload(text: str) -> PreloadArg:
    """`--preload N` (every loop), `--preload N,M,...` (one per loop, even `N,`) or `--preload auto`."""
    if text.strip().lower() == "auto":
        return Auto()
    parts = [p.strip() for p in text.split(",")]
    if "," in text and parts[-1] == "":
        parts.pop()  # `2,` is a list of one value
    if not all(p.isascii() and p.isdigit() for p in parts):  # not `+1`, `１` or `1,,2`, which int() would take
        raise ValueError(f"expected N, N,M,... (integers >= 0) or auto, got {text!r}")
    values = [int(p) for p in parts]
    return check_preload(values if "," in text else values[0])


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass
class Candidate:
    loop: int  #: pipeline loop position, in source order
    preload: int
    cycles: int | None  #: simulated cycles of the pipelined kernel(s), None when not simulated
    verdict: str  #: "ok", "rejected" (the rules refuse it) or the emulator's verdict
    detail: str = ""
    chosen: bool = False
    bound: str = ""  #: the loop's bound in this candidate's run ("cube-bound (...), 97% of the bound")
    same_as: int | None = None  #: an earlier preload whose generated kernel is this one, text for text


@dataclass
class PreloadChoice:
    preload: Override  #: the override to transpile with; None keeps each kernel's own preload
    candidates: list[Candidate] = field(default_factory=list)
    serial_cycles: int | None = None
    note: str = ""  #: why the kernel's own preload is kept, when it is
    stage_counts: dict[int, int] = field(default_factory=dict)  #: stages of each pipeline loop

    def render(self) -> str:
        """The table of candidates, one line each, and the decision."""
        out = []
        for loop in sorted({c.loop for c in self.candidates}):
            out.append(f"preload auto, pipeline loop {loop}"
                       + (f" (serial: {self.serial_cycles} cycles)" if self.serial_cycles is not None else "") + ":")
            mine = [c for c in self.candidates if c.loop == loop]
            for c in (c for c in mine if c.same_as is None):
                cycles = "-" if c.cycles is None else str(c.cycles)
                mark = "  <- chosen" if c.chosen else ""
                verdict = c.verdict + (f": {c.detail}" if c.detail else "")
                bound = f"  {c.bound}" if c.bound and c.verdict == "ok" else ""
                out.append(f"  preload {c.preload}  cycles {cycles:>8}  {verdict}{bound}{mark}")
            out += _same_kernels(mine, self.stage_counts.get(loop))
        if self.note:
            out.append(f"preload auto: {self.note}")
        return "\n".join(out) + "\n"


def _same_kernels(candidates: list[Candidate], stages: int | None) -> list[str]:
    """One line per group of preloads that generate the kernel an earlier preload generates."""
    groups: dict[int, list[int]] = {}
    for c in candidates:
        if c.same_as is not None:
            groups.setdefault(c.same_as, []).append(c.preload)
    out = []
    for first, same in groups.items():
        span = f"{same[0]}-{same[-1]}" if len(same) > 1 else str(same[0])
        why = (" (a loop of two stages: every preload >= 1 gives delays 0 and 1, so one schedule)"
               if stages == 2 and first >= 1 else "")
        out.append(f"  preload {span}: the same kernel as preload {first}{why}, not simulated again")
    return out

"""`--simulate`: run the serial kernel and the generated one on the emulated NPU and compare.

The transpiler itself never executes the user's file; this option does (through
sim_runtime), which is why it is opt-in.
"""

from __future__ import annotations

from pathlib import Path

import click

from pto_transpile.reader import read
from pto_transpile.source import SourceFile


def parse_shapes(shapes) -> dict[str, tuple[int, ...]]:
    out = {}
    for item in shapes or ():
        name, _, dims = item.partition("=")
        try:
            out[name.strip()] = tuple(int(d) for d in dims.lower().split("x"))
        except ValueError:
            raise click.BadParameter(f"expected NAME=D0xD1, got {item!r}", param_hint="--shape") from None
        if not name.strip() or not out[name.strip()] or min(out[name.strip()]) <= 0:
            raise click.BadParameter(f"expected NAME=D0xD1 with positive sizes, got {item!r}", param_hint="--shape")
    return out


def parse_scalars(items) -> dict[str, int | float]:
    out = {}
    for item in items or ():
        name, _, value = item.partition("=")
        try:
            out[name.strip()] = int(value) if value.strip().lstrip("-").isdigit() else float(value)
        except ValueError:
            raise click.BadParameter(f"expected NAME=NUMBER, got {item!r}", param_hint="--arg") from None
        if not name.strip():
            raise click.BadParameter(f"expected NAME=NUMBER, got {item!r}", param_hint="--arg")
    return out


def simulate_and_report(path: Path, serial: str, generated: str, *, seed: int, block_dim: int, shapes, timeline,
                        scalars=()) -> int:
    """Print one verification table per pipelined kernel; 1 on any mismatch, deadlock, race or imbalance."""
    from rich.console import Console

    from sim_runtime import verify

    shape_map = parse_shapes(shapes)
    scalar_map = parse_scalars(scalars)
    file = read(SourceFile.parse(serial, str(path)))
    kernels = [k.name for k in file.kernels if k.loops]
    console = Console(highlight=False)
    status = 0
    for name in kernels:
        report = verify(serial, {"pipelined": generated}, name, path=str(path), seed=seed,
                        block_dim=block_dim, shapes=shape_map, timeline_path=timeline, scalars=scalar_map)
        report.render(console)
        if timeline is not None and report.ok:
            console.print(f"trace written to {timeline} (open it in https://ui.perfetto.dev)")
        if not report.ok:
            status = 1
    return status

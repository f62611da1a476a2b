"""Every op's footprint as the static checker and as the emulator see it, in one common form.

The checker's interpreter gives each op `Foot` rectangles (tile bytes of a memory of one
core; element rows and columns of a GM tensor); the emulator's ops give byte `Footprint`s
(`OpPlan.accesses`). Both become sorted, merged intervals per (memory, core) and kind: bytes
for on-chip memory, flat element indices for a GM tensor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pto_api.memory import MEMORY_SPACES
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.soundness.check import Problem, _auto_mutex, _discover
from pto_transpile.soundness.events import CORES, INF
from pto_transpile.soundness.interp import Config, Interpreter
from pto_transpile.soundness.values import evaluate_origin
from sim_runtime import machine, run_kernel
from sim_runtime.tiles import GMTensor

Intervals = list[tuple[int, int]]


@dataclass(frozen=True)
class Launch:
    """What a kernel of run-time sizes or a tiling key needs to run: GM shapes, and scalar,
    tiling-data and tiling-key values (by name)."""

    shapes: dict
    args: dict


#: Launches of the kernel files that cannot run on defaults, by file stem (the example and
#: its golden input and outputs share one). `ApplyRelu=1`: the checker follows both branches
#: of a tiling-key test (a `may` relu), the emulator the instance's.
_FLASH = Launch({"q": (256, 128), "k": (512, 128), "v": (512, 128), "o": (256, 128)}, {})
LAUNCHES = {"tiled_scale": Launch({"a": (160, 32), "w": (32, 32), "out": (160, 32)}, {"scale": 0.5, "ApplyRelu": 1}),
            "tiled_grid": Launch({"a": (96, 32), "w": (32, 64), "out": (96, 64)}, {"scale": 0.5}),
            "flash_attention_dn": _FLASH, "flash_attention_dn_overlap": _FLASH}


def launch_of(path: Path) -> Launch | None:
    stem = path.parent.name if path.parent.parent.name == "golden" else path.stem
    return LAUNCHES.get(stem)


@dataclass
class OpFeet:
    """One op of one core: its name and what it reads ("R") and writes ("W"), per memory."""

    core: str
    op: str
    where: str
    feet: dict[str, dict[tuple, Intervals]] = field(default_factory=lambda: {"R": {}, "W": {}})
    #: from the checker: "vf" (a vector function call), ("may", memory), ("window", memory)
    flags: frozenset = frozenset()


def merged(intervals) -> Intervals:
    out: list[list[int]] = []
    for a, b in sorted(intervals):
        if a >= b:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def within(inner: Intervals, outer: Intervals) -> bool:
    return all(any(x <= a and b <= y for x, y in outer) for a, b in inner)


def emulator_ops(path: Path, kernel: str, launch: Launch | None = None) -> dict[str, list[OpFeet]]:
    """Per core name, the ops one launch (block_dim 1, zero inputs) executes, in program order.
    Sequential mode: footprints do not depend on the interleaving, and a kernel the
    transpiler has not pipelined yet has no syncs to run concurrently with."""
    seen: list[OpFeet] = []
    execute = machine.Machine.execute

    def recording(self, core, op, plan, where):
        result = execute(self, core, op, plan, where)
        rec = OpFeet(core.name, op, str(where))
        for mem, fp, kind, *_ in plan.accesses:  # an atomic store adds its class
            if isinstance(mem, GMTensor):
                e, o = mem.array.itemsize, mem.origin
                key, iv = ("GM", mem.name), [((s - o) // e, -(-(t - o) // e)) for s, t in fp.intervals()]
            else:
                key, iv = mem.key, list(fp.intervals())
            rec.feet[kind].setdefault(key, []).extend(iv)
        seen.append(rec)
        return result

    machine.Machine.execute = recording  # type: ignore[method-assign]
    try:
        inputs: dict = {}
        if launch is not None:
            inputs = {name: np.zeros(shape, dtype=np.float32) for name, shape in launch.shapes.items()}
            inputs.update(launch.args)
        run_kernel(path, kernel, inputs, mode="sequential")
    finally:
        machine.Machine.execute = execute  # type: ignore[method-assign]
    out: dict[str, list[OpFeet]] = {}
    for rec in seen:
        rec.feet = {k: {m: merged(v) for m, v in d.items()} for k, d in rec.feet.items()}
        out.setdefault(rec.core, []).append(rec)
    return out


def checker_ops(path: Path, kernel: str, gm_shapes: dict[str, tuple],
                launch: Launch | None = None) -> dict[str, list[OpFeet]]:
    """Per core name, the op events of the checker's run of the kernel (no scalar parameters),
    in program order; GM rectangles become flat element indices of `gm_shapes`. A kernel of
    run-time sizes runs its loops at the trip counts the launch's shapes give."""
    file = read(SourceFile.parse(path.read_text(encoding="utf-8"), str(path)))
    info = next(k for k in file.kernels if k.name == kernel)
    auto_mutex = _auto_mutex(file, info)
    config = Config()
    if launch is not None:
        found = _discover(file, info, [(info.node, None)], auto_mutex, {}, False)
        assert not isinstance(found, Problem), found
        trips = {origin: evaluate_origin(origin, launch.shapes, {}) for origin in found.roots}
        config = Config(trips=trips, zeros=dict(found.roots), sizes=dict(launch.shapes))
    interp = Interpreter(file, info.node, config, auto_mutex)
    if launch is not None:
        # the feet of one run at the launch's counts: a generated kernel moves its groups under
        # its `_pl_is_valid` tests, which the trip-count argument's uniformity check refuses
        interp.rotation_margin = None
    trace = interp.run()
    out: dict[str, list[OpFeet]] = {}
    for c, events in enumerate(trace.events):
        name = f"b0.{CORES[c]}"
        for ev in events:
            if ev.kind != "op":
                continue
            rec = OpFeet(name, ev.op.removesuffix("()"), "")
            flags = {"vf"} if ev.op.endswith("()") else set()
            for kind, feet in (("R", ev.reads), ("W", ev.writes)):
                for f in feet:
                    key, iv = _common(f, gm_shapes)
                    flags.update((flag, key) for flag, on in (("may", f.may), ("window", f.window)) if on)
                    rec.feet[kind].setdefault(key, []).extend(iv)
            rec.feet = {k: {m: merged(v) for m, v in d.items()} for k, d in rec.feet.items()}
            rec.flags = frozenset(flags)
            out.setdefault(name, []).append(rec)
    return out


def _common(f, gm_shapes: dict[str, tuple]) -> tuple[tuple, Intervals]:
    if f.key[0] != "GM":
        return (MEMORY_SPACES[f.key[0]].hardware, f"b0.{CORES[f.key[1]]}"), [(f.r0, f.r1)]
    shape = gm_shapes[f.key[1]]
    size = 1
    for d in shape:
        size *= d
    if f.r1 >= INF or len(shape) != 2:
        return f.key, [(0, size)]
    cols = shape[1]
    return f.key, [(r * cols + f.c0, r * cols + f.c1) for r in range(f.r0, f.r1)]


def gm_shapes(path: Path, kernel: str, launch: Launch | None = None) -> dict[str, tuple]:
    """GM tensor shapes of the launch (what the checker's element rectangles index)."""
    if launch is not None:
        return dict(launch.shapes)
    from sim_runtime.launch import tensor_specs
    from sim_runtime.loader import load_kernel_module

    module = load_kernel_module(str(path))
    specs = tensor_specs(getattr(module, kernel))
    return {name: tuple(d for d in spec.shape if d is not Ellipsis) for name, spec in specs.items()}

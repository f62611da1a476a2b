"""Serial vs generated: same seeded inputs, compare outputs bit for bit, report speedup.

The serial kernel runs in sequential mode (its reference meaning), every generated version
in concurrent mode (hardware meaning). Simulation errors become verdicts, never tracebacks,
so the CLI can print one table whatever happens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sim_runtime.api import SimResult, run_kernel
from sim_runtime.errors import (
    DeadlockError,
    EventOverflowError,
    RaceError,
    SimulationError,
    SyncBalanceError,
    UnsupportedOpError,
)
from sim_runtime.loader import jit_kernel_in, load_kernel_module
from sim_runtime.timeline import write_trace

#: The verdict of a run that met an op the emulator does not implement: nothing is known
#: about the outputs (not a failure of the kernel, and not a proof of it either).
UNSUPPORTED = "unsupported"

_VERDICTS = [(DeadlockError, "deadlock"), (RaceError, "race"), (SyncBalanceError, "imbalance"),
             (EventOverflowError, "overflow"), (UnsupportedOpError, UNSUPPORTED)]


@dataclass
class VerifyRow:
    version: str
    cycles: int | None
    speedup: float | None
    max_diff: dict[str, float] = field(default_factory=dict)
    verdict: str = "ok"  # ok | mismatch | deadlock | race | imbalance | overflow | unsupported | error
    message: str = ""
    #: the run itself (timeline, per-core stats), when the emulator finished it
    run: SimResult | None = field(default=None, repr=False, compare=False)

    @property
    def verdict_text(self) -> str:
        """The verdict with its message, the verdict said once ("deadlock: every ...")."""
        if not self.message or self.message.startswith(f"{self.verdict}:"):
            return self.message or self.verdict
        return f"{self.verdict}: {self.message}"


@dataclass
class VerifyReport:
    kernel: str
    rows: list[VerifyRow]
    #: what the run says beside its verdicts (`unwritten_rows`)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.verdict == "ok" for r in self.rows)

    @property
    def failed(self) -> bool:
        """A version was found wrong (an op the emulator lacks only leaves it unchecked)."""
        return any(r.verdict not in ("ok", UNSUPPORTED) for r in self.rows)

    def render(self, console=None) -> None:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        console = console or Console()
        table = Table(title=f"simulated verification of {self.kernel}")
        for col in ("version", "cycles", "speedup", "max |diff|", "verdict"):
            table.add_column(col, justify="right" if col in ("cycles", "speedup") else "left")
        for r in self.rows:
            diff = ", ".join(f"{k}={v:.3g}" for k, v in r.max_diff.items()) or "-"
            style = "green" if r.verdict == "ok" else "red"
            verdict = escape(r.verdict_text)
            table.add_row(r.version, "-" if r.cycles is None else str(r.cycles),
                          "-" if r.speedup is None else f"{r.speedup:.2f}x", diff,
                          f"[{style}]{verdict}[/{style}]")
        console.print(table)
        for note in self.notes:
            console.print(f"note: {note}", markup=False, highlight=False)


def _verdict(exc: Exception) -> str:
    for cls, name in _VERDICTS:
        if isinstance(exc, cls):
            return name
    return "error"


def _describe(exc: Exception, outputs: Sequence[str] = ()) -> str:
    if isinstance(exc, UnsupportedOpError):
        unchecked = ", ".join(outputs) or "none"
        return f"{exc}; not emulated, so these outputs were not checked: {unchecked}"
    if isinstance(exc, SimulationError):
        return str(exc)
    return f"internal error in sim_runtime: {type(exc).__name__}: {exc}"


def output_names(source: str, kernel_name: str, *, path: str) -> list[str]:
    """The GM parameters of a kernel (tensors and pointers): what a run could check."""
    from sim_runtime.launch import param_annotations
    from sim_runtime.tiles import PtrSpec, TensorSpec

    kernel = jit_kernel_in(load_kernel_module(source, path=path), kernel_name)
    return [n for n, a in param_annotations(kernel).items() if isinstance(a, (TensorSpec, PtrSpec))]


def make_inputs(serial_source: str, kernel_name: str, *, path: str, seed: int, shapes: dict | None,
                scalars: dict | None = None, tensors: dict | None = None) -> dict:
    """Seeded random inputs for every `pl.Tensor` and `pl.Ptr` parameter (normal for floats,
    small ints otherwise; a pointer's size from `shapes`), plus the given values of scalar
    parameters, tiling-key fields and tiling-data fields.

    `tensors` (name -> array) gives a tensor fixed contents instead, such as a trip count a
    kernel reads from GM: its random draw is still made and discarded, so the other tensors
    get the same data with or without it."""
    from sim_runtime.launch import param_annotations
    from sim_runtime.tiles import PtrSpec, TensorSpec

    module = load_kernel_module(serial_source, path=path)
    kernel = jit_kernel_in(module, kernel_name)
    rng = np.random.default_rng(seed)
    inputs: dict = {}
    for name, spec in param_annotations(kernel).items():
        if not isinstance(spec, (TensorSpec, PtrSpec)):
            continue
        declared = spec.shape if isinstance(spec, TensorSpec) else ("undeclared",)
        shape = tuple((shapes or {}).get(name, declared))
        if not all(isinstance(d, int) and d >= 0 for d in shape):  # (0 rows: a launch with nothing to do)
            what = "a dynamic shape" if isinstance(spec, TensorSpec) else "no declared size (a pl.Ptr)"
            raise SimulationError(f"tensor {name!r} has {what}; give it one (--shape {name}=D0xD1)")
        if spec.dtype.is_float():
            inputs[name] = rng.standard_normal(shape).astype(np.float32)
        else:
            inputs[name] = rng.integers(-8, 8, size=shape)
        if name in (tensors or {}):
            inputs[name] = _fixed_contents(name, (tensors or {})[name], shape)
    unknown = sorted(set(tensors or {}) - set(inputs))
    if unknown:
        raise SimulationError(f"fixed contents given for {', '.join(unknown)}, which the kernel has no tensor of")
    inputs.update(scalars or {})
    return inputs


def _fixed_contents(name: str, value, shape: tuple) -> np.ndarray:
    """`value` as the contents of tensor `name` of `shape`: a run must not silently get other
    data than it names, so a shape that differs is an error, not a broadcast or a crop."""
    array = np.asarray(value)
    if array.shape != tuple(shape):
        raise SimulationError(f"contents of tensor {name!r} have shape {list(array.shape)}, the tensor "
                              f"{list(shape)}")
    return array.copy()


def verify(serial_source: str, generated_source, kernel_name: str, *, path: str = "kernel.py", seed: int = 0,
           block_dim: int = 1, shapes: dict | None = None, timeline_path=None, scalars: dict | None = None,
           generated_paths: dict | None = None, tensors: dict | None = None) -> VerifyReport:
    """`generated_source` is one source text or a dict {version label: source text}.
    `timeline_path` receives a Chrome trace of every run that finished, serial included.
    `tensors` (name -> array) fixes the contents of input tensors (see `make_inputs`).

    Reports name the serial kernel `path`; a generated version is named by
    `generated_paths[label]` when given, so its line numbers point into its own file."""
    generated = generated_source if isinstance(generated_source, dict) else {"generated": generated_source}
    rows: list[VerifyRow] = []
    outputs: list[str] = []
    try:
        outputs = output_names(serial_source, kernel_name, path=path)
        inputs = make_inputs(serial_source, kernel_name, path=path, seed=seed, shapes=shapes, scalars=scalars,
                             tensors=tensors)
        serial = run_kernel(path, kernel_name, inputs, source=serial_source, block_dim=block_dim, mode="sequential")
    except Exception as exc:  # never a traceback: the verdict carries the message
        rows.append(VerifyRow("serial", None, None, verdict=_verdict(exc), message=_describe(exc, outputs)))
        return VerifyReport(kernel_name, rows)
    rows.append(VerifyRow("serial", serial.cycles, 1.0, run=serial))
    notes = unwritten_rows(inputs, serial.outputs)
    for label, src in generated.items():
        try:
            res = run_kernel((generated_paths or {}).get(label, path), kernel_name, inputs, source=src,
                             block_dim=block_dim, mode="concurrent")
        except Exception as exc:
            rows.append(VerifyRow(label, None, None, verdict=_verdict(exc), message=_describe(exc, outputs)))
            continue
        diffs = {}
        same = True
        for name, ref in serial.outputs.items():
            got = res.outputs.get(name)
            if got is None or got.shape != ref.shape:
                diffs[name], same = float("inf"), False
                continue
            diffs[name] = _max_difference(got, ref)
            same &= bool(np.array_equal(got, ref, equal_nan=True))
        speed = serial.cycles / res.cycles if res.cycles else None
        rows.append(VerifyRow(label, res.cycles, speed, diffs, "ok" if same else "mismatch",
                              "" if same else "outputs differ from the serial kernel", run=res))
    if timeline_path is not None:
        write_trace(timeline_path, {r.version: (r.run.timeline, list(r.run.cores)) for r in rows if r.run})
    return VerifyReport(kernel_name, rows, notes)


def unwritten_rows(inputs: dict, outputs: dict) -> list[str]:
    """For each float tensor the serial run wrote, the rows it left as they were: a `--shape`
    that does not fit the kernel (rows past a multiple of its tile, an output longer than its
    input) leaves them so, and both runs agree there without checking anything. Read from the
    contents (random before the run, so a written row keeps none of them by chance)."""
    notes = []
    for name, out in outputs.items():
        before = inputs.get(name)
        if not isinstance(before, np.ndarray) or not np.issubdtype(out.dtype, np.floating) or out.ndim == 0 \
                or before.shape != out.shape or out.size == 0:
            continue
        same = np.asarray(before).astype(out.dtype) == out
        rows = same.reshape(out.shape[0], -1).all(axis=1)
        if rows.all() or not rows.any():
            continue  # never written (an input), or every row written
        spans = _spans(np.flatnonzero(rows).tolist())
        notes.append(f"`{name}`: row{'s' if rows.sum() > 1 else ''} {spans} of {out.shape[0]} still hold what they "
                     "held before the run: the serial kernel wrote none of them, so neither run is checked there "
                     "(do the --shape values fit the kernel's tiles?)")
    return notes


def _spans(rows: list[int]) -> str:
    """`0..3, 7` of sorted row numbers."""
    out, start = [], rows[0]
    for i, a in enumerate(rows):
        if i + 1 == len(rows) or rows[i + 1] != a + 1:
            out.append(str(start) if start == a else f"{start}..{a}")
            start = rows[i + 1] if i + 1 < len(rows) else a
    return ", ".join(out)


def _max_difference(got: np.ndarray, ref: np.ndarray) -> float:
    """The largest |got - ref| over the elements, where elements alike (equal, the same
    infinity, both NaN) differ by 0 and a NaN against a number by infinity: `inf - inf` is NaN,
    which printed `out=nan` beside a run whose outputs were identical."""
    g, r = got.astype(np.float64), ref.astype(np.float64)
    with np.errstate(invalid="ignore"):
        d = np.abs(g - r)
    alike = (g == r) | (np.isnan(g) & np.isnan(r))
    d[alike] = 0.0
    d[np.isnan(d)] = np.inf
    return float(d.max()) if d.size else 0.0

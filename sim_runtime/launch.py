"""Run one launch of a loaded `@pl.jit` kernel on a fresh emulated machine.

This is the layer below the `pl` surface: `kernel[block_dim](...)` inside a simulated
module and `run_kernel` both end here. The kernel object is used only through its
attributes (`fn`, `auto_mutex`, `lowered`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

from sim_runtime.errors import KernelError, SimulationError, raised_at
from sim_runtime.gantt import GanttRun, render_gantt
from sim_runtime.lowering import lower
from sim_runtime.machine import CoreStats, Machine
from sim_runtime.tiles import GMTensor, TensorSpec
from sim_runtime.timeline import Timeline


@dataclass
class SimResult:
    outputs: dict[str, np.ndarray]  #: every pl.Tensor parameter after the run
    cycles: int  #: simulated makespan
    cores: dict[str, CoreStats]  #: per core busy/idle cycles and utilisation
    timeline: Timeline
    warnings: list[str] = field(default_factory=list)
    mode: str = "concurrent"

    def write_trace(self, path) -> None:
        """Chrome trace JSON (loads in Perfetto / chrome://tracing)."""
        self.timeline.write_trace(path, list(self.cores))

    def gantt(self, label: str = "") -> GanttRun:
        """This run as one run of a Gantt chart (`gantt.render_gantt`)."""
        return GanttRun(label, self.timeline, list(self.cores), self.cycles)

    def render_gantt(self, console=None, title: str = "simulated timeline") -> None:
        render_gantt([self.gantt()], console, title)


def tensor_specs(kernel) -> dict[str, TensorSpec]:
    """The kernel's `pl.Tensor[...]` parameters (string annotations are evaluated in its module)."""
    specs = {}
    for name, p in inspect.signature(kernel.fn).parameters.items():
        ann = p.annotation
        if isinstance(ann, str):
            try:
                ann = eval(ann, kernel.fn.__globals__)  # noqa: S307 - the kernel's own annotation
            except Exception:
                continue
        if isinstance(ann, TensorSpec):
            specs[name] = ann
    return specs


def _tensor(name: str, spec: TensorSpec, value) -> GMTensor:
    dims = [d for d in spec.shape if d is not Ellipsis]
    arr: np.ndarray
    if value is None:
        if not all(isinstance(d, int) and d > 0 for d in dims):
            raise KernelError(f"tensor parameter {name!r} has a dynamic shape; pass it in inputs")
        arr = np.zeros(dims, dtype=spec.dtype.storage)
    else:
        arr = np.array(value)
        if spec.dtype.name == "DT_BF16" and arr.dtype != np.uint16:
            arr = spec.dtype.to_storage(arr.astype(np.float32))
        arr = np.ascontiguousarray(arr, dtype=spec.dtype.storage).copy()
        fixed = [(i, d) for i, d in enumerate(dims) if isinstance(d, int) and d > 0]
        if arr.ndim < len(dims) or any(arr.shape[i] != d for i, d in fixed):
            raise KernelError(f"tensor {name!r}: got shape {list(arr.shape)}, the kernel declares {list(spec.shape)}")
    return GMTensor(name, arr, spec.dtype)


def simulate(kernel, inputs: dict, *, block_dim: int = 1, mode: str = "concurrent",
             schedule: str = "fixed", seed: int = 0, strict_balance: bool = True) -> SimResult:
    if kernel.lowered is None:
        kernel.lowered = lower(kernel.fn)
    low = kernel.lowered
    specs = tensor_specs(kernel)
    params = inspect.signature(kernel.fn).parameters
    unknown = set(inputs) - set(params)
    if unknown:
        raise KernelError(f"inputs name no parameter of {kernel.fn.__name__}: {', '.join(sorted(unknown))}")
    args = {}
    for name, p in params.items():
        if name in specs:
            args[name] = _tensor(name, specs[name], inputs.get(name))
        elif name in inputs:
            args[name] = inputs[name]
        elif p.default is not inspect.Parameter.empty:
            args[name] = p.default
        else:
            raise KernelError(f"missing input for kernel parameter {name!r}")
    machine = Machine(block_dim=block_dim, kind=low.kind, mode=mode, schedule=schedule, seed=seed,
                      auto_mutex=kernel.auto_mutex, sync_owner=low.sync_owner, stage_numbers=low.stage_numbers)
    filename = kernel.fn.__code__.co_filename

    def body(core):
        try:
            low.fn(**args)
        except SimulationError:
            raise
        except Exception as exc:
            raise KernelError(f"{core.name}: kernel raised {type(exc).__name__}: {exc}",
                              raised_at(exc, filename)) from exc

    machine.scheduler.run(body, machine.stuck_error)
    machine.check_balance(strict_balance)
    outputs = {n: (t.dtype.to_compute(t.array) if t.dtype.name == "DT_BF16" else t.array)
               for n, t in args.items() if isinstance(t, GMTensor)}
    return SimResult(outputs, machine.makespan(), machine.stats(), machine.timeline, machine.warnings, mode)


def launch(kernel, block_dim: int, args: tuple, kwargs: dict) -> None:
    """`kernel[stream, block_dim](...)` inside a simulated module: run, then write tensors back."""
    bound = inspect.signature(kernel.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    result = simulate(kernel, dict(bound.arguments), block_dim=block_dim)
    for name, out in result.outputs.items():
        target = bound.arguments.get(name)
        if isinstance(target, np.ndarray) and target.shape == out.shape:
            np.copyto(target, out, casting="unsafe")

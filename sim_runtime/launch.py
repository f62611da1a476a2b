"""Run one launch of a loaded `@pl.jit` kernel on a fresh emulated machine.

This is the layer below the `pl` surface: `kernel[block_dim](...)` inside a simulated
module and `run_kernel` both end here. The kernel object is used only through its
attributes (`fn`, `auto_mutex`, `lowered`).
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from pto_api.memory import integer_argument_fault
from sim_runtime.dtypes import DType
from sim_runtime.errors import KERNEL_FAULTS, KernelError, SimulationError, raised_at, raised_what
from sim_runtime.gantt import GanttRun, render_gantt
from sim_runtime.kernelspec import (
    build_tiling_data,
    declared_scalar_type,
    dtype_named,
    launch_names,
    tiling_data_fields,
    tiling_data_param,
)
from sim_runtime.lowering import lower
from sim_runtime.machine import CoreStats, Machine
from sim_runtime.tiles import GMPointer, GMTensor, PtrSpec, TensorSpec, typed_scalar
from sim_runtime.timeline import Timeline


@dataclass
class SimResult:
    outputs: dict[str, np.ndarray]  #: every pl.Tensor parameter after the run
    cycles: int  #: simulated makespan
    cores: dict[str, CoreStats]  #: per core busy/idle cycles and utilisation
    timeline: Timeline
    warnings: list[str] = field(default_factory=list)
    mode: str = "concurrent"
    log: list[str] = field(default_factory=list)  #: what `pl.printf` / `pl.dump_data` / `pl.pto_assert` printed

    def write_trace(self, path) -> None:
        """Chrome trace JSON (loads in Perfetto / chrome://tracing)."""
        self.timeline.write_trace(path, list(self.cores))

    def gantt(self, label: str = "") -> GanttRun:
        """This run as one run of a Gantt chart (`gantt.render_gantt`)."""
        return GanttRun(label, self.timeline, list(self.cores), self.cycles)

    def render_gantt(self, console=None, title: str = "simulated timeline") -> None:
        render_gantt([self.gantt()], console, title)


def _annotation(kernel, ann):
    if isinstance(ann, str):
        try:
            return eval(ann, kernel.fn.__globals__)  # noqa: S307 - the kernel's own annotation
        except Exception:
            return None
    return ann


def tensor_specs(kernel) -> dict[str, TensorSpec]:
    """The kernel's `pl.Tensor[...]` parameters (string annotations are evaluated in its module)."""
    return {name: spec for name, spec in param_annotations(kernel).items() if isinstance(spec, TensorSpec)}


def pointer_specs(kernel) -> dict[str, PtrSpec]:
    """The kernel's `pl.Ptr[...]` parameters."""
    return {name: spec for name, spec in param_annotations(kernel).items() if isinstance(spec, PtrSpec)}


def param_annotations(kernel) -> dict:
    return {name: _annotation(kernel, p.annotation) for name, p in inspect.signature(kernel.fn).parameters.items()}


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


def _scalar(name: str, spec, value):
    """A scalar argument, within the values its declared integer type holds (`int`: int64,
    `bool`: 0 or 1, `pl.DT_UINT8`: 0..255): the hardware passes no other, and a whole float
    is passed as the integer it is, and a whole number given a `float` as the float it is."""
    declared = declared_scalar_type(spec)
    fault = integer_argument_fault(declared, value) if declared else None
    if fault is not None:
        raise KernelError(f"scalar parameter {name!r} is declared {declared}: {fault}")
    if declared and isinstance(value, (float, np.floating)):
        value = int(value)
    if spec is float and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = float(value)  # a `float` parameter is a float on the device, given `2` or `2.0` (probe h109)
    if isinstance(spec, DType) and spec.computable and isinstance(value, (int, float, np.integer, np.floating)) \
            and not isinstance(value, bool):
        # a parameter of a `pl` dtype is a scalar of that dtype on the device (`alpha: pl.DT_FP16`
        # rounded to fp16, probe h106), in the serial kernel as in the pipelined one
        return typed_scalar(value, spec)
    return value


def _pointer(name: str, spec: PtrSpec, value) -> tuple[GMPointer, np.ndarray]:
    """A raw GM pointer argument: the bytes of the given array (a private copy), typed by the
    annotation; the run's output is that array after the run."""
    if value is None:
        raise KernelError(f"pointer parameter {name!r} needs an array in inputs (its size is not declared)")
    arr = np.array(value)
    if spec.dtype.name == "DT_BF16" and arr.dtype != np.uint16 and arr.dtype.kind == "f":
        arr = spec.dtype.to_storage(arr.astype(np.float32))
    arr = np.ascontiguousarray(arr).copy()
    return GMPointer(name, arr.reshape(-1).view(np.uint8), spec.dtype), arr


def _split_inputs(kernel, inputs: dict, tiling_key: dict | None) -> tuple[dict, dict, dict]:
    """Kernel arguments, tiling-key values and tiling-data field values among `inputs`."""
    params = inspect.signature(kernel.fn).parameters
    schema = kernel.tiling_key_schema
    td = tiling_data_param(kernel.fn)
    td_fields = set(tiling_data_fields(td[1])) if td else set()
    args, key, fields = {}, dict(tiling_key or {}), {}
    for name, value in inputs.items():
        holder, dot, field = name.partition(".")
        if name in params:
            args[name] = value
        elif schema is not None and name in schema.fields:
            key[name] = value
        elif name in td_fields:
            fields[name] = value
        elif dot and td is not None and holder == td[0] and field in td_fields:
            fields[field] = value  # `tiling.n_rows`: a field named as a parameter is (`LaunchNames.field_name`)
        else:
            known = [*params, *(schema.fields if schema else ()), *sorted(td_fields)]
            raise KernelError(f"inputs name no parameter of {kernel.fn.__name__}: {name} "
                              f"(known: {', '.join(known)})")
    return args, key, fields


def simulate(kernel, inputs: dict, *, block_dim: int = 1, mode: str = "concurrent",
             schedule: str = "fixed", seed: int = 0, strict_balance: bool = True,
             tiling_key: dict | None = None, datatypes: dict | None = None) -> SimResult:
    """One launch. `tiling_key` (or tiling-key field names among `inputs`) picks the kernel
    instance; `datatypes` binds `datatype=` names (default: the dtype of the argument);
    tiling-data field names among `inputs` build the tiling-data argument."""
    if kernel.lowered is None:
        kernel.lowered = lower(kernel.fn)
    low = kernel.lowered
    given, key_values, td_values = _split_inputs(kernel, inputs, tiling_key)
    names: dict[str, object] = {}
    if kernel.tiling_key_schema is not None:
        names.update(kernel.tiling_key_schema.choose(key_values))
    annotations = param_annotations(kernel)
    params = inspect.signature(kernel.fn).parameters
    td = tiling_data_param(kernel.fn)
    args: dict = {}
    outputs_of: dict[str, GMTensor | np.ndarray] = {}
    for name, p in params.items():
        spec = annotations.get(name)
        if isinstance(spec, TensorSpec):
            args[name] = outputs_of[name] = _tensor(name, spec, given.get(name))
        elif isinstance(spec, PtrSpec):
            args[name], outputs_of[name] = _pointer(name, spec, given.get(name))
        elif name in given:
            args[name] = _scalar(name, spec, given[name])
        elif td is not None and name == td[0]:
            args[name] = build_tiling_data(td[1], td_values, launch_names(kernel).field_name)
        elif p.default is not inspect.Parameter.empty:
            args[name] = _scalar(name, spec, p.default)  # a default is passed as any value is
        else:
            raise KernelError(f"missing input for kernel parameter {name!r}")
    names.update(_datatype_names(kernel, annotations, given, datatypes or {}))
    machine = Machine(block_dim=block_dim, kind=low.kind, mode=mode, schedule=schedule, seed=seed,
                      auto_mutex=kernel.auto_mutex, sync_owner=low.sync_owner, stage_numbers=low.stage_numbers)
    filename = kernel.fn.__code__.co_filename

    def body(core):
        try:
            low.fn(**args)
        except SimulationError:
            raise
        except KERNEL_FAULTS as exc:
            raise KernelError(f"{core.name}: kernel raised {raised_what(exc)}", raised_at(exc, filename)) from exc

    with compile_time_names(kernel.fn.__globals__, names, kernel.fn.__name__):
        machine.scheduler.run(body, machine.stuck_error)
    machine.atomics.settle_all()
    machine.check_balance(strict_balance)
    outputs = {}
    for n, t in outputs_of.items():
        if isinstance(t, GMTensor):
            outputs[n] = t.dtype.to_compute(t.array) if t.dtype.name == "DT_BF16" else t.array
        else:
            outputs[n] = t
    return SimResult(outputs, machine.makespan(), machine.stats(), machine.timeline, machine.warnings, mode,
                     machine.log)


def _datatype_names(kernel, annotations: dict, given: dict, datatypes: dict) -> dict[str, DType]:
    """`datatype={"x": "dt"}`: `dt` is the dtype the launch gives, else the argument's own. It is
    the dtype of `x`: a launch that gives another than the one `x` is declared with
    (`pl.Tensor[[...], pl.DT_FP16]`) contradicts the declaration, and is refused (a raw
    `pl.Ptr[pl.DT_UINT8]` holds any data the name types)."""
    out: dict[str, DType] = {}
    for param, name in (kernel.options.get("datatype") or {}).items():
        if name in datatypes or param in datatypes:
            dt = dtype_named(datatypes[name] if name in datatypes else datatypes[param])
            spec = annotations.get(param)
            if isinstance(spec, TensorSpec) and dt is not spec.dtype:
                raise KernelError(f"datatype name {name!r} is the dtype of parameter {param!r}, which is declared "
                                  f"{spec.dtype.name}: the launch binds it to {dt.name}; declare {param!r} with the "
                                  f"dtype it holds (or as a `pl.Ptr` whose data the name types)")
        else:
            value, spec = given.get(param), annotations.get(param)
            if isinstance(spec, TensorSpec):
                dt = spec.dtype
            elif value is not None and hasattr(value, "dtype"):
                dt = dtype_named(value.dtype)
            elif isinstance(spec, PtrSpec):
                dt = spec.dtype
            else:
                raise KernelError(f"datatype name {name!r} (of parameter {param!r}) has no dtype: pass "
                                  f"datatypes={{{name!r}: ...}}")
        if name in out and out[name] is not dt:
            raise KernelError(f"datatype name {name!r} is bound to both {out[name].name} and {dt.name}")
        out[name] = dt
    return out


@contextmanager
def compile_time_names(g: dict, names: dict, kernel: str):
    """Bind tiling-key fields and datatype names in the kernel's module for one launch (the
    kernel and its helpers read them as globals); a name the module already defines is an
    error, as in the front end."""
    clash = [n for n in names if n in g]
    if clash:
        raise KernelError(f"compile-time name(s) {', '.join(clash)} of kernel {kernel} collide with module-level "
                          "names of the kernel file")
    g.update(names)
    try:
        yield
    finally:
        for n in names:
            g.pop(n, None)


def launch(kernel, block_dim: int, args: tuple, kwargs: dict, tiling_key: dict | None = None,
           datatypes: dict | None = None) -> None:
    """`kernel[stream, block_dim(, key(, dtypes))](...)` inside a simulated module: run, then
    write tensors back."""
    bound = inspect.signature(kernel.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    result = simulate(kernel, dict(bound.arguments), block_dim=block_dim, tiling_key=tiling_key, datatypes=datatypes)
    for name, out in result.outputs.items():
        target = bound.arguments.get(name)
        if isinstance(target, np.ndarray) and target.shape == out.shape:
            np.copyto(target, out, casting="unsafe")

"""Public entry point: `run_kernel` loads a kernel file and runs one launch of a kernel."""

from __future__ import annotations

from pathlib import Path

from sim_runtime.launch import SimResult, simulate, tensor_specs
from sim_runtime.loader import jit_kernel_in, load_kernel_module

__all__ = ["SimResult", "run_kernel", "simulate", "tensor_specs"]


def run_kernel(path=None, kernel_name: str | None = None, inputs: dict | None = None, *, block_dim: int = 1,
               mode: str = "concurrent", schedule: str = "fixed", seed: int = 0, strict_balance: bool = True,
               source: str | None = None) -> SimResult:
    """Load a kernel file and run `kernel_name` once.

    The kernel comes from `source=` (text; `path` then only names it in reports) or from
    `path`, which may itself be source text (any string containing a newline).
    `inputs` maps parameter names to numpy arrays (copied in); tensor parameters not given
    start as zeros of their annotated shape.
    """
    if kernel_name is None:
        raise TypeError("run_kernel needs kernel_name")
    if source is not None:
        module = load_kernel_module(source, path=str(path) if path else None)
    elif path is not None:
        module = load_kernel_module(str(path) if isinstance(path, Path) else path)
    else:
        raise TypeError("run_kernel needs a path or source=")
    kernel = jit_kernel_in(module, kernel_name)
    return simulate(kernel, inputs or {}, block_dim=block_dim, mode=mode, schedule=schedule, seed=seed,
                    strict_balance=strict_balance)

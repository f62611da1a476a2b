"""sim_runtime: an emulated Ascend NPU (numpy) that runs PyPTO Pro tile kernels.

It answers what a kernel author cannot answer without hardware: does the generated
pipelined kernel compute exactly what the serial kernel computes, without hanging, racing
or unbalancing the cross-core flags, and how much faster is it? Simulation executes the
kernel file's Python (transpiling and checking never do).
"""

from sim_runtime.api import SimResult, run_kernel
from sim_runtime.errors import (
    DeadlockError,
    EventOverflowError,
    KernelError,
    RaceError,
    SectionMismatchError,
    SimulationError,
    SyncBalanceError,
    UnsupportedOpError,
)
from sim_runtime.loader import load_kernel_module
from sim_runtime.verify import VerifyReport, verify

__all__ = [
    "DeadlockError",
    "EventOverflowError",
    "KernelError",
    "RaceError",
    "SectionMismatchError",
    "SimResult",
    "SimulationError",
    "SyncBalanceError",
    "UnsupportedOpError",
    "VerifyReport",
    "load_kernel_module",
    "run_kernel",
    "verify",
]

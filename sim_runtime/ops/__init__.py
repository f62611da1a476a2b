"""Block ops: numpy semantics, accesses, pipe and cost of every `pl.<op>` the emulator runs,
one module per op family. Importing the package registers every handler in `HANDLERS`."""

from sim_runtime.ops import (  # noqa: F401
    cube,
    debugging,
    elementwise,
    fused,
    gather,
    quant,
    reduce,
    scalar,
    ssbuf,
    transfer,
)
from sim_runtime.ops.base import HANDLERS, OpCall
from sim_runtime.ops.scalar import set_validshape

__all__ = ["HANDLERS", "OpCall", "set_validshape"]

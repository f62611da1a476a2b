"""`pl.printf`, `pl.pto_assert`, `pl.trap` (pipe S) and `pl.dump_data` (pipe V; FIX on the
cube core for an Acc tile, which goes out through its GM workspace): what they print goes to
the run's log (see `sim_runtime.debug`)."""

from __future__ import annotations

import numpy as np

from pto_api.ops import dump_pipe
from sim_runtime import costs, debug
from sim_runtime.errors import KernelError
from sim_runtime.memory import Footprint
from sim_runtime.opplan import OpPlan
from sim_runtime.ops.base import OpCall, handles, local, mutex_of
from sim_runtime.ops.transfer import strided_footprint
from sim_runtime.tiles import GMTensor, Tile


def _log(call: OpCall, text: str) -> None:
    where = f" ({call.where})" if call.kwargs.get("loc") else ""
    call.m.log.append(f"{call.core.name}{where}: {text}")


@handles("printf")
def printf(call: OpCall) -> OpPlan:
    text = debug.format_message(call.arg(0, "format_str"), call.args[1:], call.where)
    return OpPlan("S", costs.COSTS.scalar, lambda: _log(call, text))


@handles("pto_assert")
def pto_assert(call: OpCall) -> OpPlan:
    """A false condition logs `Assertion failed: <condition as written>` (and the message);
    the kernel goes on, as on the device."""
    ok = bool(call.arg(0, "condition"))
    fmt = call.arg(1, "format_str", None)

    def run():
        if ok:
            return
        lines = [f"Assertion failed: {debug.source_text(call.where, 'pto_assert')}"]
        if fmt is not None:
            lines.append(debug.format_message(fmt, call.args[2:], call.where))
        _log(call, "\n".join(lines))
        call.m.warnings.append(f"{call.where}: pl.pto_assert failed on {call.core.name}")

    return OpPlan("S", costs.COSTS.scalar, run)


@handles("trap")
def trap(call: OpCall) -> OpPlan:
    def run():
        raise KernelError(f"pl.trap() on {call.core.name}: the kernel aborts here", call.where)
    return OpPlan("S", costs.COSTS.scalar, run)


@handles("dump_data")
def dump_data(call: OpCall) -> OpPlan:
    """Print a GM tensor, a Vec tile, or an Acc tile through a GM `workspace` (the whole
    tile is written there first); Mat/Left/Right tiles cannot be printed."""
    data = call.arg(0, "data")
    offsets, shapes = call.arg(1, "offsets", None), call.arg(2, "shapes", None)
    workspace = call.kwargs.get("workspace")
    if isinstance(data, GMTensor):
        if workspace is not None:
            raise call.fail("workspace= is only for Acc tiles")
        index = debug.tensor_window(data, offsets, shapes, call.where)
        view = data.array[index]
        base = data.origin + (view.__array_interface__["data"][0] - data.array.__array_interface__["data"][0])
        axes = list(zip(view.shape, view.strides, strict=True)) if view.ndim == 2 else \
            [(view.size, view.itemsize), (1, view.itemsize)]
        fp = strided_footprint(data.memkey, base, axes, view.itemsize) if view.ndim <= 2 else \
            Footprint.make(data.memkey, data.origin, 1, 1, data.root.size)

        def run_tensor():
            _log(call, debug.dump_text(data, data.dtype.to_compute(view), "GM tensor"))
        return OpPlan("V", costs.vector_cost(view.nbytes), run_tensor, [(data, fp, "R")])
    if not isinstance(data, Tile):
        raise call.fail(f"data must be a GM tensor or a tile, got {data!r}")
    r0, c0, nr, nc = debug.tile_window(data, offsets, shapes, call.where)
    mem = local(call, data)
    accesses = [(mem, data.footprint(mem, r0, c0, nr, nc), "R")]
    if data.space == "Acc":
        if not isinstance(workspace, GMTensor) or workspace.dtype is not data.dtype:
            raise call.fail("an Acc tile is printed through workspace=, a GM tensor of the tile's dtype")
        rows, cols = data.shape
        if workspace.array.size < rows * cols:
            raise call.fail(f"workspace '{workspace.name}' holds {workspace.array.size} elements; the tile "
                            f"needs {rows * cols}")
        ws = workspace.root[workspace.origin:workspace.origin + rows * cols * data.dtype.itemsize]
        accesses.append((workspace, Footprint.make(workspace.memkey, workspace.origin, 1, 1, ws.size), "W"))
    elif data.space != "Vec":
        raise call.fail(f"{data.name} is in {data.space}: only Vec tiles (and Acc tiles through a workspace) "
                        "can be printed")

    def run_tile():
        v = data.read(mem, r0, c0, nr, nc)
        if data.space == "Acc":
            whole = data.read(mem, 0, 0, *data.shape)
            ws[:] = np.ascontiguousarray(data.dtype.to_storage(whole)).view(np.uint8).reshape(-1)
        _log(call, debug.dump_text(data, v, f"{data.space} tile"))

    return OpPlan(dump_pipe(data.space), costs.vector_cost(nr * nc * data.dtype.itemsize), run_tile, accesses,
                  mutex_of(call))

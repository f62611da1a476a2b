from pto_api.memory import CROSS_CORE_SPACES
from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.base import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        if buf.memory is None:
            yield buf.memory_node or buf.call, {"buffer": buf.name, "space": "an unresolvable memory space"}
        elif buf.memory not in CROSS_CORE_SPACES:
            yield buf.memory_node or buf.call, {"buffer": buf.name, "space": f"`{buf.memory}`"}


RULE = Rule(
    code="PTO028",
    name="cross-core-buffer-memory",
    title="A cross-core buffer is not in UB (Vec) or L1 (Mat)",
    message="cross-core buffer `{buffer}` lives in {space}; cross-core buffers must be in UB (`pl.MemorySpace.Vec`) or L1 (`pl.MemorySpace.Mat`)",
    hint="Declare it with `target_memory=pl.MemorySpace.Vec` or `pl.MemorySpace.Mat` (move Acc results to Vec first)",
    check=check,
    seed="跨核 Buffer 仅支持 UB 和 L1 Buffer",
)

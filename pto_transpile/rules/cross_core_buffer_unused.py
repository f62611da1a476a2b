from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.base import Rule


def check(ctx):
    k = ctx.kernel
    if not k.loops:
        return
    used = {a.buffer for accesses in ctx.scans.values() for stage in accesses for a in stage}
    for buf in cross_core_buffers(k):
        if buf.name not in used:
            yield buf.call, {"buffer": buf.name}


RULE = Rule(
    code="PTO032",
    name="cross-core-buffer-unused",
    title="A cross-core buffer is touched by no stage",
    message="cross-core buffer `{buffer}` declares fwd_ids/bwd_ids but no stage of any pipeline loop touches it",
    hint="Pass `{buffer}` to the producer and the consumer stage, or drop its fwd_ids/bwd_ids",
    check=check,
    seed="一个跨核 Buffer 需要恰好被两个 stage 使用",
)

from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.base import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        for ids in (buf.fwd, buf.bwd):
            if ids is None or ids.values is None:
                continue
            bad = [v for v in ids.values if not 0 <= v <= 15]
            if bad:
                yield ids.node, {"buffer": buf.name, "keyword": ids.keyword, "bad": bad}


RULE = Rule(
    code="PTO025",
    name="event-id-out-of-range",
    title="A cross-core event id is outside 0..15",
    message="cross-core buffer `{buffer}`: {keyword} contains out-of-range event id(s) {bad}; ids must be in 0..15",
    hint="Pick ids from 0 to 15 that no other cross-core buffer of the loop uses",
    check=check,
    seed="fwd_ids/bwd_ids 取值范围为 0~15",
)

from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.base import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        slots = buf.slot_count
        for ids in (buf.fwd, buf.bwd):
            if ids is None or ids.values is None or slots is None:
                continue
            n = len(ids.values)
            if n not in (1, slots):
                yield ids.node, {"buffer": buf.name, "keyword": ids.keyword, "n": n, "slots": slots}


RULE = Rule(
    code="PTO027",
    name="event-id-count",
    title="An event id list is neither one id nor one per tile",
    message="cross-core buffer `{buffer}` declares {n} {keyword} but rotates through {slots} tile(s)",
    hint="Give {slots} ids (one per tile), or a single id shared by all tiles (handovers then serialise)",
    check=check,
    seed="fwd_ids/bwd_ids 的长度只能等于该 Buffer 的 Tile 数 或者等于 1",
)

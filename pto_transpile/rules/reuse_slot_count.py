from pto_transpile.rules.base import Rule
from pto_transpile.scan import overlap_pairs


def check(ctx):
    k = ctx.kernel
    for a, b in overlap_pairs(k):
        na, nb = k.buffers[a].slot_count, k.buffers[b].slot_count
        if na is not None and nb is not None and na != nb:
            yield k.buffers[b].call, {"a": a, "b": b, "na": na, "nb": nb}


RULE = Rule(
    code="PTO030",
    name="reuse-slot-count",
    title="Buffers that share addresses have different tile counts",
    message="address-sharing buffers `{a}` and `{b}` have different tile counts ({na} vs {nb})",
    hint="Give both buffers the same number of tiles",
    check=check,
    seed="复用双方的 Tile 数需要一致",
)

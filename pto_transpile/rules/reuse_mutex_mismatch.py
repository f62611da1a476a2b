from pto_transpile.rules.base import Rule
from pto_transpile.scan import overlap_pairs


def check(ctx):
    k = ctx.kernel
    for a, b in overlap_pairs(k):
        ma, mb = k.buffers[a].mutex_ids, k.buffers[b].mutex_ids
        if ma is not None and mb is not None and ma != mb:
            yield k.buffers[b].mutex_node or k.buffers[b].call, {"a": a, "b": b, "ma": list(ma), "mb": list(mb)}


RULE = Rule(
    code="PTO029",
    name="reuse-mutex-mismatch",
    title="Buffers that share addresses declare different mutex_ids",
    message="`{a}` and `{b}` share addresses but declare different mutex_ids ({ma} vs {mb}); a mutex locks an address",
    hint="Give `{b}` the same `mutex_ids={ma}` as `{a}`",
    check=check,
    seed="地址复用的 Buffer 之间必须声明相同的 mutex_ids",
)

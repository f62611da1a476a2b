from pto_transpile.rules.base import Rule
from pto_transpile.scan import overlap_pairs


def check(ctx):
    k = ctx.kernel
    partners = {}
    for a, b in overlap_pairs(k):
        partners.setdefault(a, []).append(b)
        partners.setdefault(b, []).append(a)
    for name, others in sorted(partners.items()):
        if len(others) > 1:
            yield k.buffers[name].call, {"buffer": name, "others": ", ".join(sorted(others))}


RULE = Rule(
    code="PTO031",
    name="reuse-too-many",
    title="More than two buffers share one address range",
    message="buffer `{buffer}` shares addresses with several buffers ({others}); at most two buffers may share a region",
    hint="Move all but one of {others} to addresses that do not overlap `{buffer}`",
    check=check,
    seed="最多允许两块 Buffer 复用",
)

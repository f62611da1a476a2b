from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.base import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        for ids in (buf.fwd, buf.bwd):
            if ids is not None and ids.problem:
                yield ids.problem_node or ids.node, {"buffer": buf.name, "keyword": ids.keyword, "detail": ids.problem}


RULE = Rule(
    code="PTO026",
    name="event-id-spelling",
    title="Event ids are not a literal integer list or a module-level name bound to one",
    message="cross-core buffer `{buffer}`: {keyword} {detail}",
    hint="Write the ids as a literal list such as `{keyword}=[0, 1]`, or as a name bound to such a list at module level",
    check=check,
    seed="fwd_ids/bwd_ids 只支持两种写法 直接写整数列表 或写一个在 kernel 外绑定到整数列表的变量名",
)

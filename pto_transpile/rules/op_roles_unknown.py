from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO053",
    name="op-roles-unknown",
    title="An op with unknown read/write roles touches a synchronised buffer",
    message="`{op}` touches buffer(s) {buffers}, but which of its arguments it reads or writes is not known",
    hint="Use an op from the supported set on cross-core buffers, or copy through a local tile first",
    phase="analysis",
    seed="K37/K38",
)

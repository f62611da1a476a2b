from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO049",
    name="task-offset-not-multiple",
    title="A sync's task offset is not a multiple of its id count",
    message="sync edge {edge.src.stage} -> {edge.dst.stage} has task offset {skew}, which is not a multiple of its {count} event id(s)",
    hint="Give the buffer one event id per tile, or a single id",
    phase="analysis",
    seed="K59",
)

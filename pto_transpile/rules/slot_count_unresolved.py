from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO050",
    name="slot-count-unresolved",
    title="A synchronised buffer's tile count is not a compile-time constant",
    message="cannot determine how many tiles buffer `{buffer}` has",
    hint="Give `{buffer}` a literal `mutex_ids=[...]` (one entry per tile) or a constant `depth=`",
    phase="analysis",
    seed="K52/K30",
)

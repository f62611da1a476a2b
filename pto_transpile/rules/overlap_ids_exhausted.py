from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO045",
    name="overlap-ids-exhausted",
    title="Not enough free event ids for address-reuse syncs",
    message="not enough free event ids (0-15) for address-reuse reverse syncs: need {need}, have {free} free (used: {used})",
    hint="Free some ids: share one id per buffer (`bwd_ids=[k]`), or stop reusing addresses between these buffers",
    phase="analysis",
    seed="K56: the overlap-id pool is exhausted",
)

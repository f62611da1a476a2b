from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO047",
    name="reuse-order-reversed",
    title="Address reuse needs a later stage to finish before an earlier one",
    message="address reuse requires `{edge.src.stage}` ({edge.src.buffer}) to finish before `{edge.dst.stage}` ({edge.dst.buffer}) writes, but within one task the stage order runs them the other way round",
    hint="Stop sharing addresses between `{edge.src.buffer}` and `{edge.dst.buffer}`",
    phase="analysis",
    seed="K57",
)

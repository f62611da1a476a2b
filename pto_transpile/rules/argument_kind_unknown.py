from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO054",
    name="argument-kind-unknown",
    title="Whether a stage argument must travel with its task cannot be decided",
    message="cannot tell whether `{names}` (passed to stage `{stage}`) is a scalar or a handle, so whether it must travel in the ctx ring",
    hint="Bind `{names}` from a `pl` call, a literal or an annotated parameter so its kind is known",
    phase="analysis",
    seed="spec Decisions 2: say so rather than guess",
)

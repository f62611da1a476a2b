from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO051",
    name="slot-accessor-not-assigned",
    title="Inside a stage, a slot is taken inside a larger expression",
    message="`{group}.{accessor}()` must be assigned to a simple variable (`slot = {group}.{accessor}()`), not used inline",
    hint="Write `slot = {group}.{accessor}()` on its own line and use `slot`",
    phase="analysis",
    seed="K33 (L10)",
)

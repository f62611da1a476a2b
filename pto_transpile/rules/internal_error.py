from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO099",
    name="internal-error",
    title="pto-transpile itself failed",
    message="internal error: {detail}",
    hint="Please report this with the input file at the project's issue tracker",
    phase="analysis",
    seed="(tool) bugs are ours",
)

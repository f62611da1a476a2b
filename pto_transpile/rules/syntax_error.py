from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO001",
    name="syntax-error",
    title="The file is not valid Python",
    message="syntax error: {detail}",
    hint="Fix the syntax at the marked position; nothing else can be checked until the file parses",
    phase="analysis",
    seed="(tool) a kernel file must parse",
)

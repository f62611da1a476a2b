from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO002",
    name="unreadable-file",
    title="The file cannot be read as UTF-8 text",
    message="cannot read `{path}`: {detail}",
    hint="Check the path, and save the file as UTF-8",
    phase="analysis",
    seed="(tool) a kernel file must be readable UTF-8",
)

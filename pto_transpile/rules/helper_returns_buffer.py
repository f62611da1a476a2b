from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO021",
    name="helper-returns-buffer",
    title="A function called from a stage returns a tile or tile group",
    message="`{helper}` is called from a stage and returns `{value}`, a tile or tile group",
    hint="Pass the buffer into `{helper}` as an argument and let it act on it instead of returning it",
    phase="analysis",
    seed="stage 调用的普通函数不能返回 tile 或 tile group",
)

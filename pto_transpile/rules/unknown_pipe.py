from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO052",
    name="unknown-pipe",
    title="The pipe of an op on a synchronised buffer cannot be determined",
    message="cannot determine the pipe of `pl.{op}` ({side}): its tiles do not resolve to declared tile groups",
    hint="Take the tiles of this op from tile groups passed to the stage (`t = g.next()`), so their memory spaces are known",
    phase="analysis",
    seed="K34/K35/K36",
)

from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO048",
    name="inverse-time-sync",
    title="A sync would wait on a task that runs later",
    message="sync edge {edge.src.stage} -> {edge.dst.stage} on `{edge.dst.buffer}` runs inverse-time at this preload: the consumer waits on a task {skew} step(s) ahead",
    hint="Lower the preload, or stop sharing addresses between these buffers",
    phase="analysis",
    seed="K58",
)

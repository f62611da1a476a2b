from pto_transpile.diagnostics import Severity
from pto_transpile.rules.base import Rule

RULE = Rule(
    code="PTO046",
    name="overlap-ids-downgraded",
    title="An address-reuse sync shares one event id across tiles",
    message="too few free event ids: the address-reuse sync into {edge.dst.stage} uses 1 id instead of {wanted}; its tiles will hand over one at a time",
    hint="Free event ids (0-15) to let each tile hand over independently",
    phase="analysis",
    severity=Severity.WARNING,
    seed="地址复用的跨 Buffer WAR 依赖 池不够会把部分边降级为单 id 共用",
)

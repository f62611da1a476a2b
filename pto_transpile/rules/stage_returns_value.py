import libcst as cst

from pto_transpile.rules.base import Rule


def _returns(node):
    found = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, n):
            return n is node

        def visit_Lambda(self, n):
            return False

        def visit_Return(self, n):
            if n.value is not None:
                found.append(n)

    node.visit(_V())
    return found


def check(file):
    for stage in file.stages.values():
        for ret in _returns(stage.node):
            yield ret, {"stage": stage.name}


RULE = Rule(
    code="PTO019",
    name="stage-returns-value",
    title="A stage function returns a value",
    message="stage `{stage}` returns a value; stages act on buffers and must not return anything",
    hint="Write the result into a tile group passed to the stage, and use a bare `return` (or none)",
    phase="file",
    check=check,
    seed="stage 函数不支持有返回值",
)

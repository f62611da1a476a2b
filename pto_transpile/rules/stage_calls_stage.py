import libcst as cst

from pto_transpile.rules._walk import calls_in
from pto_transpile.rules.base import Rule


def _reach(file, fn, path, seen):
    """Yield (call, via) for every stage call reachable from `fn` through plain helpers."""
    for call in calls_in(fn.body):
        if not isinstance(call.func, cst.Name):
            continue
        name = call.func.value
        if name in file.stages:
            yield call, name, path
        elif name in file.helpers and name not in seen:
            yield from _reach(file, file.helpers[name], path + [name], seen | {name})


def check(file):
    for stage in file.stages.values():
        for call, target, via in _reach(file, stage.node, [], {stage.name}):
            yield call, {"stage": stage.name, "target": target,
                         "via": f" via {' -> '.join(via)}" if via else ""}


RULE = Rule(
    code="PTO018",
    name="stage-calls-stage",
    title="A stage calls another stage",
    message="stage `{stage}` calls stage `{target}`{via}; a stage may not contain another stage",
    hint="Call `{target}` from the pipeline loop in its own section block, or make it a plain helper function",
    phase="file",
    check=check,
    seed="不支持 stage 嵌套 stage",
)

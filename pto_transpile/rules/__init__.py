"""The rule catalogue: one module per documented constraint, each holding one `Rule`.

A rule carries its stable code, kebab-case name, message and hint templates, severity and
documentation; its failing and passing example kernels are literal text beside it, in
`examples/<module>.md` (`_example_files`). `check` (when the rule is judged on the model)
yields `(node, fields)` pairs. Rules whose problem is found while
analysing (scan, sync graph, plan) have no `check`: the analysis reports a Finding with
their code. The registry is built by importing every module of this package.
"""

from __future__ import annotations

import importlib
import pkgutil

from pto_transpile.rules.rule import PHASES, Rule

_REGISTRY: dict[str, Rule] = {}


def registry() -> dict[str, Rule]:
    """code -> Rule, for every rule module in this package (imported once)."""
    if not _REGISTRY:
        for info in pkgutil.iter_modules(__path__):
            if info.name.startswith("_") or info.name == "rule":
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            rule = getattr(module, "RULE", None)
            if rule is None:
                continue
            if rule.code in _REGISTRY:
                raise RuntimeError(f"duplicate rule code {rule.code} in {info.name}")
            rule.module = info.name
            _REGISTRY[rule.code] = rule
    return dict(sorted(_REGISTRY.items()))


def rules_for(phase: str) -> list[Rule]:
    return [r for r in registry().values() if r.phase == phase and r.check is not None]


__all__ = ["PHASES", "Rule", "registry", "rules_for"]

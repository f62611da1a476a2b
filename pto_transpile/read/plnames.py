"""Which names refer to `pypto_pro.language`, resolved from the file's imports, not by spelling."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

PL_MODULE = ("pypto_pro", "language")


def _dotted(node: cst.BaseExpression) -> tuple[str, ...] | None:
    if type(node) is cst.Name:
        return (node.value,)
    if type(node) is cst.Attribute:
        base = _dotted(node.value)
        return None if base is None else base + (node.attr.value,)
    return None


def _as_name(alias: cst.ImportAlias) -> str:
    """The name `import ... as name` binds."""
    assert alias.asname is not None
    return cst.ensure_type(alias.asname.name, cst.Name).value


@dataclass
class PlNames:
    """Maps local names to paths inside `pl`.

    `aliases["pl"] == ()` for `import pypto_pro.language as pl`;
    `aliases["pipeline"] == ("pipeline",)` for `from pypto_pro.language import pipeline`;
    `roots["pypto_pro"]` records a bare `import pypto_pro[.language]`.
    """

    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    roots: set[str] = field(default_factory=set)

    @classmethod
    def from_module(cls, module: cst.Module) -> PlNames:
        names = cls()
        for stmt in _module_level_statements(module.body):
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if type(small) is cst.Import:
                    names._add_import(small)
                elif type(small) is cst.ImportFrom:
                    names._add_import_from(small)
        return names

    def _add_import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = _dotted(alias.name) or ()
            if alias.asname is not None:
                if dotted[:2] == PL_MODULE:  # import pypto_pro.language[.sub] as name
                    self.aliases[_as_name(alias)] = dotted[2:]
            elif dotted[:1] == PL_MODULE[:1]:  # import pypto_pro[.language]: used as pypto_pro.language.x
                self.roots.add(dotted[0])

    def _add_import_from(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = _dotted(node.module) or ()
        for alias in node.names:
            name = cst.ensure_type(alias.name, cst.Name).value  # `from m import a.b` is not Python
            target = module + (name,)
            if target[:2] != PL_MODULE:
                continue
            self.aliases[_as_name(alias) if alias.asname is not None else name] = target[2:]

    def path(self, node: cst.BaseExpression) -> tuple[str, ...] | None:
        """`pl.pipeline.stage` -> ("pipeline", "stage"); None if not inside `pl`."""
        return self.resolve(_dotted(node))

    def resolve(self, dotted: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """The path inside `pl` of a dotted name as written (`("pl", "jit")` -> `("jit",)`)."""
        if not dotted:
            return None
        head, rest = dotted[0], dotted[1:]
        if head in self.aliases:
            return self.aliases[head] + rest
        if head in self.roots and rest[:1] == ("language",):
            return rest[1:]
        return None

    def is_(self, node: cst.BaseExpression, *path: str) -> bool:
        return self.path(node) == path

    @property
    def module_ref(self) -> str | None:
        """How generated code spells the `pl` module, or None when the file never binds it."""
        for name, path in self.aliases.items():
            if path == ():
                return name
        if PL_MODULE[0] in self.roots:
            return ".".join(PL_MODULE)
        return None


def const_dtype_argument(call: cst.Call) -> cst.BaseExpression | None:
    """The dtype argument of a `pl.const(value, dtype)` call: the second positional one, or
    `dtype=`; None when it has none."""
    given = [a.value for a in call.args if a.keyword is None][1:2] or \
        [a.value for a in call.args if a.keyword is not None and a.keyword.value == "dtype"]
    return given[0] if given else None


def _module_level_statements(body) -> list:
    """Statements at module level, looking into `if`/`try` blocks (guarded imports)."""
    out = []
    for stmt in body:
        out.append(stmt)
        if type(stmt) in (cst.If, cst.Try):
            out.extend(_module_level_statements(stmt.body.body))
            for handler in getattr(stmt, "handlers", ()):
                out.extend(_module_level_statements(handler.body.body))
            orelse = getattr(stmt, "orelse", None)
            if orelse is not None and hasattr(orelse, "body"):
                inner = orelse.body.body if hasattr(orelse.body, "body") else [orelse.body]
                out.extend(_module_level_statements(inner))
    return out

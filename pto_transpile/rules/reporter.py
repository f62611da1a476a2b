"""The Reporter: runs the rules of each phase on one file and turns every Finding into a
positioned Diagnostic, once."""

from __future__ import annotations

from collections.abc import Iterable

from pto_transpile import codes
from pto_transpile.diagnostics import Diagnostic, Finding, Related
from pto_transpile.read.layout import TooComplex
from pto_transpile.read.source import SourceFile
from pto_transpile.rules import registry, rules_for
from pto_transpile.rules.context import FileContext
from pto_transpile.rules.suppression import Suppressions


class Reporter:
    """Runs the rules of each phase and turns findings into positioned diagnostics.

    Every rule always runs and every diagnostic is kept: `--select`/`--ignore` only decide
    which of them are shown (`Selection`), never whether a kernel is written. A warning on
    a line carrying `# pto-transpile: ignore[CODE]` is dropped here; `finish` reports the
    directives that silenced nothing (PTO096)."""

    def __init__(self, source: SourceFile, skip: Iterable[str] = ()):
        self.source = source
        self.rules = registry()
        self.skip = frozenset(skip)  #: codes switched off (by the test suite only)
        self.diagnostics: list[Diagnostic] = []
        self._seen: set[tuple] = set()
        self.suppressions = Suppressions(source.text, self.rules)

    def report(self, finding: Finding) -> None:
        if finding.code in self.skip:
            return
        span = self.source.span(finding.node)
        related = tuple(Related(message, self.source.span(node).start.line, self.source.span(node).start.column + 1)
                        for message, node in finding.related)
        diagnostic = self.rules[finding.code].diagnostic(finding.fields, self.source.path, span.start.line,
                                                         span.start.column + 1, span.end.line, span.end.column + 1,
                                                         related)
        key = (diagnostic.code, diagnostic.line, diagnostic.column, diagnostic.message)
        if key in self._seen:
            return
        self._seen.add(key)
        if not self.suppressions.silences(diagnostic):
            self.diagnostics.append(diagnostic)

    def report_all(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            self.report(finding)

    def run(self, phase: str, ctx: FileContext) -> None:
        """Judge `ctx` by every rule of `phase`. A rule that crashes is a bug of ours, not of the
        input: it is reported as an internal error naming the rule, and the other rules still run.
        Input too large or deep to analyse is the input's problem (PTO097), raised to the driver."""
        for rule in rules_for(phase):
            if rule.code in self.skip or rule.check is None:
                continue
            try:
                for node, fields in rule.check(ctx):
                    self.report(Finding.of_check(rule.code, node, fields))
            except (TooComplex, RecursionError):
                raise
            except Exception as exc:
                detail = f"rule {rule.code} ({rule.name}) crashed: {type(exc).__name__}: {exc}"
                self.report(Finding(codes.INTERNAL_ERROR, ctx.anchor, {"detail": detail}))

    def finish(self) -> list[Diagnostic]:
        """Every diagnostic, with one PTO096 per suppression comment that silenced nothing."""
        rule = self.rules[codes.USELESS_SUPPRESSION]
        errors = self.has_errors
        for sup in self.suppressions.all:
            for detail in sup.unused(errors):
                self.diagnostics.append(rule.diagnostic({"directive": sup.text, "detail": detail}, self.source.path,
                                                        sup.line, sup.column, sup.line, sup.end_column))
        return self.diagnostics

    @property
    def error_count(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    def has_errors_of(self, codes: frozenset[str]) -> bool:
        return any(d.is_error and d.code in codes for d in self.diagnostics)

    @property
    def has_errors(self) -> bool:
        return self.error_count > 0

"""The Rule record: a rule's code, texts, examples and check (its contexts are in context.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pto_transpile.diagnostics import Diagnostic, Related, Severity
from pto_transpile.rules._example_files import examples_of

#: When a rule's `check` runs: on the file, on each kernel's model, on each pipeline loop
#: once its stages are scanned and scheduled, on each loop's sync graph (given a FileContext,
#: KernelContext or LoopContext); "analysis" rules have no check (the analysis step reports them).
PHASES = ("file", "kernel", "loop", "graph", "analysis")
_FIELD = re.compile(r"\{([A-Za-z_][\w.]*)\}")


def unfilled(template: str) -> str:
    """A message or hint template as a reader sees it without a finding: `{stage}` -> `<stage>`."""
    return _FIELD.sub(lambda m: "<" + m.group(1).replace("_", " ").replace(".", " ") + ">", template)


@dataclass
class Rule:
    code: str
    name: str
    title: str
    message: str  #: str.format template over the fields a check yields
    hint: str  #: imperative fix, also a template
    #: other hints a check picks by yielding `_hint=<key>` (when the usual fix would be wrong)
    hints: dict[str, str] = field(default_factory=dict)
    #: other messages a check picks by yielding `_message=<key>` (a different reading of the same fault)
    messages: dict[str, str] = field(default_factory=dict)
    phase: str = "kernel"
    severity: Severity = Severity.ERROR
    doc: str = ""  #: markdown: What it checks / Why it matters for pipelining / Example / Use instead
    check: Callable[[Any], Iterable[tuple[Any, dict]]] | None = None
    seed: str = ""  #: the constraint this rule enforces, in one English sentence
    #: for a rule with no `check`: the modules (paths from the repository root) whose step
    #: finds the problem and reports it under this rule's code
    raised_by: tuple[str, ...] = ()
    module: str = field(default="", repr=False)

    @property
    def invalid(self) -> tuple[str, ...]:
        """Failing kernels, `# E: PTOxxx` marking each expected line (`rules/examples/<module>.md`)."""
        return examples_of(self.module)[0]

    @property
    def valid(self) -> tuple[str, ...]:
        """Passing kernels (`rules/examples/<module>.md`)."""
        return examples_of(self.module)[1]

    @property
    def help_text(self) -> str:
        """The hint without a finding to fill it: each `{field}` reads `<field>` (for SARIF rule
        help, `--explain` and the rule reference)."""
        return unfilled(self.hint)

    def format(self, fields: dict) -> tuple[str, str]:
        hint = self.hints[fields["_hint"]] if "_hint" in fields else self.hint
        message = self.messages[fields["_message"]] if "_message" in fields else self.message
        return message.format(**fields), hint.format(**fields)

    def diagnostic(self, fields: dict, path: str, line: int, column: int, end_line: int | None = None,
                   end_column: int | None = None, related: tuple[Related, ...] = ()) -> Diagnostic:
        """This rule's diagnostic from 1-based `line`/`column` (to one character further, unless
        an end is given), its message and hint filled in from `fields`."""
        message, hint = self.format(fields)
        end_line = line if end_line is None else end_line
        end_column = column + 1 if end_column is None else end_column
        return Diagnostic(self.code, self.name, self.severity, path, line, column, end_line, end_column,
                          message, hint, related)

"""`--report FILE.html`: the simulated runs, bounds, candidates, diagnostics and diff on one page."""

from pto_transpile.output.report.page import render_report

__all__ = ["render_report"]

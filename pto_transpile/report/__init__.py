"""`--report FILE.html`: the simulated runs, bounds, candidates, diagnostics and diff on one page."""

from pto_transpile.report.page import render_report

__all__ = ["render_report"]

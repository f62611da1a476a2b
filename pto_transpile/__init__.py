"""pto-transpile: serial cube/vector PyPTO kernels in, pipelined kernels with every cross-core sync out.

    from pto_transpile import transpile
    result = transpile(source_text, preload=2, path="kernel.py")
    result.code          # the generated file (None when there are errors)
    result.diagnostics   # every problem found, with positions, messages and hints
"""

from pto_transpile.api import transpile
from pto_transpile.diagnostics import Diagnostic, Severity
from pto_transpile.preload import Auto
from pto_transpile.results import TranspileResult

__version__ = "0.1.0"  #: the one place the version is written (pyproject.toml reads it from here)

__all__ = ["Auto", "Diagnostic", "Severity", "TranspileResult", "__version__", "transpile"]

"""pto-transpile: serial cube/vector PyPTO kernels in, pipelined kernels with every cross-core sync out.

    from pto_transpile import transpile
    result = transpile(source_text, preload=2, path="kernel.py")
    result.code          # the generated file (None when there are errors)
    result.diagnostics   # every problem found, with positions, messages and hints

`transpile()` never imports or runs the file. `choose_preload(text, ...)` does, on the
emulator: it returns the preload `--preload auto` would choose, to pass to `transpile()`.

The names below are imported when first used (PEP 562): `pto-transpile --version` and
`--help` then cost the interpreter's start and click, not libcst and the analysis.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"  #: the one place the version is written (pyproject.toml reads it from here)

#: public name -> the module that defines it
_LAZY = {
    "transpile": "pto_transpile.driver",
    "Diagnostic": "pto_transpile.diagnostics",
    "Severity": "pto_transpile.diagnostics",
    "Auto": "pto_transpile.preload",
    "choose_preload": "pto_transpile.simulate.autopreload",
    "TranspileResult": "pto_transpile.results",
}

__all__ = ["Auto", "Diagnostic", "Severity", "TranspileResult", "__version__", "choose_preload", "transpile"]

if TYPE_CHECKING:
    from pto_transpile.diagnostics import Diagnostic, Severity
    from pto_transpile.driver import transpile
    from pto_transpile.preload import Auto
    from pto_transpile.results import TranspileResult
    from pto_transpile.simulate.autopreload import choose_preload


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pto_transpile' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

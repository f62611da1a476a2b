"""The golden cases: golden/<case>/input.py and the reviewed output per preload.

`expected_p<N>.py` is the generated kernel at preload N; `expected_p<N>.diag` holds the
rendered diagnostics when preload N is rejected. Regenerate after an intended change with

    PTO_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py

and review the diff (`git diff golden/`) before committing.
"""

from __future__ import annotations

from pathlib import Path

from pto_transpile.driver import transpile
from pto_transpile.output.render import render_text

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
#: preloads every case is generated at; None is the kernel's own `PipelineConfig` (file `expected_default`)
PRELOADS = (0, 1, 2, 3, None)


def label(preload) -> str:
    return "default" if preload is None else f"p{preload}"


def cases() -> list[Path]:
    return sorted(p for p in GOLDEN.iterdir() if (p / "input.py").is_file())


def long_proof(case: Path, preload) -> bool:
    """A case whose proof takes seconds: a kernel of `pl.DYNAMIC` rows, proven for every size by
    dozens of runs, at any preload (tests/test_flash_attention_transpile.py transpiles the bundled
    one by default). The default suite leaves these to `pytest -m campaign`, which `.ci/run` runs
    as well."""
    return "pl.DYNAMIC" in (case / "input.py").read_text(encoding="utf-8")


def generate(case: Path, preload: int) -> tuple[str, str]:
    """(file suffix, content) of the expected output of `case` at `preload`."""
    rel = f"golden/{case.name}/input.py"
    text = (case / "input.py").read_text(encoding="utf-8")
    result = transpile(text, preload=preload, path=rel)
    if result.ok:
        return ".py", result.code
    return ".diag", render_text(result.diagnostics, {rel: text})

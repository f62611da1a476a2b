"""A kernel with a decorator of the file above `@pl.jit` that wraps it with `functools.wraps`:
pto-transpile proves and writes it, and `--simulate` said "'tiled_scale_kernel' is not a @pl.jit
kernel", reported as PTO095, the serial kernel found wrong (probe h242). The emulator runs the
`@pl.jit` kernel behind the wrapper (its `__wrapped__`), the kernel the check proved."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from helpers import ROOT, edited
from pto_transpile.cli import main

TILED = (ROOT / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
JIT = "@pl.jit(auto_mutex=True, tiling_key=EpilogueKey"
WRAPPER = '''def traced(fn):
    """Logs nothing: a pass-through wrapper, as a tracing decorator of a project is."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@traced
'''
WRAPPED = edited(TILED, [("import os\n", "import functools\nimport os\n"), (JIT, WRAPPER + JIT)])


def test_a_kernel_wrapped_above_its_jit_is_simulated(tmp_path: Path):
    kernel = tmp_path / "k.py"
    kernel.write_text(WRAPPED, encoding="utf-8")
    args = [str(kernel), "--simulate", "--shape", "a=64x32", "--shape", "out=64x32", "--arg", "ApplyRelu=1",
            "--arg", "scale=0.5", "-j", "1", "-o", str(tmp_path / "out.py")]
    r = CliRunner().invoke(main, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "not a @pl.jit kernel" not in r.output and (tmp_path / "out.py").exists(), r.output


def test_a_wrapper_without_wraps_is_named(tmp_path: Path):
    """Without `functools.wraps` the emulator cannot reach the kernel: it failed inside the emulator
    ('function' object has no attribute 'fn'), reported as the serial kernel found wrong (probe h245)."""
    kernel = tmp_path / "k.py"
    kernel.write_text(WRAPPED.replace("    @functools.wraps(fn)\n", ""), encoding="utf-8")
    args = [str(kernel), "--simulate", "--shape", "a=64x32", "--shape", "out=64x32", "--arg", "ApplyRelu=1",
            "--arg", "scale=0.5", "-j", "1", "-o", str(tmp_path / "out.py")]
    r = CliRunner().invoke(main, args, catch_exceptions=False)
    assert r.exit_code == 2 and "is bound to what a decorator above its @pl.jit returns" in r.output, r.output

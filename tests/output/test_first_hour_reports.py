"""What a first hour at the command line met (probe h217): diagnostics of a file saved with old Mac
line endings (a lone `\\r`) placed by `\\n` alone, on the wrong line; a `--shape` too large for the
machine blamed on the kernel (PTO095, numpy's MemoryError); `--timeline` over several files keeping
the last trace only while saying it wrote each; `--help | true` exiting 1 where every other run
whose reader goes away exits 141; `--block-dim 100000` ending with the emulator out of memory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import DYNAMIC_ROWS, DYNAMIC_ROWS_LOOP, ROOT, edited
from pto_transpile import transpile
from pto_transpile.cli import main
from sim_runtime.errors import KernelError
from sim_runtime.machine import MAX_BLOCK_DIM, Machine

#: both stage calls in one cube section: PTO010 at the second call
TWO_IN_ONE = DYNAMIC_ROWS_LOOP.replace("        with pl.section_vector():\n", "")


def test_a_file_with_lone_cr_line_endings_is_placed_as_with_lf():
    text = edited(DYNAMIC_ROWS.read_text(encoding="utf-8"), [(DYNAMIC_ROWS_LOOP, TWO_IN_ONE)])
    (lf,) = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    (cr,) = [d for d in transpile(text.replace("\n", "\r"), path="k.py").diagnostics if d.is_error]
    assert lf.line == text[:text.index("            scale_store(ki, sub_id")].count("\n") + 1
    assert (cr.code, cr.line, cr.column, cr.end_line) == (lf.code, lf.line, lf.column, lf.end_line)


def test_a_shape_too_large_for_the_emulator_is_a_usage_error(tmp_path):
    huge = "99999999999x32"
    result = CliRunner().invoke(main, [str(DYNAMIC_ROWS), "--simulate", "--shape", f"a={huge}", "--shape",
                                       f"out={huge}", "-o", str(tmp_path / "out.py")])
    assert result.exit_code == 2, result.output
    assert "a=99999999999x32 has 3,199,999,999,968 elements, more than the emulator holds" in result.output
    assert not (tmp_path / "out.py").exists()


@pytest.mark.parametrize("how", [["--simulate"], ["--preload", "auto"]])
def test_more_blocks_than_the_emulator_launches_is_a_usage_error(tmp_path, how):
    """`--block-dim 100000` had the emulator killed for want of memory, reported as an internal error."""
    result = CliRunner().invoke(main, [str(DYNAMIC_ROWS), *how, "--shape", "a=96x32", "--shape", "out=96x32",
                                       "--block-dim", "100000", "-o", str(tmp_path / "out.py")])
    assert result.exit_code == 2, result.output
    assert f"100000 blocks are more than the emulator launches ({MAX_BLOCK_DIM})" in result.output
    assert not (tmp_path / "out.py").exists()


def test_the_help_names_the_emulator_limit():
    result = CliRunner().invoke(main, ["--help"], terminal_width=200)
    assert f"at most {MAX_BLOCK_DIM}, what the emulator launches" in " ".join(result.output.split())


def test_the_emulator_refuses_more_blocks_than_it_launches():
    with pytest.raises(KernelError, match="more than the emulator launches"):
        Machine(block_dim=MAX_BLOCK_DIM + 1)


def test_a_timeline_takes_one_input_file(tmp_path):
    result = CliRunner().invoke(main, [str(DYNAMIC_ROWS), str(ROOT / "examples" / "seed_demo.py"), "--simulate",
                                       "--shape", "a=96x32", "--shape", "out=96x32", "--timeline",
                                       str(tmp_path / "t.json"), "-o", f"{tmp_path}/out/"])
    assert result.exit_code == 2, result.output
    assert "--timeline takes one input file" in result.output
    assert not (tmp_path / "t.json").exists()


def test_the_help_to_a_closed_pipe_exits_as_every_run_does():
    """`pto-transpile --help | true`: the console script answers the help itself (`entry.py`)."""
    code = "import sys; sys.argv = ['pto-transpile', '--help']; from pto_transpile.entry import main; main()"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.close()  # the reader goes away before the help is written
    proc.wait(timeout=60)
    assert proc.returncode == 141, proc.stderr.read()


def test_a_syntax_error_on_the_first_line_of_a_file_with_a_bom_is_placed_at_its_column(tmp_path):
    """Through the command line, Python was given the file's name, read the line again from the
    disk, BOM and all, and placed the error 2 columns short (probe h231)."""
    path = tmp_path / "k.py"
    path.write_bytes(b"\xef\xbb\xbfx = (1 +)\n")
    result = CliRunner().invoke(main, [str(path), "--format", "github", "--check"])
    assert result.exit_code == 1, result.output
    assert ",line=1,col=9,endLine=1,endColumn=10,title=PTO001" in result.output, result.output


@pytest.mark.skipif(not Path("/dev/stdout").exists(), reason="no /dev/stdout on this system")
def test_an_output_named_by_the_path_of_stdout_is_stdout():
    """`-o /dev/stdout --format json`: the code and the report shared the stream (probe h231); the
    report goes to stderr, as with `-o -`."""
    demo = str(ROOT / "examples" / "seed_demo.py")
    done = subprocess.run([sys.executable, "-m", "pto_transpile", demo, "-o", "/dev/stdout", "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(Path(demo).read_text(encoding="utf-8")[:20]), done.stdout[:200]
    assert json.loads(done.stderr) == [], done.stderr

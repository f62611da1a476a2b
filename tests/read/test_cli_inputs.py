"""What the command reads and where it writes: directories, stdin, line endings, BOM, stems."""

from __future__ import annotations

import shutil
import subprocess
import sys

from click.testing import CliRunner

from helpers import DEMO
from pto_transpile import transpile
from pto_transpile.cli import main
from pto_transpile.read.excludes import Excludes


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def demo_code(text=None, path="k.py") -> str:
    return transpile(text if text is not None else DEMO.read_text(), path=path).code


# -- directories -----------------------------------------------------------------------------

def _tree(root):
    """A project: two kernels, a helper without a kernel, a build output and an excluded folder."""
    for rel in ("src/a/kernel.py", "src/b/kernel.py", "build/seed/pipeline_generated.py",
                "src/vendor/third.py", "src/notes.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(DEMO, root / "src/a/kernel.py")
    shutil.copy(DEMO, root / "src/b/kernel.py")
    shutil.copy(DEMO, root / "src/vendor/third.py")
    (root / "src/helpers.py").write_text("def helper():\n    return 1\n")
    (root / "build/seed/pipeline_generated.py").write_text(demo_code())
    (root / "src/notes.txt").write_text("not python\n")
    (root / "pyproject.toml").write_text('[tool.pto-transpile]\nextend-exclude = ["src/vendor/"]\n')


def test_a_directory_is_walked_for_kernel_files_honouring_excludes(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    r = run(".", "--check", "--format", "json")
    assert r.exit_code == 0, r.output
    assert r.output.strip() == "[]"  # helpers.py has no kernel: skipped quietly; build/ and vendor/ not read
    r = run("src", "--format", "json")
    assert r.exit_code == 0, r.output
    assert sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "build").rglob("*.py")) == [
        "build/seed/pipeline_generated.py",
        "build/src/a/kernel/pipeline_generated.py",
        "build/src/b/kernel/pipeline_generated.py",
    ]


def test_a_file_named_on_the_command_line_is_read_even_when_excluded(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    r = run("src/vendor/third.py", "--check")
    assert r.exit_code == 0 and r.output == ""


def test_exclude_replaces_the_default_excludes(tmp_path, monkeypatch):
    _tree(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.pto-transpile]\nexclude = ["src/"]\n')
    monkeypatch.chdir(tmp_path)
    r = run(".", "--check")
    assert r.exit_code == 0 and "PTO060" in r.output and "build/seed/pipeline_generated.py" in r.output


def test_a_directory_without_python_files_is_a_usage_error(tmp_path):
    (tmp_path / "empty").mkdir()
    r = run(tmp_path / "empty", "--check")
    assert r.exit_code == 2 and "no Python files" in r.output


def test_gitignore_style_patterns():
    ex = Excludes(["build", "/top.py", "docs/*.py", "**/gen/*.py", "cache/", "!keep.py", "*.tmp.py", "keep.py"])
    assert ex.excluded("build", True) and ex.excluded("a/build", True)
    assert ex.excluded("top.py", False) and not ex.excluded("a/top.py", False)
    assert ex.excluded("docs/x.py", False) and not ex.excluded("docs/sub/x.py", False)
    assert ex.excluded("gen/x.py", False) and ex.excluded("a/b/gen/x.py", False)
    assert ex.excluded("a/cache", True) and not ex.excluded("a/cache", False)
    assert ex.excluded("keep.py", False)  # the last pattern that matches decides
    assert not Excludes(["*.py", "!keep.py"]).excluded("a/keep.py", False)


# -- stdin -------------------------------------------------------------------------------------

def test_dash_reads_stdin_and_prints_the_kernel():
    r = run("-", input=DEMO.read_text())
    assert r.exit_code == 0 and r.stdout == demo_code(path="<stdin>")


def test_dash_diagnostics_name_stdin():
    r = run("-", "--check", "--format", "json", input=DEMO.read_text().replace("fwd_ids=[0, 1],", "fwd_ids=[0, 16],"))
    assert r.exit_code == 1 and '"path": "<stdin>"' in r.stdout


def test_stdin_in_a_real_pipe():
    proc = subprocess.run([sys.executable, "-m", "pto_transpile", "-", "--preload", "1"], input=DEMO.read_text(),
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == transpile(DEMO.read_text(), preload=1).code


# -- bytes kept --------------------------------------------------------------------------------

def test_a_utf8_bom_is_kept(tmp_path):
    src = tmp_path / "k.py"
    src.write_bytes(b"\xef\xbb\xbf" + DEMO.read_bytes())
    out = tmp_path / "o.py"
    assert run(src, "-o", out).exit_code == 0
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data[3:] == demo_code().encode()


def _check_with_line_endings(tmp_path, newline: str):
    src = tmp_path / "k.py"
    src.write_bytes(DEMO.read_bytes().replace(b"\n", newline.encode()))
    out = tmp_path / "o.py"
    assert run(src, "-o", out).exit_code == 0
    assert newline.encode() in out.read_bytes() and out.read_bytes().count(b"\n") == (
        out.read_bytes().count(b"\r\n") if newline == "\r\n" else 0)
    return src, out


def test_check_on_crlf_files_is_not_out_of_date(tmp_path):
    src, out = _check_with_line_endings(tmp_path, "\r\n")
    r = run(src, "--check", "-o", out)
    assert r.exit_code == 0 and r.output == ""
    r = run(src, "--check", "--diff", "-o", out)
    assert r.exit_code == 0 and r.output == ""


def test_check_on_cr_only_files_is_not_out_of_date(tmp_path):
    src, out = _check_with_line_endings(tmp_path, "\r")
    r = run(src, "--check", "--diff", "-o", out)
    assert r.exit_code == 0 and r.output == ""


def test_diff_of_a_crlf_file_shows_only_what_changed(tmp_path):
    src, out = _check_with_line_endings(tmp_path, "\r\n")
    stale = out.read_bytes().replace(b"_pl_ctx_arr[_pl_task_id % 4]", b"_pl_ctx_arr[_pl_task_id % 5]", 1)
    out.write_bytes(stale)
    r = run(src, "--check", "--diff", "-o", out)
    changed = [line for line in r.stdout.splitlines()
               if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
    assert r.exit_code == 1 and len(changed) == 2, changed


# -- outputs -----------------------------------------------------------------------------------

def test_o_dir_writes_every_input_at_its_relative_path(tmp_path, monkeypatch):
    for d in ("x", "y"):
        (tmp_path / d).mkdir()
        shutil.copy(DEMO, tmp_path / d / "input.py")
    monkeypatch.chdir(tmp_path)
    r = run("x/input.py", "y/input.py", "-o", "out/")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == ["wrote out/x/input.py", "wrote out/y/input.py"]
    assert (tmp_path / "out/y/input.py").read_text() == demo_code()


def test_o_file_with_several_inputs_is_a_usage_error(tmp_path):
    r = run(DEMO, DEMO.parent / "two_loops.py", "-o", tmp_path / "o.py")
    assert r.exit_code == 2 and "-o DIR/" in r.output


def test_stdin_under_o_dir_is_a_usage_error(tmp_path):
    r = run("-", "-o", f"{tmp_path}/", input=DEMO.read_text())
    assert r.exit_code == 2 and "standard input" in r.output and list(tmp_path.iterdir()) == []

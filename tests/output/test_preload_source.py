"""A report of errors in a kernel pipelined at a preload it was given, not its own, says where that
preload came from (study ux3: "at preload 7" of a kernel whose `PipelineConfig` says 2, and nothing
said the 7 was pyproject.toml's)."""

from __future__ import annotations

from click.testing import CliRunner

from helpers import DEMO
from pto_transpile.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_the_preload_s_source_is_named_beside_its_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(DEMO.read_text())
    (tmp_path / "pyproject.toml").write_text("[tool.pto-transpile]\npreload = 7\n")
    r = run("k.py", "--check")
    assert r.exit_code == 1 and "error[PTO043]" in r.output
    assert ("note: k.py: kernel `pipeline_demo_kernel` was checked at preload 7 (`preload = 7` in "
            "[tool.pto-transpile] of pyproject.toml), not at its own `PipelineConfig(preload=2)`") in r.output
    r = run("k.py", "--check", "--preload", "5")
    assert r.exit_code == 1 and "at preload 5 (`--preload 5`), not at its own" in r.output


def test_no_note_when_the_kernel_is_clean_or_runs_at_its_own_preload(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(DEMO.read_text())
    assert "was checked at" not in run("k.py", "--check", "--preload", "1").output
    (tmp_path / "pyproject.toml").write_text("[tool.pto-transpile]\npreload = 2\n")
    assert "was checked at" not in run("k.py", "--check").output


def test_the_note_quotes_the_kernels_own_config_as_written(tmp_path, monkeypatch):
    """Probe h254: a kernel marked `PipelineConfig(preload=1, sync_only=True)` was said to have its
    own `PipelineConfig(preload=0)`, and a refused kernel to have been pipelined."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(DEMO.read_text().replace("PipelineConfig(preload=2)",
                                                            "PipelineConfig(preload=1, sync_only=True)"))
    r = run("k.py", "--check", "--preload", "7")
    assert r.exit_code == 1, r.output
    assert ("kernel `pipeline_demo_kernel` was checked at preload 7 (`--preload 7`), not at its own "
            "`PipelineConfig(preload=1, sync_only=True)`") in r.output, r.output


def test_a_multi_line_config_is_quoted_on_one_line_without_its_comments(tmp_path, monkeypatch):
    """Probe h255: the note quoted a config written over three lines as written, comment and all."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(DEMO.read_text().replace(
        "PipelineConfig(preload=2)", "PipelineConfig(\n    preload=2,  # measured\n)"))
    r = run("k.py", "--check", "--preload", "7")
    assert r.exit_code == 1, r.output
    assert "not at its own `PipelineConfig(preload=2)`" in r.output, r.output

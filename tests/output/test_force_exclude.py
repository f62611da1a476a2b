"""`--force-exclude` applies the excludes to files named on the command line, as the shipped
pre-commit hook needs: pre-commit names every staged file, and the README's own
`extend-exclude = ["tests/fixtures/"]` left a deliberately bad fixture checked (probe h91)."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from pto_transpile.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_named_files_the_excludes_leave_out_are_left_out_with_force_exclude(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.pto-transpile]\nextend-exclude = ["tests/fixtures/"]\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "seed_demo.py", tmp_path / "src" / "k.py")
    bad = (ROOT / "examples" / "seed_demo.py").read_text().replace("fwd_ids=[0, 1]", "fwd_ids=[0, 99]", 1)
    assert "99" in bad
    (tmp_path / "tests" / "fixtures" / "bad.py").write_text(bad)
    assert run("--check", "src/k.py", "tests/fixtures/bad.py").exit_code == 1  # named: read
    r = run("--check", "--force-exclude", "src/k.py", "tests/fixtures/bad.py")
    assert r.exit_code == 0 and "bad.py" not in r.output, r.output
    r = run("--check", "--force-exclude", "tests/fixtures/bad.py")  # every file left out: nothing to do
    assert r.exit_code == 0 and r.output == ""


def test_the_pre_commit_hook_forces_the_excludes():
    assert "entry: pto-transpile --check --force-exclude\n" in (ROOT / ".pre-commit-hooks.yaml").read_text()

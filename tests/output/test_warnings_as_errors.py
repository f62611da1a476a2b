"""`--warnings-as-errors` (or `warnings-as-errors = true` in [tool.pto-transpile]): a CI job that
wants no warning at all fails on one (study ux3: a PTO042 warning exited 0, and nothing could
make it fail the job). A warning shown is then an error in every format, exit status 1, and its
file's output is not written; a warning --ignore hides stays hidden."""

from __future__ import annotations

import json

from click.testing import CliRunner

from helpers import DEMO
from pto_transpile.cli import main

#: a suppression that silences nothing: a warning (PTO096) on a kernel that is otherwise clean
WARNED = DEMO.read_text().replace("\nTILE = ", "\n# pto-transpile: ignore[PTO042]\nTILE = ", 1)


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_a_warning_is_an_error_that_keeps_the_output_unwritten(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(WARNED)
    plain = run("k.py", "-o", "plain.py")
    assert plain.exit_code == 0 and "warning[PTO096]" in plain.output and (tmp_path / "plain.py").exists()
    strict = run("k.py", "-o", "strict.py", "--warnings-as-errors")
    assert strict.exit_code == 1 and "error[PTO096]" in strict.output and "[--warnings-as-errors]" in strict.output
    assert not (tmp_path / "strict.py").exists()
    records = json.loads(run("k.py", "--check", "--warnings-as-errors", "--format", "json").output)
    assert [(r["code"], r["severity"]) for r in records] == [("PTO096", "error")]
    hidden = run("k.py", "-o", "hidden.py", "--warnings-as-errors", "--ignore", "PTO096")
    assert hidden.exit_code == 0 and (tmp_path / "hidden.py").exists()


def test_the_project_setting_does_the_same_and_must_be_a_boolean(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(WARNED)
    (tmp_path / "pyproject.toml").write_text("[tool.pto-transpile]\nwarnings-as-errors = true\n")
    assert run("k.py", "--check").exit_code == 1
    assert run("k.py", "--check").output.count("error[PTO096]") == 1
    (tmp_path / "pyproject.toml").write_text('[tool.pto-transpile]\nwarnings-as-errors = "yes"\n')
    r = run("k.py", "--check")
    assert r.exit_code == 2 and "`warnings-as-errors` in [tool.pto-transpile] must be true or false" in r.output

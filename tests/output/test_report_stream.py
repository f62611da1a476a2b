"""Where the report goes: stdout, in any format, unless stdout carries the code (`-o -`, or
`-` without `-o` in text) or a diff (--diff); then stderr. The stream is decided by the
command line alone, never by whether the kernel has errors or comes from stdin."""

import json

import pytest
from click.testing import CliRunner

from helpers import DEMO
from pto_transpile.cli import main

GOOD = DEMO.read_text(encoding="utf-8")
BAD = GOOD.replace("fwd_ids=[0, 1],", "fwd_ids=[0, 16],")  # PTO025


def run(*args, stdin=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin, catch_exceptions=False)


def _report(stream: str, fmt: str):
    if fmt == "sarif":
        return json.loads(stream)["runs"][0]["results"]
    return json.loads(stream)


@pytest.fixture
def bad(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(BAD, encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["json", "sarif"])
@pytest.mark.parametrize("how", ["file", "stdin", "stdin --check"])
def test_the_report_of_a_bad_kernel_is_on_stdout(bad, fmt, how):
    args = [bad] if how == "file" else ["-", *how.split()[1:]]
    r = run(*args, "--format", fmt, stdin=None if how == "file" else BAD)
    assert r.exit_code == 1 and r.stderr == "", r.stderr
    assert [d.get("code") or d.get("ruleId") for d in _report(r.stdout, fmt)] == ["PTO025"]


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_standard_input_without_o_is_checked_not_printed_with_a_machine_format(fmt):
    r = run("-", "--format", fmt, stdin=GOOD)
    assert r.exit_code == 0 and "def pipeline_demo_kernel" not in r.output, r.output
    if fmt != "github":
        assert _report(r.stdout, fmt) == []


def test_standard_input_in_text_still_prints_the_code():
    r = run("-", stdin=GOOD)
    assert r.exit_code == 0 and "def pipeline_demo_kernel" in r.stdout and r.stderr == ""


@pytest.mark.parametrize("args", [["-o", "-"], ["--diff"]], ids=["code", "diff"])
def test_the_report_moves_to_stderr_when_stdout_carries_code_or_a_diff(args):
    r = run(DEMO, *args, "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stderr) == [] and not r.stdout.lstrip().startswith("["), r.stdout[:200]
    r = run("-", *args, "--format", "json", stdin=BAD)
    assert r.exit_code == 1 and [d["code"] for d in json.loads(r.stderr)] == ["PTO025"]


def test_notes_beside_a_diff_go_to_stderr():
    r = run(DEMO, "--diff", "--provenance")
    assert r.exit_code == 0 and r.stdout.startswith("--- ") and "inserted" not in r.stdout.split("\n+++")[0]
    assert all(line[:1] in " +-@\\" for line in r.stdout.splitlines()), r.stdout
    assert r.stderr.strip(), "the provenance table goes to stderr"

"""A standard output that takes nothing, or Ctrl-C, ends a run in CLI words, not as a bug (probe h91).

Started with stdout closed (`>&-`), the kernel printed with `-o -` went nowhere, exit 0, and a
text report was an internal error (AttributeError). A full stdout (`> /dev/full`) was "a bug in
pto-transpile". Ctrl-C exited 1, the status of a kernel with errors.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pto_transpile import cli

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "seed_demo.py"


def _run(stdout, preexec=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pto_transpile", str(DEMO), "-o", "-"], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=preexec, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_closed_stdout_is_a_usage_error():
    done = _run(None, preexec=lambda: os.close(1))
    assert done.returncode == 2 and "standard output is closed" in done.stderr, done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_stdout_is_an_unwritable_output_not_a_bug():
    with open("/dev/full", "w") as full:
        done = _run(full)
    assert done.returncode == 2 and "cannot write the output: No space left on device" in done.stderr, done.stderr
    assert "bug" not in done.stderr


def test_ctrl_c_ends_the_run_with_130(monkeypatch):
    def interrupted(run):
        raise KeyboardInterrupt

    monkeypatch.setattr("pto_transpile.output.run.run_files", interrupted)
    r = CliRunner().invoke(cli.main, [str(DEMO), "-o", "-"])
    assert r.exit_code == 130 and "interrupted" in r.output


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_usage_error_still_prints_a_document_in_json_and_sarif(fmt):
    # a CI step parsing stdout got nothing and a parse error instead of the reason (study ux1)
    import json

    tiled = Path(__file__).parents[2] / "examples" / "tiled_scale.py"
    r = CliRunner().invoke(cli.main, [str(tiled), "--simulate", "--format", fmt], catch_exceptions=False)
    assert r.exit_code == 2
    doc = json.loads(r.stdout)
    if fmt == "json":
        assert doc[0]["code"] == "usage" and "--shape a=D0x32" in doc[0]["message"], doc
    else:
        (invocation,) = doc["runs"][0]["invocations"]
        assert invocation["executionSuccessful"] is False and doc["runs"][0]["results"] == []
        assert "--shape a=D0x32" in invocation["toolExecutionNotifications"][0]["message"]["text"]

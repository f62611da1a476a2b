"""Each failure to write or check an output gets the help that fits its cause, and a
misspelt code in a suppression comment gets a "did you mean"."""

import errno
import json
import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import DEMO
from pto_transpile import transpile
from pto_transpile.cli import main

DEFAULT_PTO098 = "Check that the directory exists and is writable, or choose another path"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _record(r):
    records = json.loads(r.stdout)
    assert len(records) == 1, records
    return records[0]


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "Free space on that file system"),
                                         (errno.EDQUOT, "Free space on that file system"),
                                         (errno.EACCES, "Make the directory (or the file) writable"),
                                         (errno.EROFS, "Make the directory (or the file) writable")])
def test_a_refused_write_gets_the_help_of_its_cause(tmp_path, monkeypatch, code, words):
    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    r = run(DEMO, "-o", tmp_path / "out.py", "--format", "json")
    record = _record(r)
    assert r.exit_code == 2 and record["code"] == "PTO098" and record["hint"].startswith(words), record
    assert os.strerror(code) in record["message"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_disk_is_not_told_to_check_the_directory():
    r = run(DEMO, "-o", "/dev/full", "--format", "json")
    record = _record(r)
    assert r.exit_code == 2 and "No space left on device" in record["message"]
    assert record["hint"] != DEFAULT_PTO098 and "Free space" in record["hint"]


def test_an_existing_file_where_no_new_file_can_be_created_says_so(tmp_path, monkeypatch):
    # /proc/version: the file exists, but the temporary file of the atomic write cannot be made
    target = tmp_path / "out.py"
    target.write_text("old\n")

    def refuse(*args, **kwargs):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    record = _record(run(DEMO, "-o", target, "--format", "json", "--force"))
    assert f"no new file can be created in {tmp_path.resolve()}" in record["message"], record
    assert "temporary file" in record["hint"] and target.read_text() == "old\n"


def test_a_timeline_in_a_missing_directory_is_told_to_create_it(tmp_path):
    r = run(DEMO, "--simulate", "--timeline", tmp_path / "nope" / "trace.json", "-o", tmp_path / "o.py",
            "--format", "json")
    record = _record(r)
    assert r.exit_code == 2 and record["hint"] == "Create the directory, or choose another path", record


def test_a_missing_checked_file_is_to_be_generated_not_changed(tmp_path):
    r = run(DEMO, "--check", "-o", tmp_path / "nope.py", "--format", "json")
    record = _record(r)
    assert r.exit_code == 1 and record["code"] == "PTO094"
    assert record["message"] == f"`{tmp_path / 'nope.py'}` does not exist: pto-transpile would write it (the " \
                                f"output of `{DEMO}`)"
    assert record["hint"] == "Generate it: run the same command without --check"
    stale = tmp_path / "stale.py"
    stale.write_text("x = 1\n")
    record = _record(run(DEMO, "--check", "-o", stale, "--format", "json"))
    assert "would change it" in record["message"] and record["hint"].startswith("Regenerate it")


@pytest.mark.parametrize("written, suggested", [("PTO42", "PTO042"), ("pto042x", "PTO042"),
                                                ("missing-sync-al", "missing-sync-all"),
                                                ("too-few-tile", "too-few-tiles")])
def test_a_misspelt_code_in_a_suppression_gets_a_did_you_mean(written, suggested):
    text = DEMO.read_text().replace("N_ITER = 4\n", f"N_ITER = 4  # pto-transpile: ignore[{written}]\n", 1)
    assert text != DEMO.read_text()
    found = [d.message for d in transpile(text, path="k.py").diagnostics if d.code == "PTO096"]
    assert found == [f"`# pto-transpile: ignore[{written}]` silences nothing: `{written}` names no rule; "
                     f"did you mean `{suggested}`?"], found


def test_no_suggestion_for_a_name_near_no_rule():
    text = DEMO.read_text().replace("N_ITER = 4\n", "N_ITER = 4  # pto-transpile: ignore[bogus-name, PTOxyz]\n", 1)
    found = [d.message for d in transpile(text, path="k.py").diagnostics if d.code == "PTO096"]
    assert len(found) == 2 and not any("did you mean" in m for m in found), found

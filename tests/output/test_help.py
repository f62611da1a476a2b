"""`pto-transpile --help` is printed from a kept copy of click's text (`helptext.py`)
without importing click; it must stay exactly what click prints."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version

import pytest

from helpers import ROOT
from pto_transpile import helptext

CLICK = ("import sys; from pto_transpile.cli import main; "
         "main(sys.argv[1:], prog_name='pto-transpile')")


def _run(cmd: list[str], columns: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_kept_text_is_what_the_installed_click_renders():
    assert helptext.render_with_click() == helptext.HELP, \
        "the help changed: run `python -m pto_transpile.helptext` and commit the file"


def test_the_generator_keeps_the_releases_that_render_the_same_text():
    installed = version("click")
    same = helptext.generated(("7.9",), helptext.HELP)
    assert f"CLICK_VERSIONS: tuple[str, ...] = ('7.9', '{installed}')" in same and helptext.HELP in same
    other = helptext.generated(("7.9",), "Usage: something else\n")
    assert f"CLICK_VERSIONS: tuple[str, ...] = ('{installed}',)" in other and helptext.HELP in other
    kept = (ROOT / "pto_transpile" / "helptext.py").read_text(encoding="utf-8")
    assert kept.endswith(helptext.generated(helptext.CLICK_VERSIONS, helptext.HELP)) == (
        installed in helptext.CLICK_VERSIONS)


@pytest.mark.parametrize("flag, columns", [("--help", None), ("-h", "200"), ("--help", "80"), ("-h", "79"),
                                           ("--help", "60")])
def test_the_console_script_prints_clicks_help(flag, columns):
    """Piped (no terminal) and at any COLUMNS, narrower than 80 included (where click
    renders it), the command's help is byte for byte click's."""
    fast = _run([sys.executable, "-m", "pto_transpile", flag], columns)
    slow = _run([sys.executable, "-c", CLICK, flag], columns)
    assert fast == slow
    assert (fast == helptext.HELP) == (columns not in ("79", "60"))


def test_the_kept_text_is_used_only_with_the_click_releases_seen_to_render_it(monkeypatch):
    assert helptext.click_version() == version("click")
    monkeypatch.setattr(helptext, "CLICK_VERSIONS", (version("click"),))
    assert helptext.static_help() == helptext.HELP
    monkeypatch.setattr(helptext, "CLICK_VERSIONS", ("7.9",))
    assert helptext.static_help() is None


def test_a_narrow_terminal_is_left_to_click(monkeypatch):
    monkeypatch.setenv("COLUMNS", "79")
    assert not helptext.wide_enough()
    monkeypatch.setenv("COLUMNS", "80")
    assert helptext.wide_enough()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args, columns", [(["--version"], None), (["--help"], None), (["--help"], "60")])
def test_a_stdout_that_cannot_be_written_is_said_in_one_line(args, columns):
    """The kept help, the version and click's own help alike: exit 2, no traceback."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | ({"COLUMNS": columns} if columns else {})
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "pto_transpile", *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=ROOT)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "pto-transpile: cannot write to standard output: No space left on device"

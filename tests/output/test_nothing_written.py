"""A file with no kernel, named on the command line, is reported and not written; `--seed`
takes what the emulator can seed (probe h91).

`helpers/attn.py` (no kernel) was copied to `build/attn/pipeline_generated.py`, over the
pipelined kernel `kern/attn.py` had just written there, exit 0. `--seed -1` came back as
"the emulator finds the serial kernel wrong" (PTO095).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from pto_transpile.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_a_named_file_without_a_kernel_is_reported_and_not_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kern").mkdir()
    (tmp_path / "helpers").mkdir()
    shutil.copy(ROOT / "examples" / "seed_demo.py", tmp_path / "kern" / "attn.py")
    (tmp_path / "helpers" / "attn.py").write_text("def helper():\n    return 1\n")
    assert run("kern/attn.py").exit_code == 0
    generated = (tmp_path / "build" / "kern" / "attn" / "pipeline_generated.py").read_text()
    r = run("helpers/attn.py")
    assert r.exit_code == 0 and "PTO003" in r.output and "no kernel to pipeline; nothing written" in r.output
    assert (tmp_path / "build" / "kern" / "attn" / "pipeline_generated.py").read_text() == generated
    assert not (tmp_path / "build" / "helpers").exists()
    r = run("helpers/attn.py", "-o", "-")  # a filter still passes the text through
    assert r.exit_code == 0 and "def helper():" in r.output


def test_a_negative_seed_is_a_usage_error():
    r = run(ROOT / "examples" / "seed_demo.py", "--simulate", "--seed", "-1", "-o", "-")
    assert r.exit_code == 2 and "--seed" in r.output and "x>=0" in r.output


@pytest.mark.parametrize(("args", "words"), [
    (["--preload", "+1"], "got '+1'"),
    (["--preload", "\uff11"], "got '\uff11'"),
    (["--preload", "1,,2"], "got '1,,2'"),
    (["--simulate", "--report", "-"], "--report writes a file: give it a file name"),
    (["--simulate", "--timeline", "-"], "--timeline writes a file: give it a file name"),
    (["--simulate", "--shape", "a=1x1", "--shape", "a=2x2"], "a is given twice"),
    (["--simulate", "--arg", "n=1", "--arg", "n=2"], "n is given twice"),
])
def test_command_line_values_a_user_mistyped_are_usage_errors(args, words):
    """`+1` and a full-width digit were taken for 1, `--report -` made a file named `-`, and a
    `--shape` or `--arg` given twice kept the last silently (probe h91)."""
    r = run(ROOT / "examples" / "seed_demo.py", *args, "-o", "-")
    assert r.exit_code == 2 and words in r.output, r.output


def test_a_simulation_failure_carries_the_whole_verdict_in_the_machine_formats():
    """PTO095 kept the first line of the emulator's verdict: "data race on GM tensor 'out' (bytes
    ...):", and which accesses raced went to the human table alone (probe h91)."""
    r = CliRunner().invoke(main, [str(ROOT / "examples" / "seed_demo.py"), "--simulate",
                                 "--block-dim", "2", "--format", "json", "-o", os.devnull])
    assert r.exit_code == 1
    message = next(d["message"] for d in json.loads(r.stdout) if d["code"] == "PTO095")
    assert "earlier: write by b0.AIV0 on pipe MTE3: pl.store in stage4" in message, message
    assert "later: write by b1.AIV0 on pipe MTE3: pl.store in stage4" in message


def test_sarif_locations_are_uri_references():
    """`artifactLocation.uri` was the raw path: a space, a non-ASCII letter, an absolute path
    without `file:` and `<stdin>` are no URI references (probe h91)."""
    from pto_transpile.output.render.sarif import file_uri

    assert file_uri("sp ace/\u00fcn/bad k.py") == "sp%20ace/%C3%BCn/bad%20k.py"
    assert file_uri("/tmp/x/bad1.py") == "file:///tmp/x/bad1.py"
    assert file_uri("<stdin>") == "stdin" and file_uri("kern\\k.py") == "kern/k.py"


@pytest.mark.parametrize(("setting", "words"), [
    ('preload = "x"', "`preload` in [tool.pto-transpile] of pyproject.toml"),
    ('select = ["PTO999"]', "`select` in [tool.pto-transpile] of pyproject.toml"),
    ('output = "gen.py"', "`output` in [tool.pto-transpile] of pyproject.toml"),
])
def test_a_bad_setting_of_the_project_is_said_of_the_project_not_of_a_flag(tmp_path, monkeypatch, setting, words):
    """A bad `[tool.pto-transpile]` value was reported as a command-line flag no one typed
    (`Invalid value for --preload`, probe h91)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f"[tool.pto-transpile]\n{setting}\n")
    (tmp_path / "src").mkdir()
    for name in ("seed_demo.py", "two_loops.py"):
        shutil.copy(ROOT / "examples" / name, tmp_path / "src" / name)
    r = run("src", "--check")
    assert r.exit_code == 2 and words in r.output, r.output


@pytest.mark.parametrize(("color", "escapes"), [("never", False), ("always", True)])
def test_the_simulation_table_and_chart_follow_the_colour_choice(color, escapes):
    """`--color never` (and NO_COLOR) coloured the report only, not the simulation table or the
    Gantt chart; `--color always` did not colour them when piped (probe h91)."""
    r = run(ROOT / "examples" / "seed_demo.py", "--simulate", "--gantt", "--color", color, "-o", os.devnull)
    assert r.exit_code == 0 and ("\x1b[" in r.output) == escapes


def test_the_caret_lands_under_the_span_after_wide_characters():
    """With a Chinese string before the flagged token, the caret was drawn three cells to its
    left: columns are code points, a CJK character takes two cells (probe h91)."""
    from pto_transpile.output.render.text import render_blocks
    from pto_transpile.rules import registry

    source = 'x = "\u65e5\u672c\u8a9e"; ids = [0, 99]\n'
    column = source.index("ids") + 1
    d = registry()["PTO099"].diagnostic({"detail": "x"}, "k.py", 1, column, 1, column + 3)
    caret = render_blocks([d], {"k.py": source}).splitlines()[4]
    assert caret == "  | " + " " * (column - 1 + 3) + "^^^", caret  # three wide characters: three cells more


def test_an_unreadable_file_gets_the_help_for_why(tmp_path):
    """Every file that could not be read got "Check the path, and save the file as UTF-8",
    a missing or too large one too (probe h91)."""
    (tmp_path / "enc.py").write_bytes(b"\xff\xfe")
    (tmp_path / "big.py").write_text("x = 1\n" * 200_000)
    for name, words in (("nosuch.py", "Check the path: no file is there"), ("enc.py", "Save the file as UTF-8"),
                        ("big.py", "Split the file")):
        r = run(tmp_path / name)
        assert r.exit_code == 2 and words in r.output, (name, r.output)

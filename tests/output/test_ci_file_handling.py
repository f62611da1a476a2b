"""A hostile review of the file handling CI runs lean on (outputs left unchanged, the project's
output folder, outputs of no input) found data loss, runs that broke on their second round,
false reports and a hang; each is a test here."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from helpers import DEMO, ROOT
from pto_transpile.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _project(tmp_path: Path, output: str | None = "gen/") -> Path:
    (tmp_path / "kernels").mkdir(parents=True)
    shutil.copy(DEMO, tmp_path / "kernels" / "a.py")
    if output is not None:
        (tmp_path / "pyproject.toml").write_text(f'[tool.pto-transpile]\noutput = "{output}"\n')
    return tmp_path


def test_a_symlink_in_build_to_a_file_of_someone_else_s_is_not_written_through(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, None))
    (tmp_path / "notes").mkdir()
    mine = tmp_path / "notes" / "mine.py"
    mine.write_text('my_notes = "no mark"\n')
    (tmp_path / "build" / "kernels" / "a").mkdir(parents=True)
    (tmp_path / "build" / "kernels" / "a" / "pipeline_generated.py").symlink_to(mine)
    r = run("kernels/a.py")
    assert r.exit_code == 2 and "did not write it" in r.output and mine.read_text() == 'my_notes = "no mark"\n'
    assert run("kernels/a.py", "--force").exit_code == 0 and "Written by pto-transpile" in mine.read_text()


def test_inputs_named_through_a_symlinked_checkout_go_where_their_plain_names_go(tmp_path, monkeypatch):
    real = _project(tmp_path / "real")
    (tmp_path / "link").symlink_to(real)
    monkeypatch.chdir(real)
    assert run("kernels").output == "wrote gen/kernels/a.py\n"
    linked = tmp_path / "link"
    monkeypatch.chdir(linked)
    monkeypatch.setenv("PWD", str(linked))
    assert run("--check", linked / "kernels").exit_code == 0
    for _ in range(2):
        r = run(linked)
        assert r.exit_code == 0 and r.output == "unchanged gen/kernels/a.py\n", r.output
    assert sorted(p.relative_to(real).as_posix() for p in (real / "gen").rglob("*.py")) == ["gen/kernels/a.py"]


def test_an_output_folder_given_with_o_is_no_input_of_a_walk(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path))
    assert run("kernels").exit_code == 0
    assert run("--check", ".", "-o", "gen/").exit_code == 0  # (the project's folder is left out with -o too)
    for _ in range(2):
        assert run(".", "-o", "out/").exit_code == 0
        assert run("kernels/", "-o", "kernels/gen/").exit_code == 0
    assert not (tmp_path / "out" / "gen").exists() and not (tmp_path / "kernels" / "gen" / "kernels" / "gen").exists()


def test_an_output_folder_holding_an_input_folder_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, "kernels/"))
    r = run("kernels/")
    assert r.exit_code == 2 and "the output folder kernels/ holds the input folder kernels" in r.output, r.output
    assert not (tmp_path / "kernels" / "kernels").exists()


def test_the_output_of_an_input_left_out_of_the_walk_is_no_orphan(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path))
    (tmp_path / "pyproject.toml").write_text('[tool.pto-transpile]\noutput = "gen/"\nextend-exclude = ["legacy/"]\n')
    (tmp_path / "kernels" / "legacy").mkdir()
    shutil.copy(ROOT / "golden" / "two_loops" / "input.py", tmp_path / "kernels" / "legacy" / "old.py")
    assert run("kernels/", "kernels/legacy/old.py").exit_code == 0
    r = run("--check", "kernels/")
    assert r.exit_code == 0 and r.output == "", r.output


def test_the_copy_of_a_hand_pipelined_kernel_whose_input_is_gone_is_an_orphan(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path))
    shutil.copy(ROOT / "examples" / "hand_pipelined.py", tmp_path / "kernels" / "hand.py")
    assert run("kernels/").exit_code == 0 and (tmp_path / "gen" / "kernels" / "hand.py").exists()
    (tmp_path / "kernels" / "hand.py").unlink()
    r = run("--check", "kernels/")
    assert r.exit_code == 1 and "PTO094" in r.output and "hand.py" in r.output, r.output


def test_a_walk_of_the_working_directory_into_a_shared_o_folder_claims_no_other_output(tmp_path, monkeypatch):
    for name, kernel in (("attn", DEMO), ("gemm", ROOT / "examples" / "tiled_scale.py")):
        (tmp_path / name).mkdir()
        shutil.copy(kernel, tmp_path / name / f"{name}.py")
    for name in ("attn", "gemm", "attn"):
        monkeypatch.chdir(tmp_path / name)
        assert run(".", "-o", "../out/").exit_code == 0
        r = run("--check", ".", "-o", "../out/")
        assert r.exit_code == 0 and "no input" not in r.output and "does not exist" not in r.output, r.output


def test_check_and_diff_compare_no_fifo_or_device(tmp_path, monkeypatch):
    """A FIFO as the output blocked --check until something wrote to it; /dev/null was out of
    date for ever."""
    monkeypatch.chdir(_project(tmp_path, None))
    (tmp_path / "out" / "kernels").mkdir(parents=True)
    os.mkfifo(tmp_path / "out" / "kernels" / "a.py")
    assert run("--check", "kernels/", "-o", "out/").exit_code == 0
    assert run("--check", "kernels/a.py", "-o", os.devnull).exit_code == 0


def test_an_output_setting_that_is_no_path_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, None))
    for value in ("5", '["gen/"]', '"\\u0000x/"', '""'):
        (tmp_path / "pyproject.toml").write_text(f"[tool.pto-transpile]\noutput = {value}\n")
        r = run("kernels/", "--format", "json")
        assert r.exit_code == 2 and "`output` in [tool.pto-transpile] must be a path" in r.output, (value, r.output)
        assert json.loads(r.stdout)[0]["code"] == "usage"


def test_standard_input_goes_to_stdout_in_a_project_with_an_output_folder(tmp_path, monkeypatch):
    """It has no path to keep under the folder; it was a usage error."""
    monkeypatch.chdir(_project(tmp_path))
    r = CliRunner().invoke(main, ["-"], input=DEMO.read_text(encoding="utf-8"), catch_exceptions=False)
    assert r.exit_code == 0 and "_pl_ctx" in r.stdout and not (tmp_path / "gen").exists(), r.output


def test_the_output_folder_of_a_fresh_clone_is_the_project_s_from_a_subfolder(tmp_path, monkeypatch):
    """Before `gen/` existed, `output = "gen/"` was taken as the command line's -o, relative to
    the working directory: from kernels/ the outputs went to kernels/gen/."""
    _project(tmp_path)
    monkeypatch.chdir(tmp_path / "kernels")
    assert run("a.py").output == "wrote ../gen/kernels/a.py\n"
    assert not (tmp_path / "kernels" / "gen").exists()


def test_a_symlinked_folder_or_dangling_link_in_build_is_not_written_through(tmp_path, monkeypatch):
    """Second review: the fix judged a link to the file itself, not a folder on the way."""
    monkeypatch.chdir(_project(tmp_path, None))
    (tmp_path / "notes").mkdir()
    mine = tmp_path / "notes" / "pipeline_generated.py"
    mine.write_text('my = "notes"\n')
    (tmp_path / "build" / "kernels").mkdir(parents=True)
    (tmp_path / "build" / "kernels" / "a").symlink_to("../../notes")
    assert run("kernels/a.py").exit_code == 2 and mine.read_text() == 'my = "notes"\n'
    (tmp_path / "build" / "kernels" / "a").unlink()
    (tmp_path / "build" / "kernels" / "a").mkdir()
    (tmp_path / "build" / "kernels" / "a" / "pipeline_generated.py").symlink_to(tmp_path / "notes" / "planted.py")
    assert run("kernels/a.py").exit_code == 2 and not (tmp_path / "notes" / "planted.py").exists()


def test_two_inputs_meeting_through_a_symlinked_folder_are_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, kernel in (("x", DEMO), ("y", ROOT / "examples" / "tiled_scale.py")):
        (tmp_path / name).mkdir()
        shutil.copy(kernel, tmp_path / name / "k.py")
    (tmp_path / "out" / "y").mkdir(parents=True)
    (tmp_path / "out" / "x").symlink_to("y")
    r = run("x", "y", "-o", "out/")
    assert r.exit_code == 2 and "two inputs would be written to the same file" in r.output, r.output


def test_an_output_folder_reached_through_a_symlink_or_from_above_is_no_input(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, "kernels/gen/"))
    (tmp_path / "klink").symlink_to("kernels")
    for _ in range(2):
        assert run("klink").exit_code == 0
    monkeypatch.chdir(tmp_path / "kernels")
    (tmp_path / "pyproject.toml").unlink()
    for _ in range(2):
        r = run("..", "-o", "../out/")
        assert r.exit_code == 0, r.output


def test_the_output_of_an_input_that_holds_no_kernel_now_is_reported(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path))
    shutil.copy(ROOT / "examples" / "tiled_scale.py", tmp_path / "kernels" / "b.py")
    assert run("kernels", "-q").exit_code == 0
    (tmp_path / "kernels" / "b.py").write_text("def helper(x):\n    return x + 1\n")
    r = run("--check", "kernels")
    assert r.exit_code == 1 and "`gen/kernels/b.py` is pto-transpile's output of `kernels/b.py`, which holds no " \
        "kernel to pipeline now" in r.output, r.output
    r = run("kernels")
    assert r.exit_code == 0 and "note: gen/kernels/b.py is pto-transpile's output of `kernels/b.py`" in r.output


def test_an_output_file_of_the_project_is_taken_from_its_pyproject_wherever_the_command_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, "gen.py"))
    monkeypatch.chdir(tmp_path / "kernels")
    r = run("a.py")
    assert r.exit_code == 0 and (tmp_path / "gen.py").exists() and not (tmp_path / "kernels" / "gen.py").exists()
    assert run("a.py", "--check").exit_code == 0

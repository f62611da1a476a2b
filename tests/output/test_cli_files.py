"""Files and streams as Unix tools treat them: what is read, what is written, and where."""

from __future__ import annotations

import ast
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import DEMO
from pto_transpile import __version__, transpile
from pto_transpile.cli import main
from pto_transpile.read.inputs import MAX_INPUT_BYTES
from pto_transpile.read.mark import COPY_MARK


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def expected_code(preload=2) -> str:
    return transpile(DEMO.read_text(), preload=preload, path=str(DEMO)).code


# -- outputs -------------------------------------------------------------------------------

def test_a_symlink_to_a_device_is_written_through_and_nothing_is_replaced(tmp_path):
    link = tmp_path / "out.py"
    link.symlink_to(os.devnull)
    r = run(DEMO, "-o", link)
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and os.readlink(link) == os.devnull
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_symlink_to_a_file_is_written_through_and_the_link_stays(tmp_path):
    real = tmp_path / "real.py"
    real.write_text("old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    assert run(DEMO, "-o", link, "--force").exit_code == 0  # ("old": a file it did not write)
    assert link.is_symlink() and real.read_text() == expected_code()


def test_a_file_it_did_not_write_is_replaced_only_with_force(tmp_path):
    # a hand-written kernel named by -o by mistake was replaced (first-hour study ux1)
    mine = tmp_path / "mine.py"
    mine.write_text("# my serial kernel\n")
    r = run(DEMO, "-o", mine)
    assert r.exit_code == 2 and "refusing to replace" in r.output and "give --force" in r.output, r.output
    assert "Usage:" not in r.output and "--help" not in r.output  # a fact of the files, not of the options
    assert mine.read_text() == "# my serial kernel\n"
    assert run(DEMO, "-o", mine, "--check").exit_code == 1  # (checked against, never written)
    assert run(DEMO, "-o", mine, "--force").exit_code == 0 and mine.read_text() == expected_code()
    assert run(DEMO, "-o", mine).exit_code == 0  # its own output, marked: replaced again


def test_the_copy_of_a_kernel_pipelined_by_hand_is_replaced_again_after_its_input_is_edited(tmp_path, monkeypatch):
    # written as it is but for one comment above the kernel, which names the copy as
    # pto-transpile's own: without it, the copy of the text before the edit was someone else's
    # file, replaced only with --force (study ux3)
    monkeypatch.chdir(tmp_path)
    hand = (DEMO.parent / "hand_pipelined.py").read_text()
    for option, out in (("out.py", tmp_path / "out.py"), ("gen/", tmp_path / "gen" / "hand.py")):
        Path("hand.py").write_text(hand)
        assert run("hand.py", "-o", option).exit_code == 0
        assert out.read_text().replace(COPY_MARK + "\n", "") == hand and out.read_text().count(COPY_MARK) == 1
        Path("hand.py").write_text(hand + "\nLATER = 1\n")
        r = run("hand.py", "-o", option)
        assert r.exit_code == 0 and "did not write it" not in r.output, r.output
        assert out.read_text().endswith("LATER = 1\n")


def test_a_copy_read_again_keeps_one_mark():
    hand = (DEMO.parent / "hand_pipelined.py").read_text()
    once = transpile(hand, path="hand.py").code
    assert once.count(COPY_MARK) == 1 and transpile(once, path="again.py").code == once


def test_a_fifo_target_is_written_into(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    r = run(DEMO, "-o", fifo)
    reader.join(timeout=300)  # only ends a hang
    assert r.exit_code == 0 and got == [expected_code()]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_directory_target_gets_each_input_at_its_relative_path(tmp_path, monkeypatch):
    monkeypatch.chdir(DEMO.parent.parent)
    r = run(DEMO.relative_to(DEMO.parent.parent), "-o", tmp_path)
    assert r.exit_code == 0 and "internal error" not in r.output, r.output
    assert (tmp_path / "examples" / "seed_demo.py").read_text() == expected_code()


def test_a_directory_as_the_input_file_itself_is_never_a_target(monkeypatch):
    monkeypatch.chdir(DEMO.parent.parent)
    r = run(DEMO, "-o", DEMO.parent.parent)  # would write examples/seed_demo.py over the input
    assert r.exit_code == 2 and "refusing to overwrite the input" in r.output


def test_new_files_get_the_umask_mode_and_old_files_keep_theirs(tmp_path):
    old = os.umask(0o027)
    try:
        new = tmp_path / "new.py"
        assert run(DEMO, "-o", new).exit_code == 0
        assert stat.S_IMODE(new.stat().st_mode) == 0o640
        kept = tmp_path / "kept.py"
        kept.write_text("old\n")
        kept.chmod(0o604)
        assert run(DEMO, "-o", kept, "--force").exit_code == 0
        assert stat.S_IMODE(kept.stat().st_mode) == 0o604 and kept.read_text() == expected_code()
    finally:
        os.umask(old)


def test_an_output_whose_parent_is_a_file_is_a_plain_diagnostic(tmp_path):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("")
    r = run(DEMO, "-o", blocker / "out.py", "--format", "json")
    assert r.exit_code == 2 and "PTO098" in r.output and "internal error" not in r.output


def test_a_refused_write_is_a_plain_diagnostic(tmp_path, monkeypatch):
    """What a read-only directory does to a non-root user (root may write anywhere)."""
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    r = run(DEMO, "-o", tmp_path / "out.py")
    assert r.exit_code == 2 and "PTO098" in r.output and "Permission denied" in r.output
    assert "internal error" not in r.output and "bug" not in r.output


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory_is_a_plain_diagnostic(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    r = run(DEMO, "-o", ro / "out.py")
    assert r.exit_code == 2 and "PTO098" in r.output and "internal error" not in r.output


def test_timeline_into_a_missing_directory_is_a_plain_diagnostic(tmp_path):
    r = run(DEMO, "--simulate", "--timeline", tmp_path / "nope" / "trace.json", "-o", tmp_path / "o.py")
    assert r.exit_code == 2 and "PTO098" in r.output and "does not exist" in r.output
    assert "internal error" not in r.output and not (tmp_path / "o.py").exists()


# -- --check and --diff --------------------------------------------------------------------

def test_check_diff_on_an_out_of_date_file_prints_the_diff_and_exits_1(tmp_path):
    out = tmp_path / "o.py"
    out.write_text(expected_code(preload=1))
    r = run(DEMO, "--check", "--diff", "-o", out)
    assert r.exit_code == 1 and r.stdout.startswith(f"--- {out}")
    assert "+    _pl_ctx_arr = pl.struct_array(4," in r.stdout
    assert out.read_text() == expected_code(preload=1)  # --check writes nothing
    out.write_text(expected_code())
    r = run(DEMO, "--check", "--diff", "-o", out)
    assert r.exit_code == 0 and r.stdout == ""


def test_check_diff_on_a_missing_file_exits_1(tmp_path):
    r = run(DEMO, "--check", "--diff", "-o", tmp_path / "missing.py")
    assert r.exit_code == 1 and "+import pypto_pro.language as pl" in r.stdout


# -- streams -------------------------------------------------------------------------------

def test_simulate_with_code_on_stdout_keeps_stdout_for_the_code(tmp_path):
    r = run(DEMO, "--simulate", "-o", "-")
    assert r.exit_code == 0, r.output
    assert r.stdout == expected_code()
    assert "simulated verification" in r.stderr


def test_off_a_terminal_the_simulation_prints_one_plain_line_per_version(tmp_path):
    r = run(DEMO, "--simulate", "-o", tmp_path / "o.py")
    lines = r.stdout.splitlines()
    assert lines[0] == "simulated verification of pipeline_demo_kernel:"
    assert lines[1].split()[:6] == ["serial", "cycles", lines[1].split()[2], "speedup", "1.00x", "max"]
    assert lines[2].split()[0] == "pipelined" and lines[2].endswith("ok")
    assert not any(ch in r.stdout for ch in "┃│┏")  # no table to wrap


def test_a_closed_stdout_ends_the_run_quietly():
    for args in (["-o", "-"],):
        proc = subprocess.Popen([sys.executable, "-m", "pto_transpile", str(DEMO), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.close()  # as `| head -1` does once it has its line
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=300) == 141 and err == "", err  # the timeout only ends a hang


# -- inputs --------------------------------------------------------------------------------

def test_a_fifo_input_with_no_writer_is_refused_at_once(tmp_path):
    """Refused, not read: reading it would block for ever (the timeout only ends such a hang)."""
    fifo = tmp_path / "k.py"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "pto_transpile", str(fifo), "--check", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "PTO002" in proc.stdout and "FIFO" in proc.stdout


def test_a_symlink_to_dev_zero_is_refused(tmp_path):
    link = tmp_path / "k.py"
    link.symlink_to("/dev/zero")
    r = run(link, "--check", "--format", "json")
    assert r.exit_code == 2 and "PTO002" in r.output and "character device" in r.output


def test_a_huge_input_is_refused_unread(tmp_path):
    big = tmp_path / "k.py"
    with open(big, "wb") as fh:
        fh.truncate(MAX_INPUT_BYTES + 1)
    r = run(big, "--check", "--format", "json")
    assert r.exit_code == 2 and "PTO002" in r.output and "bytes" in r.output


# -- options -------------------------------------------------------------------------------

def test_version_comes_from_the_package():
    assert run("--version").output.strip() == f"pto-transpile {__version__}"
    proc = subprocess.run([sys.executable, "-m", "pto_transpile", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == f"pto-transpile {__version__}"


@pytest.mark.parametrize("args,words", [
    (["--timeline", "t.json"], "--timeline only applies with --simulate"),
    (["--seed", "3"], "--seed only applies with --simulate"),
    (["--simulate", "--shape", "nope=4x4"], "not a tensor parameter"),
    (["--simulate", "--shape", "N_ITER=4x4"], "not a tensor parameter"),
    (["--simulate", "--arg", "a=3"], "not a scalar parameter"),
    (["-o", "-", "--diff"], "choose one"),
])
def test_options_that_would_do_nothing_are_usage_errors(tmp_path, args, words):
    r = run(DEMO, "--check", *args)
    assert r.exit_code == 2 and words in r.output


@pytest.mark.parametrize("preload", [-1, 2.0, "1,2", [], True, [1, True], [1, -2], None.__class__])
def test_transpile_refuses_a_bad_preload(preload):
    with pytest.raises(ValueError, match="preload"):
        transpile(DEMO.read_text(), preload=preload)


def test_transpile_takes_good_preloads():
    for preload in (0, 2, [2], (1,)):
        assert transpile(DEMO.read_text(), preload=preload).ok


def test_the_output_is_not_written_when_the_simulation_fails(tmp_path, monkeypatch):
    """Should the static checks ever let a racy kernel through, the simulation still stops
    the write. Such a kernel is made here by switching the checks that refuse it off."""
    import functools

    from pto_transpile import driver
    from pto_transpile.rules import registry

    monkeypatch.setattr(driver, "transpile", functools.partial(driver.transpile, _skip_rules=["PTO057", "PTO061"]))
    src = tmp_path / "fwd_only.py"
    src.write_text(registry()["PTO057"].invalid[0])
    out = tmp_path / "o.py"
    r = run(src, "--simulate", "-o", out)
    assert r.exit_code == 1 and "race" in r.output and not out.exists()
    assert f"{out} was not written" in r.output and "error[PTO095]" in r.output
    # the report names the generated file, each of its lines with the input line it came from
    report = r.output.split("error[PTO095]")[0]
    assert f"{out}:" in report and f"{src}:" not in report
    assert f"{out}:40 (input line 40)" in report  # `pl.move` in mm2, a line kept from the input


def test_generated_code_on_stdout_parses():
    r = run(DEMO, "-o", "-")
    ast.parse(r.stdout)


# -- many files --------------------------------------------------------------------------------
def test_many_files_on_several_cores_report_in_file_order(tmp_path, monkeypatch):
    demo = DEMO.read_text()
    names = []
    for i, text in enumerate([demo, demo.replace("fwd_ids=[0, 1],", "fwd_ids=[0, 16],"), "x = (\n", demo, demo]):
        (tmp_path / f"k{i}.py").write_text(text)
        names.append(f"k{i}.py")
    names.insert(3, "missing.py")
    monkeypatch.chdir(tmp_path)
    one = run("--check", "-j", "1", *names)
    assert one.exit_code == 2  # the missing file
    for jobs in ("2", "3"):
        many = run("--check", "-j", jobs, *names)
        assert (many.exit_code, many.output) == (one.exit_code, one.output)
    reported = [line.split("-->")[1].split(":")[0].strip() for line in one.output.splitlines() if "-->" in line]
    assert reported == ["k1.py", "k2.py", "missing.py"]
    written = run("-j", "2", "k0.py", "k3.py", "k4.py")
    assert written.exit_code == 0
    assert written.output.splitlines() == [f"wrote build/k{i}/pipeline_generated.py" for i in (0, 3, 4)]
    assert (tmp_path / "build" / "k4" / "pipeline_generated.py").read_text() == transpile(demo, path="k4.py").code

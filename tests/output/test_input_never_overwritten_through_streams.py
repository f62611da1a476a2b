"""The input is never written over, through standard output or standard input either (probe h254):
`-o in.py 1<>in.py` and `-o /dev/stdout >> in.py` wrote the kernel into the input (standard output
was that file, and an output naming it is printed there), and `- -o /dev/stdin --force < in.py`
replaced the file standard input was read from; each exited 0. Each is now refused, exit 2, the
input left as it was. With --check, `-o out.py >> out.py` compared nothing (the output was taken
for standard output) and passed an edited output; it is compared."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT

DEMO = (ROOT / "examples" / "seed_demo.py").read_bytes()


def _run(args: list[str], cwd: Path, stdin=None, stdout=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pto_transpile", *args], cwd=cwd, stdin=stdin,
                          stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("args, mode, stdin", [
    (["in.py", "-o", "in.py"], "r+b", False),  # 1<>in.py
    (["in.py", "-o", "/dev/stdout"], "ab", False),  # >> in.py
    (["in.py", "-o", "-"], "ab", False),
    (["-", "-o", "-"], "r+b", True),  # < in.py 1<>in.py
    (["-"], "r+b", True),  # probe h255: the same, with no -o
    (["-", "--format", "json"], "r+b", True),  # (no JSON document written there either)
    (["in.py", "--diff"], "ab", False),
    (["-", "--diff"], "ab", True),
    (["in.py", "-o", "out.py"], "ab", False),  # (`wrote out.py` appended)
], ids=["same-path", "dev-stdout-appended", "dash-appended", "stdin-and-stdout", "stdin-no-o", "json",
        "diff-appended", "stdin-diff-appended", "wrote-line-appended"])
def test_standard_output_on_the_input_is_refused(tmp_path, args, mode, stdin):
    (tmp_path / "in.py").write_bytes(DEMO)
    with open(tmp_path / "in.py", mode) as out, open(tmp_path / "in.py", "rb") as source:
        done = _run(args, tmp_path, stdin=source if stdin else None, stdout=out)
    assert done.returncode == 2, done.stderr
    assert b"refusing to write over the input: standard output is" in done.stderr, done.stderr
    assert (tmp_path / "in.py").read_bytes() == DEMO and not (tmp_path / "out.py").exists()


def test_standard_error_on_the_input_is_refused_without_a_word(tmp_path):
    (tmp_path / "in.py").write_bytes(DEMO)
    with open(tmp_path / "in.py", "ab") as err:
        done = subprocess.run([sys.executable, "-m", "pto_transpile", "in.py"], cwd=tmp_path, stderr=err,
                              stdout=subprocess.PIPE, timeout=120,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and done.stdout == b""
    assert (tmp_path / "in.py").read_bytes() == DEMO


@pytest.mark.parametrize("target", ["/dev/stdin", "/proc/self/fd/0"])
@pytest.mark.parametrize("flags", [["-o", "{}", "--force"], ["--simulate", "--timeline", "{}"],
                                   ["--preload", "auto", "--report", "{}"]], ids=["o", "timeline", "report"])
def test_a_file_written_that_standard_input_reads_is_refused_even_with_force(tmp_path, target, flags):
    if not Path(target).exists():
        pytest.skip(f"no {target} on this system")
    (tmp_path / "in.py").write_bytes(DEMO)
    with open(tmp_path / "in.py", "rb") as source:
        done = _run(["-", *(f.format(target) for f in flags)], tmp_path, stdin=source)
    assert done.returncode == 2 and b"the file standard input is read from" in done.stderr, done.stderr
    assert (tmp_path / "in.py").read_bytes() == DEMO


def test_check_of_an_output_that_is_standard_output_compares_it(tmp_path):
    (tmp_path / "in.py").write_bytes(DEMO)
    assert _run(["in.py", "-o", "out.py"], tmp_path).returncode == 0
    with open(tmp_path / "out.py", "ab") as out:
        out.write(b"# edited\n")
    with open(tmp_path / "out.py", "ab") as out:
        done = _run(["in.py", "--check", "-o", "out.py"], tmp_path, stdout=out)
    assert done.returncode == 1, done.stderr
    assert b"PTO094" in (tmp_path / "out.py").read_bytes().split(b"# edited\n", 1)[1]

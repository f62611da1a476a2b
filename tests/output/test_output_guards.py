"""No output of a run replaces one of its inputs, or another of its outputs (probe h91).

`-o DIR/` refused only an input's own output path: `k.py out/k.py -o out/` wrote k.py's
kernel over the input out/k.py, exit 0. `--report` and `--timeline` were written anywhere,
over the kernel being transpiled included, and over each other or the `-o` file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from pto_transpile.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    shutil.copy(ROOT / "examples" / "seed_demo.py", tmp_path / "k.py")
    shutil.copy(ROOT / "examples" / "two_loops.py", tmp_path / "out" / "k.py")
    return tmp_path


def test_an_output_directory_never_takes_another_input(tree):
    before = (tree / "out" / "k.py").read_bytes()
    r = run("k.py", "out/k.py", "-o", "out/")
    assert r.exit_code == 2 and "refusing to overwrite the input file out/k.py (the output of k.py)" in r.output
    assert (tree / "out" / "k.py").read_bytes() == before and not (tree / "out" / "out").exists()


@pytest.mark.parametrize(("args", "words"), [
    (["--report", "k.py"], "refusing to overwrite the input file k.py (given to --report)"),
    (["--timeline", "k.py"], "refusing to overwrite the input file k.py (given to --timeline)"),
    (["--timeline", "o.json", "--report", "o.json"], "--timeline and --report both name o.json"),
    (["--report", "v.html", "-o", "v.html"], "--report v.html is the file the generated kernel is written to"),
])
def test_a_report_or_trace_never_takes_an_input_or_another_output(tree, args, words):
    before = (tree / "k.py").read_bytes()
    r = run("k.py", "--simulate", *args)
    assert r.exit_code == 2 and words in r.output, r.output
    assert (tree / "k.py").read_bytes() == before and not (tree / "o.json").exists() and not (tree / "v.html").exists()

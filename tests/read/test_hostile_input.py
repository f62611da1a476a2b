"""Hostile input gets a diagnostic, quickly: never a crash, a hang, or an internal error.

Input that once crashed the parser runs the command in its own process, so that a
regression (a segfault) fails its test instead of taking the test run down; input that
once made the constant evaluator hang runs in this process with a timeout."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from helpers import demo_text
from pto_transpile import transpile

CHAIN = "".join(f"C{i} = C{i - 1} + 0\n" if i else "C0 = 0\n" for i in range(197))

#: seconds after which a run counts as hung: far beyond any run on a loaded machine (these
#: inputs once made the tool run for ever), so it ends a hang and measures nothing
HANG = 300


def _with(old: str, new: str) -> str:
    text = demo_text()
    assert old in text
    return text.replace(old, new, 1)


#: input the parser (native code) or code generation could not take
CRASHERS = {
    "1300 nested parentheses": (demo_text() + "X = " + "(" * 1300 + "1" + ")" * 1300 + "\n", "PTO097"),
    "1300 nested lists": (demo_text() + "X = " + "[" * 1300 + "]" * 1300 + "\n", "PTO097"),
    "8000-term sum": (demo_text() + "X = " + " + ".join(["1"] * 8000) + "\n", "PTO097"),
    "491-term loop bound": (_with("pl.range(0, N_ITER)", "pl.range(0, " + " + ".join(["N_ITER"] * 491) + ")"),
                            "PTO097"),
}

#: input the constant evaluator once spent minutes, gigabytes or its recursion limit on
HANGERS = {
    "a huge repeated id list": (_with("mutex_ids=[12, 13],", "mutex_ids=[12, 13] * 10**8,"), None),
    "a power tower": (_with("N_ITER = 4\n", "N_ITER = 4\nHUGE = ((10**4096)**4096)**4096\n").replace(
        "mutex_ids=[12, 13],", "mutex_ids=[12, HUGE],", 1), None),
}


@pytest.mark.parametrize("name", list(CRASHERS))
def test_input_too_deep_for_the_parser_is_a_diagnostic(tmp_path, name):
    text, code = CRASHERS[name]
    src = tmp_path / "kernel.py"
    src.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "pto_transpile", str(src), "--check", "--format", "json"],
                          capture_output=True, text=True, timeout=HANG)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert {d["code"] for d in json.loads(proc.stdout)} == {code}


def test_a_long_chain_of_constants_folds_once_per_name():
    """Module names are folded in order, each once: 197 chained names cost 197 folds, and
    the id they end on is the literal it stands for."""
    text = _with("N_ITER = 4\n", "N_ITER = 4\n" + CHAIN).replace("fwd_ids=[0, 1],", "fwd_ids=[C196, 1],", 1)
    done = []
    worker = threading.Thread(target=lambda: done.append(transpile(text)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert done and done[0].ok, done and done[0].diagnostics


@pytest.mark.parametrize("name", list(HANGERS))
def test_constants_too_big_to_fold_are_a_diagnostic(name):
    text, _ = HANGERS[name]
    done = []
    worker = threading.Thread(target=lambda: done.append(transpile(text)), daemon=True)
    worker.start()
    worker.join(timeout=HANG)
    assert done, "transpile() did not finish"
    found = {d.code for d in done[0].diagnostics}
    assert found and "PTO099" not in found and not done[0].ok, found

"""Hostile input gets a diagnostic, quickly: never a crash, a hang, or an internal error.

Each case runs the command in its own process, so that a regression which crashes the
parser (a segfault) or hangs fails this test instead of taking the test run down."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import demo_text

CHAIN = "".join(f"C{i} = C{i - 1} + 0\n" if i else "C0 = 0\n" for i in range(197))


def _with(old: str, new: str) -> str:
    text = demo_text()
    assert old in text
    return text.replace(old, new, 1)


CASES = {
    "1300 nested parentheses": (demo_text() + "X = " + "(" * 1300 + "1" + ")" * 1300 + "\n", "PTO097"),
    "1300 nested lists": (demo_text() + "X = " + "[" * 1300 + "]" * 1300 + "\n", "PTO097"),
    "8000-term sum": (demo_text() + "X = " + " + ".join(["1"] * 8000) + "\n", "PTO097"),
    "491-term loop bound": (_with("pl.range(0, N_ITER)", "pl.range(0, " + " + ".join(["N_ITER"] * 491) + ")"),
                            "PTO097"),
    "197 chained constants as an id": (_with("N_ITER = 4\n", "N_ITER = 4\n" + CHAIN).replace(
        "fwd_ids=[0, 1],", "fwd_ids=[C196, 1],", 1), None),
    "a huge repeated id list": (_with("mutex_ids=[12, 13],", "mutex_ids=[12, 13] * 10**8,"), None),
    "a power tower": (_with("N_ITER = 4\n", "N_ITER = 4\nHUGE = ((10**4096)**4096)**4096\n").replace(
        "mutex_ids=[12, 13],", "mutex_ids=[12, HUGE],", 1), None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_input_is_a_diagnostic(tmp_path, name):
    text, code = CASES[name]
    src = tmp_path / "kernel.py"
    src.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "pto_transpile", str(src), "--check", "--format", "json"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1, proc.stderr[-2000:]
    found = {d["code"] for d in json.loads(proc.stdout)}
    assert "PTO099" not in found and found, found
    if code is not None:
        assert found == {code}

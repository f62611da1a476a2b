"""A kernel pipelined by hand is left as written, and its own syncs are checked.

`examples/hand_pipelined.py` places every `set_cross_core`/`wait_cross_core` itself. The
transpiler must leave it byte for byte (a note, exit 0, also under `--check`), the static
check (PTO068, an error: exit 1) and the emulator (`--simulate`) must both report a copy with
any one of its waits deleted.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import spread
from pto_transpile import transpile
from pto_transpile.cli import main
from pto_transpile.read.mark import COPY_MARK
from sim_runtime import DeadlockError, RaceError, SyncBalanceError, run_kernel

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "hand_pipelined.py"
TEXT = EXAMPLE.read_text(encoding="utf-8")
WAITS = [i for i, line in enumerate(TEXT.splitlines(keepends=True)) if "wait_cross_core(" in line]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_its_syncs_are_proven_once_for_both_rules(monkeypatch):
    """PTO068 (what the check proves wrong) and PTO077 (what it cannot decide) read one proof."""
    import pto_transpile.soundness.check as check

    proofs = []
    prove = check._check_hand_written
    monkeypatch.setattr(check, "_check_hand_written", lambda *a: proofs.append(a) or prove(*a))
    broken = "".join(line for i, line in enumerate(TEXT.splitlines(keepends=True)) if i != WAITS[0])
    result = transpile(broken, path="hand.py")
    assert len(proofs) == 1 and "PTO068" in [d.code for d in result.diagnostics]


def test_left_as_written_with_a_note_and_the_copy_marked(tmp_path):
    r = run(EXAMPLE, "--check")
    assert r.exit_code == 0 and "note[PTO060]" in r.output and "pipelined by hand" in r.output
    out = tmp_path / "o.py"
    assert run(EXAMPLE, "-o", out).exit_code == 0
    marked = EXAMPLE.read_text().replace("\n@pl.jit(", f"\n{COPY_MARK}\n@pl.jit(", 1)
    assert marked != EXAMPLE.read_text() and out.read_text() == marked
    result = transpile(TEXT, path="hand.py")
    assert result.ok and result.code == marked and [d.code for d in result.diagnostics] == ["PTO060"]


def test_its_syncs_pass_the_emulator(tmp_path):
    r = run(EXAMPLE, "--simulate", "-o", tmp_path / "o.py")
    assert r.exit_code == 0, r.output
    assert re.search(r"as written .* ok", r.output)


@pytest.mark.parametrize("index", spread(WAITS, 3, ids=lambda i: f"line{i + 1}"))
def test_deleting_any_wait_is_reported(tmp_path, index):
    lines = TEXT.splitlines(keepends=True)
    broken = tmp_path / "broken.py"
    broken.write_text("".join(lines[:index] + lines[index + 1:]), encoding="utf-8")
    static = transpile(broken.read_text(), path=str(broken))
    assert "PTO068" in {d.code for d in static.diagnostics}, static.diagnostics
    assert run(broken, "--check").exit_code == 1  # a proven race or deadlock fails a pre-commit check
    with pytest.raises((RaceError, DeadlockError, SyncBalanceError)):  # the emulator, run on its own
        run_kernel(str(broken), "hand_pipelined_kernel", {})

"""The static checker and the emulator give every shared case the verdict the hardware gives."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from shared_cases import CASES, Case

from pto_transpile.cli import main
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.soundness.check import check_hand_written
from sim_runtime import DeadlockError, RaceError, run_kernel

pytestmark = pytest.mark.emulator

EMULATOR_ERRORS = {"race": RaceError, "deadlock": DeadlockError}


def checker_verdict(case: Case) -> str:
    file = read(SourceFile.parse(case.source, f"{case.name}.py"))
    kernel = next(k for k in file.kernels if k.name == case.kernel)
    kinds = {p.kind for p in check_hand_written(file, kernel)}
    assert kinds <= {"race", "deadlock"}, kinds
    return "deadlock" if "deadlock" in kinds else "race" if "race" in kinds else "ok"


def emulator_verdict(case: Case) -> str:
    try:  # tensors start as zeros: a verdict is about order, not values
        run_kernel(f"{case.name}.py", case.kernel, {}, source=case.source)
    except tuple(EMULATOR_ERRORS.values()) as exc:
        return next(k for k, e in EMULATOR_ERRORS.items() if isinstance(exc, e))
    return "ok"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_checker_gives_the_hardware_verdict(case):
    assert checker_verdict(case) == case.verdict, case.why


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_emulator_gives_the_hardware_verdict(case):
    assert emulator_verdict(case) == case.verdict, case.why


def test_a_proven_hand_race_fails_the_check(tmp_path):
    """A race the checker proves in a hand-pipelined kernel is an error: `--check` exits 1."""
    case = next(c for c in CASES if c.name == "two_pipe_release")
    path = tmp_path / "k.py"
    path.write_text(case.source, encoding="utf-8")
    result = CliRunner().invoke(main, [str(path), "--check"], catch_exceptions=False)
    assert result.exit_code == 1 and "error[PTO068]" in result.output, result.output

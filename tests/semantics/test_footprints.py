"""The checker and the emulator agree on what every op of every example and golden kernel
reads and writes, op by op (the comparison issue 17 asks for).

Equal, except where the checker is documented to be conservative (`ALLOWANCES`): there its
footprint must contain the emulator's. Anything else that differs means one of the two reads
the op wrongly, and the fact belongs in `pto_api.effects`, called by both.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from footprints import OpFeet, checker_ops, emulator_ops, gm_shapes, within

pytestmark = pytest.mark.emulator

ROOT = Path(__file__).resolve().parents[2]
KERNEL_FILES = sorted([*ROOT.glob("examples/*.py"), *ROOT.glob("golden/*/input.py"),
                       *ROOT.glob("golden/*/expected_*.py")])


def _vector_function(op: OpFeet) -> bool:
    """A vector-function call: the checker takes each tile its parameter roles read or write
    as a whole, the emulator the 32-byte blocks its register code reached."""
    return "vf" in op.flags


def _may(op: OpFeet) -> bool:
    """A foot the checker marks `may` (a runtime branch, a tile chosen by an unknown index):
    every tile the op may touch."""
    return "may" in op.flags


def _gm_element(op: OpFeet) -> bool:
    """`t[i]` on a GM tensor: the checker does not follow the element's address and takes
    the whole tensor."""
    return op.op in ("getval", "setval") and any(k[0] == "GM" for d in op.feet.values() for k in d)


#: Where the checker may be a superset of the emulator, and why (each predicate's docstring).
ALLOWANCES = (_vector_function, _may, _gm_element)


def _kernels(path: Path) -> list[str]:
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile

    return [k.name for k in read(SourceFile.parse(path.read_text(encoding="utf-8"), str(path))).kernels]


def _differences(checker: OpFeet, emulator: OpFeet) -> list[str]:
    allowed = [a.__name__ for a in ALLOWANCES if a(checker)]
    out = []
    for kind in ("R", "W"):
        mine, theirs = checker.feet[kind], emulator.feet[kind]
        for key in sorted(set(mine) | set(theirs), key=str):
            a, b = mine.get(key, []), theirs.get(key, [])
            if a == b or (allowed and within(b, a)):
                continue
            out.append(f"{emulator.where} {emulator.op} {kind} {key}: checker {a[:6]}, emulator {b[:6]}")
    return out


@pytest.mark.parametrize("path", KERNEL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_op_touches_the_same_bytes_in_the_checker_and_the_emulator(path):
    kernels = _kernels(path)
    assert kernels, path
    for kernel in kernels:
        emulated = emulator_ops(path, kernel)
        checked = checker_ops(path, kernel, gm_shapes(path, kernel))
        assert set(checked) == set(emulated), kernel
        problems = []
        for core, ops in checked.items():
            theirs = emulated[core]
            assert [o.op for o in ops] == [o.op for o in theirs], (kernel, core)
            for mine, other in zip(ops, theirs, strict=True):
                problems += _differences(mine, other)
        assert not problems, "\n".join(problems[:20])

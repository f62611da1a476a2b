"""The checker and the emulator agree on what every op of every example and golden kernel
(and every shared case) reads and writes, op by op (the comparison issue 17 asks for).

Equal, except where the checker is documented to be conservative (`ALLOWANCES`): there its
footprint must contain the emulator's. Anything else that differs means one of the two reads
the op wrongly, and the fact belongs in `pto_api.effects`, called by both.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from footprints import OpFeet, checker_ops, emulator_ops, gm_shapes, launch_of, within
from shared_cases import CASES

from helpers import spread

pytestmark = pytest.mark.emulator

ROOT = Path(__file__).resolve().parents[2]


def _distinct(paths: list[Path]) -> list[Path]:
    """The first of each set of files with the same bytes (a golden input is often its example,
    a golden output at the default preload the one at that preload): the same ops either way."""
    first: dict[bytes, Path] = {}
    for path in paths:
        first.setdefault(path.read_bytes(), path)
    return list(first.values())


KERNEL_FILES = _distinct(sorted([*ROOT.glob("examples/*.py"), *ROOT.glob("golden/*/input.py"),
                                 *ROOT.glob("golden/*/expected_*.py")]))


def _vector_function(op: OpFeet, key: tuple) -> bool:
    """A vector-function call: the checker takes each tile its parameter roles read or write
    as a whole (a write of part of it never counts as overwriting it), the emulator the
    32-byte blocks its register code reached."""
    return "vf" in op.flags


def _may(op: OpFeet, key: tuple) -> bool:
    """A foot the checker marks `may` (a runtime branch, a tile chosen by an unknown index):
    every tile the op may touch."""
    return ("may", key) in op.flags


def _valid_window(op: OpFeet, key: tuple) -> bool:
    """A tile whose valid shape is smaller than its declared one: the checker takes the whole
    tile (and never counts it as overwriting), the emulator the valid window's bytes."""
    return ("window", key) in op.flags


def _element_access(op: OpFeet, key: tuple) -> bool:
    """`t[i, j]` of a tile or `t[i]` of a GM tensor: the checker does not follow the
    element's address and takes the whole tile or tensor (never as overwriting it)."""
    return op.op in ("getval", "setval")


#: Where the checker may be a superset of the emulator, and why (each predicate's docstring).
ALLOWANCES = (_vector_function, _may, _valid_window, _element_access)


def _kernels(path: Path) -> list[str]:
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile

    return [k.name for k in read(SourceFile.parse(path.read_text(encoding="utf-8"), str(path))).kernels]


def _differences(checker: OpFeet, emulator: OpFeet) -> list[str]:
    out = []
    for kind in ("R", "W"):
        mine, theirs = checker.feet[kind], emulator.feet[kind]
        for key in sorted(set(mine) | set(theirs), key=str):
            a, b = mine.get(key, []), theirs.get(key, [])
            if a == b:
                continue
            if any(allowed(checker, key) for allowed in ALLOWANCES) and within(b, a):
                # a superset of a write must not count as overwriting what it may not reach
                if kind == "R" or {("window", key), ("may", key)} & checker.flags:
                    continue
                out.append(f"{emulator.where} {emulator.op} W {key}: the checker writes {a[:6]} as a cover, "
                           f"the emulator only {b[:6]}")
                continue
            out.append(f"{emulator.where} {emulator.op} {kind} {key}: checker {a[:6]}, emulator {b[:6]}")
    return out


def _compare(path: Path, kernel: str) -> None:
    launch = launch_of(path)
    emulated = emulator_ops(path, kernel, launch)
    checked = checker_ops(path, kernel, gm_shapes(path, kernel, launch), launch)
    assert set(checked) == set(emulated), kernel
    problems = []
    for core, ops in checked.items():
        theirs = emulated[core]
        assert [o.op for o in ops] == [o.op for o in theirs], (kernel, core)
        for mine, other in zip(ops, theirs, strict=True):
            problems += _differences(mine, other)
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("path", spread(KERNEL_FILES, 16, ids=lambda p: str(p.relative_to(ROOT))))  # all: campaign
def test_every_op_touches_the_same_bytes_in_the_checker_and_the_emulator(path):
    kernels = _kernels(path)
    assert kernels, path
    for kernel in kernels:
        _compare(path, kernel)


@pytest.mark.parametrize("case", [c for c in CASES if c.verdict == "ok"], ids=lambda c: c.name)
def test_every_op_of_a_shared_case_touches_the_same_bytes(case, tmp_path):
    """The cases the emulator runs to the end (a race or deadlock stops it)."""
    path = tmp_path / f"{case.name}.py"
    path.write_text(case.source, encoding="utf-8")
    _compare(path, case.kernel)


def test_a_view_moved_into_a_bigger_tile_is_no_cover_of_it(tmp_path):
    """`pl.move(p_mat, relu_nz[0:32, 0:64], [sub_id * 32, 0])`: the destination is bigger than the
    view, so the emulator inserts the view's blocks alone; the check took the move for an extract
    that covers the whole destination, and a cover hides the earlier writes of the bytes it does
    not reach (probe h126). It takes the whole destination now, never as a cover."""
    from helpers import kernel_text

    path = tmp_path / "view_move_insert.py"
    kernel = ROOT / "tests" / "soundness" / "kernels" / "h126_view_move_insert.py"
    path.write_text(kernel_text(kernel), encoding="utf-8")
    _compare(path, "pipeline_demo_kernel")


ROWS_BYTES = 16 * 32 * 4  #: one INT32 tile of the kernel below
XOR = '''import pypto_pro.language as pl

ROWS = 16
COLS = 32


@pl.jit
def xor_kernel(
    a: pl.Tensor[[ROWS, COLS], pl.DT_INT32],
    b: pl.Tensor[[ROWS, COLS], pl.DT_INT32],
    out: pl.Tensor[[ROWS, COLS], pl.DT_INT32],
):
    tt = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_INT32, target_memory=pl.MemorySpace.Vec)
    with pl.section_cube():  # a mix kernel, as the comparison's core names are
        pass
    with pl.section_vector():
        ta = pl.make_tile(tt, addr=0x0)
        tb = pl.make_tile(tt, addr=0x800)
        to = pl.make_tile(tt, addr=0x1000)
        tmp = pl.make_tile(tt, addr=0x1800)
        pl.load(ta, a, [0, 0])
        pl.load(tb, b, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.xor(to, ta, tb, tmp)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, to, [0, 0])
'''


def test_xor_writes_its_scratch_tile_on_both_sides(tmp_path):
    """`pl.xor(out, lhs, rhs, tmp)`: the hardware computes through `tmp` (PyPTO's reference: for
    intermediate computation, not to overlap the others), so both sides count it written; neither
    did (probe h136), and a race on it went unseen by either."""
    path = tmp_path / "xor_kernel.py"
    path.write_text(XOR, encoding="utf-8")
    _compare(path, "xor_kernel")
    for xor in [op for ops in emulator_ops(path, "xor_kernel").values() for op in ops if op.op == "xor"]:
        written = [interval for intervals in xor.feet["W"].values() for interval in intervals]
        assert any(a <= 0x1800 and 0x1800 + ROWS_BYTES <= b for a, b in written), written


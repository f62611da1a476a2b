"""A fifth probe's kernels around static counts split over a run-time block count, each accepted
and wrong on the emulator at some block count: a `sync_all` under a test of a block's task count
(`if cnt > 0:`, which another block may fail: it never arrives), an early return that leaves
several blocks all storing every tile, and stores at a place named by the split (`N % num_cores`)
that every block makes. Also a tuple assignment of the split, which crashed the ctx ring's typing
(PTO099)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

ROOT = Path(__file__).parents[2]
DEMO = (ROOT / "examples" / "seed_demo.py").read_text()
TWO = (ROOT / "examples" / "two_loops.py").read_text()
_DEMO_BLOCKS = ("    # Cross-core shared buffers", "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                                                 "    num_cores = pl.get_block_num()\n    # Cross-core shared buffers")
_DEMO_LOOP = "    for ki in pl.range(0, N_ITER):\n"
_TWO_BLOCKS = ("    p_db = pl.make_tile_group(", "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                                                 "    num_cores = pl.get_block_num()\n    p_db = pl.make_tile_group(")
_SYNC = "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"
_SCR = ("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n):",
        "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
        "    scr: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n):")
_STAGE4 = "            stage4(ki, sub_id, out, out_vec_db)\n"


def _demo(loop: str, *extra) -> str:
    return edited(DEMO, [_DEMO_BLOCKS, (_DEMO_LOOP, loop), *extra])


def _chunks(v: str) -> str:
    return (f"    chunk{v} = (N + num_cores - 1) // num_cores\n    start{v} = core_id * chunk{v}\n"
            f"    cnt{v} = min(chunk{v}, N - start{v})\n    for t{v} in pl.range(0, cnt{v}):\n"
            f"        {v} = start{v} + t{v}\n")


def _two(test: str) -> str:
    """examples/two_loops.py (N = 4) with both loops over chunks and the barrier between them under `test`."""
    return edited(TWO, [_TWO_BLOCKS, ("    for i in pl.range(0, N):\n", _chunks("i")),
                        ("    for j in pl.range(0, N):\n", _chunks("j")), (_SYNC, f"    if {test}:\n    " + _SYNC)])


def _scr_at(place: str) -> tuple:
    """After a per-core loop, every block stores a tile into `scr` at `place`."""
    return (_SCR, (_STAGE4, _STAGE4 + "    with pl.section_vector():\n        r = relu_vec_db.next()\n"
                   f"        pl.store(scr, r, [{place} * TILE + sub_id * TILE_HALF, 0])\n"))


#: name -> (kernel, its kernel function, the block counts the emulator shows it wrong at, what the check says)
WRONG = {
    "a barrier under if cnt > 0": (_two("cnti > 0"), "two_loops_kernel", (3, 5), "is under `if cnti > 0:`"),
    "a barrier under if cnt >= 1": (_two("cnti >= 1"), "two_loops_kernel", (3,), "is under `if cnti >= 1:`"),
    # the count's name is a `datatype=` name too: the kernel's own name was taken for the launch's (probe h230)
    "a barrier under a count named like a datatype name": (
        edited(_two("cnti > 0"), [("@pl.jit(auto_mutex=True,", '@pl.jit(datatype={"x": "cnti"}, auto_mutex=True,')]),
        "two_loops_kernel", (3, 5), "is under `if cnti > 0:`"),
    "an early return leaving two blocks": (_demo("    if core_id >= 2:\n        return\n" + _DEMO_LOOP),
                                           "pipeline_demo_kernel", (2, 3), "does not depend on the block"),
    "an early return of block 0": (_demo("    if core_id == 0:\n        return\n" + _DEMO_LOOP),
                                   "pipeline_demo_kernel", (3,), "does not depend on the block"),
    "a store at N % num_cores": (_demo("    for ki in pl.range(core_id, N_ITER, num_cores):\n",
                                       *_scr_at("(N_ITER % num_cores)")),
                                 "pipeline_demo_kernel", (2, 3), "does not depend on the block"),
    "one task at N % num_cores": (_demo("    start = N_ITER % num_cores\n    for j in pl.range(0, 1):\n"
                                        "        ki = start + j\n"),
                                  "pipeline_demo_kernel", (2, 3), "does not depend on the block"),
}


@pytest.mark.parametrize("name", list(WRONG))
def test_the_probes_kernels_are_refused_naming_the_cause(name):
    text, _, _, words = WRONG[name]
    errors = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO061"] and words in errors[0].message, [d.message for d in errors]


@pytest.mark.parametrize("name", ["a barrier under if cnt > 0", "an early return leaving two blocks",
                                  "a store at N % num_cores", "a barrier under a count named like a datatype name"])
def test_the_emulator_shows_them_wrong(name):
    text, kernel, blocks, _ = WRONG[name]
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    for count in blocks:
        rows = verify(text, code, kernel, block_dim=count).rows
        assert any(row.verdict in ("race", "error", "deadlock") for row in rows), (count, rows)


def _proven_and_runs_as_the_serial_kernel(text: str) -> None:
    assert [d.code for d in transpile(text, path="k.py").diagnostics if d.is_error] == []
    code = transpile(text, path="k.py").code
    for count in (1, 3, 5):
        assert [row.verdict for row in verify(text, code, "pipeline_demo_kernel", block_dim=count).rows] == \
            ["ok", "ok"], count


def test_a_split_by_tuple_assignment_is_proven():
    # crashed the ctx ring's typing (PTO099, "Name '?unpacked' is not a valid identifier")
    text = _demo("    base, rem = N_ITER // num_cores, N_ITER % num_cores\n"
                 "    start = core_id * base + min(core_id, rem)\n    cnt = base + 1 if core_id < rem else base\n"
                 "    for j in pl.range(0, cnt):\n        ki = start + j\n")
    _proven_and_runs_as_the_serial_kernel(text)


def test_a_split_over_another_name_of_the_block_count_is_proven():
    # a probe's false refusal: `nc = num_cores` hid the division by the block count from the test
    # that sends such kernels through a discovery run
    text = _demo("    nc = num_cores\n    chunk = (N_ITER + nc - 1) // nc\n    start = core_id * chunk\n"
                 "    for j in pl.range(0, min(chunk, N_ITER - start)):\n        ki = start + j\n")
    _proven_and_runs_as_the_serial_kernel(text)

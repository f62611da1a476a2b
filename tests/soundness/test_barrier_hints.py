"""What a race across a barrier needs is said as such (probe h72): a race between the stages of
two pipeline loops is fixed by a barrier between the loops, not by tile groups or one stage (the
hint said so); and a barrier of one kind of core (`AIV_ONLY`) does not order a cube's atomic adds
before the vector cores' reads, which the message now names."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

EXAMPLES = Path(__file__).parents[2] / "examples"
BARRIER = "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"


def _errors(text: str):
    return [d for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_a_race_between_two_pipeline_loops_names_the_barrier_between_them():
    two_loops = (EXAMPLES / "two_loops.py").read_text(encoding="utf-8")
    [d] = _errors(edited(two_loops, [(BARRIER, "    pass\n")]))
    assert d.code == codes.PIPELINE_NOT_PROVEN and "reads `mid" in d.message
    assert d.hint.startswith("Order the two pipeline loops with `pl.system.sync_all(core_type=pl.SyncCoreType.MIX)`")
    assert _errors(two_loops) == []  # the hint applied: the example as it is


TILED = (EXAMPLES / "tiled_scale.py").read_text(encoding="utf-8")
#: every block adds its product to `sums` (on the cube); block 0's vector cores read it after a barrier
ATOMIC = edited(TILED, [
    ("def project(i, a, w_slot,", "def project(i, a, sums, w_slot,"),
    ("    pl.matmul(acc, left, right)\n",
     "    pl.matmul(acc, left, right)\n    pl.store(sums, acc, [0, 0], atomic=pl.AtomicType.AtomicAdd)\n"),
    ("    tiling: ScaleTiling,\n):", "    sums: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"
     "    tot: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    tiling: ScaleTiling,\n):"),
    ("            project(i, a, w_slot,", "            project(i, a, sums, w_slot,"),
    ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
     "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
     "    BARRIER\n"
     "    with pl.section_vector():\n"
     "        if core_id == 0:\n"
     "            fin = res_db.next()\n"
     "            pl.load(fin, sums, [sub_id * HALF, 0])\n"
     "            pl.store(tot, fin, [sub_id * HALF, 0])\n"),
])


def test_a_barrier_of_the_vector_cores_only_is_named_for_the_cubes_atomic_adds():
    vector_only = ATOMIC.replace("    BARRIER\n    with pl.section_vector():\n",
                                 "    with pl.section_vector():\n"
                                 "        pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)\n")
    [d] = _errors(vector_only)
    assert "`sums` is added to atomically by every block" in d.message
    assert "a barrier of every core that makes them (`core_type=AIV_ONLY` or `AIC_ONLY` orders one kind" in d.message
    assert _errors(ATOMIC.replace("    BARRIER\n", BARRIER)) == []  # a barrier of every core, where every core runs


def test_a_refusal_about_the_blocks_points_at_the_access_and_gives_the_blocks_hint():
    """The caret was on the kernel's `def` and the help spoke of loops of run-time trip count."""
    vector_only = ATOMIC.replace("    BARRIER\n    with pl.section_vector():\n",
                                 "    with pl.section_vector():\n"
                                 "        pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)\n")
    [d] = transpile(vector_only, path="k.py").diagnostics
    line = vector_only.splitlines()[d.line - 1]
    assert line.strip() == "pl.load(fin, sums, [sub_id * HALF, 0])" and d.column == line.index("pl.load") + 1
    assert d.hint.startswith("The check proves a kernel for every block count from the GM places each block reaches")
    assert "trip count" not in d.hint


SPLIT_K = (Path(__file__).parent / "kernels" / "h133_bar_all_under_block_zero.py").read_text(encoding="utf-8")
_UNDER = ("            pl.load(fin, acc_ws, [sub_id * HALF, 0])\n            pl.system.bar_all()\n"
          "            pl.relu(fin, fin)\n            pl.system.bar_all()\n")
_SPLIT = ("            pl.load(fin, acc_ws, [sub_id * HALF, 0])\n        pl.system.bar_all()\n"
          "        if core_id == 0:\n            pl.relu(fin, fin)\n        pl.system.bar_all()\n"
          "        if core_id == 0:\n")


def test_a_pipe_barrier_under_a_block_test_names_the_split_that_is_proven():
    """Block 0 combines a split-K workspace after `sync_all`, its pipe barriers under `if core_id ==
    0:` (probe h133: refused as "a sync under a runtime condition cannot be matched", no fix named).
    The help's split is proven and runs as the serial kernel."""
    errors = [d for d in transpile(SPLIT_K, path="k.py").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO061"], errors
    assert "`pl.system.bar_all()` is under a test the check cannot decide" in errors[0].message, errors[0].message
    assert errors[0].hint.startswith("Put the pipe barrier outside the test, splitting the branch around it")
    text = edited(SPLIT_K, [(_UNDER, _SPLIT)])
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == []
    for blocks in (1, 3):
        rows = verify(text, result.code, "splitk_kernel", path="k.py", block_dim=blocks,
                      shapes={"a": (32, 160), "b": (160, 32)}).rows
        assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message

"""Cross-core flags and barriers: counting model, deadlock/overflow/imbalance reports, modes."""

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from sim_runtime import (
    DeadlockError,
    EventOverflowError,
    KernelError,
    RaceError,
    SectionMismatchError,
    SyncBalanceError,
    run_kernel,
)

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\n"
KERNELS = Path(__file__).parent.parent / "sim_kernels"


def run(src, inputs=None, name="k", **kw):
    return run_kernel("kernel.py", name, inputs or {}, source=HEAD + textwrap.dedent(src), **kw)


def test_deadlock_report_names_blocked_calls_stages_tasks_and_counters():
    lines = (KERNELS / "demo_p2.py").read_text().splitlines(keepends=True)
    first_set = next(i for i, line in enumerate(lines) if "set_cross_core" in line)  # prefire of bwd mm1[0]
    mutant = lines[:first_set] + lines[first_set + 1:]
    with pytest.raises(DeadlockError) as err:
        run_kernel("p2.py", "pipeline_demo_kernel", {}, source="".join(mutant))
    msg = str(err.value)
    wait_line = next(i + 1 for i, line in enumerate(mutant) if "wait_cross_core(pipe=pl.PipeType.FIX, event_id="
                     "_pl_bwd_ids_mm1_vec_db[_pl_ctx_0" in line)
    assert f"b0.AIC: blocked in wait_cross_core(pipe=FIX, event_id=2, sync_mode=INTRA_BLOCK) at p2.py:{wait_line}" \
        in msg
    assert "stage stage1 (s1·i0)" in msg
    assert re.search(r"b0\.AIV0: blocked in wait_cross_core\(pipe=V, event_id=0.*stage stage2 \(s2·i0\)", msg)
    assert "counters:" in msg and "event 3: 1 pending set(s) b0.AIV0 -> b0.AIC" in msg


FLAGS = """
@pl.jit
def k(x: pl.Tensor[[8, 32], pl.DT_FP32]):
    with pl.section_cube():
        for i in pl.range(NSETS):
            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=1)
        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=2)
    with pl.section_vector():
        pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=2)
        for i in pl.range(NWAITS):
            pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=1)
"""


def test_fifteen_outstanding_sets_are_fine():
    run(FLAGS.replace("NSETS", "15").replace("NWAITS", "15"))


def test_sixteen_outstanding_sets_overflow():
    with pytest.raises(EventOverflowError, match=r"event 1: 16 outstanding sets from b0.AIC") as err:
        run(FLAGS.replace("NSETS", "16").replace("NWAITS", "16"))
    set_line = (HEAD + FLAGS).splitlines().index(
        "            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=1)") + 1
    assert f"kernel.py:{set_line}" in str(err.value)


def test_leftover_sets_are_an_imbalance():
    src = FLAGS.replace("NSETS", "3").replace("NWAITS", "2")
    with pytest.raises(SyncBalanceError, match=r"event 1: 1 pending set\(s\) b0.AIC -> b0.AIV0"):
        run(src)
    res = run(src, strict_balance=False)
    assert any("unbalanced" in w for w in res.warnings)


def test_wait_that_never_gets_a_set_deadlocks():
    with pytest.raises(DeadlockError, match="event_id=1"):
        run(FLAGS.replace("NSETS", "2").replace("NWAITS", "3"))


AIV_TO_AIC = """
@pl.jit
def k(x: pl.Tensor[[8, 32], pl.DT_FP32]):
    with pl.section_vector():
        if pl.get_subblock_idx() == 0:
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=4)
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=4, sync_mode=pl.CrossCoreSyncMode.MODE)
"""


def test_intra_block_cube_wait_needs_both_aivs():
    with pytest.raises(DeadlockError, match=r"event 4: 1 pending set\(s\) b0.AIV0 -> b0.AIC"):
        run(AIV_TO_AIC.replace("MODE", "INTRA_BLOCK"))


def test_unicast_cube_wait_takes_either_aiv():
    run(AIV_TO_AIC.replace("MODE", "UNICAST_BLOCK"))


def test_sequential_mode_never_blocks_but_checks_counts():
    # each side waits before it sets: a hang on hardware; sequential mode counts and balances
    src = """
    @pl.jit
    def k(x: pl.Tensor[[8, 32], pl.DT_FP32]):
        with pl.section_vector():
            pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=1)
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=2)
        with pl.section_cube():
            pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=2)
            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=1)
    """
    run(src, mode="sequential")
    with pytest.raises(DeadlockError):
        run(src, mode="concurrent")
    with pytest.raises(SyncBalanceError, match="waited 1 time"):
        run(src.replace("            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=1)", "            pass"),
            mode="sequential")


SYNC_ALL = """
@pl.jit
def k(x: pl.Tensor[[16, 32], pl.DT_FP32], y: pl.Tensor[[32, 32], pl.DT_FP32]):
    with pl.section_vector():
        t = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                               addrs=0, mutex_ids=[0])
        pl.load(t[0], x, [0, 0])
        pl.store(y, t[0], [16 * pl.get_subblock_idx(), 0])
    BARRIER
    with pl.section_cube():
        m = pl.make_tile_group(type=pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
                               addrs=0, mutex_ids=[1])
        pl.load(m[0], y, [0, 0])
"""


def test_sync_all_orders_gm_handoff():
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    res = run(SYNC_ALL.replace("BARRIER", "pl.system.sync_all(core_type=pl.SyncCoreType.MIX)"), {"x": x})
    assert np.array_equal(res.outputs["y"], np.concatenate([x, x]))
    with pytest.raises(RaceError, match="GM tensor 'y'"):
        run(SYNC_ALL.replace("BARRIER", "pass"), {"x": x})


def test_two_aivs_writing_identical_bytes_is_a_benign_note():
    src = SYNC_ALL.replace("16 * pl.get_subblock_idx()", "0").replace("BARRIER", "pl.system.sync_all()")
    res = run(src, {"x": np.ones((16, 32), np.float32)})
    assert any(w.startswith("benign") for w in res.warnings)
    different = src.replace("pl.load(t[0], x, [0, 0])",
                            "pl.load(t[0], x, [0, 0])\n        pl.adds(t[0], t[0], pl.get_subblock_idx())")
    with pytest.raises(RaceError):
        run(different, {"x": np.ones((16, 32), np.float32)})


def test_sequential_mode_rejects_core_dependent_sections():
    src = """
    @pl.jit
    def k(x: pl.Tensor[[8, 32], pl.DT_FP32]):
        with pl.section_cube():
            pass
        if pl.get_block_idx() == 1:
            with pl.section_vector():
                pass
        with pl.section_cube():
            pass
    """
    with pytest.raises(SectionMismatchError, match="disagree"):
        run(src, mode="sequential")


def test_kernel_exception_points_at_the_users_line():
    src = """
    @pl.jit
    def k(x: pl.Tensor[[8, 32], pl.DT_FP32]):
        with pl.section_vector():
            y = undefined_name + 1
    """
    with pytest.raises(KernelError, match=r"NameError.*kernel\.py:6"):
        run(src)


def test_block_and_subblock_indices():
    src = """
    @pl.jit
    def k(ids: pl.Tensor[[8, 32], pl.DT_INT32]):
        with pl.section_vector():
            i = pl.get_block_idx()
            pl.setval(ids, i * 32 + 0, pl.get_block_num())
            pl.setval(ids, i * 32 + 1, pl.get_subblock_idx())
            pl.setval(ids, i * 32 + 2, pl.get_subblock_num())
        with pl.section_cube():
            b = pl.get_block_idx()
            pl.setval(ids, (4 + b) * 32, 100 + b)
    """
    ids = run(src, block_dim=2).outputs["ids"]
    for b in range(2):
        for s in range(2):
            assert list(ids[2 * b + s, :3]) == [2, s, 2]
        assert ids[4 + b, 0] == 100 + b


# -- intra-core flags and barriers ---------------------------------------------------------

LOCAL = """
@pl.jit
def k(x: pl.Tensor[[16, 32], pl.DT_FP32], out: pl.Tensor[[16, 32], pl.DT_FP32]):
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0)
        u = pl.make_tile(pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x800)
        if pl.get_subblock_idx() == 0:
            pl.load(t, x, [0, 0])
            pl.system.bar_all()
            pl.muls(u, t, 2.0)
            SYNC
            pl.store(out, u, [0, 0])
"""
V_TO_MTE3 = ("pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=3)\n"
             "            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=3)")


@pytest.mark.parametrize("sync", [V_TO_MTE3, "pl.system.bar_all()"])
def test_intra_core_sync_orders_two_pipes(sync):
    x = np.ones((16, 32), np.float32)
    assert (run(LOCAL.replace("SYNC", sync), {"x": x}).outputs["out"] == 2).all()


@pytest.mark.parametrize("sync", [
    "pass",
    V_TO_MTE3.replace("set_pipe=pl.PipeType.V", "set_pipe=pl.PipeType.MTE2"),  # raised on the wrong pipe
    V_TO_MTE3.replace("wait_pipe=pl.PipeType.MTE3", "wait_pipe=pl.PipeType.MTE2"),  # holds back the wrong pipe
    "pl.system.bar_mte3()",  # a one-pipe barrier does not order V before MTE3
])
def test_missing_or_misdirected_intra_core_sync_is_a_race(sync):
    with pytest.raises(RaceError, match=r"write by b0\.AIV on pipe V: pl\.muls.*\n.*read\s+by b0\.AIV on pipe MTE3"):
        run(LOCAL.replace("SYNC", sync), {"x": np.ones((16, 32), np.float32)})


def test_sync_dst_without_a_sync_src_hangs_at_its_line():
    src = LOCAL.replace("SYNC", V_TO_MTE3.split("\n")[1].strip())
    line = (HEAD + textwrap.dedent(src)).splitlines().index(next(
        src_line for src_line in (HEAD + textwrap.dedent(src)).splitlines() if "sync_dst" in src_line)) + 1
    with pytest.raises(DeadlockError, match=rf"no earlier matching sync_src.*kernel.py:{line}"):
        run(src, {"x": np.ones((16, 32), np.float32)})


def test_an_unconsumed_sync_src_is_an_imbalance():
    src = LOCAL.replace("SYNC", V_TO_MTE3.split("\n")[0] + "\n            pl.system.bar_all()")
    with pytest.raises(SyncBalanceError, match=r"(?s)intra-core flags.*b0\.AIV: sync_src\(set_pipe=V, wait_pipe=MTE3, "
                                               r"event_id=3\) x1"):
        run(src, {"x": np.ones((16, 32), np.float32)})
    res = run(src, {"x": np.ones((16, 32), np.float32)}, strict_balance=False)
    assert any("intra-core flags" in w for w in res.warnings)


def test_intra_core_event_ids_are_checked():
    with pytest.raises(KernelError, match="event_id 16 outside 0..15"):
        run(LOCAL.replace("SYNC", V_TO_MTE3.replace("event_id=3", "event_id=16")), {"x": np.ones((16, 32), np.float32)})


def test_sync_all_of_a_core_type_the_kernel_lacks_is_an_error():
    src = LOCAL.replace("SYNC", "pl.system.bar_all()\n            pl.system.sync_all(core_type=CT)")
    run(src.replace("CT", "pl.SyncCoreType.AIV_ONLY"), {"x": np.ones((16, 32), np.float32)})
    with pytest.raises(KernelError, match=r"sync_all\(core_type=MIX\) in a kernel without AIC cores.*AIV_ONLY"):
        run(src.replace("CT", "pl.SyncCoreType.MIX"), {"x": np.ones((16, 32), np.float32)})

"""The sync graph on worked examples: two stages (E1-E3), address reuse (E5), shared release ids (E6)."""

import textwrap
from pathlib import Path

import pytest

from helpers import demo_text
from pto_transpile.driver import transpile


def edges(result, loop=0):
    g = result.loops[loop].graph
    return [(e.kind, e.src.stage, e.src.buffer, e.src.pipe, e.dst.stage, e.dst.pipe, e.dist, e.task_off)
            for e in g.edges]


DEMO_P2 = [
    ("WAR", "stage2", "mm1_vec_db", "V", "stage1", "FIX", 1, 2),
    ("RAW", "stage1", "mm1_vec_db", "FIX", "stage2", "V", 1, 0),
    ("WAR", "stage3", "p_mat_db", "MTE1", "stage2", "MTE3", 1, 2),
    ("RAW", "stage2", "p_mat_db", "MTE3", "stage3", "MTE1", 1, 0),
    ("WAR", "stage4", "out_vec_db", "MTE3", "stage3", "FIX", 1, 2),
    ("RAW", "stage3", "out_vec_db", "FIX", "stage4", "MTE3", 1, 0),
]


def test_demo_edge_table_preload_2():
    assert edges(transpile(demo_text(), preload=2)) == DEMO_P2


def test_demo_edge_table_preload_1_and_serial():
    p1 = edges(transpile(demo_text(), preload=1))
    dists = {(k, s, b): d for k, s, b, _, _, _, d, _ in p1}
    assert dists[("RAW", "stage2", "p_mat_db")] == 0 and dists[("WAR", "stage3", "p_mat_db")] == 2
    assert dists[("RAW", "stage1", "mm1_vec_db")] == 1 and dists[("WAR", "stage2", "mm1_vec_db")] == 1
    serial = edges(transpile(demo_text(), preload=0))
    assert [(k, d, o) for k, *_, d, o in serial] == [("WAR", 2, 2), ("RAW", 0, 0)] * 3


def test_demo_accesses_match_spec_table():
    r = transpile(demo_text(), preload=2)
    got = [(i, a.buffer, a.role, a.pipe) for i, acc in enumerate(r.loops[0].accesses) for a in acc]
    assert got == [
        (0, "mm1_vec_db", "W", "FIX"), (1, "mm1_vec_db", "R", "V"), (1, "p_mat_db", "W", "MTE3"),
        (2, "p_mat_db", "R", "MTE1"), (2, "out_vec_db", "W", "FIX"), (3, "out_vec_db", "R", "MTE3"),
    ]


TWO_STAGE = textwrap.dedent('''
    import pypto_pro.language as pl
    N = 8

    @pl.pipeline.stage
    def c1(i, acc_db, vbuf):
        acc = acc_db.next()
        v = vbuf.next()
        pl.move(v, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)

    @pl.pipeline.stage
    def v1(i, out, vbuf):
        v = vbuf.next()
        pl.store(out, v, [i * 32 + pl.get_subblock_idx() * 16, 0])

    @pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=1))
    def k(out: pl.Tensor[[256, 32], pl.DT_FP32]):
        vbuf = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                                  addrs=0, mutex_ids=MUTEX, IDS)
        with pl.section_cube():
            acc_db = pl.make_tile_group(
                type=pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
                addrs=0, mutex_ids=[4, 5])
        for i in pl.range(0, N):
            with pl.section_cube():
                c1(i, acc_db, vbuf)
            with pl.section_vector():
                v1(i, out, vbuf)
''')


def two_stage(ids: str, mutex: str = "[0, 1]") -> str:
    return TWO_STAGE.replace("MUTEX", mutex).replace("IDS", ids)


@pytest.mark.parametrize("preload, raw, war", [(0, (0, 0), (2, 2)), (1, (1, 0), (1, 2))])
def test_e1_two_stage_two_tiles(preload, raw, war):
    r = transpile(two_stage("fwd_ids=[0, 1], bwd_ids=[2, 3]"), preload=preload)
    assert r.ok, r.diagnostics
    got = {k: (d, o) for k, *_, d, o in edges(r)}
    assert got == {"RAW": raw, "WAR": war}
    plan = r.loops[0].plan
    assert [(op.section, op.pipe, op.index) for op in plan.prefire] == [("vector", "MTE3", 0), ("vector", "MTE3", 1)]
    assert [(op.section, op.pipe, op.index) for op in plan.drain] == [("cube", "FIX", 0), ("cube", "FIX", 1)]


def test_e1_single_id_indexes_modulo_one():
    r = transpile(two_stage("fwd_ids=[0, 1], bwd_ids=[8]"), preload=1)
    assert r.ok, r.diagnostics
    assert "_pl_bwd_ids_vbuf[0])" in r.code and "_pl_bwd_ids_vbuf[1]" not in r.code
    assert "_pl_bwd_ids_vbuf[_pl_ctx_0._pl_task_id % 1]" in r.code


def test_e2_forward_only_emits_no_release_sync():
    r = transpile(two_stage("fwd_ids=[0, 1]"), preload=1)
    plan = r.loops[0].plan
    assert plan.prefire == [] and plan.drain == []
    assert "WAR" in {e.kind for e in r.loops[0].graph.edges}  # the edge stays in the graph
    assert [op.kind for ops in plan.pre.values() for op in ops] == ["wait"]  # v1 waits for the data only
    # ...so nothing holds the producer back: it may overwrite a tile before it was read
    assert [d.code for d in r.diagnostics] == ["PTO057"] and r.code is None


def test_e3_one_tile_rejected_when_pipelined_but_fine_serially():
    r = transpile(two_stage("fwd_ids=[0], bwd_ids=[1]", mutex="[0]"), preload=1)
    assert [d.code for d in r.diagnostics] == ["PTO043"]
    assert "1 tile(s)" in r.diagnostics[0].message and "2 tiles are live" in r.diagnostics[0].message
    serial = transpile(two_stage("fwd_ids=[0], bwd_ids=[1]", mutex="[0]"), preload=0)
    assert serial.ok
    assert len(serial.loops[0].plan.prefire) == 1 and len(serial.loops[0].plan.drain) == 1


REUSE = textwrap.dedent('''
    import pypto_pro.language as pl

    @pl.pipeline.stage
    def c1(i, acc_db, xbuf):
        acc = acc_db.next()
        x = xbuf.next()
        pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)

    @pl.pipeline.stage
    def v1(i, out, xbuf):
        x = xbuf.next()
        pl.store(out, x, [i * 32 + pl.get_subblock_idx() * 16, 0])

    @pl.pipeline.stage
    def c2(i, acc2_db, ybuf):
        acc = acc2_db.next()
        y = ybuf.next()
        pl.move(y, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)

    @pl.pipeline.stage
    def v2(i, out, ybuf):
        y = ybuf.next()
        pl.store(out, y, [i * 32 + pl.get_subblock_idx() * 16, 0])

    @pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=1))
    def k(out: pl.Tensor[[256, 32], pl.DT_FP32]):
        xbuf = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                                  addrs=0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
        ybuf = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                                  addrs=0, mutex_ids=[0, 1], fwd_ids=[4, 5], bwd_ids=[6, 7])
        with pl.section_cube():
            # one Acc group per stage: the stages only move whatever it holds (no matmul here)
            acc_db = pl.make_tile_group(
                type=pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
                addrs=0, mutex_ids=[4, 5])
            acc2_db = pl.make_tile_group(
                type=pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
                addrs=0x2000, mutex_ids=[8, 9])
        for i in pl.range(0, 8):
            with pl.section_cube():
                c1(i, acc_db, xbuf)
            with pl.section_vector():
                v1(i, out, xbuf)
            with pl.section_cube():
                c2(i, acc2_db, ybuf)
            with pl.section_vector():
                v2(i, out, ybuf)
''')


def test_e5_address_reuse_allocates_free_ids():
    r = transpile(REUSE, preload=1)
    assert r.ok, r.diagnostics
    assert edges(r) == [
        ("WAR", "v2", "ybuf", "MTE3", "c1", "FIX", 0, 2),
        ("WAR", "v1", "xbuf", "MTE3", "c1", "FIX", 1, 2),
        ("RAW", "c1", "xbuf", "FIX", "v1", "MTE3", 1, 0),
        ("WAR", "v1", "xbuf", "MTE3", "c2", "FIX", 0, 0),
        ("WAR", "v2", "ybuf", "MTE3", "c2", "FIX", 1, 2),
        ("RAW", "c2", "ybuf", "FIX", "v2", "MTE3", 1, 0),
    ]
    plan = r.loops[0].plan
    # v2 -> c1 across tasks, and v1 -> c2 in the same task: nothing hands data from v1 to c2,
    # so the chain of forward syncs does not order them and that release needs ids too
    assert plan.overlap == [("_pl_overlap_ids_0", [8, 9]), ("_pl_overlap_ids_1", [10, 11])]
    assert "_pl_overlap_ids_0 = [8, 9]" in r.code
    assert [o.ids.name for o in plan.pre[0]].count("_pl_overlap_ids_0") == 1
    assert [o.ids.name for o in plan.post[3]].count("_pl_overlap_ids_0") == 1
    assert sum(o.ids.name == "_pl_overlap_ids_0" for o in plan.prefire) == 2
    assert sum(o.ids.name == "_pl_overlap_ids_0" for o in plan.drain) == 2


def _reuse_graph(preload=1):
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.sync.graph import build_graph
    from pto_transpile.sync.scan import StageScanner
    from pto_transpile.sync.schedule import schedule_for

    file = read(SourceFile.parse(REUSE, "reuse.py"))
    kernel = file.kernels[0]
    loop = kernel.loops[0]
    scanner = StageScanner(file, kernel)
    accesses = [scanner.scan_stage(s).accesses for s in loop.stages]
    delays = schedule_for([s.section for s in loop.stages], preload).delays
    return kernel, loop, build_graph(kernel, loop, accesses, delays)


@pytest.mark.parametrize("used, overlap, codes", [
    (range(0, 12), [("_pl_overlap_ids_0", [12, 13]), ("_pl_overlap_ids_1", [14, 15])], []),
    (range(0, 14), [("_pl_overlap_ids_0", [14]), ("_pl_overlap_ids_1", [15])], ["PTO046", "PTO046"]),
    (range(0, 15), [], ["PTO045"]),
])
def test_e5_overlap_pool_downgrade_and_exhaustion(used, overlap, codes):
    from pto_transpile.sync.plan import make_plan

    kernel, loop, graph = _reuse_graph()
    kernel.buffers["xbuf"].fwd.values = tuple(used)  # pretend the loop's own lists take these ids
    plan = make_plan(kernel, loop, graph, [0])
    assert plan.overlap == overlap
    assert [f.code for f in plan.findings] == codes
    if overlap:
        ids = next(o.ids for o in plan.prefire if o.ids.name == "_pl_overlap_ids_0")
        assert ids.count == len(overlap[0][1])  # a downgraded group is indexed by its own length
        assert sorted({o.index for o in plan.prefire if o.ids.name == "_pl_overlap_ids_0"}) == list(range(ids.count))


def test_e5_inverse_time_at_preload_2():
    r = transpile(REUSE, preload=2)
    assert "PTO048" in [d.code for d in r.diagnostics]
    assert r.code is None


SHARED = textwrap.dedent('''
    import pypto_pro.language as pl

    @pl.pipeline.stage
    def c1(i, acc_db, mbuf):
        acc = acc_db.next()
        m = mbuf.next()
        pl.move(m, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)

    @pl.pipeline.stage
    def v1(i, out, mbuf, tbuf):
        m = mbuf.next()
        t = tbuf.next()
        pl.cast(t, m)
        pl.store(out, t, [i * 32 + pl.get_subblock_idx() * 16, 0])

    @pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=1))
    def k(out: pl.Tensor[[256, 32], pl.DT_FP16]):
        mbuf = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                                  addrs=0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
        with pl.section_vector():
            tbuf = pl.make_tile_group(
                type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec),
                addrs=[0, 2048], mutex_ids=[0, 1])
        with pl.section_cube():
            acc_db = pl.make_tile_group(
                type=pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
                addrs=0, mutex_ids=[4, 5])
        for i in pl.range(0, 8):
            with pl.section_cube():
                c1(i, acc_db, mbuf)
            with pl.section_vector():
                v1(i, out, mbuf, tbuf)
''')


def test_e6_shared_intermediate_ids_use_the_owner_bwd_ids():
    r = transpile(SHARED, preload=1)
    assert r.ok, r.diagnostics
    plan = r.loops[0].plan
    assert plan.overlap == []
    assert [(o.pipe, o.ids.name) for o in plan.pre[0]] == [("FIX", "_pl_bwd_ids_mbuf")] * 2
    assert sorted((o.pipe, o.ids.name) for o in plan.post[1]) == [("MTE3", "_pl_bwd_ids_mbuf"),
                                                                   ("V", "_pl_bwd_ids_mbuf")]
    assert len(plan.prefire) == 4 and len(plan.drain) == 4
    assert "tbuf" in {n.buffer for n in r.loops[0].graph.nodes}  # the local buffer sharing addresses is tracked


def test_unstable_edges_are_reported_pto036():
    """No kernel reaches it (the graph gives each stage one tile per task), so check the
    rule itself on a graph with an edge marked unstable."""
    from types import SimpleNamespace

    from pto_transpile.rules import registry

    kernel, loop, graph = _reuse_graph()
    graph.edges[1].unstable = True
    found = list(registry()["PTO036"].check(SimpleNamespace(graph=graph)))
    assert [fields["src"] for _, fields in found] == [graph.edges[1].src.label()]


def test_reversed_same_task_reuse_is_reported_pto047():
    """A same-task release from a later stage's read to an earlier stage's write of a
    co-located buffer cannot be ordered; build that edge by hand (no kernel gives it)."""
    from pto_transpile.sync.graph import Edge
    from pto_transpile.sync.plan import make_plan

    kernel, loop, graph = _reuse_graph()
    v2_read_y = next(n for n in graph.nodes if n.stage == "v2")
    c1_write_x = next(n for n in graph.nodes if n.stage == "c1")
    graph.edges.append(Edge("WAR", v2_read_y, c1_write_x, dist=-3, task_off=0))
    plan = make_plan(kernel, loop, graph, [0])
    assert "PTO047" in [f.code for f in plan.findings]


# -- accesses a stage may skip -------------------------------------------------------------
# stage4 first rewrites its tile under a test, on V, then stores it on MTE3. Only the store
# surely runs: a wait on V alone (what the graph gave when the relu hid stage3's write) leaves
# the store unordered whenever the test is false, a race on the emulator.

_STORE = "    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])"


def _stage4(before: str) -> str:
    from helpers import edited

    return edited(demo_text(), [(_STORE, before + "\n" + _STORE)])


SKIPPABLE = {
    "if": "    if ki == 0:\n        pl.relu(out_vec, out_vec)",
    "for": "    for _ in range(ki):\n        pl.relu(out_vec, out_vec)",
    "while": "    while ki < 0:\n        pl.relu(out_vec, out_vec)\n        break",
    "conditional expression": "    pl.relu(out_vec, out_vec) if ki == 0 else None",
    "and": "    ki == 0 and pl.relu(out_vec, out_vec)",
    "try": "    try:\n        pl.relu(out_vec, out_vec)\n    except ValueError:\n        pass",
}


@pytest.mark.parametrize("name", list(SKIPPABLE))
def test_an_access_the_stage_may_skip_is_marked_and_the_store_after_it_still_waits(name):
    result = transpile(_stage4(SKIPPABLE[name]), preload=1, _skip_rules=("PTO061",))
    accesses = {(a.op, a.pipe): a.conditional for a in result.loops[0].accesses[3]}
    assert accesses == {("relu", "V"): True, ("store", "MTE3"): False}
    raws = {(e.src.stage, e.dst.pipe) for e in result.loops[0].graph.edges
            if e.kind == "RAW" and e.dst.stage == "stage4"}
    assert raws == {("stage3", "V"), ("stage3", "MTE3"), ("stage4", "MTE3")}


def test_an_access_that_surely_runs_hides_the_write_before_it():
    result = transpile(_stage4("    pl.relu(out_vec, out_vec)"), preload=1)
    raws = {(e.src.stage, e.dst.pipe) for e in result.loops[0].graph.edges
            if e.kind == "RAW" and e.dst.stage == "stage4"}
    assert raws == {("stage3", "V"), ("stage4", "MTE3")}
    assert not any(a.conditional for a in result.loops[0].accesses[3])


def test_what_follows_a_return_under_a_test_may_not_run():
    text = _stage4("    if ki == 9:\n        return")
    text = text.replace(_STORE, "    pl.relu(out_vec, out_vec)\n" + _STORE, 1)
    accesses = [(a.op, a.conditional) for a in transpile(text, preload=1).loops[0].accesses[3]]
    assert accesses == [("relu", True), ("store", True)]


@pytest.mark.emulator
def test_the_pipelined_kernel_with_a_skippable_first_access_is_accepted_and_runs_as_the_serial_one():
    from sim_runtime.verify import verify

    text = _stage4(SKIPPABLE["if"])
    result = transpile(text, preload=1)
    assert result.ok, [d.message for d in result.diagnostics]
    rows = verify(text, result.code, "pipeline_demo_kernel", path="k.py").rows
    assert [row.verdict for row in rows] == ["ok", "ok"]


# -- a stage whose first access of a received tile writes part of it ---------------------
# stage4 first marks the last row of the tile stage3 handed over (a vector function's store),
# then stores the whole tile. A write had waits only on the readers before it, so the stage
# waited for nothing: the mark raced with stage3's move, and the store read the rest early.

_MARK = '''@pl.vector_function
def mark_last_row_vf(t):
    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    vf.store_align(t, vf.full(1.0), p32, (TILE_HALF - 1) * TILE)


@pl.pipeline.stage
def stage1('''


def _marked() -> str:
    from helpers import edited

    return edited(_stage4("    mark_last_row_vf(out_vec)"), [
        ("import pypto\n", "import pypto\nfrom pypto_pro.language import Vf as vf\n"),
        ("@pl.pipeline.stage\ndef stage1(", _MARK)])


def test_a_first_access_that_writes_part_of_a_received_tile_waits_for_the_handover():
    result = transpile(_marked(), preload=1)
    raws = {(e.src.stage, e.dst.pipe) for e in result.loops[0].graph.edges
            if e.kind == "RAW" and e.dst.stage == "stage4"}
    assert raws == {("stage3", "V"), ("stage4", "MTE3")}
    assert result.ok, [d.message for d in result.diagnostics]


@pytest.mark.emulator
def test_the_kernel_marking_a_received_tile_first_runs_as_the_serial_one():
    from sim_runtime.verify import verify

    text = _marked()
    rows = verify(text, transpile(text, preload=1).code, "pipeline_demo_kernel", path="k.py").rows
    assert [row.verdict for row in rows] == ["ok", "ok"]


# -- found by a probe of the transform ------------------------------------------------------
# Edits of tests/kernels/scale_store.py: the cube moves each product into `c_vec_db`, which the
# vector stage reads. Each kernel is valid; the transform gave it too few syncs (the check
# refused it) or refused it outright.

_SCALE_STORE = (Path(__file__).parents[1] / "kernels" / "scale_store.py").read_text()
_MOVE = "    pl.move(c_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)\n"
_WITH_G = [("def scale_store(ki, sub_id, out, c_vec_db, y_db):",
            "def scale_store(ki, sub_id, out, g, c_vec_db, y_db):"),
           ("            scale_store(ki, sub_id, out, c_vec_db, y_db)",
            "            scale_store(ki, sub_id, out, g, c_vec_db, y_db)"),
           ("    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],\n",
            "    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],\n    g: pl.Tensor[[TILE, TILE], pl.DT_FP32],\n")]
PROBED = {
    # the handed-over tile written whichever way an `if` goes: the write surely runs; marked
    # conditional, it let the graph search past it into earlier tasks (PTO036, a refusal)
    "written both ways": [(_MOVE, "    if ki % 2 == 0:\n    " + _MOVE + "    elif ki % 3 == 0:\n    " + _MOVE
                           + "    else:\n    " + _MOVE)],
    # the consumer loads into the received tile after reading it: the cube's next write into
    # the slot waited only for the read (on V), not for the load (on MTE2)
    "dead load into the received tile": [("    pl.relu(y, c_vec)\n",
                                           "    pl.relu(y, c_vec)\n    pl.load(c_vec, g, [sub_id * HALF, 0])\n")],
    # a view written in place as an operand: the scan saw no access of the tile at all
    "view as an operand": [("    pl.relu(y, c_vec)\n    pl.store(out, y,",
                            "    pl.muls(c_vec[0:8, :], c_vec[0:8, :], 2.0)\n    pl.store(out, c_vec,")],
}


def _probed(name: str) -> str:
    from helpers import edited

    return edited(_SCALE_STORE, _WITH_G + PROBED[name])


def test_a_write_made_whichever_way_an_if_goes_surely_runs():
    result = transpile(_probed("written both ways"), preload=1)
    assert result.ok, [d.message for d in result.diagnostics]
    assert [(a.op, a.pipe, a.conditional) for a in result.loops[0].accesses[0] if a.buffer == "c_vec_db"] == \
        [("move", "FIX", False)] * 3


def test_a_write_made_one_way_only_stays_conditional():
    from helpers import edited

    text = edited(_SCALE_STORE, [(_MOVE, "    if ki % 2 == 0:\n    " + _MOVE + "    else:\n        pass\n" + _MOVE)])
    moves = [a.conditional for a in transpile(text, preload=1).loops[0].accesses[0] if a.buffer == "c_vec_db"]
    assert moves == [True, False]


def test_the_cube_waits_for_the_vector_load_into_the_tile_it_handed_over():
    result = transpile(_probed("dead load into the received tile"), preload=1)
    assert result.ok, [d.message for d in result.diagnostics]
    wars = {e.src.pipe for e in result.loops[0].graph.edges
            if e.kind == "WAR" and e.dst.stage == "mm_stage" and e.src.stage == "scale_store"}
    assert wars == {"V", "MTE2"}


def test_a_view_written_as_an_operand_is_an_access_of_its_tile():
    result = transpile(_probed("view as an operand"), preload=1)
    assert result.ok, [d.message for d in result.diagnostics]
    assert {(a.op, a.role, a.pipe) for a in result.loops[0].accesses[1] if a.buffer == "c_vec_db"} == \
        {("muls", "RW", "V"), ("store", "R", "MTE3")}


@pytest.mark.emulator
@pytest.mark.parametrize("name", list(PROBED))
@pytest.mark.parametrize("preload", [1, 2])
def test_the_probed_kernels_run_as_the_serial_ones(name, preload):
    from sim_runtime.verify import verify

    text = _probed(name)
    result = transpile(text, preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    rows = verify(text, result.code, "kernel", path="k.py").rows
    assert [row.verdict for row in rows] == ["ok", "ok"]

"""The per-op access scan: roles, pipes, helpers, vector functions, aggregates."""

import textwrap

from pto_transpile import transpile

HEAD = '''
import pypto_pro.language as pl
N = 4

def helper_move(dst, src):
    pl.move(dst, src, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)

@pl.vector_function
def vf_copy(dst, src):
    r = vf.load_align(src)
    vf.store_align(dst, r)

@pl.pipeline.stage
def c1(i, acc_db, bufs):
    acc = acc_db.next()
    x_db = bufs.x
    x = x_db.next()
    helper_move(x, acc)
'''

KERNEL = '''
@pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=1))
def k(out: pl.Tensor[[256, 32], pl.DT_FP32]):
    x_db = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                              addrs=0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
    bufs = pl.make_tuple(x=x_db)
    with pl.section_cube():
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0, mutex_ids=[4, 5])
    with pl.section_vector():
        t_db = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                                  addrs=0x4000, mutex_ids=[6, 7])
    for i in pl.range(0, N):
        with pl.section_cube():
            c1(i, acc_db, bufs)
        with pl.section_vector():
            v1(i, out, x_db, t_db)
'''


def accesses(v1: str):
    r = transpile(HEAD + textwrap.dedent(v1) + KERNEL, path="scan.py")
    assert r.ok, r.diagnostics
    return [[(a.buffer, a.role, a.pipe, a.op) for a in stage] for stage in r.loops[0].accesses]


def test_helpers_tuples_and_vector_functions():
    got = accesses('''
    @pl.pipeline.stage
    def v1(i, out, x_db, t_db):
        x = x_db.next()
        t = t_db.next()
        vf_copy(t, x)
        pl.store(out, t, [i * 32 + pl.get_subblock_idx() * 16, 0])
    ''')
    # c1 reaches x_db through `bufs.x` and writes it inside a plain helper (Acc -> Vec: FIX)
    assert got[0] == [("x_db", "W", "FIX", "move")]
    # the vector function reads its `src` parameter through vf.load_align: pipe V
    assert got[1] == [("x_db", "R", "V", "vf_copy")]


def test_element_access_and_inplace_fill_and_merged_roles():
    got = accesses('''
    @pl.pipeline.stage
    def v1(i, out, x_db, t_db):
        x = x_db.next()
        v = x[0, 1]
        x[0, 0] = v
        pl.fillpad(x, x, mode=pl.FillPadMode.INPLACE)
        pl.add(x, x, x)
        pl.store(out, x, [i * 32 + pl.get_subblock_idx() * 16, 0])
    ''')
    assert got[1] == [
        ("x_db", "R", "S", "getval"), ("x_db", "W", "S", "setval"),
        ("x_db", "RW", "V", "fillpad"), ("x_db", "RW", "V", "add"), ("x_db", "R", "MTE3", "store"),
    ]


def test_descriptor_only_ops_and_untracked_buffers_are_not_accesses():
    got = accesses('''
    @pl.pipeline.stage
    def v1(i, out, x_db, t_db):
        x = x_db.next()
        t = t_db.next()
        pl.set_validshape(x_db, [8, 32])
        pl.relu(t, t)
        pl.store(out, x, [i * 32 + pl.get_subblock_idx() * 16, 0])
    ''')
    assert got[1] == [("x_db", "R", "MTE3", "store")]


def test_unknown_op_on_a_tracked_buffer_is_reported():
    r = transpile(HEAD + textwrap.dedent('''
    @pl.pipeline.stage
    def v1(i, out, x_db, t_db):
        x = x_db.next()
        pl.mystery_op(x, x)
        pl.store(out, x, [i * 32 + pl.get_subblock_idx() * 16, 0])
    ''') + KERNEL, path="scan.py")
    assert [d.code for d in r.diagnostics] == ["PTO053"]


def test_consumer_writing_its_received_tile_pipelines_correctly():
    """Element reads/writes and an in-place op on a received tile: the read-then-overwrite
    inside one stage is no deadlock, and the pipelined kernel matches the serial one."""
    import skeleton as ex
    from sim_runtime import verify

    src = ex.kernel(st=textwrap.dedent('''\
    @pl.pipeline.stage
    def st(ki, sub_id, out, x_db):
        x = x_db.next()
        v = x[0, 1]
        x[0, 0] = v
        pl.add(x, x, x)
        pl.store(out, x, [ki * TILE + sub_id * HALF, 0])'''))
    for preload in (0, 1, 2):
        r = transpile(src, preload=preload)
        assert r.ok, r.diagnostics
        report = verify(src, r.code, "kernel", seed=preload)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_helper_returning_a_tile_it_makes_is_reported():
    r = transpile(HEAD + textwrap.dedent('''
    def scratch():
        t = pl.make_tile(pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x6000)
        return t

    @pl.pipeline.stage
    def v1(i, out, x_db, t_db):
        x = x_db.next()
        s = scratch()
        pl.relu(s, x)
        pl.store(out, s, [i * 32 + pl.get_subblock_idx() * 16, 0])
    ''') + KERNEL, path="scan.py")
    assert [(d.code, d.line) for d in r.diagnostics] == [("PTO021", 22)]


def test_a_tile_passed_by_keyword_is_read_or_written_as_the_keyword_table_says():
    got = accesses('''
    @pl.pipeline.stage
    def v1(i, out, x_db, t_db):
        x = x_db.next()
        t = t_db.next()
        pl.quant(t, t, t, mode=pl.QuantMode.ASYM, offset=x)
    ''')
    assert ("x_db", "R", "V", "quant") in got[1], got[1]

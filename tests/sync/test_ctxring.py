"""What travels in the ctx ring and how stage arguments read it."""

import libcst as cst

from golden_cases import GOLDEN
from pto_transpile import transpile
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.sync import ctxring
from sim_runtime import verify

VEC_CUBE = (GOLDEN / "vec_cube_zone1" / "input.py").read_text()


def test_demo_fields_and_fills():
    r = transpile((GOLDEN / "seed_demo" / "input.py").read_text(), preload=2)
    ctx = r.loops[0].ctx
    assert ctx.fields == ["_pl_is_valid", "ki", "sub_id", "_pl_task_id"]
    fills = {(f.field, f.source, f.sections) for f in ctx.fills}
    assert fills == {("ki", "ki", None), ("sub_id", "sub_id", ("vector",))}  # sub_id is bound in the vector section


def test_nested_struct_fields():
    r = transpile((GOLDEN / "nested_struct" / "input.py").read_text(), preload=1)
    ctx = r.loops[0].ctx
    # struct fields under their own names, an expression argument, the outer slot index, a scalar
    assert ctx.fields == ["_pl_is_valid", "_pl_arg_c2_0", "_pl_idx_q_db", "base", "n", "sub_id", "_pl_task_id"]
    assert "c2(_pl_ctx_neg1._pl_arg_c2_0, q_db[_pl_ctx_neg1._pl_idx_q_db], out" in r.code
    assert "c1(_pl_ctx_0, w, bm" in r.code  # the struct argument is the ctx slot itself


def test_live_keyword_arguments_travel_and_stay_keywords():
    text = VEC_CUBE.replace("            v1(i, scale, sub_id, a, a_db, nz_db, mbuf)",
                            "            v1(i, sub_id=sub_id, a=a, a_db=a_db, nz_db=nz_db, mbuf=mbuf, scale=scale * 1)")
    r = transpile(text, preload=2)
    assert r.ok, r.diagnostics
    assert "_pl_arg_v1_scale" in r.loops[0].ctx.fields and "sub_id" in r.loops[0].ctx.fields
    assert "sub_id=_pl_ctx_0.sub_id, a=a, a_db=a_db" in r.code and "scale=_pl_ctx_0._pl_arg_v1_scale)" in r.code
    # and the delayed stage computes with its own task's values
    text2 = VEC_CUBE.replace(
        "            v1(i, scale, sub_id, a, a_db, nz_db, mbuf)",
        "            v1(i, sub_id=sub_id, a=a, a_db=a_db, nz_db=nz_db, mbuf=mbuf, scale=scale)",
    ).replace(
        "            c1(i, dm, out, mbuf, left_db, right_db, acc_db)",
        "            c1(dm=dm, out=out, mbuf=mbuf, left_db=left_db, right_db=right_db, acc_db=acc_db, i=i)",
    )
    r2 = transpile(text2, preload=2)
    assert r2.ok, r2.diagnostics
    assert "i=_pl_ctx_neg1.i)" in r2.code
    report = verify(text2, r2.code, "vec_cube_kernel", seed=3)
    assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_scalar_named_like_a_struct_field_gets_a_prefixed_field():
    text = (GOLDEN / "nested_struct" / "input.py").read_text().replace(
        "    st = pl.struct(base=0, n=0)\n", "    st = pl.struct(base=0, n=0, sub_id=0)\n")
    r = transpile(text, preload=1)
    assert r.ok, r.diagnostics
    assert "_pl_sub_id" in r.loops[0].ctx.fields and "v1(_pl_ctx_neg1, _pl_ctx_neg1._pl_sub_id," in r.code



def test_an_expression_of_a_handle_and_a_live_value_travels_but_a_pick_of_a_handle_does_not():
    # `pl.min(TILE, a.shape[0] - ki * TILE)` is a number of the iteration: a ctx field; a slot
    # picked by the loop variable in the call (`a_l1_db[ki % 2]`) is a tile: passed as written
    file = read(SourceFile.parse((GOLDEN / "seed_demo" / "input.py").read_text(), "demo.py"))
    kernel = file.kernels[0]
    assert ctxring._travels(kernel, cst.parse_expression("pl.min(TILE, a.shape[0] - ki * TILE)"))[0]
    assert not ctxring._travels(kernel, cst.parse_expression("a_l1_db[ki % 2]"))[0]
    assert not ctxring._travels(kernel, cst.parse_expression("a.shape[0]"))[0]


def _row_by_helper(helper: str, call: str = "offset(ki, sub_id)", imports: str = "") -> str:
    """The argument-kind rule's example kernel with `row` computed by `helper` (a function of the
    file), `sub_id` bound on every core so that the emulator runs it."""
    import skeleton as ex

    st = "@pl.pipeline.stage\ndef st(row, out, x_db):\n    x = x_db.next()\n    pl.store(out, x, [row, 0])"
    text = ex.kernel(imports=ex.IMPORTS + imports, helpers=helper, st=st,
                     loop=ex.loop(f"row = {call}", ex.cube(), ex.vector("st(row, out, x_db)")))
    return text.replace("    with pl.section_vector():\n        sub_id = pl.get_subblock_idx()\n",
                        "    sub_id = pl.get_subblock_idx()\n")


def test_a_helper_returning_what_it_computes_from_scalars_is_a_scalar_that_travels():
    # refused with PTO054 before: what `ki` is inside the helper was not taken from the call
    for call in ("offset(ki, sub_id)", "offset(sub_id=sub_id, ki=ki)"):
        text = _row_by_helper("def offset(ki, sub_id):\n    return ki * TILE + sub_id * HALF", call)
        r = transpile(text, path="k.py")
        assert [d.code for d in r.diagnostics if d.is_error] == [], call
        assert "st(_pl_ctx_neg1.row, out, x_db)" in r.code
        assert [row.verdict for row in verify(text, r.code, "kernel").rows] == ["ok", "ok"]


def test_a_helper_whose_result_the_call_does_not_settle_stays_unknown():
    cases = [
        # a local of the helper: what it holds is not read
        ("def offset(ki, sub_id):\n    r = ki * TILE\n    return r + sub_id * HALF", "offset(ki, sub_id)", ""),
        # it returns what a function of another module gives
        ("def offset(ki, sub_id):\n    return scaled(ki)", "offset(ki, sub_id)", "\nfrom tiling_util import scaled"),
        # a function of another module
        ("", "offset(ki, sub_id)", "\nfrom tiling_util import offset"),
    ]
    for helper, call, imports in cases:
        r = transpile(_row_by_helper(helper, call, imports), path="k.py")
        assert [d.code for d in r.diagnostics if d.is_error] == ["PTO054"], (helper, call)


def test_a_helper_call_python_refuses_has_no_known_kind():
    # a hostile probe (h70): a keyword the helper lacks, or one naming a positional-only parameter,
    # was taken for a scalar argument; both runs of such a kernel raise TypeError
    helper = "def offset(ki, sub_id, /):\n    return ki * TILE + sub_id * HALF"
    for call in ("offset(ki, sub_id, zz=1)", "offset(ki=ki, sub_id=sub_id)"):
        result = transpile(_row_by_helper(helper, call), path="k.py")
        assert [d.code for d in result.diagnostics if d.is_error] == ["PTO054"], call

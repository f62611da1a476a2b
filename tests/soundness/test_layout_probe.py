"""What a probe of layouts and memory found accepted and wrong on the emulator, each kernel the
seed demo with a few edits:

- `pl.setval(t, 0, v)` writes one element, but counted as a write of its whole tile, so the
  rest of the tile, left by another stage of an earlier iteration, seemed overwritten (the
  proof and PTO065 alike);
- `pl.move(view, src, offset=...)`: whether it inserts or extracts is decided by the shapes
  PyPTO gives the operands, a view's own; the check compared the view's tile's shape and read
  an extract as an insert into rows the move never writes;
- a tile type of a `@pl.jit(datatype=...)` name was taken as 4-byte elements, placing the
  slots of an FP16 group where they are not. The name now stands for its tensor's declared
  dtype, and a tile type of a dtype the check cannot read is refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import codes, transpile

DEMO = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text()
STAGE2 = "def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n"
CALL2 = "            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n"
STAGE4 = "def stage4(ki, sub_id, out, out_vec_db):\n"
CALL4 = "            stage4(ki, sub_id, out, out_vec_db)\n"
OUT = "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
NZ_MOVE = "    pl.move(relu_nz, relu_vec)  # ND -> NZ (insert needs an NZ source tile)\n"
DECORATOR = "@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=2))\n"


def _demo(stage2: tuple[str, str], stage4: tuple[str, str] | None, tiles: str, params: str = "",
          extra: list | None = None, after: str = NZ_MOVE) -> str:
    """The demo with `stage2` (arguments added, body lines added `after` its ND -> NZ move), `stage4`
    likewise (or None), `tiles` made at the end of the vector section, tensors `params` added."""
    args2, body2 = stage2
    edits = [(STAGE2, STAGE2.replace("):", f", {args2}):")),
             (CALL2, CALL2.replace(")\n", f", {args2})\n")),
             (after, after + body2)]
    if stage4 is not None:
        args4, body4 = stage4
        edits += [(STAGE4, STAGE4.replace("):", f", {args4}):")), (CALL4, CALL4.replace(")\n", f", {args4})\n")),
                  ("    pl.store(out, out_vec, ", body4 + "    pl.store(out, out_vec, ")]
    if params:
        edits.append((OUT, OUT + params))
    edits.append(("    for ki in pl.range(0, N_ITER):\n", tiles + "    for ki in pl.range(0, N_ITER):\n"))
    return edited(DEMO, edits + (extra or []))


SETVAL = _demo(
    ("out2, keep_g", "    keep = keep_g.current()\n    pl.setval(keep, 0, 1.0)\n"
                     "    pl.store(out2, keep, [ki * TILE + sub_id * TILE_HALF, 0])\n"),
    ("keep_g", "    keep = keep_g.current()\n    pl.muls(keep, out_vec, 1.0)\n"),
    "    with pl.section_vector():\n"
    "        keep_g = pl.make_tile_group(\n"
    "            type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
    "            addrs=0x20000,\n"
    "            mutex_ids=[22],\n"
    "        )\n",
    params="    out2: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n")

EXTRACT = _demo(
    ("stash", "    pl.move(stash[0:16, :], relu_nz, offset=[16, 0])\n"),
    ("out2, corner", "    pl.store(out2, corner, [ki * 32 + sub_id * 16, 0])\n"),
    "    with pl.section_vector():\n"
    "        stash = pl.make_tile(\n"
    "            pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, layout=pl.NZ),\n"
    "            addr=0x20000,\n"
    "        )\n"
    "        corner = pl.make_tile(pl.TileType(shape=[16, 8], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
    "                              addr=0x20000)\n",
    params="    out2: pl.Tensor[[N_ITER * 32, 8], pl.DT_FP32],\n")

#: the demo's `out_vec_db` of dtype `o_dtype`, the dtype of `out` (FP16): 4 KB slots
O_DTYPE = [
    (DECORATOR, DECORATOR.replace("auto_mutex=True,", 'auto_mutex=True, datatype={"out": "o_dtype"},')),
    (OUT, OUT.replace("DT_FP32", "DT_FP16")),
    ("        type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
     "        addrs=0x10000,\n",
     "        type=pl.TileType(shape=[TILE_HALF, TILE], dtype=o_dtype, target_memory=pl.MemorySpace.Vec),\n"
     "        addrs=0x10000,\n"),
]
#: a one-slot group on slot 1 of `out_vec_db` (at 0x11000), written in even iterations only
DATATYPE = _demo(
    ("y_g", "    if ki % 2 == 0:\n        y = y_g.current()\n        pl.muls(y, relu_vec, 0.5)\n"),
    None,
    "    with pl.section_vector():\n"
    "        y_g = pl.make_tile_group(\n"
    "            type=pl.TileType(shape=[16, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
    "            addrs=0x10000 + TILE_HALF * TILE * 2,\n"
    "            mutex_ids=[[16, 17]],\n"
    "        )\n",
    extra=O_DTYPE, after="    pl.relu(relu_vec, mm1_vec)\n")


def _unchecked(text: str, preload: int) -> str:
    code = transpile(text, path="k.py", preload=preload,
                     _skip_rules=(codes.PIPELINE_NOT_PROVEN, codes.TILE_STATE_ACROSS_ITERATIONS)).code
    assert code is not None
    return code


def _verdicts(text: str, preload: int) -> list[str]:
    from sim_runtime.verify import verify

    report = verify(text, _unchecked(text, preload), "pipeline_demo_kernel", path="k.py")
    return [row.verdict for row in report.rows]


@pytest.mark.parametrize("preload", [1, 2])
def test_a_setval_does_not_cover_its_tile(preload):
    errors = transpile(SETVAL, path="k.py", preload=preload).diagnostics
    assert [d.code for d in errors if d.is_error] == [codes.TILE_STATE_ACROSS_ITERATIONS], errors
    (proof,) = error_messages(transpile(SETVAL, path="k.py", preload=preload,
                                        _skip_rules=(codes.TILE_STATE_ACROSS_ITERATIONS,)))
    assert "reads `keep_g[0]`: in the serial kernel it sees stage `stage4`" in proof, proof


@pytest.mark.parametrize("preload", [1, 2])
def test_an_extract_into_a_view_is_no_insert(preload):
    (message,) = error_messages(transpile(EXTRACT, path="k.py", preload=preload))
    assert "`pl.move` on V of AIV0 writes `stash`" in message and "reads `corner`" in message, message


def test_a_datatype_name_is_its_tensor_s_dtype():
    (message,) = error_messages(transpile(DATATYPE, path="k.py", preload=1))
    assert "writes `y_g[0]`" in message and "writes `out_vec_db[1]`" in message, message
    # the same names and sizes without the group on slot 1: proven
    assert error_messages(transpile(edited(DEMO, O_DTYPE), path="k.py", preload=1)) == []


def test_a_tile_type_of_an_unknown_dtype_is_refused():
    text = DATATYPE.replace("pl.DT_FP16]", "o_dtype]")  # `out` declared with the name itself
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert "the dtype of this tile type (`o_dtype`) is not a `pl` dtype the check can read" in message, message


@pytest.mark.emulator
@pytest.mark.parametrize("name, text, preload, wrong", [
    ("setval", SETVAL, 1, "mismatch"),
    ("extract", EXTRACT, 1, "race"),
    ("datatype", DATATYPE, 1, "race"),
])
def test_the_emulator_shows_each_kernel_wrong(name, text, preload, wrong):
    verdicts = _verdicts(text, preload)
    assert verdicts[0] == "ok" and verdicts[1] == wrong, (name, verdicts)


FAR = (Path(__file__).parent / "kernels" / "store_offset_far.py").read_text()


def _atomic_sum(mode: str, module: str = "") -> str:
    """store_offset_far.py with two stages atomically adding into `total` and the second loading
    it back: the sum one stage sees depends on the order the pipeline gives the adds."""
    text = edited(FAR, [
        ("def fill_row(ki, sub_id, out, z_vec):\n    pl.store(out, z_vec, [ki * TILE + sub_id * HALF, 0])\n",
         f"def fill_row(ki, sub_id, total, z_vec):\n    pl.store(total, z_vec, [sub_id * HALF, 0], atomic={mode})\n"),
        ("def scale_store(ki, d, sub_id, out, c_vec_db, y_db):\n",
         "def scale_store(ki, sub_id, out, total, c_vec_db, y_db):\n"),
        ("    pl.relu(y, c_vec)\n    pl.store(out, y, [(ki + 14 - d) * TILE + sub_id * HALF, 0])\n",
         f"    pl.store(total, c_vec, [sub_id * HALF, 0], atomic={mode})\n"
         "    pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)\n"
         "    pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)\n"
         "    pl.load(y, total, [sub_id * HALF, 0])\n    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"),
        ("    d: pl.DT_INT32,\n", "    total: pl.Tensor[[TILE, TILE], pl.DT_FP32],\n"),
        ("            fill_row(ki, sub_id, out, z_vec)", "            fill_row(ki, sub_id, total, z_vec)"),
        ("            scale_store(ki, d, sub_id, out, c_vec_db, y_db)",
         "            scale_store(ki, sub_id, out, total, c_vec_db, y_db)"),
    ])
    return edited(text, [("import pypto_pro.language as pl\n", "import pypto_pro.language as pl\n" + module)]) \
        if module else text


def test_an_atomic_mode_through_an_alias_is_read_as_written():
    # `AT = pl.AtomicType`: `AT.AtomicAdd` was no atomic add to the check, a plain store
    direct = error_messages(transpile(_atomic_sum("pl.AtomicType.AtomicAdd"), path="k.py", preload=1))
    aliased = error_messages(transpile(_atomic_sum("AT.AtomicAdd", "AT = pl.AtomicType\n"), path="k.py", preload=1))
    assert direct and [m.replace("AT.AtomicAdd", "pl.AtomicType.AtomicAdd") for m in aliased] == direct, \
        (direct, aliased)


def test_an_atomic_mode_the_check_cannot_read_is_refused():
    messages = error_messages(transpile(_atomic_sum('getattr(pl.AtomicType, "AtomicAdd")'), path="k.py", preload=1))
    assert messages  # never a plain store

"""A corpus of single mistakes in the seed demo, the kind kernel authors make.

Each case mutates the demo in one place; the check must exit with errors, never crash, and
report the expected rule at the line of the mistake (other findings may come along).
"""

from __future__ import annotations

import pytest

from helpers import demo_text
from pto_transpile import transpile

demo = demo_text()


def sub(old, new, count=1):
    assert old in demo, old
    return demo.replace(old, new, count)


M = {
 "reversed": sub("for ki in pl.range(0, N_ITER):", "for ki in pl.range(N_ITER - 1, -1, -1):"),
 "neg_preload": sub("PipelineConfig(preload=2)", "PipelineConfig(preload=-1)"),
 "len_preload": sub("PipelineConfig(preload=2)", "PipelineConfig(preload=[1, 2])"),
 "stage_calls_stage": sub("    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])",
                          "    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n"
                          "    stage1(ki, None, None, None, None, None, None, None)"),
 "stage_returns": sub("    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])",
                      "    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n    return out_vec"),
 "group_in_helper": sub("@pl.jit(auto_mutex=True",
                        "def make_buf():\n"
                        "    return pl.make_tile_group(type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, "
                        "target_memory=pl.MemorySpace.Vec), addrs=0x20000, mutex_ids=[22, 23])\n\n\n"
                        "@pl.jit(auto_mutex=True")
                    .replace("    relu_vec = relu_vec_db.next()\n",
                             "    relu_vec = relu_vec_db.next()\n    extra = make_buf()\n"),  # in a stage
 "helper_returns_tile": sub("    out_vec = out_vec_db.next()\n    pl.store",
                            "    out_vec = take(out_vec_db)\n    pl.store")
                        .replace("@pl.pipeline.stage\ndef stage1",
                                 "def take(g):\n    t = g.next()\n    return t\n\n\n@pl.pipeline.stage\ndef stage1"),
 "two_stages_one_section": sub("            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n"
                               "        with pl.section_cube():\n            stage3",
                               "            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n"
                               "            stage3"),
 "two_vector_in_row": sub("        with pl.section_cube():\n            stage3",
                          "        with pl.section_vector():\n            stage3"),
 "stmt_between": sub("        with pl.section_cube():\n            stage3",
                     "        x = ki + 1\n        with pl.section_cube():\n            stage3"),
 "stage_outside_section": sub("        with pl.section_vector():\n            stage4(ki, sub_id, out, out_vec_db)",
                              "        stage4(ki, sub_id, out, out_vec_db)"),
 "touch_xbuf_in_loop": sub("    for ki in pl.range(0, N_ITER):\n",
                           "    for ki in pl.range(0, N_ITER):\n        t = mm1_vec_db.next()\n"),
 "nested_pick": sub("        b_slot = b_l1.current()\n",
                    "        b_slot = b_l1.current()\n        pl.load(d_l1.current(), d, [0, 0])\n"),
 "repeated_pick": sub("        d_slot = d_l1.current()\n",
                      "        d_slot = d_l1.current()\n        d_slot = d_l1.next()\n"),
 "stage_twice": sub("            stage4(ki, sub_id, out, out_vec_db)",
                    "            stage4(ki, sub_id, out, out_vec_db)\n"
                    "        with pl.section_cube():\n"
                    "            stage3(ki, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db)\n"
                    "        with pl.section_vector():\n"
                    "            stage4(ki, sub_id, out, out_vec_db)"),
 "runtime_if": sub("        with pl.section_vector():\n            stage4(ki, sub_id, out, out_vec_db)",
                   "        if ki > 0:\n            with pl.section_vector():\n"
                   "                stage4(ki, sub_id, out, out_vec_db)"),
 "ids_range": sub("fwd_ids=[0, 1],", "fwd_ids=[0, 16],"),
 "ids_expr": sub("fwd_ids=[0, 1],", "fwd_ids=[i for i in range(2)],"),
 "ids_expr2": sub("fwd_ids=[4, 5],", "fwd_ids=[4, 4 + 1],"),
 "ids_len": sub("fwd_ids=[0, 1],", "fwd_ids=[0, 1, 2],"),
 "acc_xbuf": demo.replace("type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, "
                          "target_memory=pl.MemorySpace.Vec),"
                          "\n        addrs=0x0000,",
                          "type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, "
                          "target_memory=pl.MemorySpace.Acc),"
                          "\n        addrs=0x0000,", 1),
 "pl_name": sub("        sub_id = pl.get_subblock_idx()",
                "        _pl_sub = pl.get_subblock_idx()\n        sub_id = _pl_sub"),
 "one_user": sub("    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])",
                 "    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])")
             .replace("            stage4(ki, sub_id, out, out_vec_db)",
                      "            stage4(ki, sub_id, out, relu_vec_db)"),
 "no_rotate": sub("    mm1_vec = mm1_vec_db.next()\n    relu_vec", "    mm1_vec = mm1_vec_db[0]\n    relu_vec"),
 "struct_array": sub("        sub_id = pl.get_subblock_idx()",
                     "        sub_id = pl.get_subblock_idx()\n        sa = pl.struct_array(2, 'S', a=0)")
                 .replace("            stage4(ki, sub_id, out, out_vec_db)",
                          "            stage4(ki, sa, out, out_vec_db)"),
 "mutex_mismatch": sub("        relu_vec_db = pl.make_tile_group(\n"
                       "            type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, "
                       "target_memory=pl.MemorySpace.Vec),\n"
                       "            addrs=0x8000,",
                       "        relu_vec_db = pl.make_tile_group(\n"
                       "            type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, "
                       "target_memory=pl.MemorySpace.Vec),\n"
                       "            addrs=0x0000,"),
 "two_loops_one_outer": sub("    for ki in pl.range(0, N_ITER):\n",
                            "    for bi in pl.range(0, 2):\n      for ki in pl.range(0, N_ITER):\n")
                        .replace("            stage4(ki, sub_id, out, out_vec_db)\n",
                                 "            stage4(ki, sub_id, out, out_vec_db)\n"
                                 "      for kj in pl.range(0, N_ITER):\n"
                                 "        with pl.section_cube():\n"
                                 "            stage1(kj, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db)\n"
                                 "        with pl.section_vector():\n"
                                 "            stage2(kj, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n"),
 "syntax": sub("    for ki in pl.range(0, N_ITER):", "    for ki in pl.range(0, N_ITER)"),
}

EXPECT = {
    'reversed': ('PTO017', 'pl.range(N_ITER - 1, -1, -1)'),
    'neg_preload': ('PTO005', 'preload=-1'),
    'len_preload': ('PTO006', 'preload=[1, 2]'),
    'stage_calls_stage': ('PTO018', '    stage1(ki, None'),
    'stage_returns': ('PTO019', '    return out_vec'),
    'group_in_helper': ('PTO020', '    return pl.make_tile_group('),
    'helper_returns_tile': ('PTO021', '    return t'),
    'two_stages_one_section': ('PTO010', '            stage3(ki'),
    'two_vector_in_row': ('PTO012', '            stage3(ki'),
    'stmt_between': ('PTO013', '        x = ki + 1'),
    'stage_outside_section': ('PTO008', '        stage4(ki'),
    'touch_xbuf_in_loop': ('PTO022', '        t = mm1_vec_db.next()'),
    'nested_pick': ('PTO023', '        pl.load(d_l1.current()'),
    'repeated_pick': ('PTO024', '        d_slot = d_l1.next()'),
    'stage_twice': ('PTO014', '            stage3(ki, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db)\n'
                              '        with pl.section_vector():\n            stage4'),
    'runtime_if': ('PTO007', '        if ki > 0:'),
    'ids_range': ('PTO025', 'fwd_ids=[0, 16],'),
    'ids_expr': ('PTO026', 'fwd_ids=[i for i in range(2)],'),
    'ids_expr2': ('PTO026', 'fwd_ids=[4, 4 + 1],'),
    'ids_len': ('PTO027', 'fwd_ids=[0, 1, 2],'),
    'acc_xbuf': ('PTO028', 'target_memory=pl.MemorySpace.Acc),\n        addrs=0x0000,'),
    'pl_name': ('PTO040', '        _pl_sub = '),
    'one_user': ('PTO033', '            stage3(ki, d_l1'),
    'no_rotate': ('PTO037', '    mm1_vec = mm1_vec_db[0]'),
    'struct_array': ('PTO038', 'stage4(ki, sa, out'),
    'mutex_mismatch': ('PTO029', '            mutex_ids=[18, 19],'),
    'two_loops_one_outer': ('PTO041', '      for kj in pl.range'),
    'syntax': ('PTO001', '    for ki in pl.range(0, N_ITER)\n'),
}


def line_of(text: str, snippet: str) -> int:
    pos = text.rindex(snippet)
    return text.count("\n", 0, pos) + 1 + (len(snippet) - len(snippet.lstrip("\n")))


@pytest.mark.parametrize("name", sorted(M))
def test_mistake_is_reported_at_its_line(name):
    code, snippet = EXPECT[name]
    text = M[name]
    result = transpile(text, path=f"{name}.py")
    assert result.code is None
    assert "PTO099" not in {d.code for d in result.diagnostics}
    found = {(d.code, d.line) for d in result.diagnostics}
    assert (code, line_of(text, snippet)) in found, sorted(found)


def test_every_mutation_has_an_expectation():
    assert set(M) == set(EXPECT)


def test_one_stage_in_the_wrong_section_is_one_finding():
    """A vector stage put in a cube section between two cube stages made two PTO012 (one per
    neighbour, the same hint twice: study ux3); it is one, at the misplaced stage's call."""
    text = sub("        with pl.section_vector():\n            stage2(",
               "        with pl.section_cube():\n            stage2(")
    found = [d for d in transpile(text, path="k.py").diagnostics if d.code == "PTO012"]
    line = text.splitlines().index("            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)") + 1
    assert [(d.line, "`stage2` calls `pl." in d.hint) for d in found] == [(line, True)], found

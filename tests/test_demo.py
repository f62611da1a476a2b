"""Acceptance of the transform on the seed demo (issue 2)."""

import io
import re
import subprocess
import sys
import tokenize

import libcst as cst
import pytest

from helpers import DEMO, demo_text
from pto_transpile.driver import transpile


def top_level_sources(text):
    module = cst.parse_module(text)
    out = {}
    for stmt in module.body:
        name = stmt.name.value if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else module.code_for_node(stmt)
        out[name] = module.code_for_node(stmt)
    return out


def comments(text):
    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]


@pytest.mark.parametrize("preload", [0, 1, 2])
def test_output_keeps_everything_outside_the_kernel(preload):
    r = transpile(demo_text(), preload=preload, path=str(DEMO))
    assert r.ok and r.diagnostics == []
    compile(r.code, "out.py", "exec")
    before, after = top_level_sources(demo_text()), top_level_sources(r.code)
    assert list(before) == list(after)
    changed = [k for k in before if before[k] != after[k]]
    assert changed == ["pipeline_demo_kernel"]
    out_comments = comments(r.code)
    assert all(c in out_comments for c in comments(demo_text()))
    stage4 = r.code.split("def pipeline_demo_kernel")[0].split("@pl.pipeline.stage\ndef stage4")[1]
    assert "0x8000" in r.code and "pipeline=" not in stage4


@pytest.mark.parametrize("preload, depth", [(1, 3), (2, 4)])
def test_ring_depth(preload, depth):
    code = transpile(demo_text(), preload=preload).code
    assert re.findall(r"pl\.struct_array\((\d+),", code) == [str(depth)]
    assert f"for _pl_drain in pl.range(0, {depth - 1}):" in code


def test_serial_mode_has_no_ring():
    code = transpile(demo_text(), preload=0).code
    assert "struct_array" not in code and "_pl_ctx" not in code and "_pl_sync_id = _pl_sync_id + 1" in code


def _sections(code, marker):
    """Top-level `with pl.section_*()` blocks of the kernel that hold `marker` calls with literal indices."""
    return re.findall(rf"pl\.system\.{marker}\(pipe=pl\.PipeType\.(\w+), event_id=(_pl_\w+)\[(\d)\]\)", code)


@pytest.mark.parametrize("preload", [0, 1, 2])
def test_prefire_and_drain_counts(preload):
    code = transpile(demo_text(), preload=preload).code
    prefire = _sections(code, "set_cross_core")
    drain = _sections(code, "wait_cross_core")
    assert len(prefire) == 6 and len(drain) == 6
    assert sorted(prefire) == sorted([
        ("V", "_pl_bwd_ids_mm1_vec_db", "0"), ("V", "_pl_bwd_ids_mm1_vec_db", "1"),
        ("MTE3", "_pl_bwd_ids_out_vec_db", "0"), ("MTE3", "_pl_bwd_ids_out_vec_db", "1"),
        ("MTE1", "_pl_bwd_ids_p_mat_db", "0"), ("MTE1", "_pl_bwd_ids_p_mat_db", "1"),
    ])
    assert sorted(drain) == sorted([
        ("FIX", "_pl_bwd_ids_mm1_vec_db", "0"), ("FIX", "_pl_bwd_ids_mm1_vec_db", "1"),
        ("FIX", "_pl_bwd_ids_out_vec_db", "0"), ("FIX", "_pl_bwd_ids_out_vec_db", "1"),
        ("MTE3", "_pl_bwd_ids_p_mat_db", "0"), ("MTE3", "_pl_bwd_ids_p_mat_db", "1"),
    ])


def test_one_wait_and_one_set_per_edge_per_stage_at_preload_2():
    r = transpile(demo_text(), preload=2)
    plan = r.loops[0].plan
    expected_pre = {0: [("FIX", "_pl_bwd_ids_mm1_vec_db")],
                    1: [("V", "_pl_fwd_ids_mm1_vec_db"), ("MTE3", "_pl_bwd_ids_p_mat_db")],
                    2: [("MTE1", "_pl_fwd_ids_p_mat_db"), ("FIX", "_pl_bwd_ids_out_vec_db")],
                    3: [("MTE3", "_pl_fwd_ids_out_vec_db")]}
    expected_post = {0: [("FIX", "_pl_fwd_ids_mm1_vec_db")],
                     1: [("V", "_pl_bwd_ids_mm1_vec_db"), ("MTE3", "_pl_fwd_ids_p_mat_db")],
                     2: [("MTE1", "_pl_bwd_ids_p_mat_db"), ("FIX", "_pl_fwd_ids_out_vec_db")],
                     3: [("MTE3", "_pl_bwd_ids_out_vec_db")]}
    assert {i: [(o.pipe, o.ids.name) for o in ops] for i, ops in plan.pre.items()} == expected_pre
    assert {i: [(o.pipe, o.ids.name) for o in ops] for i, ops in plan.post.items()} == expected_post
    # in the text: each stage guard holds its waits, the call, its sets, indexed by the ctx task id
    kernel = r.code.split("def pipeline_demo_kernel")[1]
    main_loop = kernel.split("for ki in pl.range(0, N_ITER):")[1].split("for _pl_drain")[0]
    assert main_loop.count("wait_cross_core") == 6 and main_loop.count("set_cross_core") == 6
    assert "event_id=_pl_fwd_ids_p_mat_db[_pl_ctx_neg2._pl_task_id % 2]" in main_loop  # stage3 has delay 2


def test_preload_3_rejected_naming_the_buffer(tmp_path):
    out = tmp_path / "gen.py"
    proc = subprocess.run([sys.executable, "-m", "pto_transpile.cli", str(DEMO), "--preload", "3", "-o", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "p_mat_db" in proc.stdout and "3 tiles" in proc.stdout and "PTO043" in proc.stdout
    assert f"{DEMO}:99:16" in proc.stdout
    assert not out.exists()

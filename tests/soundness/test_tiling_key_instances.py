"""Each tiling-key instance is proven with its fields bound, as the JIT compiles it.

A kernel that picks its pipeline loop by a key field (`if ApplyRelu == 1:` around one loop,
`else:` around another, PTO007's own hint for a key test among stages) was refused: the field
was no compile-time value to the check, so the stages ran "under a condition the check cannot
decide". Now every instance is proven with the field's value, a defect of one instance is
found in that instance and named with it, and the verified kernel is bit-identical on the
emulator in each instance. The kernel is the tiled_scale example with its loop split by key."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_transpile import transpile
from sim_runtime import verify

EXAMPLE = Path(__file__).parents[2] / "examples" / "tiled_scale.py"
LOOP = """    for i in pl.range(core_id, n_blocks, num_cores):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)
"""
PLAIN = '''

@pl.pipeline.stage
def finish_plain(i, sub_id, scale, out, proj_vec_db, res_db):
    proj = proj_vec_db.next()
    res = res_db.next()
    pl.muls(res, proj, scale)
    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])
'''
OWN_ROWS = "[i * BLOCK + sub_id * HALF, 0])\n"


def by_key(bad_stage: str = "") -> str:
    """The loop of the relu instance calls `finish`, the other's `finish_plain`; `bad_stage`
    stores both vector cores' halves on the same rows."""
    text = EXAMPLE.read_text()
    assert LOOP in text
    nested = LOOP.replace("\n    ", "\n        ").replace("    for", "        for", 1)
    text = text.replace(LOOP, "    if ApplyRelu == 1:  # noqa: F821\n" + nested + "    else:\n"
                        + nested.replace("finish(", "finish_plain("))
    text = text.replace("\n\n@pl.jit(", PLAIN + "\n\n@pl.jit(", 1)
    if bad_stage:
        start = text.index(f"def {bad_stage}(")
        end = text.index(OWN_ROWS, start)
        text = text[:end] + "[i * BLOCK, 0])\n" + text[end + len(OWN_ROWS):]
    return text


def _errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


def test_a_loop_picked_by_a_key_field_is_proven_for_each_instance():
    assert _errors(transpile(by_key(), path="by_key.py", preload=2)) == []


@pytest.mark.parametrize("bad_stage, instance", [("finish", "ApplyRelu=1"), ("finish_plain", "ApplyRelu=0")])
def test_a_defect_of_one_instance_is_found_and_named_with_it(bad_stage, instance):
    (message,) = _errors(transpile(by_key(bad_stage), path="by_key.py", preload=1))
    assert f"stage `{bad_stage}` (task 0), `pl.store` on MTE3 of AIV0 writes `out[0:16, 0:32]`" in message
    assert f"(in the tiling-key instance {instance}; " in message
    assert message.count(instance) == 1, message  # (named once: probe h238 saw it twice)


@pytest.mark.parametrize("apply_relu", [0, 1])
def test_each_instance_verifies_on_the_emulator(apply_relu):
    text = by_key()
    code = transpile(text, path="by_key.py", preload=2).code
    report = verify(text, code, "tiled_scale_kernel", shapes={"a": (160, 32), "out": (160, 32)},
                    scalars={"scale": 0.5, "ApplyRelu": apply_relu}, block_dim=2)
    assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows

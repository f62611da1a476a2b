"""Struct fields a plain function of the file sets at the top of every iteration (`tile_params(st,
ki)` of `p.row = ki * TILE`): refused as a field carrying a value from one iteration to the next,
while the same lines written in the loop body were accepted (probe h206): which fields an
iteration binds before it reads them was read in the loop body alone. A call handed the struct is
read through now, up to the function's first statement that may leave it; a field the function
reads before it binds it, or binds only on some paths, is still carried, and refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import DYNAMIC_ROWS_LOOP, edited, error_messages, kernel_text
from pto_transpile import codes, transpile
from sim_runtime import verify

ROWS = kernel_text(Path(__file__).parent / "kernels" / "dynamic_rows.py")
HELPER = "def tile_params(p, ki):\n    p.row = ki * TILE\n    p.half = ki * TILE + HALF\n"
CALL = "        tile_params(st, ki)\n"
STAGE = "@pl.pipeline.stage\ndef mm_stage"
LOOP = DYNAMIC_ROWS_LOOP
#: the rows of each tile kept in a struct the helper fills at the top of every iteration
KERNEL = edited(ROWS, [(STAGE, HELPER + "\n\n" + STAGE), (LOOP, f"""    st = pl.struct("Params", row=0, half=0)
    for ki in pl.range(0, n_tiles):
{CALL}        with pl.section_cube():
            mm_stage(st.row // TILE, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(st.half // TILE, sub_id, out, c_vec_db, y_db)""")])


@pytest.mark.parametrize(("helper", "call"), [
    (HELPER, CALL),
    (HELPER.replace("(p, ki)", "(ki, p=None)"), "        tile_params(ki, p=st)\n"),
    # its parameter named as the kernel's struct, its own name there (probe h214: refused)
    ("def tile_params(st, ki):\n    st.row = ki * TILE\n    st.half = ki * TILE + HALF\n", CALL),
])
def test_fields_a_helper_sets_first_are_proven_and_verified(helper, call):
    text = edited(KERNEL, [(HELPER, helper), (CALL, call)])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for rows in (32, 160):
        report = verify(text, result.code, "kernel", shapes={"a": (rows, 32), "out": (rows, 32)})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (rows, report.rows)


@pytest.mark.parametrize("helper", [
    "def tile_params(p, ki):\n    p.half = p.row + TILE + HALF\n    p.row = p.row + TILE\n",
    "def tile_params(p, ki):\n    p.half = ki * TILE + HALF\n    if ki % 2 == 1:\n        return\n"
    "    p.row = ki * TILE\n",
    "def tile_params(p, ki):\n    p.half = ki * TILE + HALF\n    if ki % 2 == 0:\n        p.row = ki * TILE\n",
])
def test_a_field_the_helper_does_not_set_first_on_every_path_is_still_carried(helper):
    messages = error_messages(transpile(edited(KERNEL, [(HELPER, helper)]), path="k.py"))
    assert any("field `st.row` carries a value" in m for m in messages), messages


GUARD = '    if ki < 0:\n        raise ValueError("tile index must not be negative")\n'
SHIFTS = "".join(f"    p.d{k} = p.d{k - 1}\n" for k in range(10, 1, -1)) + "    p.d1 = ki\n"
SPLIT = kernel_text(Path(__file__).parent / "kernels" / "balanced_split_if.py")
#: `tile_params(st, t, ki)`: a helper that checks its index first, then shifts a ten-deep history of
#: `ki` in `st` and sets `t.vt = ki + min(st.d10, 1)`. From iteration 10 the vector stage stores tile
#: ki + 1, which the next iteration's cube stores too (`out` has one tile more than `a`): the split
#: kernel over all the tiles on one block, its vector stage placed by `t.vt`
HISTORY = edited(SPLIT, [
    ("\n\n@pl.pipeline.stage\ndef mm_stage(",
     "\n\ndef tile_params(p, q, ki):\n" + GUARD + SHIFTS + "    q.vt = ki + pl.min(p.d10, 1)\n\n\n"
     "@pl.pipeline.stage\ndef mm_stage("),
    ("    shift = 0\n    pl.store(out, y, [(ki + shift) * TILE + sub_id * HALF, 0])\n",
     "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"),
    ("    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
     "    base = n_tiles // num_cores\n    rem = n_tiles % num_cores\n"
     "    start = core_id * base + pl.min(core_id, rem)\n    end = start + base\n    if core_id < rem:\n"
     "        end = end + 1\n    for ki in pl.range(start, end):\n",
     '    st = pl.struct("History", d1=0, d2=0, d3=0, d4=0, d5=0, d6=0, d7=0, d8=0, d9=0, d10=0)\n'
     "    for ki in pl.range(0, n_tiles):\n"
     '        t = pl.struct("Tile", vt=0)\n        tile_params(st, t, ki)\n'),
    ("            scale_store(ki, d, sub_id, out, c_vec_db, y_db)",
     "            scale_store(t.vt, d, sub_id, out, c_vec_db, y_db)"),
])
#: `st`'s history kept in the loop body, a helper setting `scratch` given `st` by a keyword `**kw` takes
INTO_KWARGS = edited(HISTORY, [
    ("def tile_params(p, q, ki):\n" + GUARD + SHIFTS + "    q.vt = ki + pl.min(p.d10, 1)\n",
     "def tile_params(p, /, ki, **kw):\n" + "".join(f"    p.d{k} = 0\n" for k in range(1, 11)) + "    p.vt = ki\n"),
    ('    st = pl.struct("History", d1=0, d2=0, d3=0, d4=0, d5=0, d6=0, d7=0, d8=0, d9=0, d10=0)\n',
     '    st = pl.struct("Params", d1=0, d2=0, d3=0, d4=0, d5=0, d6=0, d7=0, d8=0, d9=0, d10=0, vt=0)\n'
     '    scratch = pl.struct("Params", d1=0, d2=0, d3=0, d4=0, d5=0, d6=0, d7=0, d8=0, d9=0, d10=0, vt=0)\n'),
    ('        t = pl.struct("Tile", vt=0)\n        tile_params(st, t, ki)\n',
     "        tile_params(scratch, ki, p=st)\n" + SHIFTS.replace("    p.", "        st.").replace("= p.", "= st.")
     + "        st.vt = ki + pl.min(st.d10, 1)\n"),
    ("scale_store(t.vt,", "scale_store(st.vt,"),
])


def test_a_keyword_the_helper_takes_into_kwargs_sets_no_field_of_the_struct():
    """`tile_params(scratch, ki, p=st)` of `def tile_params(p, /, ki, **kw)`: `st` goes to `**kw` and
    the helper sets `scratch`'s fields, but the check took the keyword for the parameter `p` and every
    field of `st` for set first, missing a ten-deep delay of `ki` that races from the tenth iteration
    on (probe h216: accepted; the emulator shows the race at 12 tiles)."""
    text = INTO_KWARGS
    messages = error_messages(transpile(text, path="k.py"))
    assert any("field `st.d1` carries a value" in m for m in messages), messages
    forced = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,))
    report = verify(text, forced.code, "kernel", shapes={"a": (384, 32), "out": (416, 32)}, scalars={"d": 3})
    assert [r.verdict for r in report.rows] == ["ok", "race"], report.rows




def _nested(text: str) -> str:
    """The helper defined in the kernel, at the top of its body."""
    start, end = text.index("def tile_params("), text.index("\n\n\n@pl.pipeline.stage")
    helper = text[start:end]
    body = text.index("):\n", text.index("def kernel(")) + 3
    inner = "".join(f"    {line}" if line.strip() else line for line in helper.splitlines(keepends=True))
    return text[:body] + inner + "\n" + text[body:].replace(helper + "\n\n\n", "")


@pytest.mark.parametrize("guarded", [True, False])
@pytest.mark.parametrize("nested", [False, True])
def test_fields_a_helper_reads_from_the_iteration_before_are_carried(guarded, nested):
    """A helper shifting a history kept in the struct reads what the fields carried from the
    iteration before: probe h218 found it accepted where a guard (`if ki < 0: raise`) stood at the
    top of the helper, its body read only up to there; with no guard, or with the helper defined
    in the kernel, it was accepted before this change too. Each races from the tenth iteration
    (the emulator shows it at 12 tiles)."""
    text = HISTORY if guarded else edited(HISTORY, [(GUARD, "")])
    text = _nested(text) if nested else text
    assert ("    def tile_params(" in text) == nested and (GUARD in text or "        if ki < 0:" in text) == guarded
    messages = error_messages(transpile(text, path="k.py"))
    assert any("field `st.d1` carries a value" in m for m in messages), messages
    forced = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,))
    report = verify(text, forced.code, "kernel", shapes={"a": (384, 32), "out": (416, 32)}, scalars={"d": 1})
    assert [r.verdict for r in report.rows] == ["ok", "race"], report.rows

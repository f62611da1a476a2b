"""What GM holds, as the check compares the serial and the pipelined kernel: element by
element at the end (two stores that overlap in part and swap places were compared as whole
regions, which hid the swap), and an atomic add reads what it adds to (as a plain write, the
additions a read-back sees could change without the last one changing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_transpile import transpile

KERNELS = Path(__file__).parent / "kernels"


def _messages(text: str, name: str) -> list[str]:
    result = transpile(text, path=name)
    return [d.message for d in result.diagnostics if d.severity == "error"]


def _kernel(name: str) -> str:
    return (KERNELS / name).read_text()


def test_stores_that_overlap_in_part_and_swap_places_are_refused():
    (message,) = _messages(_kernel("overlap_reordered.py"), "overlap_reordered.py")
    assert "`out[64:66, 0:32]` ends with different contents" in message
    assert "the serial kernel leaves stage `fill_row` (task 1)" in message
    assert "the pipelined kernel stage `scale_store` (task 0)" in message


def test_stores_that_touch_without_overlapping_are_accepted():
    text = _kernel("overlap_reordered.py").replace("pl.set_validshape(y, [26, TILE])",
                                                   "pl.set_validshape(y, [24, TILE])")
    assert _messages(text, "overlap_reordered.py") == []


def test_an_atomic_add_read_back_is_refused_when_the_pipeline_adds_another_first():
    messages = _messages(_kernel("atomic_read_back.py"), "atomic_read_back.py")
    assert any("stage `scale_store` (task 0), `pl.store` on MTE3 of AIV0 reads `total[0:16, 0:32]`: in the serial "
               "kernel it sees stage `fill_row` (task 0)" in m and "in the pipelined kernel stage `fill_row` (task 1)"
               in m for m in messages), messages


def _accumulate_only() -> str:
    """One stage adds into `total` every iteration and nothing reads it: the additions keep
    their order in both kernels."""
    text = _kernel("atomic_read_back.py")
    for old, new in [
        ("    pl.store(total, z_vec, [sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)",
         "    pl.store(out, z_vec, [(ki + 8) * TILE + sub_id * HALF, 0])"),
        ("    pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)\n"
         "    pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)\n"
         "    y = y_db.next()\n    pl.load(y, total, [sub_id * HALF, 0])\n"
         "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n", ""),
        ("fill_row(ki, sub_id, total, z_vec)", "fill_row(ki, sub_id, out, z_vec)"),
    ]:
        assert old in text, old
        text = text.replace(old, new)
    return text


def test_atomic_adds_of_one_stage_are_accepted():
    assert _messages(_accumulate_only(), "atomic_read_back.py") == []


@pytest.mark.emulator
@pytest.mark.parametrize("name, same", [
    ("overlap_reordered.py", False),
    ("atomic_read_back.py", False),
    ("accumulate_only", True),
])
def test_the_emulator_agrees(name, same):
    from sim_runtime.verify import verify

    text = _accumulate_only() if name == "accumulate_only" else _kernel(name)
    code = transpile(text, path=name, _skip_rules=["PTO061"]).code
    assert code is not None
    row = verify(text, code, "kernel", path=name).rows[-1]
    assert (row.verdict == "ok") == same, (row.verdict, row.message)


def test_a_store_at_an_offset_read_from_gm_is_a_superset_of_the_tensor():
    # where it lands is not known: it conflicts with every access of `out`, and overwrites none
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.soundness.interp import Config, Interpreter

    text = _kernel("store_offset_param.py")
    for old, new in [("    pl.store(out, y, [(ki + d) * TILE + sub_id * HALF, 0])",
                      "    pl.store(out, y, [pl.getval(rows, ki) + sub_id * HALF, 0])"),
                     ("def scale_store(ki, d, sub_id, out,", "def scale_store(ki, rows, sub_id, out,"),
                     ("scale_store(ki, d, sub_id, out,", "scale_store(ki, rows, sub_id, out,"),
                     ("    d: pl.DT_INT32,\n", "    rows: pl.Tensor[[N], pl.DT_INT32],\n")]:
        assert old in text, old
        text = text.replace(old, new)
    file = read(SourceFile.parse(text, "scatter.py"))
    trace = Interpreter(file, file.kernels[0].node, Config()).run()
    stores = [f for core in trace.events for ev in core if ev.stage == "scale_store" for f in ev.writes
              if f.key == ("GM", "out")]
    assert stores and all(f.window and f.r0 == 0 and f.c0 == 0 for f in stores)

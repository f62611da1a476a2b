"""A name the kernel binds in a section exists on the cores that run the section alone: read by
code every core runs, it raises on the others (UnboundLocalError: the kernel binds it, so it is
the kernel's own name everywhere). The check followed such a read on the cube core as an
unknown value and proved the kernel (probe h73); the emulator's serial run raised on the AIC."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime.verify import verify

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
SECTION_END = "            addrs=0x8000, mutex_ids=[10, 11],\n        )\n"
LOOP = "    for i in pl.range(0, n_blocks):\n"
#: `spare` bound on the vector cores, counted by code every core runs
READ_EVERYWHERE = edited(BASE, [(SECTION_END, SECTION_END + "        spare = 0\n"),
                                (LOOP, LOOP + "        spare = spare + 1\n")])
#: the same count made where the vector cores run
READ_IN_SECTION = edited(BASE, [(SECTION_END, SECTION_END + "        spare = 0\n"),
                                (LOOP, LOOP + "        with pl.section_vector():\n            spare = spare + 1\n")])
#: the hint applied: bound outside the sections
BOUND_EVERYWHERE = edited(BASE, [(LOOP, "    spare = 0\n" + LOOP + "        spare = spare + 1\n")])
SHAPES = {"a": (96, 32), "out": (96, 32)}


def test_a_name_bound_in_a_section_and_read_by_every_core_is_refused_naming_the_cores():
    [d] = [d for d in transpile(READ_EVERYWHERE, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.PIPELINE_NOT_PROVEN
    assert "`spare` is read on AIC, where nothing the core runs has bound it (it is bound on AIV0, AIV1 alone" \
        in d.message, d.message
    assert d.hint.startswith("Bind the name where every core that reads it runs (outside the sections)")


def test_the_emulator_shows_the_serial_kernel_raising_on_the_cube_core():
    code = transpile(READ_EVERYWHERE, path="k.py", _skip_rules=["PTO061"]).code
    serial = verify(READ_EVERYWHERE, code, "kern", path="k.py", shapes=SHAPES).rows[0]
    assert serial.verdict != "ok" and "UnboundLocalError" in serial.message and "AIC" in serial.message, \
        (serial.verdict, serial.message)


def test_read_where_it_is_bound_or_bound_everywhere_it_is_proven_and_runs_as_the_serial_kernel():
    for text in (READ_IN_SECTION, BOUND_EVERYWHERE):
        result = transpile(text, path="k.py")
        assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
        assert [r.verdict for r in verify(text, result.code, "kern", path="k.py", shapes=SHAPES).rows] == ["ok", "ok"]

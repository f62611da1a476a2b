"""A kernel counts as pto-transpile's output only while it carries the mark written with it.

pto-transpile leaves its own output as written when it reads it again, unchecked: its syncs
were proven when it was written. Binding `_pl_task_id` does not make a kernel that output:
a hand-written pipeline that binds it, or a generated file edited afterwards, is checked as
a hand-written pipeline (PTO068), so a missing wait is an error, not a note.
"""

from __future__ import annotations

import re
from pathlib import Path

from pto_transpile import transpile
from pto_transpile.read.mark import PREFIX, digest

ROOT = Path(__file__).resolve().parents[2]
HAND = (ROOT / "examples" / "hand_pipelined.py").read_text(encoding="utf-8")
DEMO = (ROOT / "examples" / "seed_demo.py").read_text(encoding="utf-8")
#: The cube's wait for a free tile, in the hand-written example: without it the cube
#: overwrites a tile the vector cores still read.
CUBE_WAIT = "                pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[t % 2])\n"
#: The first wait of the generated loop body.
GENERATED_WAIT = re.compile(r"\n *pl\.system\.wait_cross_core\([^)]*\)")


def codes(text: str) -> list[str]:
    return [d.code for d in transpile(text, path="k.py").diagnostics]


def generated(text: str = DEMO, preload: int = 1) -> str:
    result = transpile(text, path="k.py", preload=preload)
    assert result.ok, result.diagnostics
    return result.code


def test_a_hand_written_pipeline_binding_the_task_counter_is_checked():
    assert CUBE_WAIT in HAND
    racy = HAND.replace(CUBE_WAIT, "").replace("        now = ring[t % 2]\n",
                                               "        _pl_task_id = t\n        now = ring[t % 2]\n")
    assert "PTO068" in codes(racy)
    assert "PTO068" in codes(HAND.replace(CUBE_WAIT, ""))  # the same kernel without the name


def test_a_forged_or_stale_mark_does_not_make_a_kernel_generated():
    racy = HAND.replace(CUBE_WAIT, "").replace("        now = ring[t % 2]\n",
                                               "        _pl_task_id = t\n        now = ring[t % 2]\n")
    forged = racy.replace("\n@pl.jit(", f"\n{PREFIX}{'0123456789abcdef'}): edit the serial kernel.\n@pl.jit(", 1)
    result = transpile(forged, path="k.py")
    assert "PTO068" in [d.code for d in result.diagnostics]
    note = next(d for d in result.diagnostics if d.code == "PTO060")
    assert "the file changed after pto-transpile wrote it" in note.message


def test_the_output_read_again_is_left_as_written():
    out = generated()
    assert out.count(PREFIX) == 1 and f"{PREFIX}{digest(out, 'pipeline_demo_kernel')})" in out
    again = transpile(out, path="k.py")
    assert again.ok and again.code == out
    assert [(d.code, "already the output of pto-transpile" in d.message) for d in again.diagnostics] \
        == [("PTO060", True)]
    assert generated() == out  # the stamp is the same in every run
    crlf = out.replace("\n", "\r\n")
    assert transpile(crlf, path="k.py").code == crlf
    assert [d.code for d in transpile(crlf, path="k.py").diagnostics] == ["PTO060"]


def test_an_edited_output_is_checked_as_hand_written():
    out = generated()
    edited = GENERATED_WAIT.sub("", out, count=1)
    assert edited != out
    found = codes(edited)
    assert "PTO068" in found, found
    harmless = out.replace("\nimport os\n", "\nimport os  # an edit\n")
    assert harmless != out
    result = transpile(harmless, path="k.py")
    assert result.ok and "PTO068" not in [d.code for d in result.diagnostics]
    assert "pipelined by hand" in next(d for d in result.diagnostics if d.code == "PTO060").message


def test_a_serial_kernel_added_to_an_output_makes_the_old_kernel_hand_written():
    out = generated()
    second = DEMO[DEMO.index("@pl.pipeline.stage"):].replace("pipeline_demo_kernel", "second_kernel")
    for k in "1234":  # the second kernel's own stages
        second = second.replace(f"stage{k}(", f"stage{k}_b(")
    result = transpile(out + "\n\n" + second, path="k.py")
    assert result.ok, result.diagnostics
    note = next(d for d in result.diagnostics if d.code == "PTO060")
    assert "pipeline_demo_kernel" in note.message and "the file changed" in note.message
    # the new kernel's mark holds the output's digest; the old one's stays stale
    assert result.code.count(PREFIX) == 2 and f"{PREFIX}{digest(result.code, 'second_kernel')})" in result.code
    assert f"{PREFIX}{digest(result.code, 'pipeline_demo_kernel')})" not in result.code
    again = transpile(result.code, path="k.py")
    assert again.ok and again.code == result.code
    notes = sorted(d.message.split(" is ")[1][:20] for d in again.diagnostics if d.code == "PTO060")
    assert notes == ["already the output o", "pipelined by hand (i"], notes


def test_an_edited_output_the_check_cannot_follow_is_an_error():
    """Of a loop of run-time trip count, the generated ring's validity flags are more than the
    check follows in a hand-written kernel: a warning would let an edit that moves a wait
    pass (probe h89). An edited output the check cannot follow is refused (PTO082)."""
    text = (ROOT / "tests" / "soundness" / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
    out = generated(text, preload=2)
    edited = out.replace("\nBLOCK = 32\n", "\nBLOCK = 32  # an edit\n")
    assert edited != out
    result = transpile(edited, path="k.py")
    assert not result.ok and [d.code for d in result.diagnostics if d.is_error] == ["PTO082"]
    assert any("`_pl_ctx_arr[0]._pl_is_valid` carries a value" in d.message for d in result.diagnostics)
    assert transpile(out, path="k.py").ok  # unedited: left as written, a note


def test_a_run_that_pipelines_one_kernel_stamps_no_other():
    """Every mark held the digest of the whole file, its marks blanked: a digest a first run
    printed, copied above a kernel the second run left as written (edited), became that
    kernel's valid mark in the second run's output (probe h89; an edit the check could not
    follow is an error now, PTO082, so such a run writes nothing). A mark's digest is now also
    of its kernel's name: a run vouches only for the kernels it pipelined."""
    out = generated()
    edited = out.replace("\nimport os\n", "\nimport os  # an edit\n")
    second = DEMO[DEMO.index("@pl.pipeline.stage"):].replace("pipeline_demo_kernel", "second_kernel")
    for k in "1234":
        second = second.replace(f"stage{k}(", f"stage{k}_b(")
    first = transpile(edited + "\n\n" + second, path="k.py")
    assert first.code is not None
    copied = re.findall(re.escape(PREFIX) + r"([0-9a-f]{16})\)", first.code)[-1]  # the second kernel's
    old = re.findall(re.escape(PREFIX) + r"([0-9a-f]{16})\)", edited)[0]
    again = transpile(edited.replace(old, copied) + "\n\n" + second, path="k.py")
    assert again.code is not None
    read = transpile(again.code, path="k.py")
    notes = {d.message.split("`")[1]: d.message for d in read.diagnostics if d.code == "PTO060"}
    assert "already the output" in notes["second_kernel"] and "pipelined by hand" in notes["pipeline_demo_kernel"]


def test_an_edited_output_with_its_counter_renamed_is_still_an_edited_output():
    """Renaming `_pl_task_id` in an edited output made it a plain hand pipeline, a warning
    (PTO077) under its stale mark (probe h92). The mark counts by itself: a kernel under a mark
    whose digest is not its own is an edited output, whatever its names."""
    text = (ROOT / "tests" / "soundness" / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
    out = generated(text, preload=2)
    assert "_pl_task_id" in out
    renamed = out.replace("_pl_task_id", "task_id")
    result = transpile(renamed, path="k.py")
    assert not result.ok and [d.code for d in result.diagnostics if d.is_error] == ["PTO082"]
    assert "PTO077" not in [d.code for d in result.diagnostics]
    unmarked = re.sub(re.escape(PREFIX) + r".*\n", "", renamed)  # no mark, no generated names: by hand
    assert [d.code for d in transpile(unmarked, path="k.py").diagnostics if d.is_error] == []

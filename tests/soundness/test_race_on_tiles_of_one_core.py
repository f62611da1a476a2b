"""Two ops of one stage on two pipes of a core meeting in two `pl.make_tile` tiles at one address
(probe h250): the help said auto_mutex "orders tiles, not GM", where the two met in tiles, which
auto_mutex orders only by mutex ids these have none of. The help names that, and the sync it asks
for makes the kernel proven and run as the serial one."""

from __future__ import annotations

from pathlib import Path

from helpers import error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

TEXT = kernel_text(Path(__file__).parent / "kernels" / "h250_tiles_of_one_place_without_mutex.py")
RELU = "    pl.relu(t1, c_vec)\n"


def test_the_help_names_the_mutex_ids_the_tiles_lack():
    (found,) = [d for d in transpile(TEXT, path="k.py", preload=1).diagnostics if d.is_error]
    assert "reads `t2` while" in found.message and "writes `t1`" in found.message, found.message
    assert "a `pl.make_tile` tile has none" in found.hint and "not GM" not in found.hint, found.hint


def _pair(set_pipe: str, wait_pipe: str, event_id: int) -> str:
    return "".join(f"    pl.system.sync_{end}(set_pipe=pl.PipeType.{set_pipe}, wait_pipe=pl.PipeType.{wait_pipe}, "
                   f"event_id={event_id})\n" for end in ("src", "dst"))


def test_the_syncs_the_helps_ask_for_make_the_kernel_proven():
    """The pair from the relu's pipe to the store's; then, as the next refusal's help says (the
    relu of the next task meets the store of this one), the pair from the store's back."""
    fixed = TEXT.replace(RELU, RELU + _pair("V", "MTE3", 0))
    assert fixed != TEXT
    (found,) = [d for d in transpile(fixed, path="k.py", preload=1).diagnostics if d.is_error]
    assert "(task 1), `pl.relu`" in found.message and found.hint.startswith("Make the stage's later tasks wait")
    store = "    pl.store(out, t2, [ki * TILE + sub_id * HALF, 0])\n"
    fixed = fixed.replace(store, store + _pair("MTE3", "V", 1))
    result = transpile(fixed, path="k.py", preload=1)
    assert error_messages(result) == []
    report = verify(fixed, result.code, "kernel", path="k.py", shapes={"a": (96, 32), "out": (96, 32)})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message

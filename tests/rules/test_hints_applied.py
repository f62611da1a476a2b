"""Every hint these tests name is applied as written, and the diagnostic it answers goes away.

Where a hint says "Write `X`", "Rename ... to `X`" or "Decorate `f` with `@d`", the edit is
made mechanically from the hint's own text at the diagnostic's position, so a hint that
suggests the wrong text fails here. Hints that offer a choice ("more tiles, or a lower
preload") get one test per choice."""

from __future__ import annotations

import re

import pytest

import skeleton as ex
from helpers import ROOT, demo_text
from pto_transpile import transpile

KERNEL = ex.Text((ROOT / "tests" / "kernels" / "scale_store.py").read_text(encoding="utf-8"))


def only(text: str, code: str, **kw):
    found = [d for d in transpile(text, **kw).diagnostics if d.is_error]
    assert [d.code for d in found] == [code], [(d.code, d.message) for d in found]
    return found[0]


def offset(text: str, line: int, column: int) -> int:
    return sum(len(x) for x in text.splitlines(keepends=True)[: line - 1]) + column - 1


def apply(text: str, d) -> str:
    """The edit the hint of `d` states, made at `d`'s span."""
    start, end = offset(text, d.line, d.column), offset(text, d.end_line, d.end_column)
    m = re.match(r"(?:Write|Rename the parameter `[^`]+` to) `([^`]+)`", d.hint)
    if m:
        return text[:start] + m.group(1).rstrip("=") + text[end:]  # `fwd_ids=`: the keyword is the span
    m = re.match(r"Decorate `(\w+)` with `(@[\w.]+)`", d.hint)
    if m:
        return re.sub(rf"(?m)^def {m.group(1)}\(", f"{m.group(2)}\ndef {m.group(1)}(", text)
    raise AssertionError(f"no mechanical reading of the hint: {d.hint}")


def assert_fixed(text: str, code: str, **kw) -> None:
    result = transpile(text, **kw)
    assert code not in {d.code for d in result.diagnostics}, [(d.code, d.message) for d in result.diagnostics]
    assert result.code is not None, [(d.code, d.message) for d in result.diagnostics]


# -- hints applied mechanically ----------------------------------------------------------------

MECHANICAL = {
    "PTO069 did you mean": (("            scale_store(ki, sub_id, out, c_vec_db", "            scale_store(ki, sub_id, "
                                                                                "out, c_vec_dbb"), "PTO069"),
    "PTO069 misspelt parameter": (("def scale_store(ki, sub_id, out, c_vec_db,", "def scale_store(ki, sub_id, out, "
                                                                                  "c_vec_dbb,"), "PTO069"),
    "PTO073 pl name": (("pl.matmul(acc", "pl.matmull(acc"), "PTO073"),
    "PTO073 slot picker": (("    c_vec = c_vec_db.next()\n    y", "    c_vec = c_vec_db.nxt()\n    y"), "PTO073"),
    "PTO074 keyword": (("        fwd_ids=[0, 1],", "        fwd_id=[0, 1],"), "PTO074"),
    "PTO074 preload keyword": (("PipelineConfig(preload=1)", "PipelineConfig(preloads=1)"), "PTO074"),
    "PTO075 block index": (("    c_vec_db = pl.make_tile_group(", "    core_id = pl.get_block_idx()\n"
                                                                   "    c_vec_db = pl.make_tile_group("), "PTO075"),
    "PTO076 missing decorator": (("@pl.pipeline.stage\ndef scale_store", "def scale_store"), "PTO076"),
}


@pytest.mark.parametrize("name", list(MECHANICAL))
def test_the_hint_applied_as_written_fixes_it(name):
    (old, new), code = MECHANICAL[name]
    text = KERNEL.replace(old, new, 1)
    d = only(text, code)
    assert_fixed(apply(text, d), code)


def test_removing_an_unknown_keyword_fixes_it():
    text = KERNEL.replace("@pl.jit(auto_mutex=True,", "@pl.jit(auto_mutex=True, mode=3,")
    d = only(text, "PTO074")
    assert d.hint.startswith("Remove `mode=`")
    assert_fixed(text.replace(" mode=3,", ""), "PTO074")


# -- PTO057: a forward-only buffer -------------------------------------------------------------

FWD_ONLY = ex.kernel(config="preload=1", x_db=ex.group("x_db", mutex="[0, 1]", fwd="[0, 1]", bwd=None))


def test_pto057_without_a_release_says_only_bwd_ids_help():
    d = only(FWD_ONLY, "PTO057")
    assert d.hint.startswith("Add `bwd_ids` to `x_db`") and "more tiles do not help" in d.hint
    # more tiles indeed do not help (as many as the event ids allow, in a loop longer than them)
    many = ex.kernel(config="preload=1", constants=ex.CONSTANTS.replace("N = 4", "N = 16"),
                     x_db=ex.group("x_db", mutex="[0, 1, 12, 13]", fwd="[0, 1, 4, 5]", bwd=None))
    only(many, "PTO057")
    assert_fixed(FWD_ONLY.replace("    fwd_ids=[0, 1],\n", "    fwd_ids=[0, 1],\n    bwd_ids=[2, 3],\n"), "PTO057")


_P2 = ex.group("p_db", "Mat", "0x10000", "[14, 15]", "[4, 5]", "[6, 7]", "[TILE, TILE]")
_P_FWD = ex.group("p_db", "Mat", "0x10000", "[14, 15]", "[4, 5]", None, "[TILE, TILE]")
FWD_FEW = ex.kernel4(config="preload=2", cross=ex.CROSS4.replace(_P2, _P_FWD))


def test_pto057_with_a_tile_count_that_helps_names_it_and_it_helps():
    d = only(FWD_FEW, "PTO057")
    assert "or give it at least 3 tiles" in d.hint
    three = ex.group("p_db", "Mat", "0x10000", "[14, 15, 12]", "[4, 5, 12]", None, "[TILE, TILE]")
    assert_fixed(ex.kernel4(config="preload=2", cross=ex.CROSS4.replace(_P2, three)), "PTO057")


def test_pto057_adding_bwd_ids_helps_too():
    only(FWD_FEW, "PTO057")
    assert_fixed(ex.kernel4(config="preload=2", cross=ex.CROSS4), "PTO057")  # p_db with bwd_ids=[6, 7]


# -- PTO043: too few tiles ---------------------------------------------------------------------

ONE_TILE = ex.kernel(config="preload=1", x_db=ex.group("x_db", mutex="[0]", fwd="[0]", bwd="[2]"))


def test_pto043_on_a_one_tile_group_offers_preload_0_and_it_helps():
    d = only(ONE_TILE, "PTO043")
    assert "Or use preload 0" in d.hint and "lower the preload to" not in d.hint
    assert "Or use preload 0" in only(ONE_TILE.replace("preload=1", "preload=2"), "PTO043").hint
    only(ONE_TILE.replace("preload=1", "preload=2"), "PTO043")
    assert_fixed(ONE_TILE.replace("PipelineConfig(preload=1)", "PipelineConfig(preload=0)"), "PTO043")


def test_pto043_giving_the_tiles_it_names_helps():
    d = only(ONE_TILE, "PTO043")
    assert d.hint.startswith("Give `x_db` 2 tiles (mutex_ids and fwd_ids/bwd_ids of length 2)")
    assert_fixed(ex.kernel(config="preload=1"), "PTO043")  # x_db with two tiles


def test_pto043_names_the_preload_that_fits_and_it_fits():
    d = only(demo_text(), "PTO043", preload=3)
    assert "Or lower the preload to 2" in d.hint


@pytest.mark.parametrize("preload", [4, 7, 10 ** 20])
def test_pto043_finds_the_preload_that_fits_from_any_preload(preload):
    """The hint's preload was found by trying each below the one given: `--preload 10**20` ran on
    and on (probe h231)."""
    d = only(demo_text(), "PTO043", preload=preload)
    assert d.hint.endswith("Or lower the preload to 2"), d.hint
    assert_fixed(demo_text(), "PTO043", preload=2)


# -- sync_only ---------------------------------------------------------------------------------

def test_sync_only_keeps_the_serial_loop_as_preload_0_does():
    text = demo_text().replace("PipelineConfig(preload=2)", "PipelineConfig(preload=2, sync_only=True)")
    result = transpile(text)
    assert result.code == transpile(demo_text(), preload=0).code and "_pl_ctx_arr" not in result.code


def test_sync_only_must_be_a_constant_bool():
    text = demo_text().replace("PipelineConfig(preload=2)", "PipelineConfig(preload=2, sync_only=1)")
    [d] = transpile(text).diagnostics
    assert d.code == "PTO005" and "sync_only must be True or False" in d.message


# -- other rules: the hint applied to the rule's own first failing example ------------------------

#: code -> (a phrase the hint must contain, the edits it asks for on `registry()[code].invalid[0]`)
RULE_HINTS = {
    "PTO005": ("with N >= 0", [("PipelineConfig(preload=-1)", "PipelineConfig(preload=1)")]),
    "PTO025": ("Pick ids from 0 to 15", [("fwd_ids=[16, 17],", "fwd_ids=[12, 13],")]),
    "PTO027": ("Give 3 ids (one per tile)", [("fwd_ids=[0, 1],", "fwd_ids=[0, 1, 4],"),
                                             ("bwd_ids=[2, 3],", "bwd_ids=[2, 3, 5],")]),
    "PTO029": ("Give `y_db` the same `mutex_ids=[0, 1]` as `x_db`", [("mutex_ids=[12, 13],", "mutex_ids=[0, 1],")]),
    "PTO040": ("Rename `_pl_sub_id`", [("_pl_sub_id", "sub_id")]),
    "PTO042": ("Insert `pl.system.sync_all(core_type=pl.SyncCoreType.MIX)` between the two loops",
               [("    for kj in pl.range(0, N):", "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"
                                                  "    for kj in pl.range(0, N):")]),
    "PTO056": ("Give `q_db` 2 tiles (one mutex id each)", [("mutex_ids=[20],", "mutex_ids=[20, 21],")]),
    "PTO062": ("Give `x_db` `fwd_ids`", [("        bwd_ids=[2, 3],\n    )\n    with pl.section_cube():",
                                          "        fwd_ids=[0, 1],\n        bwd_ids=[2, 3],\n    )\n"
                                          "    with pl.section_cube():")]),
    "PTO063": ("event ids of its own", [("fwd_ids=[2, 3],", "fwd_ids=[4, 5],")]),
    "PTO081": ("Leave `depth=` out", [("    depth=1,\n", "")]),
}


def _first_invalid(code: str) -> str:
    from pto_transpile.rules import registry

    return ex.Text(re.sub(r"  # E: [A-Z0-9, ]+", "", registry()[code].invalid[0]))


@pytest.mark.parametrize("code", sorted(RULE_HINTS))
def test_the_rules_hint_applied_to_its_example_fixes_it(code):
    phrase, edits = RULE_HINTS[code]
    text = _first_invalid(code)
    found = [d for d in transpile(text).diagnostics if d.code == code]
    assert found and phrase in found[0].hint, [d.hint for d in found]
    for old, new in edits:
        text = text.replace(old, new)
    assert_fixed(text, code)


def test_pto081_giving_the_depth_it_names_helps():
    text = _first_invalid("PTO081")
    (found,) = [d for d in transpile(text).diagnostics if d.code == "PTO081"]
    assert "or give it 2" in found.hint
    assert_fixed(text.replace("    depth=1,\n", "    depth=2,\n"), "PTO081")


def test_pto056_names_the_preload_that_fits_and_it_fits():
    text = _first_invalid("PTO056")
    d = only(text, "PTO056")
    assert "Or use preload 0" in d.hint
    assert_fixed(text.replace("PipelineConfig(preload=1)", "PipelineConfig(preload=0)"), "PTO056")


def test_pto009_a_section_on_one_line_is_named_and_the_call_on_its_own_line_fixes_it():
    # the one-line section was "not directly inside a section", although it is
    from pto_transpile.rules import registry

    text = ex.Text(re.sub(r"  # E: [A-Z0-9, ]+", "", registry()["PTO009"].invalid[-1]))
    d = only(text, "PTO009")
    assert "shares its line with `with pl.section_cube():`" in d.message, d.message
    assert "Put the call on its own line under the `with`" in d.hint, d.hint
    assert_fixed(text.replace("with pl.section_cube(): mm(", "with pl.section_cube():\n            mm("), "PTO009")

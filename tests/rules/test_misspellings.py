"""A misspelt name is reported at its own position with the name it most likely stands for,
and nothing that merely follows from it is reported.

The six cases are the first-hour mistakes of a new user, made in a kernel written from the
README (`tests/kernels/scale_store.py`); each applies one edit."""

from __future__ import annotations

import pytest

from helpers import ROOT
from pto_transpile import transpile
from skeleton import Text

KERNEL = Text((ROOT / "tests" / "kernels" / "scale_store.py").read_text(encoding="utf-8"))

#: name -> (edits, [(code, message, line text the caret starts at)])
CASES = {
    "misspelt stage parameter": (
        [("def scale_store(ki, sub_id, out, c_vec_db, y_db):", "def scale_store(ki, sub_id, out, c_vec_dbb, y_db):")],
        [("PTO069", "parameter `c_vec_dbb` of `scale_store` is never used, and `c_vec_db` is read there but bound "
                    "nowhere: did you mean `c_vec_db`?", "c_vec_dbb, y_db):")]),
    "misspelt argument": (
        [("            mm_stage(ki, a, a_l1", "            mm_stage(ki, aa, a_l1")],
        [("PTO069", "`aa` is not defined in `kernel`; did you mean `a`?", "aa, a_l1")]),
    "misspelt argument and parameter": (
        [("mm_stage(ki, a, a_l1", "mm_stage(ki, aa, a_l1"),
         ("            mm_stage(ki, a, a_l1", "            mm_stage(ki, aa, a_l1")],
        [("PTO069", "parameter `aa` of `mm_stage` is never used, and `a` is read there but bound nowhere: did you "
                    "mean `a`?", "aa, a_l1, left_db"),
         ("PTO069", "`aa` is not defined in `kernel`; did you mean `a`?", "aa, a_l1, left_db, right_db, acc_db, c_")]),
    "misspelt op": (
        [("pl.matmul(acc", "pl.matmull(acc")],
        [("PTO073", "`pl.matmull`: `pl` has no such name; did you mean `pl.matmul`?", "pl.matmull(acc")]),
    "misspelt slot picker": (
        [("    c_vec = c_vec_db.next()\n    y = y_db.next()", "    c_vec = c_vec_db.nxt()\n    y = y_db.next()")],
        [("PTO073", "tile group `c_vec_db` has no method `nxt`; did you mean `c_vec_db.next()`?", "c_vec_db.nxt()")]),
    "misspelt keyword": (
        [("        fwd_ids=[0, 1],", "        fwd_id=[0, 1],")],
        [("PTO074", "`pl.make_tile_group` takes no keyword `fwd_id`; did you mean `fwd_ids`?", "fwd_id=[0, 1]")]),
    # a default is computed where the `def` stands: the stage's own parameters are not bound
    # there, so one is no suggestion (following it, `y_db=y_db`, fails when the module loads)
    "default naming a kernel variable": (
        [("def scale_store(ki, sub_id, out, c_vec_db, y_db):",
          "def scale_store(ki, sub_id, out, c_vec_db, y_db=y_dbb):")],
        [("PTO069", "`y_dbb` is not defined where `scale_store` is defined (its defaults, annotations and decorators "
                    "are computed there, not in the function)", "y_dbb):")]),
    "default naming a module constant, misspelt": (
        [("def scale_store(ki, sub_id, out, c_vec_db, y_db):",
          "def scale_store(ki, sub_id, out, c_vec_db, y_db, h=HALFF):")],
        [("PTO069", "`HALFF` is not defined where `scale_store` is defined (its defaults, annotations and decorators "
                    "are computed there, not in the function); did you mean `HALF`?", "HALFF):")]),
    "misspelt stage call": (
        [("            scale_store(ki", "            scale_stor(ki")],
        [("PTO069", "`scale_stor` is not defined in `kernel`; did you mean `scale_store`?", "scale_stor(ki")]),
}


def edited(edits) -> str:
    text = KERNEL
    for old, new in edits:
        text = text.replace(old, new, 1)
    return text


@pytest.mark.parametrize("name", list(CASES))
def test_the_misspelling_alone_is_reported_where_it_is(name):
    edits, expected = CASES[name]
    text = edited(edits)
    result = transpile(text, path="k.py")
    lines = text.splitlines()
    got = [(d.code, d.message, lines[d.line - 1][d.column - 1:]) for d in result.diagnostics]
    assert len(got) == len(expected), got
    for (code, message, at), (g_code, g_message, g_at) in zip(expected, got, strict=True):
        assert (g_code, g_message) == (code, message)
        assert g_at.startswith(at), g_at


def test_the_kernel_itself_is_clean():
    assert transpile(KERNEL).diagnostics == [] and transpile(KERNEL).code


def test_suggestions_come_from_the_scope_the_rule_takes(monkeypatch):
    """A name the undefined-name rule learns to bind (here: any name starting with `tk_`, as
    tiling-key fields will be) is a suggestion at once: candidates are that rule's scope."""
    from pto_transpile.rules import undefined_name

    real = undefined_name._bound
    monkeypatch.setattr(undefined_name, "_bound", lambda file, node: real(file, node) | {"tk_rows"})
    text = KERNEL.replace("    pl.relu(y, c_vec)", "    pl.relu(y, c_vec)\n    n = tk_row")
    [d] = transpile(text).diagnostics
    assert d.message == "`tk_row` is not defined in `scale_store`; did you mean `tk_rows`?"


@pytest.mark.parametrize("edit, code", [
    (("    pl.relu(y, c_vec)", "    pl.relu(y, c_vec)\n    pl.histogram(y, c_vec)"), None),  # far from every name
    (("TILE = 32", "TILE = pl.DYNAMIC_SHAPE"), None),  # not close enough to DYNAMIC to be its typo
    (("    pl.relu(y, c_vec)", "    pl.relu(y, c_vec)\n    pl.sytem.bar_all()"), "PTO073"),
    (("    pl.relu(y, c_vec)", "    pl.relu(y, c_vec)\n    pl.system.bar_al()"), "PTO073"),
])
def test_only_names_close_to_known_ones_are_called_misspellings(edit, code):
    found = {d.code for d in transpile(KERNEL.replace(*edit)).diagnostics}
    assert ("PTO073" in found) == (code == "PTO073"), found


def test_unknown_keywords_of_fixed_signatures_are_errors():
    for old, new, call in [("PipelineConfig(preload=1)", "PipelineConfig(preloads=1)", "pl.pipeline.PipelineConfig"),
                           ("dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n            addrs=0x4000",
                            "dtype=pl.DT_FP32, target_memry=pl.MemorySpace.Vec),\n            addrs=0x4000",
                            "pl.TileType"),
                           ("@pl.jit(auto_mutex=True,", "@pl.jit(auto_mutx=True,", "pl.jit")]:
        [d] = transpile(KERNEL.replace(old, new)).diagnostics
        assert d.code == "PTO074" and f"`{call}` takes no keyword" in d.message and "did you mean" in d.message


def test_a_misspelt_preload_keyword_is_not_silently_the_default():
    result = transpile(KERNEL.replace("PipelineConfig(preload=1)", "PipelineConfig(preloads=1)"))
    assert result.code is None and [d.code for d in result.diagnostics] == ["PTO074"]


@pytest.mark.parametrize("old, new, caret, message", [
    ("acc_to_vec_mode=pl.AccToVecMode", "acc_to_vec_modee=pl.AccToVecMode", "acc_to_vec_modee=",
     "`pl.move` takes no keyword `acc_to_vec_modee`; did you mean `acc_to_vec_mode`?"),
    ("pl.move(left, cur_a)", "pl.move(left, cur_a, modee=1)", "modee=",
     "`pl.move` takes no keyword `modee`; did you mean `mode`?"),
    ("pl.load(cur_a, a, [ki * TILE, 0])", "pl.load(cur_a, a, offset=[ki * TILE, 0])", "offset=",
     "`pl.load` takes no keyword `offset`; did you mean `offsets`?"),
    ("pl.store(out, y, [ki * TILE + sub_id * HALF, 0])", "pl.store(out, y, [ki * TILE + sub_id * HALF, 0], atomc=0)",
     "atomc=", "`pl.store` takes no keyword `atomc`; did you mean `atomic`?"),
    ("for ki in pl.range(0, N):", "for ki in pl.range(0, N, step=1):", "step=",
     "`pl.range` takes no keyword arguments: `step=` is not one"),
])
def test_misspelt_keywords_of_pl_calls_are_reported_where_they_are(old, new, caret, message):
    assert old in KERNEL
    text = KERNEL.replace(old, new, 1)
    result = transpile(text, path="k.py")
    [d] = result.diagnostics
    assert (d.code, d.message) == ("PTO074", message)
    assert text.splitlines()[d.line - 1][d.column - 1:].startswith(caret)
    assert result.code is None


def test_a_data_ops_keyword_far_from_every_known_one_is_left_alone():
    """A data op's keyword list is not known whole: only a near misspelling is reported."""
    text = KERNEL.replace("pl.move(left, cur_a)", "pl.move(left, cur_a, unit_flag=True)", 1)
    assert "pl.move(left, cur_a, unit_flag=True)" in text
    assert [d.code for d in transpile(text).diagnostics] == []


@pytest.mark.parametrize("binding", ["_unused = (STRIDE := 16)", "SIZES = [STRIDE := 16, 32]",
                                     "SIZES = {'stride': (STRIDE := HALF)}", "(STRIDE := 16)",
                                     "def _stride(v=(STRIDE := 16)):\n    return v",
                                     "class _Holder(type(STRIDE := 16)):\n    pass"])
def test_a_module_name_bound_by_walrus_is_not_undefined(binding):
    """A module-level `:=` binds its name wherever it stands in the statement (probe h119: "`STRIDE`
    is not defined ... fix the spelling", of a name bound before its use)."""
    text = edited([("HALF = TILE // 2\n", f"HALF = TILE // 2\n{binding}\n"),
                   ("pl.store(out, y, [ki * TILE + sub_id * HALF, 0])",
                    "pl.store(out, y, [ki * TILE + sub_id * HALF + 0 * STRIDE, 0])")])
    assert "STRIDE" in text and not [d for d in transpile(text, path="k.py").diagnostics if d.code == "PTO069"]


def test_a_walrus_in_a_lambda_s_body_binds_nothing_at_module_level():
    text = edited([("HALF = TILE // 2\n", "HALF = TILE // 2\n_f = lambda: (STRIDE := 16)\n"),
                   ("pl.store(out, y, [ki * TILE + sub_id * HALF, 0])",
                    "pl.store(out, y, [ki * TILE + sub_id * HALF + 0 * STRIDE, 0])")])
    assert [d.code for d in transpile(text, path="k.py").diagnostics if d.is_error] == ["PTO069"]

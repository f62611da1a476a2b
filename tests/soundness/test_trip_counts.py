"""Loops of run-time trip count (a scalar parameter, a `pl.DYNAMIC` dimension): proven for every
trip count by running each count up to fill + period + window, when the loop body is uniform in
the loop variable (docs/design.md, "For every trip count"); refused, naming the construct, when
it is not."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from helpers import fixed_flash_attention, judged_runs, restamped, spread
from pto_transpile import transpile
from pto_transpile.soundness import check as check_module

KERNELS = Path(__file__).parent / "kernels"
EXAMPLES = Path(__file__).parents[2] / "examples"


def _transpile(name: str, **kw):
    return transpile((KERNELS / name).read_text(), path=name, **kw)


def _errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


def _dynamic_flash_attention() -> str:
    """The bundled example as it is: the rows of its four tensors are `pl.DYNAMIC`."""
    text = (EXAMPLES / "flash_attention_dn.py").read_text()
    assert text.count("pl.Tensor[[pl.DYNAMIC, TD]") == 4
    return text


def test_a_trip_count_from_a_scalar_parameter_is_proven(monkeypatch):
    runs = judged_runs(monkeypatch)
    result = _transpile("trip_param.py")
    assert _errors(result) == []
    counts = sorted({c.trips[("param", "n")] for c in runs})
    # every count from the empty loop to both boundary zones (fill + window each) and a period:
    # a ctx ring of 2 (fill 1, window 2) and a period of 3 (`ki % 3` picks one of three bias
    # tiles, filled with different values: not a renaming; the tile groups' 2 slots are renamed,
    # `renamed.py`), but for the count of both zones alone (6), which holds nothing the count
    # a period longer (9) does not
    zones = 2 * (1 + 2)
    assert counts == [n for n in range(zones + 3 + 1) if n != zones], counts


def test_a_trip_count_from_a_dynamic_dimension_is_proven():
    result = _transpile("dynamic_rows.py")
    assert _errors(result) == []
    assert result.code is not None


def test_a_defect_at_one_residue_of_the_trip_count_is_refused():
    result = _transpile("residue_defect.py")
    assert result.code is None
    (message,) = _errors(result)
    assert "receives `scale`" in message and "(shown with `n` = 3)" in message, message


@pytest.mark.parametrize("name, construct, kind", [
    ("late_defect.py", "`ki >= 40` singles out iterations other than the first", "boundary"),
    ("trip_value_defect.py", "`n == 13` tests a trip count other than for the empty loop", "trip"),
    ("square_offset.py", "`ki * ki` multiplies two values that vary", "affine"),
])
def test_a_body_outside_the_conditions_is_refused_naming_the_construct(name, construct, kind):
    result = _transpile(name)
    assert result.code is None
    (error,) = [d for d in result.diagnostics if d.severity == "error"]
    assert construct in error.message, error.message
    assert "to make it provable" in error.message
    assert "Make this static" not in (error.hint or "")


def _variant(old: str, new: str) -> str:
    text = (KERNELS / "trip_param.py").read_text()
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize("old, new, construct", [
    ("pl.store(out, y, [ki * TILE + sub_id * HALF, 0])", "pl.store(out, y, [n * TILE + sub_id * HALF, 0])",
     "depends on `n`, the trip count"),
    ("pl.store(out, y, [ki * TILE + sub_id * HALF, 0])", "pl.store(out, y, [(ki // 2) * TILE + sub_id * HALF, 0])",
     "`(ki // 2)` divides the loop variable"),
    ("if ki == n - 1:", "if ki == n - 3:", "singles out iterations other than the last"),
    ("bias_ring[ki % 3]", "bias_ring[ki]", "the index `ki` varies"),
    ("    for ki in pl.range(0, n):", "    for ki in pl.range(0, n * 2):", "is not a run-time size plus a constant"),
])
def test_variants_outside_the_conditions_are_refused(old, new, construct):
    result = transpile(_variant(old, new), path="variant.py")
    assert result.code is None
    assert any(construct in m for m in _errors(result)), _errors(result)


def test_a_counter_carried_otherwise_than_by_a_constant_step_is_refused():
    text = _variant("    for ki in pl.range(0, n):\n", "    w = 1\n    for ki in pl.range(0, n):\n        w = w * 2\n")
    text = text.replace("scale_store(ki, n, sub_id, out,", "scale_store(ki, n, w, sub_id, out,")
    text = text.replace("def scale_store(ki, n, sub_id,", "def scale_store(ki, n, w, sub_id,")
    result = transpile(text, path="variant.py")
    assert result.code is None
    assert any("`w` carries a value from one iteration to the next" in m for m in _errors(result)), _errors(result)


@pytest.mark.parametrize("carry, construct", [
    ("        w = w + ki\n", "counter `w` is set from the loop variable and carried"),
    ("        st.w = st.w * 2 + 1\n", "field `st.w` carries a value from one iteration to the next"),
])
def test_other_carried_values_are_refused(carry, construct):
    loop = "    for ki in pl.range(0, n):\n"
    text = _variant(loop, "    w = 0\n    st = pl.struct(w=0)\n" + loop + carry)
    text = text.replace("scale_store(ki, n, sub_id, out,", "scale_store(ki, n, w, st, sub_id, out,")
    text = text.replace("def scale_store(ki, n, sub_id,", "def scale_store(ki, n, w, st, sub_id,")
    result = transpile(text, path="variant.py")
    assert result.code is None
    assert any(construct in m for m in _errors(result)), _errors(result)


@pytest.mark.campaign  # every outer count up to period + ring: minutes
def test_the_dynamic_flash_attention_is_proven_and_written_as_the_static_one():
    dynamic = transpile(_dynamic_flash_attention(), path="flash_attention_dn.py")
    assert _errors(dynamic) == []
    static = transpile(fixed_flash_attention(), path="flash_attention_dn.py")
    assert dynamic.code == _dynamic_flash_attention_of(static.code)


@pytest.mark.campaign  # 46 tasks of FlashAttention on the emulator, serial and pipelined: half a minute
def test_the_emulator_agrees_at_a_phase_only_the_renaming_covers():
    # at preload 2 both loops are proven with a period of 1, every rotation renamed (the ctx
    # ring's 4 slots, `ringsymmetry.py`; the groups, tuples and event ids, `renaming.py`): 23 KV
    # tiles end at phase 11 of the 12 the rotations make, and the proof ran at most 15
    from sim_runtime.verify import verify

    static = transpile(fixed_flash_attention(), path="flash_attention_dn.py", preload=2)
    code = _dynamic_flash_attention_of(static.code)
    shapes = {"q": (2 * 128, 128), "k": (23 * 128, 128), "v": (23 * 128, 128), "o": (2 * 128, 128)}
    report = verify(_dynamic_flash_attention(), code, "flash_attention_dn", path="flash_attention_dn.py",
                    shapes=shapes, block_dim=2)
    row = report.rows[-1]
    assert row.verdict == "ok", (row.verdict, row.message)


def _dynamic_flash_attention_of(code: str) -> str:
    """The output for the example at fixed rows (`fixed_flash_attention`), its rows dynamic again."""
    for seq in ("SEQ_Q", "SEQ_KV"):
        code = code.replace(f"pl.Tensor[[{seq}, TD]", "pl.Tensor[[pl.DYNAMIC, TD]")
    return restamped(code)


@pytest.mark.emulator
@pytest.mark.parametrize("name, n, same", [
    ("trip_param.py", 1, True),
    ("trip_param.py", 4, True),
    ("trip_param.py", 23, True),  # past every count the check ran
    ("dynamic_rows.py", 2, True),
    ("dynamic_rows.py", 29, True),
    ("residue_defect.py", 3, False),  # the count the check shows
    ("residue_defect.py", 4, True),
    ("residue_defect.py", 30, False),
])
def test_the_emulator_agrees(name, n, same):
    from sim_runtime.verify import verify

    text = (KERNELS / name).read_text()
    code = transpile(text, path=name, _skip_rules=["PTO061"]).code
    assert code is not None
    scalars = {"n": n} if "n: pl.DT_INT32" in text else None
    report = verify(text, code, "kernel", path=name, shapes={"a": (n * 32, 32), "out": (n * 32, 32)},
                    scalars=scalars)
    row = report.rows[-1]
    assert row.verdict == ("ok" if same else "mismatch"), (row.verdict, row.message)


@pytest.mark.parametrize("old, new", [
    ("if ki == 0:", "if ki < 1:"),
    ("if ki == n - 1:", "if ki + 1 >= n:"),
    ("if ki == 0:", "if n >= 1 and ki == 0:"),
])
def test_other_spellings_of_boundary_tests_are_proven(old, new):
    result = transpile(_variant(old, new), path="variant.py")
    assert _errors(result) == []


@pytest.mark.emulator
@pytest.mark.campaign  # 11 s; at fixed rows, the example runs bit-identical in test_sim_flash_attention
def test_the_dynamic_flash_attention_runs_bit_identical_past_the_counts_checked():
    """16 KV tiles (the check runs up to 15) and 3 query tiles on 2 blocks (unequal work)."""
    from sim_runtime.verify import verify

    text = _dynamic_flash_attention()
    code = transpile(text, path="flash_attention_dn.py", _skip_rules=["PTO061"]).code
    assert code is not None
    shapes = {"q": (384, 128), "k": (2048, 128), "v": (2048, 128), "o": (384, 128)}
    report = verify(text, code, "flash_attention_dn", path="flash_attention_dn.py", shapes=shapes, block_dim=2)
    row = report.rows[-1]
    assert row.verdict == "ok", (row.verdict, row.message)


def _trip_from_gm(text: str, loop: str, extra_param_after: str) -> str:
    """`text` with the loop `loop` bounded by `n = lens[0]`, read from a new GM tensor `lens`."""
    assert loop in text and extra_param_after in text
    text = text.replace(extra_param_after, extra_param_after + "\n    lens: pl.Tensor[[8], pl.DT_INT32],", 1)
    indent = loop[: len(loop) - len(loop.lstrip())]
    return text.replace(loop, f"{indent}n = lens[0]\n{indent}for ki in pl.range(0, n):")


def test_a_trip_count_read_from_gm_is_proven_and_runs_as_the_serial_kernel():
    import numpy as np

    from sim_runtime import run_kernel

    text = _trip_from_gm((EXAMPLES / "seed_demo.py").read_text(), "    for ki in pl.range(0, N_ITER):",
                         "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],")
    result = transpile(text, path="gm_trip.py")
    assert _errors(result) == [] and result.code is not None
    rng = np.random.default_rng(0)
    for n in (0, 3):
        inputs = {"a": rng.standard_normal((256, 64)).astype(np.float32),
                  "b": rng.standard_normal((64, 64)).astype(np.float32),
                  "d": rng.standard_normal((64, 64)).astype(np.float32),
                  "lens": np.array([n, 0, 0, 0, 0, 0, 0, 0], dtype=np.int32)}
        serial = run_kernel("s.py", "pipeline_demo_kernel", dict(inputs), source=text, mode="sequential")
        piped = run_kernel("p.py", "pipeline_demo_kernel", dict(inputs), source=result.code, mode="concurrent")
        assert np.array_equal(serial.outputs["out"], piped.outputs["out"])


def test_a_defect_at_one_residue_of_a_trip_count_read_from_gm_is_refused():
    text = (KERNELS / "residue_defect.py").read_text().replace("    n: pl.DT_INT32,\n", "")
    text = _trip_from_gm(text, "    for ki in pl.range(0, n):", "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],")
    result = transpile(text, path="residue_defect.py")
    assert result.code is None
    (message,) = _errors(result)
    assert "receives `scale`" in message and "(shown with the value of" in message, message


def _trip_from_unknown_name(ok: bool) -> str:
    """residue_defect.py with its trip count a module name bound under a runtime `if`."""
    text = (KERNELS / "residue_defect.py").read_text().replace("    n: pl.DT_INT32,\n", "")
    text = text.replace("import pypto_pro.language as pl\n", "import os\n\nimport pypto_pro.language as pl\n", 1)
    text = text.replace("HALF = TILE // 2\n", "HALF = TILE // 2\nNT = 5\nif os.environ.get('MORE'):\n    NT = 9\n", 1)
    text = text.replace("    for ki in pl.range(0, n):", "    for ki in pl.range(0, NT):")
    text = text.replace("            mark(ki, n, st)", "            mark(ki, NT, st)")
    if ok:
        text = text.replace("ki % 3 == 2:", "ki % 3 == 7:")  # never true: no defect
    assert "pl.range(0, NT)" in text and "mark(ki, NT, st)" in text
    return text


def test_a_module_name_that_cannot_be_known_statically_is_a_run_time_trip_count():
    # not its first value (5): every count is proven, and the defect shows at NT = 3
    (message,) = _errors(transpile(_trip_from_unknown_name(ok=False), path="residue_defect.py"))
    assert "receives `scale`" in message and "(shown with `NT` = 3)" in message, message
    result = transpile(_trip_from_unknown_name(ok=True), path="residue_defect.py")
    assert _errors(result) == [] and result.code is not None


def test_an_imported_module_name_is_a_run_time_trip_count_too():
    # `from .config import NT`, the common production layout: proven for every count as well
    text = _trip_from_unknown_name(ok=False).replace("NT = 5\nif os.environ.get('MORE'):\n    NT = 9\n",
                                                     "from kernel_config import NT\n")
    assert "from kernel_config import NT" in text
    (message,) = _errors(transpile(text, path="residue_defect.py"))
    assert "receives `scale`" in message and "(shown with `NT` = 3)" in message, message
    ok = text.replace("ki % 3 == 2:", "ki % 3 == 7:")
    result = transpile(ok, path="residue_defect.py")
    assert _errors(result) == [] and result.code is not None


@pytest.mark.parametrize("spelling, shown", [
    (("from kernel_config import NT\n", "    nt = NT\n    for ki in pl.range(0, nt):", "mark(ki, nt, st)"), "`NT`"),
    (("import kernel_config\n", "    for ki in pl.range(0, kernel_config.NT):", "mark(ki, kernel_config.NT, st)"),
     "`kernel_config.NT`"),
])
def test_an_imported_trip_count_given_a_local_name_or_read_from_its_module_is_one_too(spelling, shown):
    # refused before: "the bounds of `pl.range(0, nt)` are not integers the check can follow"
    imported, loop, call = spelling
    text = _trip_from_unknown_name(ok=False).replace("NT = 5\nif os.environ.get('MORE'):\n    NT = 9\n", imported)
    text = text.replace("    for ki in pl.range(0, NT):", loop).replace("mark(ki, NT, st)", call)
    assert imported in text and loop in text
    (message,) = _errors(transpile(text, path="residue_defect.py"))
    assert "receives `scale`" in message and f"(shown with {shown} = 3)" in message, message
    result = transpile(text.replace("ki % 3 == 2:", "ki % 3 == 7:"), path="residue_defect.py")
    assert _errors(result) == [] and result.code is not None


def _trip_from_tiling_data(ok: bool) -> str:
    """residue_defect.py with its trip count a field of tiling data (a module-level dataclass)."""
    text = (KERNELS / "residue_defect.py").read_text().replace("    n: pl.DT_INT32,\n", "    tiling: LoopTiling,\n")
    text = text.replace("import pypto_pro.language as pl\n",
                        "from dataclasses import dataclass\n\nimport pypto_pro.language as pl\n", 1)
    text = text.replace("HALF = TILE // 2\n", "HALF = TILE // 2\n\n\n@dataclass\nclass LoopTiling:\n    rows: int\n", 1)
    text = text.replace("    for ki in pl.range(0, n):", "    n = tiling.rows\n    for ki in pl.range(0, n):")
    if ok:
        text = text.replace("ki % 3 == 2:", "ki % 3 == 7:")  # never true: no defect
    assert "class LoopTiling" in text and "n = tiling.rows" in text
    return text


def test_a_trip_count_from_tiling_data_is_proven_for_every_count():
    # tiling data carries loop bounds at run time: each scalar field is a run-time value
    (message,) = _errors(transpile(_trip_from_tiling_data(ok=False), path="residue_defect.py"))
    assert "receives `scale`" in message and "(shown with `tiling.rows` = 3)" in message, message
    result = transpile(_trip_from_tiling_data(ok=True), path="residue_defect.py")
    assert _errors(result) == [] and result.code is not None


@pytest.mark.parametrize("read", ["n = lens[0]", "n = pl.getval(lens, 0)"])
@pytest.mark.parametrize("bound", spread(["n", "min(N_ITER, n)", "max(0, N_ITER - n)"], 2))  # all: campaign
def test_every_spelling_of_a_trip_count_read_from_gm_is_proven(read, bound):
    # `pl.getval` read a value per core (three values, so the generated kernel's guards tested
    # another value than the loop's bound) and `min` of a GM value was not a trip count at all
    text = _trip_from_gm((EXAMPLES / "seed_demo.py").read_text(), "    for ki in pl.range(0, N_ITER):",
                         "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],")
    text = text.replace("n = lens[0]", read).replace("pl.range(0, n)", f"pl.range(0, {bound})")
    result = transpile(text, path="gm_trip.py")
    assert _errors(result) == [] and result.code is not None


@pytest.mark.emulator
def test_a_clamped_trip_count_read_with_getval_runs_as_the_serial_kernel():
    import numpy as np

    from sim_runtime import run_kernel

    text = _trip_from_gm((EXAMPLES / "seed_demo.py").read_text(), "    for ki in pl.range(0, N_ITER):",
                         "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],")
    text = text.replace("n = lens[0]", "n = pl.getval(lens, 0)")
    text = text.replace("pl.range(0, n)", "pl.range(0, min(N_ITER, n))")
    code = transpile(text, path="gm_trip.py").code
    assert code is not None
    rng = np.random.default_rng(1)
    for n in (0, 2, 9):  # 9: clamped to N_ITER
        inputs = {"a": rng.standard_normal((256, 64)).astype(np.float32),
                  "b": rng.standard_normal((64, 64)).astype(np.float32),
                  "d": rng.standard_normal((64, 64)).astype(np.float32),
                  "lens": np.array([n, 0, 0, 0, 0, 0, 0, 0], dtype=np.int32)}
        serial = run_kernel("s.py", "pipeline_demo_kernel", dict(inputs), source=text, mode="sequential")
        piped = run_kernel("p.py", "pipeline_demo_kernel", dict(inputs), source=code, mode="concurrent")
        assert np.array_equal(serial.outputs["out"], piped.outputs["out"])


def _two_loops_per_core(barrier: str = "MIX") -> str:
    """examples/two_loops.py with both loops spread over the blocks (`pl.range(core_id, N,
    num_cores)`): loop 2 reads `mid` where loop 1 wrote it, after the barrier between them."""
    text = (EXAMPLES / "two_loops.py").read_text()
    for var in ("i", "j"):
        text = text.replace(f"    for {var} in pl.range(0, N):", f"    for {var} in pl.range(core_id, N, num_cores):")
    text = text.replace("\n    # loop 1:", "\n    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                                          "    num_cores = pl.get_block_num()\n\n    # loop 1:", 1)
    if barrier != "MIX":  # a barrier the cube core is not part of: in vector code
        text = text.replace("    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n",
                            "    with pl.section_vector():\n"
                            f"        pl.system.sync_all(core_type=pl.SyncCoreType.{barrier})\n")
    assert text.count("pl.range(core_id, N, num_cores)") == 2 and "num_cores = pl.get_block_num()" in text
    return text


def test_loops_on_either_side_of_a_barrier_of_every_core_may_share_a_tensor():
    # the accesses of `mid` in the two loops meet (loop 2 reads what loop 1 wrote), at a
    # distance that grows with the trip count; the barrier orders them whatever the distance
    result = transpile(_two_loops_per_core(), path="two_loops.py")
    assert _errors(result) == [] and result.code is not None


def test_a_barrier_of_the_vector_cores_alone_does_not_separate_the_loops():
    errors = _errors(transpile(_two_loops_per_core("AIV_ONLY"), path="two_loops.py"))
    # the two accesses that meet across the loops are named
    assert any("`mid` is accessed by two loops that no `pl.system.sync_all()` of the cores accessing it separates "
               "(`pl.store(mid, acc, [i * TILE, 0])` and `pl.load(t, mid, [j * TILE + sub_id * HALF, 0])`)" in e
               for e in errors), errors


def _zone1_per_core() -> str:
    """golden/vec_cube_zone1: a per-iteration scalar (`scale = i * 2 + 1`) the vector stage
    multiplies by, with the loop spread over the blocks."""
    text = (EXAMPLES.parent / "golden" / "vec_cube_zone1" / "input.py").read_text()
    old = "    for i in pl.range(0, N):\n"
    assert old in text
    return text.replace(old, "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                             "    for i in pl.range(core_id, N, pl.get_block_num()):\n")


def test_a_value_operand_may_vary_with_a_loop_of_run_time_trip_count():
    # the scalar of `pl.muls(av, av, scale)` changes the data only (it was refused as an
    # operand varying with the loop, found by the per_core_loop fuzz mutator)
    result = transpile(_zone1_per_core(), path="vec_cube_zone1.py")
    assert _errors(result) == [] and result.code is not None


def test_an_index_operand_varying_with_a_loop_of_run_time_trip_count_is_refused():
    muls = "    pl.muls(av, av, scale)\n"
    text = _zone1_per_core().replace(muls, muls + "    pl.getval(av, scale)\n")
    errors = _errors(transpile(text, path="vec_cube_zone1.py"))
    assert any("an operand of `pl.getval` in `pl.getval(av, scale)` varies with a loop" in e for e in errors), errors


def _nested_struct_per_core(count: str = "st.n = st.n + 1") -> str:
    """golden/nested_struct with its outer loop spread over the blocks: `st.n`, a field of a
    `pl.struct`, counts the tasks across both loops (`st.n = st.n + 1`)."""
    text = (EXAMPLES.parent / "golden" / "nested_struct" / "input.py").read_text()
    old = "    for b in pl.range(0, NB):\n"
    assert old in text and "            st.n = st.n + 1" in text
    text = text.replace(old, "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                             "    for b in pl.range(core_id, NB, pl.get_block_num()):\n")
    return text.replace("            st.n = st.n + 1", f"            {count}")


def test_a_counter_kept_in_a_struct_field_is_followed_like_a_named_one():
    # refused before as "field `st.n` carries a value from one iteration to the next"
    result = transpile(_nested_struct_per_core(), path="nested_struct.py")
    assert _errors(result) == [] and result.code is not None


def test_a_struct_field_that_is_not_a_counter_is_still_refused():
    errors = _errors(transpile(_nested_struct_per_core("st.n = st.n * 2 + 1"), path="nested_struct.py"))
    assert any("field `st.n` carries a value from one iteration to the next" in e for e in errors), errors


@pytest.mark.emulator
def test_a_struct_field_counter_in_a_gm_offset_runs_as_the_serial_kernel():
    # `st.w = st.w + 1` (refused until struct fields could be counters) offsets a store
    loop = "    for ki in pl.range(0, n):\n"
    text = _variant(loop, "    st = pl.struct(w=0)\n" + loop + "        st.w = st.w + 1\n")
    text = text.replace("scale_store(ki, n, sub_id, out,", "scale_store(ki, n, st, sub_id, out,")
    text = text.replace("def scale_store(ki, n, sub_id,", "def scale_store(ki, n, st, sub_id,")
    text = text.replace("pl.store(out, y, [ki * TILE", "pl.store(out, y, [st.w * TILE")
    assert text.count("st.w") == 3
    from sim_runtime.verify import verify

    result = transpile(text, path="variant.py")
    assert _errors(result) == [] and result.code is not None
    for n in (0, 3, 5):
        rows = verify(text, result.code, "kernel", path="variant.py", scalars={"n": n},
                      shapes={"a": (8 * 32, 32), "out": (8 * 32, 32)}).rows
        assert [r.verdict for r in rows] == ["ok", "ok"], [r.message for r in rows]


@pytest.mark.emulator
@pytest.mark.parametrize("block_dim", [1, 2, 3])
@pytest.mark.parametrize("make, kernel, path", [
    (_two_loops_per_core, "two_loops_kernel", "two_loops.py"),
    (_zone1_per_core, "vec_cube_kernel", "vec_cube_zone1.py"),
    (_nested_struct_per_core, "nested_kernel", "nested_struct.py"),
])
def test_the_per_core_kernels_run_as_the_serial_kernel(make, kernel, path, block_dim):
    from sim_runtime.verify import verify

    text = make()
    code = transpile(text, path=path).code
    assert code is not None
    rows = verify(text, code, kernel, path=path, block_dim=block_dim).rows
    assert [r.verdict for r in rows] == ["ok", "ok"], [r.message for r in rows]


def test_a_tile_group_rotated_in_some_iterations_only_is_refused():
    # its slot repeats every 4 iterations, a period the `% 2` and the depth of 2 do not give
    text = (KERNELS / "trip_param.py").read_text()
    assert "    y = y_db.next()\n" in text
    text = text.replace("    y = y_db.next()\n",
                        "    if ki % 2 == 0:\n        y = y_db.next()\n    else:\n        y = y_db.current()\n")
    (message,) = _errors(transpile(text, path="trip_param.py"))
    assert "tile group `y_db` moves to its next slot in some iterations of the loop over `ki` and not in others" \
        in message, message


def _left_out(monkeypatch, text: str, path: str) -> tuple[list, Callable]:
    """The trip counts the proof of `text` leaves out (`_Bounds.subsumed`), each beside the count
    that covers it (the same counts with the left-out loop one period longer), and a judge that
    runs the check at given counts, for any of them."""
    made: list = []
    runs: list = []
    real_configs, real_check = check_module._trip_configs, check_module._check_one
    monkeypatch.setattr(check_module, "_trip_configs", lambda *a, **k: made.append(real_configs(*a, **k)) or made[-1])
    monkeypatch.setattr(check_module, "_check_one", lambda *a: runs.append(a) or real_check(*a))
    transpile(text, path=path)
    (configs,) = made
    run = {tuple(c.trips.values()) for c in configs}
    roots = list(configs[0].trips)
    pairs = []
    for axis in range(len(roots)):
        for counts in run:
            # the counts along this axis (the others fixed) run for this configuration
            line = sorted(c[axis] for c in run if all(c[i] == counts[i] for i in range(len(roots)) if i != axis))
            gaps = [n for n in range(line[0], line[-1]) if n not in line and n > 0]
            for gap in gaps:
                left = counts[:axis] + (gap,) + counts[axis + 1:]
                cover = counts[:axis] + (line[-1],) + counts[axis + 1:]
                if left not in run and (left, cover) not in pairs:
                    pairs.append((left, cover))

    def judge(counts: tuple) -> list:
        first = runs[0]
        config = replace(first[4], trips=dict(zip(roots, counts, strict=True)))
        return real_check(*first[:4], config, first[5], set())

    return pairs, judge


def test_a_count_left_out_finds_no_problem_the_count_covering_it_misses(monkeypatch):
    # `residue_defect.py` is wrong exactly when n % 3 == 0: at the count left out (6: both
    # boundary zones of 3 tasks, a ctx ring of 2) and at the one covering it (9), a period on
    pairs, judge = _left_out(monkeypatch, (KERNELS / "residue_defect.py").read_text(), "residue_defect.py")
    assert pairs == [((6,), (9,))], pairs
    assert judge((6,)) and judge((9,)) and not judge((7,))
    pairs, judge = _left_out(monkeypatch, (KERNELS / "trip_param.py").read_text(), "trip_param.py")
    assert pairs == [((6,), (9,))], pairs
    assert not judge((6,)) and not judge((9,))


def _nested_trip_param() -> str:
    """`trip_param.py` inside an outer loop of run-time trip count `m`: rows counted by `tick`
    across both loops."""
    text = (KERNELS / "trip_param.py").read_text()
    for old, new in [("def mm_stage(ki, a,", "def mm_stage(ki, tick, a,"),
                     ("pl.load(cur_a, a, [ki * TILE, 0])", "pl.load(cur_a, a, [tick * TILE, 0])"),
                     ("def scale_store(ki, n, sub_id,", "def scale_store(ki, tick, n, sub_id,"),
                     ("pl.store(out, y, [ki * TILE + sub_id * HALF, 0])",
                      "pl.store(out, y, [tick * TILE + sub_id * HALF, 0])"),
                     ("    n: pl.DT_INT32,\n", "    n: pl.DT_INT32,\n    m: pl.DT_INT32,\n")]:
        assert old in text, old
        text = text.replace(old, new)
    loop = text[text.index("    for ki in pl.range(0, n):\n"):]
    body = "".join("    " + line + "\n" for line in loop.splitlines())
    body = body.replace("mm_stage(ki, a,", "mm_stage(ki, tick, a,")
    body = body.replace("scale_store(ki, n,", "scale_store(ki, tick, n,")
    return text.replace(loop, "    tick = 0\n    for qi in pl.range(0, m):\n" + body + "            tick = tick + 1\n")


def test_an_outer_count_left_out_is_covered_a_period_on(monkeypatch):
    # an outer loop of run-time trip count around the loop of `trip_param.py`: at each inner
    # count `n`, the outer count of its boundary iterations at both ends alone (`2b`, `b` =
    # ceil(5 / n) for 5 = zone + window) is left out; the bound, `2b` plus the outer period
    # (3 around no task or a single one, whose `ki % 3` then moves with the outer loop; else 1),
    # runs
    pairs, judge = _left_out(monkeypatch, _nested_trip_param(), "nested_trip.py")
    outer = sorted((left[1], left[0], cover[0]) for left, cover in pairs if left[1:] == cover[1:])
    assert outer == [(0, 2, 5), (1, 10, 13), (2, 6, 7), (3, 4, 5), (4, 4, 5), (5, 2, 3), (7, 2, 3), (8, 2, 3),
                     (9, 2, 3)], outer
    inner = sorted((left[0], left[1], cover[1]) for left, cover in pairs if left[0] == cover[0])
    assert inner and all(left == 6 and cover == 9 for _, left, cover in inner), inner
    for left, cover in pairs[:4]:
        assert not judge(left) and not judge(cover), (left, cover)


# the first iteration of a per-core range ---------------------------------------------------
def _per_core_first(test: str) -> str:
    text = (Path(__file__).resolve().parents[2] / "examples" / "tiled_scale.py").read_text()
    edits = (("def finish(i, sub_id, scale, out, proj_vec_db, res_db):", "def finish(i, core_id, sub_id, scale, out, "
              "proj_vec_db, res_db):"),
             ("    epilogue(res, proj, scale)\n", f"    epilogue(res, proj, scale)\n    if {test}:\n"
              "        pl.muls(res, res, 2.0)\n"),
             ("finish(i, sub_id, tiling.scale,", "finish(i, core_id, sub_id, tiling.scale,"))
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("test", ["i == core_id", "i != core_id", "i > core_id", "core_id < i", "i >= core_id + 1"])
def test_a_test_of_the_first_iteration_of_a_per_core_range_is_accepted(test):
    # `i - core_id` is j * num_cores at iteration j: 0 only at the first, whatever the count
    result = transpile(_per_core_first(test), path="first.py", preload=1)
    assert [d.message for d in result.diagnostics if d.is_error] == []


@pytest.mark.parametrize("test", ["i == core_id + 1", "i > core_id + 1", "i == 0"])
def test_other_tests_of_a_per_core_range_are_refused(test):
    # `i == core_id + 1` is the second iteration with one block, none with two
    result = transpile(_per_core_first(test), path="first.py", preload=1)
    (message,) = [d.message for d in result.diagnostics if d.is_error]
    assert "per-core range" in message and f"`{test}`" in message


def test_a_causal_inner_count_is_refused_naming_the_enclosing_loop():
    # `min(kv_tiles, qi + 1)` held the per-core variable `qi` inside a run-time value: each outer
    # iteration met another trip-count root, and the refusal said "takes 12472 runs"
    text = (Path(__file__).parents[2] / "examples" / "flash_attention_dn.py").read_text()
    text = text.replace("        for ki in pl.range(0, kv_tiles):\n",
                        "        kv_end = min(kv_tiles, qi + 1)\n        for ki in pl.range(0, kv_end):\n", 1)
    text = text.replace("    if ki == kv_tiles - 1:\n", "    if ki == 0:\n", 1)
    (diagnostic,) = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert diagnostic.code == "PTO061" and "the trip count of `pl.range(0, kv_end)` depends on an enclosing loop " \
                                          "variable" in diagnostic.message, diagnostic.message


@pytest.mark.parametrize(("pick", "named"), [
    ("ki % (2 ** 70) % 3", "`ki % (2 ** 70)`"),
    ("ki % 701 % 3", "`ki % 701`"),
    ("(ki % 25 + ki % 27) % 3", "`ki % 27` and `ki % 25`"),
])
def test_a_period_past_the_run_limit_is_refused_naming_its_residues(pick, named):
    """`ki % (2 ** 70)` made the check walk every count up to the period before the run limit
    was compared: it never ended (probe h92). The counts a loop needs are known from its period
    alone; past the limit the kernel is refused at once, naming the `% k` that make it long."""
    text = (KERNELS / "trip_param.py").read_text()
    assert "bias_ring[ki % 3]" in text
    (message,) = _errors(transpile(text.replace("bias_ring[ki % 3]", f"bias_ring[{pick}]"), path="k.py"))
    assert f"more than the check's limit of {check_module.MAX_TRIP_RUNS}: the check runs each phase of {named}" \
        in message, message


def test_an_outer_loop_of_a_period_past_the_run_limit_is_refused_naming_its_residue():
    """The same for an outer loop: `q_count % (2 ** 70)` made its counts as long as the period
    (probe h92); refused at once, naming the counter's residue."""
    text = _dynamic_flash_attention()
    assert "q_count % 3]" in text
    (message,) = _errors(transpile(text.replace("q_count % 3]", "q_count % (2 ** 70) % 3]"), path="k.py"))
    assert "proving the loop of `q.shape[0] // 128` takes at least" in message, message
    assert "the check runs each phase of `q_count % (2 ** 70)`" in message, message

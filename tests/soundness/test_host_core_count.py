"""A per-core range stepping by the host's core count, the production idiom `if core_id >=
used_cores: return` then `pl.range(core_id, n, used_cores)`: every block that goes on has an index
below `used_cores`, so block b runs tiles b, b + used_cores, ... and no two blocks meet, whatever
the launch's block count (tiles of blocks the launch lacks are run by none, in the serial kernel
alike). Refused before (probe h144) with a help that asked to step by `pl.get_block_num()`, which
changes which tiles are done when the launch has another count than the host's. Without the return,
or with one that lets a block at or past the step go on, blocks meet, and the emulator shows the
race."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import codes, transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
PARAM = ("    tiling: ScaleTiling,\n):", "    tiling: ScaleTiling,\n    used_cores: pl.DT_INT32,\n):")
FIELD = [("    scale: float\n", "    scale: float\n    core_num: int\n")]
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
GUARD = "    if core_id >= used_cores:\n        return\n"


def kernel(guard: str, step: str = "used_cores", extra: list | None = None) -> str:
    edits = [(LOOP, guard + f"    for i in pl.range(core_id, n_blocks, {step}):\n")]
    return edited(TILED, [PARAM, *edits, *(extra or [])])


ACCEPTED = {
    "a scalar parameter": kernel(GUARD),
    "the comparison mirrored": kernel("    if used_cores <= core_id:\n        return\n"),
    # the same return written other ways (probe h146)
    "by > less one": kernel("    if core_id > used_cores - 1:\n        return\n"),
    "the index shifted": kernel("    if core_id + 1 >= used_cores + 1:\n        return\n"),
    "negated": kernel("    if not core_id < used_cores:\n        return\n"),
    # a count known when the kernel is compiled (probe h146)
    "a module constant": edited(TILED, [("HALF = BLOCK // 2", "HOST_CORES = 2\nHALF = BLOCK // 2"),
                                        (LOOP, "    if core_id >= HOST_CORES:\n        return\n"
                                               "    for i in pl.range(core_id, n_blocks, HOST_CORES):\n")]),
    "a tiling-key field": edited(TILED, [("    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])\n",
                                          "    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])\n"
                                          "    UsedCores = TilingKeyField(bits=3, values=[1, 2, 4])\n"),
                                         (LOOP, "    if core_id >= UsedCores:\n        return\n"
                                                "    for i in pl.range(core_id, n_blocks, UsedCores):\n")]),
    "a tiling-data field": edited(TILED, [*FIELD, (LOOP, "    if core_id >= tiling.core_num:\n        return\n"
                                                         "    for i in pl.range(core_id, n_blocks, "
                                                         "tiling.core_num):\n")]),
}

#: each with how many blocks it lets go on past the step (the race the emulator shows)
REFUSED = {
    "no return": kernel(""),
    "a return one block later": kernel("    if core_id >= used_cores + 1:\n        return\n"),
    "a return past the count": kernel("    if core_id > used_cores:\n        return\n"),
    "a return one block later by a constant": edited(TILED, [
        ("HALF = BLOCK // 2", "HOST_CORES = 2\nHALF = BLOCK // 2"),
        (LOOP, "    if core_id > HOST_CORES:\n        return\n"
               "    for i in pl.range(core_id, n_blocks, HOST_CORES):\n")]),
    "a return by another count": kernel("    if core_id >= other:\n        return\n",
                                        extra=[("    used_cores: pl.DT_INT32,\n",
                                                "    used_cores: pl.DT_INT32,\n    other: pl.DT_INT32,\n")]),
}


def _verdicts(text: str, tiles: int, blocks: int, scalars: dict, preload: int = 1) -> list[str]:
    code = transpile(text, path="k.py", preload=preload, _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    rows = (32 * tiles, 32)
    report = verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                    scalars={"scale": 0.5, "ApplyRelu": 1, **scalars}, block_dim=blocks)
    return [row.verdict for row in report.rows]


@pytest.mark.parametrize("preload", [1, 2])
@pytest.mark.parametrize("name", list(ACCEPTED))
def test_a_range_by_the_host_count_behind_its_return_is_proven(name, preload):
    assert error_messages(transpile(ACCEPTED[name], path="k.py", preload=preload)) == []


@pytest.mark.emulator
@pytest.mark.parametrize("preload", [1, 2])
def test_it_runs_as_the_serial_kernel_at_every_host_count_and_launch(preload):
    # fewer host cores than blocks, more, as many, none (every block returns), tiles past the host's
    for tiles, blocks, used in ((7, 3, 2), (5, 2, 4), (6, 3, 3), (4, 2, 0), (3, 3, 1), (9, 2, 5)):
        verdicts = _verdicts(ACCEPTED["a scalar parameter"], tiles, blocks, {"used_cores": used}, preload)
        assert verdicts == ["ok", "ok"], (tiles, blocks, used, verdicts)


@pytest.mark.emulator
def test_the_tiling_field_form_runs_as_the_serial_kernel():
    for tiles, blocks, used in ((7, 3, 2), (5, 2, 4)):
        verdicts = _verdicts(ACCEPTED["a tiling-data field"], tiles, blocks, {"core_num": used})
        assert verdicts == ["ok", "ok"], (tiles, blocks, used, verdicts)


@pytest.mark.emulator
@pytest.mark.parametrize("name", ["a module constant", "a tiling-key field", "by > less one", "negated"])
def test_the_other_forms_run_as_the_serial_kernel(name):
    text = ACCEPTED[name]
    scalars = {"UsedCores": 2} if "UsedCores" in text else {"used_cores": 2} if "used_cores:" in text else {}
    for tiles, blocks in ((7, 3), (5, 1), (9, 2)):
        verdicts = _verdicts(text, tiles, blocks, scalars)
        assert verdicts == ["ok", "ok"], (tiles, blocks, verdicts)


@pytest.mark.parametrize("name", [name for name in REFUSED if "constant" not in name])
def test_blocks_at_or_past_the_step_are_refused_and_race(name):
    text = REFUSED[name]
    errors = error_messages(transpile(text, path="k.py"))
    assert errors and "does not step by the block count" in errors[0], errors
    # two host cores on three blocks: block 2 goes on and runs block 0's tiles
    verdicts = _verdicts(text, 7, 3, {"used_cores": 2, **({"other": 3} if "other:" in text else {})})
    assert "race" in verdicts, verdicts


def test_a_return_past_a_constant_count_is_refused_and_races():
    text = REFUSED["a return one block later by a constant"]
    errors = error_messages(transpile(text, path="k.py"))
    assert errors and "`if core_id >= HOST_CORES: return`" in errors[0], errors
    verdicts = _verdicts(text, 7, 3, {})
    assert "race" in verdicts, verdicts


def test_the_refusal_names_the_return_that_makes_it_provable():
    (error,) = [d for d in transpile(REFUSED["no return"], path="k.py").diagnostics if d.is_error]
    assert "`if core_id >= used_cores: return`" in error.message, error.message


#: each block sums its tiles and stores the sum at its last iteration, tested by the step
SUM = edited(ACCEPTED["a scalar parameter"], [
    ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
     "def finish(i, core_id, used_cores, n_blocks, sub_id, scale, out, proj_vec_db, res_db, accv):"),
    ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
     "    if i == core_id:\n        pl.muls(accv, res, 1.0)\n    else:\n        pl.add(accv, accv, res)\n"
     "    if i + used_cores >= n_blocks:\n        pl.store(out, accv, [core_id * BLOCK + sub_id * HALF, 0])"),
    ("            mutex_ids=[10, 11],\n        )\n",
     "            mutex_ids=[10, 11],\n        )\n        accv_g = pl.make_tile_group(\n"
     "            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
     "            addrs=0x10000,\n            mutex_ids=[12],\n        )\n        accv = accv_g.current()\n"),
    ("finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)",
     "finish(i, core_id, used_cores, n_blocks, sub_id, tiling.scale, out, proj_vec_db, res_db, accv)")])


@pytest.mark.emulator
def test_the_last_iteration_by_the_host_count_is_a_boundary_test():
    assert error_messages(transpile(SUM, path="k.py", preload=1)) == []
    for tiles, blocks, used in ((7, 3, 2), (5, 2, 4), (6, 2, 2)):
        verdicts = _verdicts(SUM, tiles, blocks, {"used_cores": used})
        assert verdicts == ["ok", "ok"], (tiles, blocks, used, verdicts)


def test_the_last_iteration_by_the_launch_count_is_not():
    # `i + num_cores >= n_blocks` is the last iteration of a range stepping by the launch's count,
    # not of one stepping by the host's
    text = edited(SUM, [("    if i + used_cores >= n_blocks:", "    if i + num_cores >= n_blocks:"),
                        ("def finish(i, core_id, used_cores,", "def finish(i, core_id, num_cores,"),
                        ("finish(i, core_id, used_cores,", "finish(i, core_id, num_cores,")])
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "`i + num_cores >= n_blocks` tests the variable of a loop" in errors[0], errors


#: block 0 alone goes on (`core_id != 0`, a host count of 1) and steps by 1: `i == n_blocks - 1` is its
#: last iteration (probe h147: refused as other than the last, with a hint, `i + num_cores >= n`, wrong
#: for this loop)
BLOCK0 = edited(SUM, [("    if core_id >= used_cores:\n        return\n    for i in pl.range(core_id, n_blocks, "
                       "used_cores):\n", "    if core_id != 0:\n        return\n    for i in pl.range(core_id, "
                                         "n_blocks, 1):\n"),
                      ("    if i + used_cores >= n_blocks:", "    if i == n_blocks - 1:")])


@pytest.mark.emulator
def test_the_last_iteration_of_a_single_host_block_tested_by_equality_is_a_boundary_test():
    assert error_messages(transpile(BLOCK0, path="k.py", preload=1)) == []
    for tiles, blocks in ((7, 3), (5, 2), (6, 1)):
        verdicts = _verdicts(BLOCK0, tiles, blocks, {"used_cores": 2})
        assert verdicts == ["ok", "ok"], (tiles, blocks, verdicts)


def test_equality_with_the_last_tile_is_not_the_last_iteration_of_two_host_blocks():
    # two blocks go on, stepping by 2: the test singles out tile n - 1, the last iteration of one block
    # alone (the other never stores its sum), outside the argument; the help names the step
    text = edited(BLOCK0, [("    if core_id != 0:\n", "    if core_id >= 2:\n"),
                           ("n_blocks, 1):\n", "n_blocks, 2):\n")])
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "`i == n_blocks - 1` singles out iterations other than the last" in errors[0], errors
    assert "`i + 2 >= n`" in errors[0], errors

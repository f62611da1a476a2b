"""What a value known only at run time decides about the bytes an op reaches.

A valid shape set from a scalar parameter and the loop count of a vector function passed one
are proven for every value, not the sampled ones: the valid shape is the declared one and
never overwrites what it may not reach; the vector function is followed with the value
unknown. The kernels are `variants.py`."""

from __future__ import annotations

from pathlib import Path

import pytest
from variants import KERNEL_TEXTS, base, edit, valid_rows, vf_count
from variants import errors as _messages

from pto_transpile import transpile


def test_a_valid_shape_from_a_scalar_is_the_declared_one_for_every_value():
    # sampled at d = 0 .. 11 the rows stay clear of the next task's store; the declared 32 do not
    (message,) = _messages(valid_rows(), "valid_rows.py")
    assert "ends with different contents" in message
    assert "a write whose extent is known only at run time" in message


def test_a_valid_shape_from_a_scalar_whose_declared_rows_fit_is_accepted():
    # the stores 64 rows apart: the whole 32-row tile fits before the next task's store
    assert _messages(valid_rows(offset="16"), "valid_rows.py") == []


def test_a_vector_function_bounded_by_a_scalar_is_refused_naming_it():
    (message,) = _messages(vf_count(), "vf_count.py")
    assert "which bytes vector function `fill_vf` reaches depends on `d`, passed to it as `n`" in message
    assert "the trip count of the loop at line 17 (in `fill_vf`) is not static" in message


@pytest.mark.parametrize("argument", ["max(16, d)", "abs(d)", "int(d)", "max(d, 0) + 16"])
def test_a_builtin_of_a_scalar_keeps_naming_it(argument):
    # no bound above on some piece of d's values: the loop's trip count is not bounded
    (message,) = _messages(edit(vf_count(), ("fill_vf(y, d)", f"fill_vf(y, {argument})")), "vf_count.py")
    assert "reaches depends on `d`" in message


@pytest.mark.parametrize("argument", ["min(d, 16)", "min([d, 16])", "min(16, d)", "max(0, min(d, 16))",
                                      "min(d, 8) * 2", "16 - max(d, 0)", "min(d + 10, 16)"])
def test_a_scalar_clamped_to_what_fits_is_accepted(argument):
    # on each piece of d's values the run stands for, the count is at most 16 registers, the
    # tile's 4 KiB: the loop is followed to that count, its stores a superset
    assert _messages(edit(vf_count(), ("fill_vf(y, d)", f"fill_vf(y, {argument})")), "vf_count.py") == []


@pytest.mark.parametrize("argument, past", [("min(d, 17)", "4352"), ("min(d, 8) * 3", "5376")])
def test_a_scalar_clamped_past_the_tile_is_refused_as_a_race(argument, past):
    (message,) = _messages(edit(vf_count(), ("fill_vf(y, d)", f"fill_vf(y, {argument})")), "vf_count.py")
    assert f"`fill_vf()` on V of AIV0 writes `y_db[0] (bytes 0..{past} from its start, past its 4096 bytes)`" in message


def test_a_loop_of_bounded_count_that_moves_an_address_register_is_refused():
    # where the register points after the loop depends on how many times it ran
    text = edit(vf_count(), ("fill_vf(y, d)", "fill_vf(y, min(d, 8))"),
                ("    for i in pl.range(0, n):\n        vf.store_align(t + 64 * i, x, p32)\n",
                 "    for i in pl.range(0, n):\n        vf.store_align(t, x, p32, 64, post_update=True)\n"
                 "    vf.store_align(t, x, p32)\n"))
    (message,) = _messages(text, "vf_count.py")
    assert "moves an address register a number of times known only within bounds" in message


def test_a_vector_function_given_a_scalar_as_data_is_accepted():
    # the parameter only fills registers: the bytes reached are the same for every value
    text = edit(vf_count(), ("fill_vf(y, d)", "fill_vf(y, 16, d)"), ("def fill_vf(t, n):", "def fill_vf(t, n, value):"),
                ("x = vf.full(2.0, p32)", "x = vf.full(value, p32)"))
    assert _messages(text, "vf_count.py") == []


@pytest.mark.emulator
@pytest.mark.parametrize("name, d, same", [
    ("valid_rows", 3, True),
    ("valid_rows", 25, False),
    ("vf_count", 2, True),
    ("vf_count", 20, False),
    ("vf_clamped_17", 16, True),
    ("vf_clamped_17", 17, False),
])
def test_the_emulator_agrees(name, d, same):
    """The transform's output (written without the check) is wrong exactly where the check
    says it cannot prove it: at values the sampled trials never take."""
    from sim_runtime.verify import verify

    text = KERNEL_TEXTS[name]()
    code = transpile(text, path=name, _skip_rules=["PTO061"]).code
    assert code is not None
    row = verify(text, code, "kernel", path=name, scalars=None if d is None else {"d": d}).rows[-1]
    assert (row.verdict == "ok") == same, (row.verdict, row.message)


@pytest.mark.parametrize("offset, exact", [("[sub_id * TILE_HALF, 0]", True), ("[sub_id * TILE_HALF + e, 0]", False)])
def test_an_insert_at_a_scalar_offset_writes_the_whole_tile_as_a_superset(offset, exact):
    # at a static offset `pl.insert` writes its exact blocks; at one known only at run time it
    # may write any of them: the whole destination, and not a write that overwrites it all
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.soundness.interp import Config, Interpreter

    root = Path(__file__).resolve().parents[2]
    text = (root / "examples" / "seed_demo.py").read_text()
    for old, new in [("pl.insert(p_mat, relu_nz, [sub_id * TILE_HALF, 0])", f"pl.insert(p_mat, relu_nz, {offset})"),
                     ("def stage2(ki, sub_id,", "def stage2(ki, e, sub_id,"),
                     ("stage2(ki, sub_id,", "stage2(ki, e, sub_id,"),
                     ("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n):",
                      "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n    e: pl.DT_INT32,\n):")]:
        assert old in text, old
        text = text.replace(old, new)
    file = read(SourceFile.parse(text, "seed_demo.py"))
    trace = Interpreter(file, file.kernels[0].node, Config({"e": 0})).run()
    inserts = [ev for core in trace.events for ev in core if ev.op == "insert"]
    assert inserts and all(ev.writes for ev in inserts)
    size = {f.r1 - f.r0 for ev in inserts for f in ev.writes}
    if exact:
        assert not any(f.window for ev in inserts for f in ev.writes) and max(size) < 64 * 64 * 4
    else:
        assert all(f.window for ev in inserts for f in ev.writes) and size == {64 * 64 * 4}


@pytest.mark.parametrize("count, mask, nbytes, cover", [
    (16, "vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)", 4096, True),
    (2, "vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)", 512, True),
    (2, "vf.update_mask(8, dtype=pl.DT_FP32)", 2 * 32, True),
    (2, "vf.create_mask(pattern=pl.MaskPattern.M3, dtype=pl.DT_FP32)", 512, False),
])
def test_a_vector_function_writes_the_bytes_it_stores(count, mask, nbytes, cover):
    # 16 registers of 256 bytes fill the 4 KiB tile, 2 its first 512 bytes and leave the rest
    # as it was; 8 lanes of fp32 are one 32-byte block per register; a mask of every third
    # lane is taken whole, as a superset that overwrites nothing
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.soundness.interp import Config, Interpreter

    text = edit(vf_count(), ("fill_vf(y, d)", f"fill_vf(y, {count})"),
                ("    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n    x = vf.full(2.0, p32)\n",
                 f"    p32 = {mask}\n    x = vf.full(2.0)\n"))
    file = read(SourceFile.parse(text, "vf_count.py"))
    trace = Interpreter(file, file.kernels[0].node, Config({"d": 0})).run()
    first = [next(ev for ev in core if ev.op == "fill_vf()") for core in trace.events[1:]]
    for ev in first:
        assert sum(f.r1 - f.r0 for f in ev.writes) == nbytes and all(f.window is not cover for f in ev.writes)


def test_an_element_write_of_a_tile_does_not_overwrite_the_rest():
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.soundness.interp import Config, Interpreter

    text = edit(vf_count(), ("    fill_vf(y, d)\n", "    y[0, 0] = 1.0\n"))
    file = read(SourceFile.parse(text, "element.py"))
    trace = Interpreter(file, file.kernels[0].node, Config({"d": 0})).run()
    feet = [f for core in trace.events for ev in core if ev.op == "setval" for f in ev.writes]
    assert feet and all(f.window for f in feet)


def test_a_move_into_a_bigger_tile_writes_the_blocks_an_insert_writes():
    # `pl.move(dst, src, offset=...)` into a bigger destination is an insert on the emulator:
    # its blocks, not the whole destination written over
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.soundness.interp import Config, Interpreter

    root = Path(__file__).resolve().parents[2]
    text = (root / "examples" / "seed_demo.py").read_text()
    moved = edit(text, ("pl.insert(p_mat, relu_nz, [sub_id * TILE_HALF, 0])",
                        "pl.move(p_mat, relu_nz, offset=[sub_id * TILE_HALF, 0])"))

    def writes(source: str, op: str) -> list:
        file = read(SourceFile.parse(source, "seed_demo.py"))
        trace = Interpreter(file, file.kernels[0].node, Config()).run()
        return [(ev.core, ev.pipe, ev.writes) for core in trace.events for ev in core if ev.op == op]

    inserted, as_move = writes(text, "insert"), writes(moved, "move")
    assert inserted and [w for w in as_move if w[2][0].key[0] == "Mat"] == inserted


@pytest.mark.parametrize("index, picked", [("d", 6), ("1", 1)])
def test_a_tile_picked_by_a_scalar_may_be_any_of_them(index, picked):
    # sampled at d = 0, 1, 2, 3, 5 the fifth slot was never picked; for every value, any is
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.soundness.interp import Config, Interpreter

    group = ("        scratch_db = pl.make_tile_group(\n"
             "            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
             "            addrs=0x9000, mutex_ids=[20, 21, 22, 23, 24, 25])\n")
    stage = "def scale_store(ki, d, sub_id, out, c_vec_db, y_db"
    call = "scale_store(ki, d, sub_id, out, c_vec_db, y_db"
    text = edit(base(), ("    pl.relu(y, c_vec)\n", f"    pl.relu(y, c_vec)\n    pl.full(scratch_db[{index}], 3.0)\n"),
                ("(ki + d) * TILE", "ki * TILE"), (stage + "):", stage + ", scratch_db):"),
                (call + ")", call + ", scratch_db)"),
                ("        pl.full(z_vec, 1.0)\n", "        pl.full(z_vec, 1.0)\n" + group))
    file = read(SourceFile.parse(text, "pick.py"))
    trace = Interpreter(file, file.kernels[0].node, Config({"d": 0})).run()
    fills = [ev for ev in trace.events[1] if ev.op == "full" and ev.stage == "scale_store"]
    assert fills and all(len(ev.writes) == picked and all(f.may == (picked > 1) for f in ev.writes) for ev in fills)


def _block_branch() -> str:
    """branch_on_param.py with a per-core loop, and the store into the block's next task's
    rows of `a` taken by block 1 only (`if core_id == 1:`)."""
    text = (Path(__file__).parent / "kernels" / "branch_on_param.py").read_text()
    return edit(text, ("    if d == 7:\n        pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])\n",
                       "    if core_id == 1:\n        pl.store(a, y, [(ki + 2) * TILE + sub_id * HALF, 0])\n"),
                ("def scale_store(ki, d, sub_id,", "def scale_store(ki, core_id, sub_id,"),
                ("    for ki in pl.range(0, N):\n", "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                 "    num_cores = pl.get_block_num()\n    for ki in pl.range(core_id, N, num_cores):\n"),
                ("scale_store(ki, d, sub_id, out,", "scale_store(ki, core_id, sub_id, out,"),
                ("a: pl.Tensor[[(N + 1) * TILE,", "a: pl.Tensor[[(N + 2) * TILE,"),
                ("    d: pl.DT_INT32,\n", ""))


@pytest.mark.parametrize("passed", ["core_id", "1 if core_id == 1 else 0"])
def test_a_test_of_the_block_index_may_go_either_way(passed):
    # the check follows block 0, which never takes the branch; for the other blocks it may
    # go either way, and the store it guards is judged as one that may happen
    call = "            scale_store(ki, {}, sub_id,"
    text = edit(_block_branch(), (call.format("core_id"), call.format(passed)))
    (message,) = _messages(text, "block_branch.py")
    assert "`a` is written in a loop of run-time trip count and `pl.load(cur_a, a, [ki * TILE, 0])` and " \
           "`pl.store(a, y, [(ki + 2) * TILE + sub_id * HALF, 0])` do not stay within one stride" in message
    # the message names the test that makes the store possible
    assert "depends on `core_id == 1`, a test of the block index" in message


@pytest.mark.emulator
@pytest.mark.parametrize("blocks, same", [(1, True), (2, False)])
def test_the_emulator_agrees_on_the_block_test(blocks, same):
    from sim_runtime.verify import verify

    text = _block_branch()
    code = transpile(text, path="block_branch.py", _skip_rules=["PTO061"]).code
    row = verify(text, code, "kernel", path="block_branch.py", block_dim=blocks).rows[-1]
    assert (row.verdict == "ok") == same, (row.verdict, row.message)

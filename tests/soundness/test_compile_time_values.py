"""What the kernel is compiled with is proven only as a compile-time value: an event id of an
intra-core flag, a tile's shape and a group's depth taken from a scalar parameter or the block
index were followed at the values the check samples, and past them the pipelined kernel raced
where the serial one did not (probe h127: a flag of id `d` beside a fixed one of id 7, taken by
the wrong wait at `d == 7`; a scratch tile `d` rows high grown over a group's slot from `d == 13`).
Each is refused now, as a cross-core event id or a tile address is (and a struct array's length
likewise); the constant forms are proven at their own values, the racing ones refused. A value
computed from a parameter by other operators (`d | 0`, `d & 16`) and an id in a nested list are
such values too (probe h129), and `mutex_ids` the front end refuses are refused as it does."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
SYNC = kernel_text(KERNELS / "h127_sync_param.py")
SHAPE = kernel_text(KERNELS / "h127_shape_param.py")
SHAPES = {"a": (96, 32), "out": (96, 32), "out2": (96, 32)}

_PARAM_ID = "wait_pipe=pl.PipeType.MTE3, event_id=d)"
#: the flag's id from the block index, in a per-core range
BY_BLOCK = edited(SYNC, [("def prep(ki, d,", "def prep(ki, core_id,"), ("def finish(ki, d,", "def finish(ki, core_id,"),
                         ("    d: pl.DT_INT32,\n", ""),
                         ("    for ki in pl.range(0, n):\n",
                          "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                          "    for ki in pl.range(core_id, n, pl.get_block_num()):\n"),
                         ("prep(ki, d, sub_id", "prep(ki, core_id, sub_id"),
                         ("finish(ki, d, sub_id", "finish(ki, core_id, sub_id")]).replace(
    _PARAM_ID, "wait_pipe=pl.PipeType.MTE3, event_id=core_id + 6)")


@pytest.mark.parametrize("text", [SYNC, BY_BLOCK], ids=["parameter", "block"])
def test_an_intra_core_flag_of_a_run_time_id_is_refused(text):
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert "`pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=" in message, message
    assert "depends on a value known only at run time" in message, message
    assert "give a compile-time id (a module constant, a tiling-key field)" in message, message


def test_the_flag_of_a_constant_id_is_proven_and_runs_as_the_serial_kernel():
    text = SYNC.replace(_PARAM_ID, "wait_pipe=pl.PipeType.MTE3, event_id=5)")
    result = transpile(text, path="k.py", preload=1)
    assert error_messages(result) == [] and result.code is not None
    rows = verify(text, result.code, "kernel", path="k.py", shapes=SHAPES, scalars={"d": 5}).rows
    assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message


def test_the_flag_of_the_fixed_pairs_id_is_refused():
    """At id 7, the fixed pair's: a later task's wait takes the earlier task's flag."""
    errors = error_messages(transpile(SYNC.replace(_PARAM_ID, "wait_pipe=pl.PipeType.MTE3, event_id=7)"),
                                      path="k.py", preload=1))
    assert errors, "the constant id 7 races pipelined"


def test_a_tile_shape_of_a_run_time_value_is_refused():
    (message,) = error_messages(transpile(SHAPE, path="k.py", preload=1))
    assert "the tile shape `[d, TILE]` depends on the run-time value of `d`: the check proves tile shapes only when " \
           "they are compile-time constants" in message, message


@pytest.mark.parametrize("rows, proven", [(12, True), (13, False)])
def test_a_constant_shape_is_proven_at_its_rows(rows, proven):
    """12 rows end below the group; 13 reach its slot 0, which the cube writes meanwhile."""
    text = SHAPE.replace("(shape=[d, TILE], dtype", f"(shape=[{rows}, TILE], dtype")
    assert (error_messages(transpile(text, path="k.py", preload=1)) == []) is proven


def test_a_group_depth_of_a_run_time_value_is_refused():
    """A group of the vector core alone (a cross-core one of a run-time depth is refused before)."""
    text = edited(SHAPE, [("        addrs=0x4000,\n            mutex_ids=[12, 13],\n",
                           "        addrs=0x4000,\n            depth=d,\n")])
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert "the group depth `d` depends on the run-time value of `d`" in message, message


STRUCTS = kernel_text(KERNELS / "h109_user_struct_array_typed_field_exempt_from_narrowing.py").replace(
    "tag=pl.const(0, pl.DT_INT16)", "tag=0")


@pytest.mark.parametrize("length, refused", [("2", False), ("d", True)])
def test_a_struct_array_of_a_run_time_length_is_refused(length, refused):
    text = edited(STRUCTS, [("    n: pl.DT_INT32,\n", "    n: pl.DT_INT32,\n    d: pl.DT_INT32,\n"),
                            ("pl.struct_array(2,", f"pl.struct_array({length},")])
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors == (['the pipelined kernel is not proven equivalent to the serial one: the struct array length '
                       '`pl.struct_array(d, "Tag", tag=0)` depends on the run-time value of `d`: the check proves '
                       'struct array lengths only when they are compile-time constants (module constants, tiling-key '
                       'fields)'] if refused else [])


_TWELVE = ("(shape=[d, TILE], dtype", "(shape=[12, TILE], dtype")


@pytest.mark.parametrize("edit", [("(shape=[d, TILE], dtype", "(shape=[d | 0, TILE], dtype"),
                                  ("addr=SCRATCH", "addr=SCRATCH + (d & 16) * 64"),
                                  ("mutex_ids=[12, 13]", "mutex_ids=[[12], [d]]")],
                         ids=["shape d | 0", "address d & 16", "nested mutex id"])
def test_a_value_computed_from_a_parameter_is_no_compile_time_value(edit):
    """`d | 0`, `d & 16`: computed from the parameter other than by adding and scaling it, a value
    of its own the check derives from `d`, and read as compile-time before (probe h129: `d & 16`
    is 0 at every sample, and from `d == 16` the scratch reached the group's slot); a mutex id in
    a nested list was read only at the top level."""
    text = edited(SHAPE, [edit] if edit[0] == _TWELVE[0] else [_TWELVE, edit])
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert "depends on the run-time value of `d`: the check proves" in message, message


@pytest.mark.parametrize("ids, problem", [("[[12, 14], [13]]", "every slot must have the same number of mutex ids"),
                                          ("[12, 40]", "bad mutex_ids entry 40 (ints 0..31, no duplicates in a slot)"),
                                          ("[[12, 12], [13, 13]]", "bad mutex_ids entry [12, 12]")])
def test_mutex_ids_the_front_end_refuses_are_refused(ids, problem):
    """Accepted before, where the emulator (and PyPTO) refuse the group of the serial kernel too."""
    text = edited(SHAPE, [_TWELVE, ("mutex_ids=[12, 13]", f"mutex_ids={ids}")])
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert f"`mutex_ids=` of this group is not one PyPTO accepts: {problem}" in message, message
    rows = verify(text, text, "kernel", path="k.py", shapes=SHAPES, scalars={"d": 1}).rows
    assert problem in rows[0].message, rows[0].message

"""The emulator's timing of waits on the scalar pipe: the scalar unit issues every op of its
core, so a wait on it (a cross-core wait, or a `sync_dst` whose wait pipe is S) holds back the
issue of all later work, as the race detector orders it. A `sync_dst` on S held back only the
scalar pipe's own later ops, so a vector op after it could start before the flag (probe h142)."""

from sim_runtime.coretime import CoreTime


def _vector_op_after(wait_pipe: str) -> int:
    t = CoreTime()
    t.op("MTE2", 500)  # a load
    t.sync_src("MTE2", wait_pipe, 0)
    t.sync_dst("MTE2", wait_pipe, 0)
    start, _ = t.op("V", 10)
    return start


def test_a_flag_waited_for_on_the_scalar_pipe_holds_back_later_vector_work():
    assert _vector_op_after("S") >= 500


def test_a_flag_waited_for_on_another_pipe_holds_back_only_that_pipe():
    assert _vector_op_after("MTE3") < 500

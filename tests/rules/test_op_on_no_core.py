"""PTO066 on an op neither core runs as modelled: a `pl.move` from a Mat tile into a Vec tile,
on the V pipe by PyPTO's table of moves. In a vector stage it was refused for reaching the cube
core's memory, in a cube stage for running on the vector core's pipe, and each help sent the
author to the other core (probe h140). Both refusals say now that the move is one between the
cores' memories pto-transpile does not model, and name the two ways it does."""

from pathlib import Path

import pytest

from pto_transpile import transpile

KERNELS = Path(__file__).parent / "kernels"


@pytest.mark.parametrize("name, stage, core", [("h140_mat_to_vec_in_vector_stage.py", "vec_stage", "vector"),
                                               ("h140_mat_to_vec_in_cube_stage.py", "load_stage", "cube")])
def test_a_move_from_mat_into_vec_is_refused_the_same_way_on_both_cores(name, stage, core):
    errors = [d for d in transpile((KERNELS / name).read_text(encoding="utf-8"), path=name, preload=1).diagnostics
              if d.is_error]
    assert [d.code for d in errors] == ["PTO066"], [d.message for d in errors]
    assert errors[0].message == (f"`pl.move` in stage `{stage}` cannot run on the {core} core: it reaches `a_mat_db` "
                                 "in `Mat`, the cube core's memory, on the V pipe, which only the vector core has: a "
                                 "move between the two cores' memories that pto-transpile and its emulator do not "
                                 "model")
    assert errors[0].hint.startswith("Hand the data over the ways pto-transpile and its emulator model:")

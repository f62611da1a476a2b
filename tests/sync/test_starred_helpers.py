"""A helper of the file handed a cross-core tile through `*args` or `**kwargs`: the access scan
binds a helper's named parameters only, so the tile's read went unseen and PTO033 said the buffer
had no consumer (probe h122). The scan names the helper and the parameter it cannot follow
(PTO053); with named parameters the same kernel is proven and runs as the serial one."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

TEXT = kernel_text(Path(__file__).parents[1] / "soundness" / "kernels" / "h122_helper_star_args.py")
HELPER = "def _scale(*args, factor=2.0):\n    dst, src = args\n    pl.muls(dst, src, factor)\n"
CALL = "    _scale(y, c_vec, factor=3.0)\n"
KWARGS = edited(TEXT, [(HELPER, "def _scale(**kw):\n    pl.muls(kw['dst'], kw['src'], kw.get('factor', 2.0))\n"),
                       (CALL, "    _scale(dst=y, src=c_vec)\n")])
NAMED = edited(TEXT, [(HELPER, "def _scale(dst, src, factor=2.0):\n    pl.muls(dst, src, factor)\n")])


@pytest.mark.parametrize("text, via", [(TEXT, "*args"), (KWARGS, "**kw")], ids=["args", "kwargs"])
def test_a_tile_handed_through_a_starred_parameter_is_named(text, via):
    (message,) = error_messages(transpile(text, path="k.py"))
    assert message == (f"helper `_scale` is handed tile(s) of buffer(s) c_vec_db through `{via}`, which the access "
                       "scan does not follow: which of them it reads or writes is not known"), message


def test_with_named_parameters_it_is_proven_and_runs_as_the_serial_kernel():
    result = transpile(NAMED, path="k.py", preload=2)
    assert error_messages(result) == []
    report = verify(NAMED, result.code, "kernel", path="k.py", shapes={"a": (160, 32), "out": (160, 32)})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


ROWS = (Path(__file__).parents[1] / "soundness" / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
FINISH = "def finish(i, sub_id, out, proj_vec_db, res_db):\n    proj = proj_vec_db.next()\n"
STAGE_ARGS = edited(ROWS, [(FINISH, "def finish(i, sub_id, out, *dbs):\n    proj_vec_db, res_db = dbs\n"
                                    "    proj = proj_vec_db.next()\n")])
STAGE_KWARGS = edited(ROWS, [(FINISH, "def finish(i, sub_id, out, res_db, **kw):\n"
                                      "    proj = kw[\"proj_vec_db\"].next()\n"),
                             ("finish(i, sub_id, out, proj_vec_db, res_db)",
                              "finish(i, sub_id, out, res_db, proj_vec_db=proj_vec_db)")])


@pytest.mark.parametrize("text, via", [(STAGE_ARGS, "*dbs"), (STAGE_KWARGS, "**kw")], ids=["args", "kwargs"])
def test_a_stage_taking_a_group_through_a_starred_parameter_is_named(text, via):
    """A stage's own `*args`/`**kwargs` (probe h131: PTO033 said the group had no consumer)."""
    (message,) = error_messages(transpile(text, path="k.py"))
    assert message == (f"stage `finish` takes tile(s) of buffer(s) proj_vec_db through `{via}`, which the access scan "
                       "does not follow: which of them it reads or writes, and so whether it produces or consumes "
                       "them, is not known"), message

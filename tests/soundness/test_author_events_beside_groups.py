"""An author's own events beside the tile groups the transform syncs: the credits a core can run
ahead on are the sets of an event pending where the other core waits for it, in the order the
kernel's statements run. Counted on one core alone ("sets in a row"), a cube that sets an event
once a task, which a vector core waits for once a task, primed one credit more with each task of
the serial kernel, where the cube never waits: refused, for any trip count the check drew, with
a help to prime credits the kernel never primed (probe h104). Both kernels run as the serial one
at every count and block count tried."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"


@pytest.mark.parametrize("preload", [1, 2])
def test_an_event_set_and_waited_once_a_task_beside_a_tile_group_is_proven(preload):
    text = kernel_text(KERNELS / "h104_hand_event_beside_tile_group.py")
    result = transpile(text, path="k.py", preload=preload)
    assert error_messages(result) == []
    for rows, blocks in ((32, 1), (224, 3)):
        report = verify(text, result.code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (rows, report.rows)


def test_a_credit_handed_back_once_a_task_is_proven():
    text = kernel_text(KERNELS / "h104_credit_return_from_downstream.py")
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for n in (0, 1, 5):
        report = verify(text, result.code, "kernel", shapes={"a": (160, 32), "out": (160, 32)}, scalars={"n": n})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (n, report.rows)

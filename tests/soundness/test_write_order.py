"""Two writes of one GM element neither of which surely overwrites the other (a valid shape or
an offset known only at run time, a write under a test the check follows both ways) both stay
among what the element may hold. The runs were compared on that set alone, so two stages whose
stores the pipeline swaps passed: the element ends with the other stage's data. What an element
may hold (and what a read may see) is now compared in the order the writes came. A probe found
each kernel below accepted and wrong on the emulator."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import error_messages
from pto_transpile import transpile

SWAPS = ["swap_tail_stores.py", "swap_conditional_stores.py", "swap_scatter_stores.py"]
ORDER = ("the serial kernel leaves stage `stage4` (task 0), `pl.store` on MTE3 of AIV0; then stage `stage2` "
         "(task 1), `pl.store` on MTE3 of AIV0 there, the pipelined kernel stage `stage2` (task 1), `pl.store` on "
         "MTE3 of AIV0; then stage `stage4` (task 0)")


@pytest.mark.parametrize("name", SWAPS)
@pytest.mark.parametrize("preload", [1, 2])
def test_stores_the_pipeline_swaps_are_refused(name, preload):
    (message,) = error_messages(transpile(kernel(name), path=name, preload=preload))
    assert "ends with different contents" in message, message
    if name != "swap_scatter_stores.py":  # there, every row may hold every store: the first differs
        assert ORDER in message, message


@pytest.mark.emulator
@pytest.mark.parametrize("thr, same", [(1.0, False), (-1.0, True)])
def test_the_emulator_shows_the_swap_when_both_stores_run(thr, same):
    from sim_runtime.verify import verify

    name = "swap_conditional_stores.py"
    text = kernel(name)
    code = transpile(text, path=name, preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    report = verify(text, code, "pipeline_demo_kernel", path=name, scalars={"thr": thr})
    assert report.rows[-1].verdict == ("ok" if same else "mismatch"), report.rows[-1].message

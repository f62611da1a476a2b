"""Two valid kernels outside what the check follows, whose refusals now name the limit and the form
that is followed (probe h98: "singles out iterations other than the last" for a pipeline two beats
deep, and "the cores run this loop a different number of times" with a help naming no form)."""

from __future__ import annotations

from pathlib import Path

from helpers import kernel_text
from pto_transpile import transpile

KERNELS = Path(__file__).parent / "kernels"


def _messages(name: str) -> list[str]:
    text = kernel_text(KERNELS / f"{name}.py")
    return [d.message for d in transpile(text, path="k.py").diagnostics if d.severity != "note"]


def test_a_lag_of_two_beats_is_named():
    (message,) = _messages("two_beat_lag")
    assert "`t < my_n` singles out iterations other than the last (a pipeline's lag of more than one beat, a loop " \
           "of `n + k` beats whose producer stops at `n`, is not followed: the check proves a lag of one beat, " \
           "`n + 1`)" in message, message


def test_cores_of_a_block_out_of_step_are_named_with_the_form_followed():
    messages = _messages("flat_aiv_epilogue")
    assert any("the cores run this loop a different number of times: the check follows the cores of a block in "
               "step" in m and "split each piece between the vector cores by `pl.get_subblock_idx()`" in m
               for m in messages), messages

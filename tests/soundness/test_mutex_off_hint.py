"""A kernel that turns `auto_mutex` off races between the pipes of one core on its tiles, which
the mutex ids would order: the help asked for hand-written `sync_src`/`sync_dst` flags and never
named the option (first-hour study ux1). A race on GM keeps its own help: auto_mutex orders
tiles, not GM."""

from __future__ import annotations

from helpers import demo_text
from pto_transpile import transpile


def test_a_race_on_a_tile_of_a_kernel_without_auto_mutex_names_the_option():
    text = demo_text().replace("@pl.jit(auto_mutex=True,", "@pl.jit(auto_mutex=False,")
    errors = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert errors and all(d.code == "PTO061" for d in errors)
    assert errors[0].hint.startswith("Turn `auto_mutex` on"), errors[0].hint


def test_with_auto_mutex_on_the_kernel_is_proven():
    assert not [d for d in transpile(demo_text(), path="k.py").diagnostics if d.is_error]

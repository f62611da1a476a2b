"""`# pto-transpile: ignore[...]`: warnings only, on their own line, and never silently stale."""

from __future__ import annotations

import skeleton as ex
from pto_transpile import transpile
from pto_transpile.rules import registry

SECOND = ex.loop(ex.cube(ex.MM_CALL.replace("ki", "kj")), ex.vector(ex.ST_CALL.replace("ki", "kj")),
                 head="for kj in pl.range(0, N):")


def two_loops(comment: str = "", **kw) -> str:
    """Two pipeline loops without sync_all between them: PTO042 on the second loop's line."""
    return ex.kernel(loop=ex.LOOP + "\n" + SECOND.replace(":\n", f":  {comment}\n", 1), **kw)


def codes(text: str) -> list[str]:
    """The codes of `text`'s diagnostics, the soundness check left out: it proves these loops
    apart, and PTO042 is not shown for a kernel it proves (what is tested here is the comments)."""
    return sorted(d.code for d in transpile(text, _skip_rules=("PTO061",)).diagnostics)


def test_the_warning_is_there_without_a_comment():
    assert codes(two_loops()) == ["PTO042"]


def test_a_warning_is_silenced_on_its_line_by_code_name_or_bare_comment():
    for comment in ("# pto-transpile: ignore[PTO042]", "# pto-transpile: ignore[missing-sync-all]",
                    "# pto-transpile: ignore", "#pto-transpile:ignore[PTO042, PTO046]  # checked by hand"):
        result = transpile(two_loops(comment))
        assert [d.code for d in result.diagnostics] == (["PTO096"] if "PTO046" in comment else []), comment
        assert result.code is not None


def test_a_comment_on_another_line_silences_nothing():
    text = two_loops().replace("for kj in pl.range(0, N):",
                               "# pto-transpile: ignore[PTO042]\nfor kj in pl.range(0, N):")
    text = text.replace("# pto-transpile: ignore[PTO042]\nfor kj", "    # pto-transpile: ignore[PTO042]\n    for kj")
    assert codes(text) == ["PTO042", "PTO096"]


def test_errors_are_never_silenced():
    # PTO043: a cross-core buffer with one tile at preload 1, reported on its declaration line
    group = ex.group("x_db", mutex="[0]", fwd="[0]", bwd="[2]", mark="  # pto-transpile: ignore[PTO043]")
    result = transpile(ex.kernel(x_db=group))
    assert sorted(d.code for d in result.diagnostics) == ["PTO043", "PTO096"]
    assert result.code is None
    useless = next(d for d in result.diagnostics if d.code == "PTO096")
    assert "PTO043 is an error" in useless.message


def test_unused_comments_are_only_judged_when_every_check_ran():
    # an error elsewhere cuts the analysis short: an unused ignore is not reported then
    text = two_loops("# pto-transpile: ignore[PTO046]", config="preload=-1")
    assert "PTO096" not in codes(text)


def test_a_directive_inside_a_string_is_not_a_comment():
    text = two_loops().replace("TILE = 32", 'TILE = 32\nNOTE = "# pto-transpile: ignore[PTO042]"')
    assert codes(text) == ["PTO042"]


def test_the_useless_suppression_rule_is_a_warning():
    assert registry()["PTO096"].severity.value == "warning"

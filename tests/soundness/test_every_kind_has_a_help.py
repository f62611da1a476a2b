"""Every kind of refusal the soundness check makes has a help (`proof.HINTS`): PTO061 looks its
help up by the refusal's kind, so a kind without one was an internal error (KeyError) where the
kernel should have been refused, as the per-core range of more static tasks than the check runs
was. The kinds are read off the check's code, where each is written as a literal."""

from __future__ import annotations

import re
from pathlib import Path

from pto_transpile.soundness.proof import HINTS
from pto_transpile.soundness.uniform import KINDS

SOUNDNESS = Path(__file__).resolve().parents[2] / "pto_transpile" / "soundness"
KIND = re.compile(r'(?:\bkind=|\bProblem\()"([a-z_]+)"')


def test_every_kind_the_check_names_has_a_help():
    kinds = {m.group(1) for path in SOUNDNESS.glob("*.py") for m in KIND.finditer(path.read_text(encoding="utf-8"))}
    assert len(kinds) >= 20  # the pattern still finds them
    # "long": a run past its budget, proven at representative counts or run again, never reported
    # as it is; "undecided": a hand-pipelined kernel's, reported by PTO077 with helps of its own
    assert sorted(kinds - set(HINTS) - {"long", "undecided"}) == []
    assert sorted(set(KINDS) - set(HINTS)) == []

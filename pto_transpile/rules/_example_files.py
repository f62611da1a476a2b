"""A rule's example kernels, kept as literal text in `rules/examples/<rule module>.md`.

Each file shows the rule's failing kernels under `## Fails` and its passing kernels under
`## Passes`, each whole, in a ```python block a reader can copy and run; the tests run every
one (tests/rules/test_rules.py). They are read when first asked for, not when the rules are
imported: the command line needs the rules' texts, not their examples.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "examples"
_SECTIONS = ("## Fails", "## Passes")
_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)


def render(code: str, name: str, invalid: tuple[str, ...], valid: tuple[str, ...]) -> str:
    """The examples file of rule `code`: its failing kernels, then its passing ones."""
    out = [f"# {code} {name}: examples", "",
           "The tests run every kernel below (tests/rules/test_rules.py). A kernel under \"Fails\" is",
           "reported on exactly the lines it marks `# E: PTOxxx`; a kernel under \"Passes\" gets no",
           "diagnostic.", ""]
    for heading, kernels in zip(_SECTIONS, (invalid, valid), strict=True):
        if kernels:
            out += [heading, ""]
            for text in kernels:
                out += ["```python", text.removesuffix("\n"), "```", ""]  # the fence's line ends it
    return "\n".join(out)


def parse(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(failing kernels, passing kernels) of an examples file's text."""
    found: dict[str, tuple[str, ...]] = {}
    starts = sorted((text.find(f"\n{h}\n"), h) for h in _SECTIONS if f"\n{h}\n" in text)
    for (start, heading), (end, _) in zip(starts, [*starts[1:], (len(text), "")], strict=True):
        found[heading] = tuple(m.group(1) for m in _BLOCK.finditer(text, start, end))
    return found.get(_SECTIONS[0], ()), found.get(_SECTIONS[1], ())


@cache
def examples_of(module: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(failing kernels, passing kernels) of the rule defined in `rules/<module>.py`; none when
    it has no examples file (a rule reported outside `transpile()`, e.g. by the command line)."""
    path = FOLDER / f"{module}.md"
    if not module or not path.is_file():
        return (), ()
    return parse(path.read_text(encoding="utf-8"))

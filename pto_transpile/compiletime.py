"""Names a kernel file binds at compile time rather than by assignment: the fields of a
tiling-key class (`Field = TilingKeyField(bits=..., values=[...])`, a name inside every
kernel of the file and its helpers) and the dtype names of `@pl.jit(datatype={...})`.

Read from the text with two patterns, so a class or decorator kept unparsed still counts."""

from __future__ import annotations

import re

_KEY_FIELD = re.compile(r"^[ \t]+([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*(?:[A-Za-z_]\w*\.)*TilingKeyField[ \t]*\(",
                        re.M)
_DATATYPE = re.compile(r"\bdatatype[ \t]*=[ \t]*\{([^}]*)\}", re.S)
_STRING_VALUE = re.compile(r":\s*[rRuU]?(['\"])([A-Za-z_]\w*)\1")


def compile_time_names(text: str) -> set[str]:
    names = {m.group(1) for m in _KEY_FIELD.finditer(text)}
    for m in _DATATYPE.finditer(text):
        names.update(v.group(2) for v in _STRING_VALUE.finditer(m.group(1)))
    return names

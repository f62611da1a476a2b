"""Whether a file may rebind a class's name, or an attribute of it, outside the class body.

A call through `Class.method` runs the `@staticmethod` the class body defines only while
neither `Class` nor `Class.method` is bound to anything else: the checks that follow such calls
(the module-name analysis, the soundness check's interpreter) ask this first. Read from the
text with patterns that err towards yes: a false alarm only leaves the call unfollowed.
"""

from __future__ import annotations

import re

#: An assignment's operator after a target (`=`, `+=`, `:=`), not a comparison.
_ASSIGNS = r"\s*(?:[-+*/%&|^@:]|//|<<|>>|\*\*)?=(?!=)"


def name_bound(text: str, name: str) -> bool:
    """Whether `text` may bind `name` anywhere (`staticmethod = f`, `import x as staticmethod`)."""
    n = re.escape(name)
    return re.search(rf"\b{n}{_ASSIGNS}|\b(?:as|global|nonlocal|del|def|class)\s+{n}\b|\bimport\b[^\n]*\b{n}\b"
                     rf"|\bfor\b[^\n:]*\b{n}\b[^\n:]*\bin\b", text) is not None


def class_rebound(text: str, cls: str) -> bool:
    """Whether `text` may bind `cls` other than by one `class cls` statement."""
    name = re.escape(cls)
    if len(re.findall(rf"^[ \t]*class[ \t]+{name}\b", text, flags=re.M)) != 1:
        return True
    return re.search(rf"\b{name}{_ASSIGNS}|\b(?:as|global|nonlocal|del|def)\s+{name}\b|\bimport\b[^\n]*\b{name}\b"
                     rf"|\bfor\b[^\n:]*\b{name}\b[^\n:]*\bin\b|\bclass\s+\w+\b[^\n]*:[^\n]*\b{name}\s*=",
                     text) is not None


def attribute_rebound(text: str, cls: str, attr: str) -> bool:
    """Whether `text` may set or delete `cls.attr` outside the class body (`Ev.notify = f`,
    `setattr(Ev, ...)`, `del Ev.notify`)."""
    c, a = re.escape(cls), re.escape(attr)
    return re.search(rf"\b{c}\s*\.\s*{a}{_ASSIGNS}|\bdel\b[^\n]*\b{c}\s*\.\s*{a}\b"
                     rf"|\b(?:setattr|delattr)\s*\(\s*{c}\b|\b{c}\s*\.\s*__dict__", text) is not None

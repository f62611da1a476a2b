"""Kernels that are pipelined already: pto-transpile's own output, or pipelined by hand.

Neither is transformed (again). The driver skips them, the emulator runs them as written,
and the rules say so (PTO060) and check the syncs of the hand-written ones (PTO068).
A kernel is pto-transpile's output only while it carries the mark pto-transpile wrote
(`mark.py`); one that binds the generated counters without it is checked as hand-written.
A kernel under a mark whose digest is not its own is an edited output, whatever its names.
"""

from __future__ import annotations

import libcst as cst

from pto_transpile.read.mark import is_marked, mark_of
from pto_transpile.read.meaning import Class
from pto_transpile.read.model import Kernel
from pto_transpile.read.reader import FileModel

#: Counters only pto-transpile's output binds (full mode / serial mode).
MARKERS = ("_pl_task_id", "_pl_sync_id")
#: Calls that make a kernel pipelined by hand: cross-core events, and the intra-core flags
#: between the pipes of one core.
SYNCS = (("system", "set_cross_core"), ("system", "wait_cross_core"), ("system", "sync_src"), ("system", "sync_dst"))
#: The start of what `pipelined_as` says of a kernel pipelined by hand.
BY_HAND = "pipelined by hand"
#: What `pipelined_as` says of pto-transpile's own output.
GENERATED = "already the output of pto-transpile"


def pipelined_as(kernel: Kernel, file: FileModel) -> str | None:
    """How a kernel without `pipeline=` is already pipelined, or None if it is not.

    pto-transpile's output binds its task counter and carries its mark; a kernel pipelined
    by hand raises and waits for cross-core events itself. Neither is transformed (again): it is left as written.
    A kernel that sets `pipeline=` is always the user's serial kernel, whatever names it binds."""
    if kernel.pipeline_keyword is not None:
        return None
    if binds_markers(kernel):
        if is_marked(kernel.node, file.source.text):
            return GENERATED
        return f"{BY_HAND} (it binds `_pl_task_id` or `_pl_sync_id` as pto-transpile's output does, but " + (
            "the file changed after pto-transpile wrote it" if mark_of(kernel.node) is not None
            else "without the mark pto-transpile writes above its kernels") + ")"
    if _syncs(file, kernel.node.body, set()):
        stale = " under pto-transpile's mark, but the file changed after pto-transpile wrote it"
        return f"{BY_HAND} (it calls `set_cross_core`/`wait_cross_core` or `sync_src`/`sync_dst` itself" + (
            stale if edited_output(kernel, file) else "") + ")"
    return None


def binds_markers(kernel: Kernel) -> bool:
    """Whether `kernel` binds the counters pto-transpile's output binds (`_pl_task_id`)."""
    return any(n.startswith(MARKERS) for n in kernel.stored)


def edited_output(kernel: Kernel, file: FileModel) -> bool:
    """Whether `kernel` is pto-transpile's output changed after it was written: it binds the
    generated counters or carries a mark, and no mark above it holds its digest. The stale mark
    counts by itself, so renaming the counters does not make an edit a plain hand pipeline."""
    if is_marked(kernel.node, file.source.text):
        return False
    return binds_markers(kernel) or mark_of(kernel.node) is not None


def _syncs(file: FileModel, body: cst.CSTNode, seen: set[str]) -> bool:
    """Whether `body`, or a function of the file it calls (a `produce`/`consume` helper, at any
    depth), or a method of a class of the file it names (`Ev.notify()`, `ev = Ev(); ev.notify()`),
    raises or waits for an event itself."""
    for call in file.find(body, cst.Call):
        if file.pl.path(call.func) in SYNCS:
            return True
        name = call.func.value if isinstance(call.func, cst.Name) else ""
        helper = file.helpers.get(name) if name and name not in seen else None
        if isinstance(helper, cst.FunctionDef):
            seen.add(name)
            if _syncs(file, helper.body, seen):
                return True
    for named in file.find(body, cst.Name):
        meaning = file.meaning(named.value) if named.value not in seen else None
        if isinstance(meaning, Class) and isinstance(meaning.node, cst.ClassDef):
            seen.add(named.value)
            if _syncs(file, meaning.node, seen):  # its methods, and the classes of the file it is made from
                return True
    return False

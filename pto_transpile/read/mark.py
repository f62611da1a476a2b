"""The mark pto-transpile writes above each kernel it pipelines, and how it is recognised.

A generated kernel is left as written when it is read again (`pipelined.py`): its syncs were
proven when it was written, so it is not checked again. Its names alone (`_pl_task_id`) do
not say that: an author can bind them too, or edit the generated file. So each kernel
pto-transpile writes carries a comment with a digest of the whole file it was written into,
and a kernel counts as pto-transpile's output only while that digest is the file's own.
Any edit after pto-transpile wrote the file (to the kernel, a stage, a constant, a comment)
makes its kernels hand-written pipelines, whose syncs are checked as such.

The digest is of the kernel's name and the text with newlines made `\\n` and every mark's own
digest blanked, so that stamping a mark does not change what it is a digest of, and the mark of
one kernel is no mark of another: a run that pipelines one kernel of a file cannot be made to
stamp another it left as written. It guards against accidents, not against an author who
computes it on purpose.
"""

from __future__ import annotations

import hashlib
import re
import secrets

import libcst as cst

#: The comment, less its digest and the rest of the line.
PREFIX = "# Written by pto-transpile (digest "
TEMPLATE = PREFIX + "{digest}): edit the serial kernel it came from, not this one."
#: The comment above a kernel pipelined by hand in the copy pto-transpile writes of its file.
#: It names the copy as pto-transpile's own, so that the copy is replaced again after the
#: file it came from is edited (it would otherwise be someone else's file, left alone without
#: `--force`); it is no mark of a kernel pto-transpile pipelined, and changes no judgement.
COPY_MARK = ("# Copied by pto-transpile: pipelined by hand, so left as written; "
             "edit the file it came from, not this one.")
_DIGEST = re.compile(re.escape(PREFIX) + r"([0-9a-f]{16})\)")
_NEWLINES = re.compile(r"\r\n?")


def digest(text: str, kernel: str) -> str:
    """The digest the mark of `kernel` in `text` must hold for it to count as pto-transpile's output."""
    blank = _DIGEST.sub(PREFIX + "0" * 16 + ")", _NEWLINES.sub("\n", text))
    return hashlib.sha256(f"{kernel}\n{blank}".encode("utf-8", "surrogatepass")).hexdigest()[:16]


def mark_of(fn: cst.FunctionDef) -> str | None:
    """The digest in the mark above `fn` (its own comment lines, before its decorators), if any."""
    for line in fn.leading_lines:
        found = _DIGEST.match(line.comment.value) if line.comment is not None else None
        if found:
            return found.group(1)
    return None


def is_marked(fn: cst.FunctionDef, text: str) -> bool:
    """Whether `fn`, a kernel of `text`, carries a mark whose digest is its digest in `text`."""
    found = mark_of(fn)
    return found is not None and found == digest(text, fn.name.value)


def copy_marked(fn: cst.FunctionDef) -> cst.FunctionDef:
    """`fn`, a kernel pipelined by hand, with `COPY_MARK` right above it, unless a mark of
    either kind is there already (a copy read again, an edited output of pto-transpile's)."""
    if any(line.comment is not None and (line.comment.value == COPY_MARK or _DIGEST.match(line.comment.value))
           for line in fn.leading_lines):
        return fn
    return fn.with_changes(leading_lines=[*fn.leading_lines, cst.EmptyLine(comment=cst.Comment(COPY_MARK))])


def written_by_us(data: bytes) -> bool:
    """Does a file's content hold a mark of either kind: an output pto-transpile wrote?"""
    return PREFIX.encode() in data or COPY_MARK.encode() in data


def placeholder() -> str:
    """A digest to write until the file's text is final: unknown to any author beforehand."""
    return secrets.token_hex(8)


def marked(fn: cst.FunctionDef, stand_in: str) -> cst.FunctionDef:
    """`fn` with one mark right above it (holding `stand_in` until `stamped`); a mark it had goes."""
    kept = [line for line in fn.leading_lines
            if line.comment is None or not _DIGEST.match(line.comment.value)]
    mark = cst.EmptyLine(comment=cst.Comment(TEMPLATE.format(digest=stand_in)))
    return fn.with_changes(leading_lines=[*kept, mark])


def stamped(text: str, stand_ins: dict[str, str]) -> str:
    """`text` with the mark holding each stand-in given the digest of its kernel (`stand_ins`:
    stand-in -> kernel name) in `text`."""
    for stand_in, kernel in stand_ins.items():
        text = text.replace(PREFIX + stand_in + ")", PREFIX + digest(text, kernel) + ")")
    return text

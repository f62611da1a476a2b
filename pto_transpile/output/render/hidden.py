"""The words for a file whose output errors hidden by --select/--ignore stopped, one text for
every format that says so (stderr, the github annotation, the SARIF notification)."""

from __future__ import annotations


def hidden_words(errors: int) -> str:
    """What a file's output stopped by `errors` errors --select/--ignore hid says."""
    return f"{errors} error(s) not shown (filtered by --select/--ignore); nothing was written"

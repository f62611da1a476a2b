"""Writing outputs: atomically, and never over the input file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class RefusedWrite(Exception):
    pass


def default_output(input_path: Path) -> Path:
    return Path("build") / input_path.stem / "pipeline_generated.py"


def write_atomic(target: Path, text: str, *, input_path: Path | None = None) -> None:
    """Write `text` to `target` through a temporary file and a rename; refuse the input file."""
    if input_path is not None and target.exists() and target.resolve() == input_path.resolve():
        raise RefusedWrite(f"refusing to overwrite the input file {input_path}")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

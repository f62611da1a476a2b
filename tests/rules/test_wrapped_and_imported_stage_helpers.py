"""Stages a decorator or an import hides (probe h242).

- `@pl.pipeline.stage` over a pass-through `@traced`: PTO070 asked to decorate the `def` with
  `@pl.pipeline.stage`, which it was, and PTO022 (then PTO033) blamed the stage call as a use
  outside any stage, a follow-on of the same cause. The help says to remove `@traced`; the
  follow-on is not reported.
- A stage giving its slot to `epilogue` imported from another module: PTO033 asked for one tile
  group per producer/consumer pair, which the kernel has. It names the import."""

from __future__ import annotations

from helpers import ROOT, edited
from pto_transpile import transpile

TILED = (ROOT / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
TRACED = '''def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@pl.pipeline.stage
@traced
def project('''
EPILOGUE = '''def epilogue(dst, src, scale):
    """Scale, then relu in the instance that asks for it."""
    pl.muls(dst, src, scale)
    if ApplyRelu == 1:  # noqa: F821  (a tiling-key field, bound by the JIT)
        pl.relu(dst, dst)


'''


def _errors(text: str) -> list:
    return [d for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_a_wrapper_under_the_stage_decorator_is_named_alone():
    text = edited(TILED, [("import os\n", "import functools\nimport os\n"),
                          ("@pl.pipeline.stage\ndef project(", TRACED)])
    (error,) = _errors(text)
    assert error.code == "PTO070" and error.hint.startswith("Remove `@traced` from `project`"), (error.code, error.hint)


def test_a_slot_given_to_an_imported_function_names_the_import():
    text = edited(TILED, [(EPILOGUE, ""), ("import pypto\n", "import pypto\nfrom kernels_common import epilogue\n")])
    (error,) = _errors(text)
    assert error.code == "PTO033" and "`finish` is given it and calls `epilogue`, a function imported from another " \
                                      "module, which pto-transpile does not read" in error.message, error.message
    assert error.hint.startswith("Define `epilogue` in this file"), error.hint


def test_a_stage_called_through_a_local_alias_is_still_reported():
    """The follow-on PTO022 is left out where PTO070 names the called module name; a local of the
    kernel of the same name is the kernel's own, which PTO070 does not judge (probe h245: only a
    PTO061 with a help about tile groups was left)."""
    unknown = "def _make():\n    return None\n\n\nmystery = _make()\n\n\n"
    text = edited(TILED, [("@dataclass\nclass ScaleTiling", unknown + "@dataclass\nclass ScaleTiling"),
                          ("    for i in pl.range(", "    mystery = finish\n    for i in pl.range("),
                          ("            finish(i, sub_id,", "            mystery(i, sub_id,")])
    codes = [d.code for d in _errors(text)]
    assert "PTO022" in codes, codes

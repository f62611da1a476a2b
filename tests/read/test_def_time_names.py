"""Module names as Python binds them, found by a hostile probe: each kernel below was accepted
although CPython binds another value than the one the check read, and the emulator shows the
pipelined kernel's outputs differ.

The kernels edit tests/soundness/kernels/late_defect.py: its loop runs `NT` iterations (a module
constant, 4), and its `mark` stage changes the scale from iteration 40 on, which the pipeline
cannot reproduce: at 4 iterations it is never reached and the kernel is proven; at 48 it is
refused. Each edit makes CPython bind 48 where the check read 4 (or keeps 48 where it read 4):
- a `:=` in what a `def`, `class` or `lambda` evaluates where it stands (a class base or keyword,
  a default, an annotation, a decorator), which the module names' reading did not look into;
- `is` between equal constants (`DTYPE is pl.DT_FP32`), folded to False;
- a parameter annotation or a decorator argument that reads a name the module rebinds after the
  `def`: Python evaluated them when the `def` ran.
And two tiling-key instances the check did not prove (`mode, *rest = key` in `is_valid`; the
`values=` list appended to in the class body)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile

LATE = (Path(__file__).parents[1] / "soundness" / "kernels" / "late_defect.py").read_text()
#: late_defect.py with `NT` iterations of static tensors, and `HERE` where a probe's line goes
STATIC = edited(LATE, [
    ("HALF = TILE // 2\n", "HALF = TILE // 2\nNT = 4\n# HERE\n"),
    ("def mark(ki, n, st):\n", "def mark(ki, st):\n"),
    ("    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"
     "    n: pl.DT_INT32,\n",
     "    a: pl.Tensor[[64 * TILE, TILE], pl.DT_FP32],\n    out: pl.Tensor[[64 * TILE, TILE], pl.DT_FP32],\n"),
    ("    for ki in pl.range(0, n):\n", "    for ki in pl.range(0, NT):\n"),
    ("            mark(ki, n, st)\n", "            mark(ki, st)\n"),
])
REBINDS = {
    "class base": "class _Cfg((NT := 48) and object):\n    pass\n",
    "class keyword": "class _K(metaclass=(NT := 48) and type):\n    pass\n",
    "lambda default": "_rows_of = lambda rows=(NT := 48): rows\n",
    "decorator lambda": "@(lambda f, _=(NT := 48): f)\ndef _host():\n    pass\n",
    "def annotation": "def _host(rows: (NT := 48) = 0):\n    pass\n",
    "return annotation": "def _host(rows) -> (NT := 48):\n    pass\n",
    "def in a with block": "import contextlib\nwith contextlib.nullcontext():\n    def _host(r=(NT := 48)):\n"
                           "        pass\n",
    "is between equal numbers": "_BIG = 1000\n_BIG2 = 1000\nif _BIG is _BIG2:\n    NT = 48\n",
    "is between dtypes": "DTYPE = pl.DT_FP32\nif DTYPE is pl.DT_FP32:\n    NT = 48\nelse:\n    NT = 4\n",
}


def test_the_base_kernel_is_proven_at_4_and_refused_at_48():
    assert error_messages(transpile(STATIC, path="nt.py")) == []
    assert error_messages(transpile(STATIC.replace("NT = 4\n", "NT = 48\n"), path="nt.py"))


@pytest.mark.parametrize("how", sorted(REBINDS))
def test_a_module_name_python_binds_otherwise_is_not_read_as_its_first_value(how):
    text = STATIC.replace("# HERE\n", REBINDS[how])
    assert error_messages(transpile(text, path="rebound.py")), how


def test_an_annotation_reads_the_name_as_the_def_saw_it():
    text = edited(LATE, [("HALF = TILE // 2\n", "HALF = TILE // 2\nROWS = 48 * 32\n"),
                         ("    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"
                          "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    n: pl.DT_INT32,\n",
                          "    a: pl.Tensor[[ROWS, TILE], pl.DT_FP32],\n"
                          "    out: pl.Tensor[[ROWS, TILE], pl.DT_FP32],\n"),
                         ("def mark(ki, n, st):\n", "def mark(ki, st):\n"),
                         ("    for ki in pl.range(0, n):\n", "    for ki in pl.range(0, a.shape[0] // TILE):\n"),
                         ("            mark(ki, n, st)\n", "            mark(ki, st)\n")])
    rebound = text + "\n\nROWS = 4 * 32  # after the kernel: its annotations hold 48 * 32\n"
    (message,) = error_messages(transpile(rebound, path="annot.py"))
    assert "reads `ROWS` in a decorator, a parameter's default or an annotation, and the module binds it to " \
        "another value or changes it after the `def`" in message


def test_postponed_annotations_read_the_names_as_the_module_ends():
    # with `from __future__ import annotations` a `def` keeps its annotations as text, read later
    # with the module's last values, as the check reads them (probe h75)
    text = edited(LATE, [("def mark(ki, n, st):\n", "def mark(ki, st):\n"),
                         ("    for ki in pl.range(0, n):\n", "    for ki in pl.range(0, a.shape[0] // TILE):\n"),
                         ("            mark(ki, n, st)\n", "            mark(ki, st)\n")])
    postponed = "from __future__ import annotations\n" + text + "\n\nROWS = 4 * 32\n"
    (message,) = error_messages(transpile(postponed, path="annot.py"))
    assert "`ki >= 40` singles out iterations" in message, message  # the kernel's own defect, past its header


def test_a_decorator_argument_reads_the_name_as_the_def_saw_it():
    text = edited(LATE, [("HALF = TILE // 2\n", "HALF = TILE // 2\nAUTO_MUTEX = False\n"),
                         ("@pl.jit(auto_mutex=True,", "@pl.jit(auto_mutex=AUTO_MUTEX,")])
    rebound = text + "\n\nAUTO_MUTEX = True\n"
    errors = error_messages(transpile(rebound, path="am.py"))
    assert any("reads `AUTO_MUTEX` in a decorator" in e and "binds it to another value" in e for e in errors), errors


KEYED = edited(STATIC, [
    ("# HERE\n", "class ModeKey:\n    Mode = TilingKeyField(bits=1, values=[0, 1])\n"
                 "    Variant = TilingKeyField(bits=1, values=[0, 1])\n\n    def is_valid(self, key):\n"
                 "        mode, *rest = key\n        return rest == [0] or mode == 0\n"),
    ("import pypto_pro.language as pl\n",
     "import pypto_pro.language as pl\nfrom pypto_pro.runtime.tilingkey import TilingKeyField\n"),
    ("    if ki >= 40:\n", "    if Mode == 1 and Variant == 0 and ki >= 2:  # noqa: F821\n"),
    ("@pl.jit(auto_mutex=True,", "@pl.jit(auto_mutex=True, tiling_key=ModeKey,"),
])


def test_an_is_valid_that_unpacks_with_a_star_keeps_every_instance():
    # CPython's is_valid accepts (1, 0), the instance whose `mark` changes the scale: refused there
    errors = error_messages(transpile(KEYED, path="star.py"))
    assert errors and all("Mode=1, Variant=0" in e for e in errors if "shown with" in e), errors


def test_a_values_list_appended_to_in_the_class_body_is_not_read_as_before():
    text = edited(KEYED, [("    Mode = TilingKeyField(bits=1, values=[0, 1])\n",
                           "    MODES = [0]\n    _more = MODES.append(1)\n"
                           "    Mode = TilingKeyField(bits=1, values=MODES)\n")])
    errors = error_messages(transpile(text, path="appended.py"))
    assert any("tiling-key field `Mode` cannot be enumerated" in e for e in errors), errors

"""The values a scalar can take are one table for the check, `--arg` and the emulator (probe h74).

The check proves a kernel for the values a declared type holds (`int`: int64, `bool`: 0 or 1,
`pl.DT_BOOL`: 0 or 1). Before, the emulator and `--arg` passed a fraction to a `bool` or an
`int` tiling field and an integer past int64 to an `int`, and the check trusted a tiling
field's `int` where the class's own code (an inherited or assigned `__post_init__`) or its
default (`k: int = 1.5`) gave it a fraction. A kernel whose stage writes the rows the next
task reads only for such a value was proven, and raced pipelined. A parameter's default was
read with the value its name ends the module with, not the one Python evaluated at the `def`.
Probe h75 found more ways for a file's code to set a field (a `ClassVar` `__post_init__` or
`__getattribute__`, `setattr(TD, "__init__", f)` after the kernel, `int = float`) and defaults
outside the declared type (`d: pl.DT_UINT8 = 300`): each is refused now.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import edited
from pto_transpile import codes, transpile
from pto_transpile.cli import main
from sim_runtime.api import run_kernel
from sim_runtime.errors import KernelError
from sim_runtime.verify import make_inputs, verify

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
SHAPES = {"a": (128, 32), "out": (96, 32)}
W = "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"


def _racy(declaration: str, test: str, head: str = "") -> str:
    """The base kernel whose vector stage also writes `a` at row block `i + sh`: with `sh = 1`
    (when `test` holds), the rows the next task's cube stage reads, which pipelined it reads first."""
    return edited(BASE, [
        ("import pypto_pro.language as pl\n", "import pypto_pro.language as pl\n" + head),
        ("def finish(i, sub_id, out, proj_vec_db, res_db):", "def finish(i, sh, sub_id, a, out, proj_vec_db, res_db):"),
        ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
         "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
         "    pl.store(a, res, [(i + sh) * BLOCK + sub_id * HALF, 0])\n"),
        (W, f"{W}    {declaration},\n"),
        ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = out.shape[0] // BLOCK\n"),
        ("    for i in pl.range(0, n_blocks):\n",
         f"    for i in pl.range(0, n_blocks):\n        sh = 1 if {test} else 0\n"),
        ("            finish(i, sub_id, out, proj_vec_db, res_db)",
         "            finish(i, sh, sub_id, a, out, proj_vec_db, res_db)"),
    ])


def _tiling(fields: str, before: str = "") -> str:
    return _racy("tiling: TD", "tiling.k > 1 and tiling.k < 2",
                 "from dataclasses import dataclass, field\n\n" + before + f"\n@dataclass\nclass TD{fields}\n\n")


INHERITED = _tiling("(Base):\n    k: int\n",
                    "\nclass Base:\n    def __post_init__(self):\n        self.k = self.k / 4\n\n")
ASSIGNED = _tiling(":\n    k: int\n    __post_init__ = _quarter\n",
                   "\ndef _quarter(self):\n    self.k = self.k / 4\n\n")
FLOAT_DEFAULT = _tiling(":\n    k: int = 1.5\n")
FIELD_DEFAULT = _tiling(":\n    k: int = field(default=1.5)\n")
REBOUND_DEFAULT = _tiling(":\n    k: int\n    k = 1.5\n")
PLAIN = _tiling(":\n    k: int\n")
#: more ways for code of the file to set a field (probe h75)
QUARTER = "\ndef _quarter(self):\n    self.k = self.k / 4\n\n"
CLASSVAR_POST_INIT = _tiling(":\n    k: int\n    __post_init__: ClassVar = _quarter\n",
                             "from typing import ClassVar\n" + QUARTER)
CLASSVAR_GETATTRIBUTE = _tiling(
    ":\n    k: int\n    __getattribute__: ClassVar = _get\n",
    "from typing import ClassVar\n\ndef _get(self, name):\n    v = object.__getattribute__(self, name)\n"
    "    return v / 4 if name == 'k' else v\n\n")
PATCHED_AFTER = _tiling(":\n    k: int\n") + "\n\n_init = TD.__init__\n\n\ndef _quartered(self, k):\n" \
    "    _init(self, k)\n    self.k = self.k / 4\n\n\nsetattr(TD, '__init__', _quartered)\n"
INT_REBOUND = _tiling(":\n    k: int\n", "int = float\n")
INT_IN_BODY = _tiling(":\n    int: ClassVar = float\n    k: int\n", "from typing import ClassVar\n")
HUGE_DEFAULT = _tiling(":\n    k: int = 99999999999999999999\n")
#: what the file may do with a sealed class: call it, alias it, annotate and test with it
USED_PLAINLY = _tiling(":\n    k: int\n") + "\n\nTD2 = TD\n\n\ndef host(t: TD2) -> TD:\n" \
    "    return t if isinstance(t, TD) else TD(k=4)\n"


def _errors(text: str):
    return [d for d in transpile(text, path="k.py").diagnostics if d.is_error]


@pytest.mark.parametrize("text", [INHERITED, ASSIGNED, FLOAT_DEFAULT, FIELD_DEFAULT, REBOUND_DEFAULT,
                                  CLASSVAR_POST_INIT, CLASSVAR_GETATTRIBUTE, PATCHED_AFTER, INT_REBOUND, INT_IN_BODY,
                                  HUGE_DEFAULT],
                         ids=["inherited __post_init__", "assigned __post_init__", "float default",
                              "field(default=1.5)", "k = 1.5 in the body", "ClassVar __post_init__",
                              "ClassVar __getattribute__", "setattr after the kernel", "int = float",
                              "int: ClassVar = float", "default past int64"])
def test_a_tiling_field_something_else_may_set_is_not_taken_as_its_annotation(text):
    errors = _errors(text)
    assert errors and all(d.code == codes.PIPELINE_NOT_PROVEN for d in errors), [d.message for d in errors]
    # the race it makes, or (a default that calls something, a class attribute, a special method)
    # the read of the field itself
    assert any("writes `a`" in d.message or "runs code of the tiling data's class" in d.message
               or "which Python runs on the value" in d.message for d in errors)


def test_the_emulator_shows_the_inherited_post_init_kernel_wrong_at_an_integer_launch_value():
    code = transpile(INHERITED, path="k.py", _skip_rules=["PTO061"]).code
    assert code is not None
    rows = verify(INHERITED, code, "kern", path="k.py", shapes=SHAPES, scalars={"k": 6}).rows
    assert rows[0].verdict == "ok" and rows[1].verdict != "ok", [(r.verdict, r.message) for r in rows]


def test_a_sealed_class_the_file_calls_aliases_and_annotates_with_keeps_its_integer_field():
    assert _errors(USED_PLAINLY) == []
    assert _errors(_tiling(": k: int\n")) == []  # its body on the `class` line (probe h75)


def test_the_emulator_shows_a_class_patched_after_the_kernel_wrong_at_an_integer_launch_value():
    code = transpile(PATCHED_AFTER, path="k.py", _skip_rules=["PTO061"]).code
    assert code is not None
    rows = verify(PATCHED_AFTER, code, "kern", path="k.py", shapes=SHAPES, scalars={"k": 6}).rows
    assert rows[0].verdict == "ok" and rows[1].verdict != "ok", [(r.verdict, r.message) for r in rows]


@pytest.mark.parametrize("declaration, test, words", [
    ("d: int = 2 ** 70", "d > 9223372036854775807", "the default of `d` (`2 ** 70`) is no value of int"),
    ("d: pl.DT_UINT8 = 300", "d > 255", "the default of `d` (`300`) is no value of DT_UINT8"),
], ids=["int", "DT_UINT8"])
def test_a_default_outside_its_declared_type_is_refused_and_not_launched(declaration, test, words):
    text = _racy(declaration, test)
    [d] = _errors(text)
    assert d.code == codes.PIPELINE_NOT_PROVEN and words in d.message, d.message
    inputs = make_inputs(text, "kern", path="k.py", seed=0, shapes=SHAPES)
    with pytest.raises(KernelError, match="scalar parameter 'd' is declared .* is outside its values"):
        run_kernel("k.py", "kern", inputs, source=text, mode="sequential")
    # the help applied: a default among the type's values (the test on `d` then never holds)
    within = text.replace("= 2 ** 70", "= 5").replace("= 300", "= 255")
    assert _errors(within) == []


def test_a_plain_integer_tiling_field_is_proven_and_a_launch_passes_it_only_integers():
    result = transpile(PLAIN, path="k.py")
    assert _errors(PLAIN) == [] and result.code is not None
    for k in (1, 2):
        rows = verify(PLAIN, result.code, "kern", path="k.py", shapes=SHAPES, scalars={"k": k}).rows
        assert [r.verdict for r in rows] == ["ok", "ok"]
    for k, fault in ((1.5, "1.5 is not an integer"), (10 ** 20, "is outside its values")):
        inputs = make_inputs(PLAIN, "kern", path="k.py", seed=0, shapes=SHAPES, scalars={"k": 1})
        with pytest.raises(KernelError, match=f"tiling-data field TD.k is declared int: .*{fault}"):
            run_kernel("k.py", "kern", {**inputs, "k": k}, source=PLAIN, mode="sequential")


@pytest.mark.parametrize("declaration, test, value, fault", [
    ("d: bool", "d > 1 and d < 2", 1.5, "declared bool: 1.5 is not an integer"),
    ("d: pl.DT_BOOL", "d > 0 and d < 1", 0.5, "declared DT_BOOL: 0.5 is not an integer"),
    ("d: int", "d > 9223372036854775807", 10 ** 20, "declared int: 100000000000000000000 is outside its values"),
], ids=["bool", "DT_BOOL", "int past int64"])
def test_a_scalar_is_launched_only_with_values_of_its_declared_type(tmp_path, declaration, test, value, fault):
    text = _racy(declaration, test)
    assert _errors(text) == []  # proven for the values the type holds
    path = tmp_path / "k.py"
    path.write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, [str(path), "--simulate", "--shape", "a=128x32", "--shape", "out=96x32",
                                  "--arg", f"d={value}", "-o", str(tmp_path / "out.py")])
    assert r.exit_code == 2 and fault in r.output, r.output
    inputs = make_inputs(text, "kern", path="k.py", seed=0, shapes=SHAPES, scalars={"d": 0})
    with pytest.raises(KernelError, match=f"scalar parameter 'd' is {fault}"):
        run_kernel("k.py", "kern", {**inputs, "d": value}, source=text, mode="sequential")


def test_a_parameter_default_reads_the_name_as_the_def_saw_it():
    text = _racy("d: int = D", "d > 1 and d < 2", "\nD = 1.5\n")
    text += "\n\nD = 3  # after the kernel: its default stays 1.5\n"
    [d] = _errors(text)
    assert d.code == codes.PIPELINE_NOT_PROVEN, d.message
    assert "the `def` of `kern` reads `D` in a decorator, a parameter's default or an annotation" in d.message


def test_an_arg_for_a_tiling_field_of_a_file_that_does_not_load_says_why(tmp_path):
    # a dataclass Python refuses (a field without a default after one with): the fields are not known
    text = _tiling(":\n    j: int = 1\n    k: int\n")
    path = tmp_path / "k.py"
    path.write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, [str(path), "--simulate", "--shape", "a=128x32", "--shape", "out=96x32",
                                  "--arg", "k=1", "-o", str(tmp_path / "out.py")])
    assert r.exit_code == 2 and "the file does not load" in r.output and "non-default argument" in r.output, r.output

"""The emulator runs the kernel file's Python in a child process: what the file's module code
changes (here `dataclasses.dataclass` and `json.dumps` replaced, probe h115) ends with the child.
Run in the tool's own process, the patch reached the report's rendering (rich makes a data class
after the load) and `--simulate` ended with an internal error (exit 2)."""

from __future__ import annotations

import dataclasses
import json
import os
import re

import pytest
from click.testing import CliRunner

from helpers import ROOT
from pto_transpile.cli import main
from pto_transpile.simulate.isolated import ChildEnded, in_child

pytestmark = pytest.mark.emulator

PATCH = ("import dataclasses\nimport functools\n\n"
         "dataclasses.dataclass = functools.partial(dataclasses.dataclass, init=False)\n"
         "import json\n\njson.dumps = None\n")


def test_a_file_that_patches_the_standard_library_is_simulated_and_leaves_the_tool_as_it_was(tmp_path):
    demo = (ROOT / "examples" / "seed_demo.py").read_text(encoding="utf-8")
    kernel = tmp_path / "patched.py"
    kernel.write_text(demo.replace("import pypto_pro.language as pl\n", PATCH + "import pypto_pro.language as pl\n",
                                   1), encoding="utf-8")
    dataclass, dumps = dataclasses.dataclass, json.dumps
    for options in (["--preload", "1"], ["--preload", "auto"]):
        r = CliRunner().invoke(main, [str(kernel), *options, "--simulate", "-o", str(tmp_path / "out.py")],
                               catch_exceptions=False)
        assert r.exit_code == 0, r.output
        assert re.search(r"^  pipelined .* ok$", r.output, re.MULTILINE), r.output
    assert dataclasses.dataclass is dataclass
    assert json.dumps is dumps


def test_what_the_child_raises_is_raised_here_and_its_end_is_named():
    with pytest.raises(ZeroDivisionError):
        in_child(lambda: 1 // 0)
    assert in_child(sorted, [3, 1, 2]) == [1, 2, 3]
    with pytest.raises(ChildEnded, match="exit status 7"):
        in_child(os._exit, 7)


def test_a_replaced_pickle_does_not_carry_the_answer(tmp_path):
    """Probe h118: the file's module code replaced `pickle.dumps`, which the child used to send its
    answer: it rewrote every verdict to "ok" (and could hand the tool bytes that run code). The
    child sends with the function taken before any file ran; this file's replacement would fail
    the run if it were used."""
    demo = (ROOT / "examples" / "seed_demo.py").read_text(encoding="utf-8")
    kernel = tmp_path / "pickled.py"
    patch = "import pickle\n\n\ndef _refuse(*args, **kwargs):\n    raise SystemExit(7)\n\n\npickle.dumps = _refuse\n"
    kernel.write_text(demo.replace("import pypto_pro.language as pl\n", patch + "import pypto_pro.language as pl\n", 1),
                      encoding="utf-8")
    r = CliRunner().invoke(main, [str(kernel), "--preload", "1", "--simulate", "-o", str(tmp_path / "out.py")],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert re.search(r"^  pipelined .* ok$", r.output, re.MULTILINE), r.output


class _Runs:
    """An object whose pickle runs `touch` where it is read back: what a file's code can make of
    a class the answer holds (its `__reduce__`)."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no child process without fork")
def test_an_answer_that_would_run_code_is_not_read_back(tmp_path):
    mark = tmp_path / "ran"
    with pytest.raises(RuntimeError, match="holds `posix.system`, which the tool does not read back"):
        in_child(_Runs, mark)
    assert not mark.exists()


#: a tiling key whose schema holds objects of the file's own classes, which only the child can make
KEY_CLASSES = {
    "is_valid": (),  # (the kernel as it is: `is_valid`, an instance of the file's key class)
    "IntEnum values": [("class EpilogueKey:\n    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])\n",
                        "import enum\n\n\nclass Relu(enum.IntEnum):\n    OFF = 0\n    ON = 1\n\n\n"
                        "class EpilogueKey:\n    ApplyRelu = TilingKeyField(bits=1, values=[Relu.OFF, Relu.ON])\n")],
    "field subclass": [("class EpilogueKey:\n    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])\n",
                        "class Field(TilingKeyField):\n    pass\n\n\n"
                        "class EpilogueKey:\n    ApplyRelu = Field(bits=1, values=[0, 1])\n")],
}


@pytest.mark.parametrize("variant", list(KEY_CLASSES))
def test_a_kernel_whose_tiling_key_holds_objects_of_the_file_is_simulated(tmp_path, variant):
    """The tiling key's schema held objects of the file's own classes (`is_valid`, a field's
    values or class), which the tool's process cannot make: `--simulate` ended with an internal
    error (probes h119, h120). Now it runs, or the check's refusal stands (exit 1)."""
    from helpers import edited, kernel_text

    path = tmp_path / "k.py"
    text = kernel_text(ROOT / "tests/soundness/kernels/h119_tiling_key_is_valid.py")
    path.write_text(edited(text, KEY_CLASSES[variant]) if KEY_CLASSES[variant] else text, encoding="utf-8")
    r = CliRunner().invoke(main, [str(path), "-o", str(tmp_path / "out.py"), "--simulate", "--shape", "a=160x32",
                                  "--shape", "out=160x32", "--arg", "scale=0.5", "--arg", "ApplyRelu=1",
                                  "--block-dim", "1"], catch_exceptions=False)
    assert r.exit_code in (0, 1) and "internal error" not in r.output, r.output
    # (the other two are refused by the check: PTO071, values that are not literals, and PTO069, a
    # field of a subclass is not read as a tiling-key field)
    assert (r.exit_code == 0) == (variant == "is_valid"), r.output

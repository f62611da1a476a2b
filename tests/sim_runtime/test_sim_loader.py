"""Loading kernel files: import spellings, stubs, no leaks, lowering keeps line numbers."""

import sys
import textwrap

import numpy as np
import pytest

from sim_runtime import KernelError, load_kernel_module, run_kernel
from sim_runtime import pl as sim_pl

pytestmark = pytest.mark.emulator

BODY = """
@pl.jit
def k(x: pl.Tensor[[16, 32], pl.DT_FP32], out: pl.Tensor[[16, 32], pl.DT_FP32]):
    with pl.section_vector():
        t = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                               addrs=0, mutex_ids=[0])
        pl.load(t[0], x, [0, 0])
        pl.muls(t[0], t[0], 3.0)
        pl.store(out, t[0], [0, 0])
"""


@pytest.mark.parametrize("imports", [
    "import pypto_pro.language as pl",
    "from pypto_pro import language as pl",
    "import pypto_pro.language\npl = pypto_pro.language",
    "from pypto_pro.language import jit, pipeline\nimport pypto_pro.language as pl",
])
def test_import_spellings_resolve_to_sim_pl(imports):
    mod = load_kernel_module(imports + "\n" + BODY, path="k.py")
    assert mod.pl is sim_pl
    x = np.ones((16, 32), np.float32)
    out = run_kernel("k.py", "k", {"x": x}, source=imports + "\n" + BODY).outputs["out"]
    assert np.array_equal(out, 3 * x)


HARNESS = """
import os
import pypto_pro.language as pl
import pytest
import torch
import torch_npu  # noqa
import pypto
import not_a_real_module_xyz as nope
from torch import nn

DEVICE = int(os.environ.get("NO_SUCH_VAR", 0))
""" + BODY + """

@pytest.mark.soc(950)
@pypto.options(pass_options={"enable_slice": False})
def test_k():
    raise SystemExit("test functions must not run")

if __name__ == "__main__":
    raise SystemExit("__main__ blocks must not run")
"""


def test_harness_imports_become_inert_stubs():
    before = set(sys.modules)
    mod = load_kernel_module(HARNESS, path="h.py")
    assert callable(mod.test_k) and mod.test_k.__name__ == "test_k"  # decorators did nothing
    leaked = {m for m in set(sys.modules) - before if m.split(".")[0] in ("torch", "torch_npu", "pypto",
                                                                          "pypto_pro", "not_a_real_module_xyz")}
    assert not leaked
    assert "__sim_kernel__" not in sys.modules
    res = run_kernel("h.py", "k", {"x": np.ones((16, 32), np.float32)}, source=HARNESS)
    assert res.outputs["out"][0, 0] == 3


def test_launch_syntax_inside_a_module_writes_outputs_back():
    mod = load_kernel_module("import pypto_pro.language as pl\n" + BODY, path="l.py")
    x = np.full((16, 32), 2, np.float32)
    out = np.zeros((16, 32), np.float32)
    mod.k[None, 1](x, out)
    assert np.array_equal(out, 3 * x)
    out2 = np.zeros((16, 32), np.float32)
    mod.k(x, out2)
    assert np.array_equal(out2, 3 * x)


def test_jit_rejects_unknown_keywords():
    with pytest.raises(KernelError, match=r"TypeError: pl.jit got unexpected keyword\(s\): bogus.*j\.py:2"):
        load_kernel_module("import pypto_pro.language as pl\n@pl.jit(bogus=1)\ndef k():\n    pass\n", path="j.py")


def test_errors_inside_sections_keep_original_line_numbers():
    src = "import pypto_pro.language as pl\n" + textwrap.dedent("""
    @pl.jit
    def k(x: pl.Tensor[[16, 32], pl.DT_FP32]):
        a = 1
        with pl.section_cube():
            b = 2
        with pl.section_vector():
            c = 3
            pl.relu(x, x)
    """)
    line = src.splitlines().index("        pl.relu(x, x)") + 1
    with pytest.raises(KernelError, match=rf"must be a tile.*k\.py:{line}"):
        run_kernel("k.py", "k", {}, source=src)


def test_sections_outside_the_kernel_body_are_rejected():
    src = "import pypto_pro.language as pl\n" + textwrap.dedent("""
    def helper():
        with pl.section_cube():
            pass

    @pl.jit
    def k(x: pl.Tensor[[16, 32], pl.DT_FP32]):
        helper()
    """)
    with pytest.raises(KernelError, match="only supported directly"):
        run_kernel("k.py", "k", {}, source=src)


def test_structs_are_per_core_and_struct_arrays_are_bounds_checked():
    src = "import pypto_pro.language as pl\n" + textwrap.dedent("""
    @pl.jit
    def k(ids: pl.Tensor[[4, 8], pl.DT_INT32]):
        st = pl.struct("S", n=0, arr=[0, 0])
        ring = pl.struct_array(2, "R", v=0)
        with pl.section_vector():
            st.n = st.n + 10 + pl.get_subblock_idx()
            st.arr[1] = 7
            ring[1].v = 5
        with pl.section_cube():
            st.n = st.n + 1
        row = pl.get_block_idx() if pl.get_subblock_num() == 2 else 3
        pl.setval(ids, row * 8, st.n)
        pl.setval(ids, row * 8 + 1, st.arr[1])
        pl.setval(ids, row * 8 + 2, ring[1].v)
        x = ring[INDEX].v
    """)
    with pytest.raises(KernelError, match=r"R\[2\] out of range"):  # the ring has 2 entries
        run_kernel("s.py", "k", {}, source=src.replace("INDEX", "2"))
    ids = run_kernel("s.py", "k", {}, source=src.replace("INDEX", "1")).outputs["ids"]
    assert ids[0, :3].tolist() == [10, 7, 5] and ids[1, :3].tolist() == [11, 7, 5]
    assert ids[3, :3].tolist() == [1, 0, 0]  # the cube's own copies


HOST_AFTER = """
import torch

x = torch.rand(16, 32, device="npu:0")
out = torch.empty(16, 32, device="npu:0")
k(x, out)
torch.testing.assert_close(out, x * 3)
"""


def test_host_code_after_the_last_kernel_does_not_stop_the_load():
    """Tutorials run the kernel from module-level host code after it; without a device that
    code fails, and the kernel it follows still runs."""
    source = "import pypto_pro.language as pl\n" + BODY + HOST_AFTER
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    result = run_kernel("host.py", "k", {"x": x, "out": np.zeros_like(x)}, source=source)
    assert np.array_equal(result.outputs["out"], x * 3)


def test_a_failure_before_the_last_kernel_is_still_a_load_error():
    source = "import pypto_pro.language as pl\nimport torch\nX = torch.rand(2, 2)[0] + undefined_name\n" + BODY
    with pytest.raises(KernelError, match="loading the kernel file raised NameError"):
        load_kernel_module(source, path="host.py")


def test_a_file_that_exits_while_it_loads_is_a_load_error_not_the_end_of_the_tool():
    """`exit()` in the file's module code ended the process that loaded it (probe h92): before the
    last kernel it is a load error, after it host code the emulator does not run."""
    with pytest.raises(KernelError, match="loading the kernel file raised SystemExit"):
        load_kernel_module("import pypto_pro.language as pl\nexit()\n" + BODY, path="host.py")
    source = "import pypto_pro.language as pl\n" + BODY + "import sys\nsys.exit(0)\n"
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    result = run_kernel("host.py", "k", {"x": x, "out": np.zeros_like(x)}, source=source)
    assert np.array_equal(result.outputs["out"], x * 3)


#: `BODY` with its scale a module name (`SCALE = 3.0` before the kernel)
SCALED = "import pypto_pro.language as pl\nimport torch\nSCALE = 3.0\n" + BODY.replace(
    "pl.muls(t[0], t[0], 3.0)", "pl.muls(t[0], t[0], SCALE)")


def _scaled_run(host: str):
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    return x, run_kernel("host.py", "k", {"x": x, "out": np.zeros_like(x)}, source=SCALED + host)


def test_host_code_runs_on_past_a_statement_that_needs_a_device():
    """A name the host code rebinds after a statement that fails here holds what the module ends
    with, the value the check proves the kernel with (probe h81: the rest was dropped, and the
    emulator ran the kernel with the value it held before)."""
    x, result = _scaled_run("w = torch.randn(16, 32)\nw_ref = w * 0.5\nSCALE = 2.0\n")
    assert np.array_equal(result.outputs["out"], x * 2)


def test_a_name_a_failed_host_statement_binds_is_not_run_with_its_old_value():
    # `SCALE` would be rebound by a statement that needs a device: any value would run another kernel
    with pytest.raises(KernelError, match="`SCALE` is bound by host code after the last kernel that the emulator "
                                          "cannot run") as raised:
        _scaled_run("w = torch.randn(16, 32)\nSCALE = w * 0.5\n")
    assert raised.value.location is not None and raised.value.location.line == SCALED.count("\n") + 2


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_a_file_of_carriage_returns_is_source_text_not_a_path(end):
    """Source text was told from a path by a `\\n` alone, so a file of `\\r` line ends (valid
    Python) was opened as a path named by its whole text (probe h131: an internal error)."""
    text = ("import pypto_pro.language as pl\n" + BODY).replace("\n", end)
    x = np.ones((16, 32), np.float32)
    assert np.array_equal(run_kernel("k.py", "k", {"x": x}, source=text).outputs["out"], 3 * x)


def test_a_byte_order_mark_is_skipped_as_python_skips_it():
    """(probe h131: `--simulate` said the serial kernel has a syntax error at U+FEFF)"""
    x = np.ones((16, 32), np.float32)
    out = run_kernel("k.py", "k", {"x": x}, source="\ufeffimport pypto_pro.language as pl\n" + BODY).outputs["out"]
    assert np.array_equal(out, 3 * x)


def test_lines_are_counted_as_python_counts_them():
    """A comment holding U+2028 or U+0085 is one line for Python, several for `str.splitlines`:
    the lines a report shows are Python's."""
    import linecache

    load_kernel_module("import pypto_pro.language as pl\n# a\u2028b\x85c\n" + BODY, path="sep.py")
    assert linecache.getline("sep.py", 3) == "\n" and linecache.getline("sep.py", 4).startswith("@pl.jit")

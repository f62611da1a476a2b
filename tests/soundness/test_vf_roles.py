"""Vector-function parameter roles: one definition (`vfbody.param_roles`) for the access scan
and the soundness check, so a tile passed by keyword to a nested vector function counts in
both."""

import re

import pytest

from helpers import fixed_flash_attention, restamped
from pto_transpile import transpile
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.soundness.interp import Config, Interpreter

SOURCE = '''
import pypto_pro.language as pl


@pl.vector_function
def inner(dst, src):
    r = vf.load_align(src)
    vf.store_align(dst, r)


@pl.vector_function
def outer(a, b, c):
    inner(src=a, dst=b)
    vf.mystery_op(c)


@pl.jit(auto_mutex=True)
def k(x: pl.Tensor[[16, 32], pl.DT_FP32]):
    with pl.section_vector():
        t = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32), addrs=0, mutex_ids=[0])
        pl.load(t.current(), x, [0, 0])
'''


def test_the_check_follows_keyword_arguments_of_a_nested_vector_function():
    file = read(SourceFile.parse(SOURCE, "k.py"))
    interp = Interpreter(file, file.kernels[0].node, Config())
    # an op the table does not know is taken as reading and writing what it reaches
    assert interp._vf_param_roles("outer") == {0: "R", 1: "W", 2: "RW"}


def test_the_tiles_an_op_is_given_by_pyptos_parameter_names_count():
    # `tile=`, `src=`, `align_reg=`: by PyPTO's signatures (pto_api.names.VF_PARAMETERS)
    source = SOURCE.replace("    r = vf.load_align(src)\n    vf.store_align(dst, r)\n",
                            "    r = vf.load_align(offset=0, tile=src)\n    vf.store_align(tile=dst, src=r)\n")
    source = source.replace("    vf.mystery_op(c)\n",
                            "    u = vf.load_unalign_init()\n    vf.load_unalign_pre(u, tile=c)\n")
    file = read(SourceFile.parse(source, "k.py"))
    interp = Interpreter(file, file.kernels[0].node, Config())
    assert interp._vf_param_roles("outer") == {0: "R", 1: "W", 2: "R"}



# -- the spellings of `pl.Vf` --------------------------------------------------------------
# PyPTO's kernels write the vector-register namespace several ways: `vf.op` (`from
# pypto_pro.language import Vf as vf`), `Vf.op` (imported as it, or under another name such
# as `V`) and `pl.Vf.op` (through any name the language is imported as). The access
# scan read only the first: a cross-core tile reached through `Vf.load_align` had no consumer
# (PTO033), and the check's evaluator refused `Vf.op` as a call of something unknown.


_IMPORT = "from pypto_pro.language import Vf as vf\n"
SPELLINGS = {"Vf": "from pypto_pro.language import Vf\n", "pl.Vf": "", "V": "from pypto_pro.language import Vf as V\n",
             "P.Vf": "import pypto_pro.language as P\n"}


def _spelled(text: str, prefix: str) -> str:
    assert text.count(_IMPORT) == 1 and "vf." in text
    return re.sub(r"\bvf\.", prefix + ".", text.replace(_IMPORT, SPELLINGS[prefix]))


@pytest.mark.parametrize("prefix", list(SPELLINGS))
def test_every_spelling_of_vf_gives_the_same_accesses_and_the_same_kernel(prefix):
    plain = transpile(fixed_flash_attention(), preload=2)
    other = transpile(_spelled(fixed_flash_attention(), prefix), preload=2)
    assert other.ok, [d.message for d in other.diagnostics]
    assert [[(a.buffer, a.role, a.pipe) for a in s] for s in other.loops[0].accesses] == \
        [[(a.buffer, a.role, a.pipe) for a in s] for s in plain.loops[0].accesses]
    assert other.code == restamped(_spelled(plain.code, prefix))


#: `pl.Vf` given a module-level name once and for all, as constants are
ASSIGNED = {"vf": "vf = pl.Vf\n", "Vf": "Vf = pl.Vf\n", "V": "MS = pl.MemorySpace\nV = pl.Vf\n"}


@pytest.mark.parametrize("prefix", list(ASSIGNED))
def test_a_module_name_bound_to_pl_vf_is_read_as_it(prefix):
    plain = transpile(fixed_flash_attention(), preload=2)
    text = re.sub(r"\bvf\.", prefix + ".", fixed_flash_attention().replace(_IMPORT, ASSIGNED[prefix]))
    other = transpile(text, preload=2)
    assert other.ok, [d.message for d in other.diagnostics]
    assert other.code == restamped(re.sub(r"\bvf\.", prefix + ".", plain.code.replace(_IMPORT, ASSIGNED[prefix])))


@pytest.mark.parametrize("rebinding", ["if os.environ.get('FAST'):\n    Vf = None\n", "Vf = pl.Tile\n"])
def test_a_module_name_bound_to_pl_vf_and_maybe_to_something_else_is_not(rebinding):
    text = re.sub(r"\bvf\.", "Vf.", fixed_flash_attention().replace(_IMPORT, "Vf = pl.Vf\n" + rebinding))
    assert not transpile(text, preload=2).ok


def test_a_vf_from_another_module_is_not_read_as_pl_vf():
    text = _spelled(fixed_flash_attention(), "Vf").replace(SPELLINGS["Vf"], "from registers import Vf\n")
    assert not transpile(text, preload=2).ok


@pytest.mark.emulator
def test_the_vf_spelled_kernel_runs_as_the_serial_one():
    from sim_runtime import verify

    text = _spelled(fixed_flash_attention(), "Vf")
    code = transpile(text, preload=2).code
    assert [row.verdict for row in verify(text, code, "flash_attention_dn", path="k.py").rows] == ["ok", "ok"]

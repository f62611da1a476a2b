"""Module-level names mean what Python binds them to once the module has run (issue 16).

Each binding form of the issue's list is checked twice: the meaning the model gives the
name, and what the analysis does with it (the value used, the function analysed).
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

import skeleton as ex
from pto_transpile import transpile
from pto_transpile.read.consteval import NotConstant
from pto_transpile.read.meaning import Class, Function, Unknown, Value
from pto_transpile.read.reader import FileModel, read
from pto_transpile.read.source import SourceFile


def model(text: str) -> FileModel:
    return read(SourceFile.parse(textwrap.dedent(text), "m.py"))


def value(text: str, name: str):
    found = model(text).meaning(name)
    assert isinstance(found, Value), found
    return found.value


def unknown(text: str, name: str) -> str:
    found = model(text).meaning(name)
    assert isinstance(found, Unknown), found
    return found.reason


# the values -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, name, want", [
    ("K = 3\nK -= 2\n", "K", 1),
    ("R_ADDR = 0x10000\nR_ADDR -= 0x8000\n", "R_ADDR", 0x8000),
    ("REGS = 4\nREGS += 1\n", "REGS", 5),
    ("N = 2\nN *= N + 1\nN //= 3\nN **= 2\n", "N", 4),
    ("A, B = 1, 2\n", "B", 2),
    ("A, B = 1, 2\nA, B = B, A\n", "A", 2),
    ("SHAPE = (64, 32)\nROWS, COLS = SHAPE\n", "COLS", 32),
    ("FIRST, *REST = [1, 2, 3]\n", "REST", [2, 3]),
    ("(A, (B, C)) = (1, (2, 3))\n", "C", 3),
    ("X = Y = 7\n", "X", 7),
    ("T: int = 4\n", "T", 4),
    ("DEBUG = False\nN = 8\nif DEBUG:\n    N = 2\n", "N", 8),
    ("MODE = 1\nif MODE == 0:\n    N = 1\nelif MODE == 1:\n    N = 2\nelse:\n    N = 3\n", "N", 2),
    ("IDS = [0, 1]\nIDS = IDS + [2]\n", "IDS", [0, 1, 2]),
    ("IDS = [0, 1]\nIDS += [2]\n", "IDS", [0, 1, 2]),
    ("A, B = range(2)\n", "B", 1),
    ("VALUES = list(range(1, 4))\n", "VALUES", [1, 2, 3]),
])
def test_names_end_with_the_value_of_their_last_binding(text, name, want):
    assert value(text, name) == want


def test_a_right_hand_side_sees_the_names_as_bound_at_that_point_bump_allocator():
    text = """\
    SIZE = 0x800
    UB = 0
    A_ADDR = UB
    UB += 2 * SIZE
    B_ADDR = UB
    UB += 2 * SIZE
    C_ADDR = UB
    """
    assert [value(text, n) for n in ("A_ADDR", "B_ADDR", "C_ADDR", "UB")] == [0, 0x1000, 0x2000, 0x2000]


# unknown, never a first value -----------------------------------------------------------------
@pytest.mark.parametrize("text, name, why", [
    ("import os\nN = 4\nif os.environ.get('X'):\n    N = 7\n", "N", "`if` whose test is not a compile-time"),
    ("N = 4\nfor i in range(3):\n    N += 1\n", "N", "`for` loop"),
    ("N = 4\nwhile N < 10:\n    N += 1\n", "N", "`while` loop"),
    ("N = 4\ntry:\n    N = 5\nexcept Exception:\n    pass\n", "N", "`try`"),
    ("import contextlib\nN = 4\nwith contextlib.suppress(Exception):\n    N = 5\n", "N", "`with` block"),
    ("N = 4\ndel N\n", "N", "deleted"),
    ("N = 4\n\n\ndef grow():\n    global N\n    N = 8\n", "N", "`global N` (line 5)"),
    ("N = 4\nclass C:\n    def f(self):\n        global N\n        N = 5\n", "N", "through `global N`"),
    ("from sizes import N\n", "N", "imported"),
    ("N = 4\nfrom sizes import *\n", "N", "import *"),
    ("import os\nN = int(os.environ['N'])\n", "N", "attribute access"),
    ("N = 4\n(M := 5)\n", "M", "`:=`"),
    ("A, B = sorted((1, 0))\n", "B", "function calls"),
    ("A, B = 1, 2, 3\n", "A", "cannot split"),
    ("N = 4\nglobals()['N'] = 5\n", "N", "`globals()`"),
    ("N = 4\nexec('N = 5')\n", "N", "`exec()`"),
])
def test_what_cannot_be_known_statically_is_unknown(text, name, why):
    assert why in unknown(text, name)


@pytest.mark.parametrize("text, name", [
    ("IDS = [0, 1]\nIDS.append(2)\n", "IDS"),
    ("IDS = [0, 1]\nIDS[0] = 5\n", "IDS"),
    ("IDS = [0, 1]\nALIAS = IDS\nIDS.append(2)\n", "ALIAS"),
    ("IDS = [0, 1]\nALIAS = IDS\nIDS += [2]\n", "ALIAS"),
    ("IDS = [0, 1]\nPAIR = (IDS, 3)\nIDS[1] = 7\n", "PAIR"),
    ("IDS = [0, 1]\nfill(IDS)\n", "IDS"),
    ("IDS = [0, 1]\n\n\ndef setup():\n    IDS.append(2)\n", "IDS"),
    ("IDS = [0, 1]\nKEEP = IDS\nIDS = [5]\n\n\ndef setup():\n    IDS[0] = 9\n", "KEEP"),
])
def test_a_list_changed_in_place_is_unknown_under_every_name_holding_it(text, name):
    assert "changed" in unknown(text, name) or "change" in unknown(text, name)


def test_reads_of_lists_and_attribute_calls_on_other_objects_change_nothing():
    text = "IDS = [0, 1]\nN = len(IDS)\nSECOND = IDS[1]\nmodel.eval()\nprint(IDS)\n"
    assert value(text, "IDS") == [0, 1] and value(text, "N") == 2


def test_eval_in_a_string_or_as_a_method_is_not_a_dynamic_namespace():
    assert value("N = 4\nNOTE = 'eval(x) and globals()'  # exec(y)\nmodel.eval()\n", "N") == 4


# functions ------------------------------------------------------------------------------------
ALIASED = """\
import pypto_pro.language as pl


@pl.pipeline.stage
def vst(ki, out, x_db):
    pass


@pl.pipeline.stage
def vst_next(ki, out, x_db):
    pass


def act_dump(t):
    pass


def act(t):
    pass


vst = vst_next
act = act_dump
"""


def test_a_name_rebound_to_another_function_means_that_function_everywhere():
    file = model(ALIASED)
    assert file.stages["vst"].node is file.stages["vst_next"].node
    assert file.stages["vst"].node.name.value == "vst_next"
    assert file.helpers["act"].name.value == "act_dump"
    assert file.functions_by_name["vst"].name.value == "vst_next"
    assert isinstance(file.meaning("act"), Function)


def test_a_function_rebound_to_something_else_is_no_longer_a_function():
    file = model(ALIASED + "import wrappers\nvst = wrappers.trace(vst_next)\nact = 3\n")
    assert "vst" not in file.stages and "act" not in file.helpers
    assert isinstance(file.meaning("vst"), Unknown) and file.meaning("act") == Value(3)


def test_a_function_defined_under_a_constant_branch_is_the_taken_one():
    text = ALIASED + ("FAST = True\nif FAST:\n    def act(t):\n        return 1\n"
                      "else:\n    def act(t):\n        return 2\n")
    assert model(text).helpers["act"].body.body[0].body[0].value.value == "1"


def test_classes_are_classes():
    assert isinstance(model("class Key:\n    pass\n").meaning("Key"), Class)


def test_an_alias_to_a_function_kept_as_text_reads_the_file_whole():
    text = ex.kernel(helpers="def unused(t):\n    pass\n\n\nspare = unused", st=ex.ST.replace(
        "    x = x_db.next()", "    x = x_db.next()\n    spare(x)"))
    file = read(SourceFile.parse(text, "m.py"))
    assert file.helpers["spare"].name.value == "unused"


# what the analysis does with them -------------------------------------------------------------
def errors(text: str, preload: int = 1) -> list[str]:
    return [d.code for d in transpile(text, preload=preload, path="k.py").diagnostics if d.is_error]


def test_the_bump_allocator_is_not_refused():
    """Each buffer gets the address the allocator had when it was declared: no overlap."""
    constants = ex.CONSTANTS + ("\nSIZE = HALF * TILE * 4\nUB = 0\nX_ADDR = UB\nUB += 2 * SIZE"
                                "\nY_ADDR = UB\nUB += 2 * SIZE")
    text = ex.reuse_kernel(ex.group("y_db", "Vec", "Y_ADDR", "[12, 13]", None, None),
                           x_db=ex.group("x_db", addrs="X_ADDR"), constants=constants)
    assert errors(text) == []


def test_an_address_moved_by_an_augmented_assignment_is_judged_at_its_final_value():
    """`R_ADDR -= 0x8000` puts `y_db` on `x_db`'s bytes with other mutex ids: PTO029, where the
    first value (0x8000, apart) would have been accepted."""
    constants = ex.CONSTANTS + "\nR_ADDR = 0x8000\nR_ADDR -= 0x8000"
    text = ex.reuse_kernel(ex.group("y_db", "Vec", "R_ADDR", "[12, 13]", None, None), constants=constants)
    assert "PTO029" in errors(text)
    assert "PTO029" not in errors(text.replace("R_ADDR -= 0x8000", "R_ADDR -= 0"))


def test_a_trip_count_from_an_unknown_rebinding_is_not_taken_as_its_first_value():
    text = ex.kernel(constants=ex.CONSTANTS + "\nimport os\nif os.environ.get('SMALL'):\n    N = 1")
    kernel = read(SourceFile.parse(text, "k.py")).kernels[0]
    assert kernel.constants is not None
    with pytest.raises(NotConstant, match="`N` is not a compile-time constant .*`if` whose test"):
        kernel.constants.eval(kernel.loops[0].end)


def test_the_soundness_check_reads_module_constants_at_their_final_value():
    """What a vector function's trip count (`REGS += 1`) or an address is, for the check."""
    file = model("REGS = 4\nREGS += 1\nR_ADDR = 0x10000\nR_ADDR -= 0x8000\n")
    assert file.constants == {"REGS": 5, "R_ADDR": 0x8000}
    assert file.evaluator.eval(cst.parse_expression("REGS * 2")) == 10


def test_a_rebound_stage_is_analysed_as_the_function_it_names():
    """`st = st_group`: the function the loop really calls declares a tile group (PTO020 on
    its line), which the first `st` does not."""
    st_group = ex.ST.replace("def st(", "def st_group(").replace(
        "    x = x_db.next()", "    y_db = pl.make_tile_group(type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, "
        "target_memory=pl.MemorySpace.Vec), addrs=0x4000, mutex_ids=[12, 13])  # E\n    x = x_db.next()")
    text = ex.kernel(st=ex.ST + "\n\n\n" + st_group + "\n\n\nst = st_group")
    result = transpile(text, preload=1, path="k.py")
    mark = text.splitlines().index(next(line for line in text.splitlines() if line.endswith("# E"))) + 1
    assert [(d.code, d.line) for d in result.diagnostics if d.is_error] == [("PTO020", mark)]


def test_a_stage_name_rebound_to_what_cannot_be_known_is_reported_where_it_is_called():
    """`st = tracing.wrap(st)`: the loop's `st(...)` is no stage the check can follow (PTO070);
    the first `st` is never taken for it."""
    text = ex.kernel(st=ex.ST + "\n\n\nimport tracing\nst = tracing.wrap(st)")
    result = transpile(text, preload=1, path="k.py")
    call_line = text.splitlines().index("            st(ki, sub_id, out, x_db)") + 1
    assert ("PTO070", call_line) in [(d.code, d.line) for d in result.diagnostics]
    assert "st" not in read(SourceFile.parse(text, "k.py")).stages


def test_a_global_declaration_in_a_function_kept_as_text_still_counts():
    """`setup` is reached by nothing the analysis reads (it stays text), yet it may run
    between the import and the launch: the trip count it rebinds is unknown."""
    text = ex.kernel(helpers="def setup(n):\n    global N\n    N = n")
    file = read(SourceFile.parse(text, "k.py"))
    assert "global N" in unknown_reason(file, "N")


def unknown_reason(file: FileModel, name: str) -> str:
    found = file.meaning(name)
    assert isinstance(found, Unknown), found
    return found.reason


#: a vector stage copying the received tile through a vector function of REGS registers
_VCOPY = '''\
@pl.vector_function
def vcopy(dst, src):
    p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for i in range(REGS):
        r = vf.load_align(src, i * 64)
        vf.store_align(dst, r, p, i * 64)'''
_VEC_Y = "\n".join([ex.VEC_DECLS, "    " + ex.group("y_db", "Vec", "0x4000", "[12, 13]", None, None).replace(
    "\n", "\n    ")])


def _vcopy_kernel(regs: str) -> str:
    return ex.kernel(constants=ex.CONSTANTS + "\n" + regs, helpers=_VCOPY, vec_decls=_VEC_Y,
                     st=ex.ST_RELU.replace("    pl.relu(y, x)", "    vcopy(y, x)"),
                     loop=ex.loop(ex.cube(), ex.vector(ex.ST_RELU_CALL)))


def test_a_vector_function_trip_count_is_read_at_its_final_value():
    """Eight registers cover the 16 x 32 tile; `REGS += 1` makes the copy read a ninth, in
    the next tile of the cross-core group: refused. Its first value (8) would be accepted."""
    assert errors(_vcopy_kernel("REGS = 8")) == []
    assert "PTO061" in errors(_vcopy_kernel("REGS = 8\nREGS += 1"))


def test_a_helper_rebound_to_another_function_is_scanned_as_that_function():
    """`act = act_dump`: the stage's call reaches `act_dump`, which writes the received tile
    on the V pipe; the first `act` touches nothing."""
    helpers = "def act(t):\n    pass\n\n\ndef act_dump(t):\n    pl.relu(t, t)\n\n\nact = act_dump"
    st = ex.ST.replace("    x = x_db.next()", "    x = x_db.next()\n    act(x)")
    result = transpile(ex.kernel(helpers=helpers, st=st), preload=1, path="k.py")
    assert [(a.buffer, a.role, a.pipe) for a in result.loops[0].accesses[1]][:1] == [("x_db", "RW", "V")]


@pytest.mark.parametrize("text, why", [
    ("N = 4\nvars()['N'] = 5\n", "`vars()`"),
    ("N = 4\nlocals()['N'] = 5\n", "`locals()`"),
    ("N = 4\nsetattr(__import__(__name__), 'N', 5)\n", "`__import__()`"),
    ("N = 4\n__import__(__name__).N = 5\n", "`__import__()`"),
    ("import importlib\nN = 4\nimportlib.import_module(__name__).N = 5\n", "import_module"),
    ("import sys as _s\nN = 4\n_s.modules[__name__].N = 5\n", "`sys.modules`"),
    ("import os, sys as q\nN = 4\nq.modules[__name__].N = 5\n", "`sys.modules`"),
    ("from sys import modules\nN = 4\nmodules[__name__].N = 5\n", "`sys.modules`"),
    ("import inspect\nN = 4\ninspect.currentframe().f_globals['N'] = 5\n", "f_globals"),
    ("N = 4\n\n\ndef f():\n    pass\n\n\nf.__globals__['N'] = 5\n", "__globals__"),
])
def test_every_way_into_the_module_namespace_makes_every_name_unknown(text, why):
    assert why in unknown(text, "N")


def test_namespace_words_elsewhere_change_nothing():
    text = "N = 4\nx = vars(args)\ny = torch.nn.modules\nz = cfg.modules\n"
    assert value(text, "N") == 4


def test_defaults_are_computed_when_the_def_runs():
    text = "SH = 1\n\n\ndef f(x, sh=SH, ids=[0]):\n    pass\n\n\nSH = 0\n"
    names = model(text).names
    (defaults,) = names.defaults.values()
    assert defaults["sh"] == Value(1)
    assert isinstance(defaults["ids"], Unknown) and "shared by every call" in defaults["ids"].reason
    assert names.stale_defaults == {"f"}  # for vector functions, evaluated from their text
    assert model(text.replace("SH = 0\n", "")).names.stale_defaults == set()


def test_a_file_that_rebinds_names_through_globals_is_not_told_it_has_no_stages():
    # a hostile probe (h70) got PTO070, right, and PTO004 "the file has no `@pl.pipeline.stage`
    # functions", wrong: the stages are there, their names unknown at the module's end
    text = ex.kernel() + '\nglobals()["EXTRA"] = 1\n'
    codes = {d.code for d in transpile(text, path="m.py").diagnostics}
    assert "PTO070" in codes and "PTO004" not in codes, codes
    # a file with no stage at all still hears so
    plain = ex.kernel().replace("@pl.pipeline.stage\n", "") + '\nglobals()["EXTRA"] = 1\n'
    assert "PTO004" in {d.code for d in transpile(plain, path="m.py").diagnostics}


def test_a_file_that_reaches_a_namespace_is_told_to_stop_reaching_it():
    # the help said to bind the called name to one function, which it already was (probe h75)
    text = ex.kernel() + '\nglobals()["EXTRA"] = 1\n'
    hints = {d.hint for d in transpile(text, path="m.py").diagnostics if d.code == "PTO070"}
    assert hints and all(h.startswith("Keep data in objects of its own rather than reaching a namespace through "
                                      "`globals()`") for h in hints), hints
    assert "PTO070" not in {d.code for d in transpile(ex.kernel(), path="m.py").diagnostics}  # the help applied

"""Names PyPTO's JIT binds (tiling-key fields, `datatype=` names), the instances of a tiling
key, and the constructs production kernels use that were refused (issue 16, goal 5).

The kernels here are written as production PyPTO kernels are: `pl.DYNAMIC` shapes, scalar
`pl.DT_INT32` parameters, a multi-core `pl.range(core_id, n_tiles, num_cores)` outer loop,
a tiling-key class and `@dataclass` tiling data.
"""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

import skeleton as ex
from pto_transpile import transpile
from pto_transpile.read.reader import FileModel, read
from pto_transpile.read.source import SourceFile
from sim_runtime import verify


def model(text: str) -> FileModel:
    return read(SourceFile.parse(textwrap.dedent(text), "k.py"))


def codes(text: str, **kw) -> list[str]:
    return [d.code for d in transpile(text, path="k.py", **kw).diagnostics]


# a hand-pipelined production-style kernel: no stage, its own syncs, the key read everywhere
PRODUCTION = '''\
from dataclasses import dataclass

import pypto_pro.language as pl
from pypto_pro.runtime.tilingkey import TilingKeyField

TS = 64
HALF = TS // 2


@dataclass
class AttnTiling:
    seq_q: int
    seq_kv: int


class AttnKey:
    HasAtten = TilingKeyField(bits=1, values=[0, 1])
    IsTnd = TilingKeyField(bits=1, values=[0, 1])
    BlockM = TilingKeyField(bits=8, values=[64, 128])

    def is_valid(self, key):
        has_atten, is_tnd, block_m = key
        if is_tnd == 1:
            return block_m == 128
        return has_atten == 0 or block_m == 128


def row_offset(qi, sub_id):
    if IsTnd == 1:
        return qi * BlockM + sub_id * HALF
    return qi * TS + sub_id * HALF


def make_q_db(addr):
    return pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TS], dtype=q_dtype, target_memory=pl.MemorySpace.Vec),
        addrs=addr,
        mutex_ids=[0, 1],
    )


@pl.jit(auto_mutex=True, tiling_key=AttnKey, datatype={"q": "q_dtype", "out": "q_dtype"})
def attention(
    q: pl.Tensor[[pl.DYNAMIC, TS], pl.DT_FP16],
    out: pl.Tensor[[pl.DYNAMIC, TS], pl.DT_FP16],
    n: pl.DT_INT32,
    tiling: AttnTiling,
):
    core_id = pl.get_block_idx()
    num_cores = pl.get_block_num()
    q_tiles = (q.shape[0] + TS - 1) // TS
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        q_db = make_q_db(0x0)
    for qi in pl.range(core_id, q_tiles, num_cores):
        kv_end = n
        if HasAtten == 1:
            kv_end = qi + 1
        scale = 1.0 if IsTnd == 0 else undefined_in_dead_branch if HasAtten == 2 else 0.5
        with pl.section_vector():
            qt = q_db.next()
            pl.load(qt, q, [row_offset(qi, sub_id), 0])
            pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=0)
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=0)
            pl.muls(qt, qt, scale)
            pl.store(out, qt, [row_offset(qi, sub_id), 0])
'''


def test_the_key_class_and_the_decorator_are_read():
    file = model(PRODUCTION)
    jit = file.kernels[0].jit
    assert [(f.name, f.values) for f in jit.key.fields] == [("HasAtten", (0, 1)), ("IsTnd", (0, 1)),
                                                           ("BlockM", (64, 128))]
    assert jit.datatypes == {"q": "q_dtype", "out": "q_dtype"}
    assert file.jit_names == {"HasAtten", "IsTnd", "BlockM", "q_dtype"}


def test_instances_skip_the_combinations_is_valid_rejects():
    file = model(PRODUCTION)
    found = file.instances(file.kernels[0])
    assert found.known
    assert list(found.keys) == [
        {"HasAtten": 0, "IsTnd": 0, "BlockM": 64}, {"HasAtten": 0, "IsTnd": 0, "BlockM": 128},
        {"HasAtten": 0, "IsTnd": 1, "BlockM": 128}, {"HasAtten": 1, "IsTnd": 0, "BlockM": 128},
        {"HasAtten": 1, "IsTnd": 1, "BlockM": 128},
    ]


def test_a_fourteen_field_key_narrowed_by_is_valid_has_its_two_instances():
    """The shape of a production attention key: 87 million combinations, two valid ones,
    found without trying the 87 million (is_valid decides on the first fields chosen)."""
    fields = {"KernelTypeKey": [0, 1], "ImplMode": [0, 1, 2], "Layout": [0, 1, 2, 3, 4],
              "S1TemplateType": [0, 16, 64, 128, 256], "S2TemplateType": [0, 16, 32, 64, 128, 256, 512],
              "DTemplateType": [0, 16, 32, 48, 64, 80, 96, 128, 160, 192, 256, 768],
              "DvTemplateType": [0, 16, 32, 48, 64, 80, 96, 128, 160, 192, 256, 768],
              "PseMode": [0, 1, 2, 3, 4, 9], "HasAtten": [0, 1], "HasDrop": [0, 1], "HasRope": [0, 1],
              "OutDtype": [0, 1, 2], "Regbase": [0, 1], "OptionalDn": [0, 1]}
    fixed = {"KernelTypeKey": 0, "ImplMode": 0, "Layout": 1, "S1TemplateType": 128, "S2TemplateType": 128,
             "DTemplateType": 128, "DvTemplateType": 128, "PseMode": 9, "HasDrop": 0, "HasRope": 0,
             "OutDtype": 0, "Regbase": 1, "OptionalDn": 0}
    names = ", ".join(n.lower() for n in fields)
    test = " and ".join(f"{n.lower()} == {v}" for n, v in fixed.items())
    text = ("import pypto_pro.language as pl\nfrom pypto_pro.runtime.tilingkey import TilingKeyField\n\n\n"
            "class FaKey:\n" + "".join(f"    {n} = TilingKeyField(bits=12, values={v})\n" for n, v in fields.items())
            + f"\n    def is_valid(self, key):\n        {names} = key\n        return {test}\n\n\n"
            "@pl.jit(tiling_key=FaKey)\ndef fa(x: pl.Tensor[[16, 16], pl.DT_FP32]):\n    pass\n")
    file = model(text)
    found = file.instances(file.kernels[0])
    assert [k["HasAtten"] for k in found.keys] == [0, 1]
    assert all({n: k[n] for n in fixed} == fixed for k in found.keys)


def test_is_valid_takes_the_key_after_self_and_its_other_parameters_keep_their_defaults():
    # `seen` is never passed: it keeps (0,), and every combination is valid (found by a probe:
    # the key was bound to the last parameter, and the instances with HasAtten 1 were dropped)
    text = PRODUCTION.replace("    def is_valid(self, key):\n",
                              "    def is_valid(self, key, seen=(0,)):\n        return seen == (0,)\n")
    assert "seen=(0,)" in text
    file = model(text)
    assert len(file.instances(file.kernels[0]).keys) == 8


@pytest.mark.parametrize("default, instances", [("1", 5), ("0", 3)])
def test_a_keyword_only_default_of_is_valid_is_its_own_not_the_module_s(default, instances):
    # probe h233: `LIMIT` was read as the module's 0, and the instances with HasAtten 1 dropped
    # unproven, one of them racy (the 5 instances of its key here; with the default 0, its 3)
    text = PRODUCTION.replace("    def is_valid(self, key):\n",
                              f"    def is_valid(self, key, *, LIMIT={default}):\n"
                              "        if key[0] > LIMIT:\n            return False\n")
    text = text.replace("\nTS = 64\n", "\nTS = 64\nLIMIT = 0\n")
    assert f"LIMIT={default}" in text and "LIMIT = 0" in text
    file = model(text)
    assert len(file.instances(file.kernels[0]).keys) == instances


def test_an_is_valid_the_check_cannot_follow_keeps_every_combination():
    text = PRODUCTION.replace("        has_atten, is_tnd, block_m = key\n",
                              "        has_atten, is_tnd, block_m = key\n        print(key)\n")
    file = model(text)
    assert len(file.instances(file.kernels[0]).keys) == 8


def test_several_kernels_have_their_own_keys():
    text = PRODUCTION + '''

class SmallKey:
    Fast = TilingKeyField(bits=1, values=[0, 1])


@pl.jit(tiling_key=SmallKey)
def other(x: pl.Tensor[[16, 16], pl.DT_FP32]):
    if Fast == 1:
        pass
'''
    file = model(text)
    assert [len(file.instances(k).keys) for k in file.kernels] == [5, 2]
    assert "Fast" in file.jit_names


@pytest.mark.parametrize("change, replacement, why", [
    ("class AttnKey:", "class AttnKey(BaseKey):", "derives from another class"),
    ("tiling_key=AttnKey", "tiling_key=KEYS", "not a class defined in this file"),
    # fields made by a subclass of `TilingKeyField`: said so, not "declares no `TilingKeyField`"
    ("class AttnKey:\n    HasAtten = TilingKeyField(bits=1, values=[0, 1])\n    IsTnd = TilingKeyField(",
     "class Bit(TilingKeyField):\n    pass\n\n\nclass AttnKey:\n    HasAtten = Bit(bits=1, values=[0, 1])\n"
     "    IsTnd = Bit(", "makes fields by `Bit`, a class of this file derived from `TilingKeyField`"),
])
def test_a_key_whose_fields_cannot_be_read_has_no_instances(change, replacement, why):
    assert PRODUCTION.count(change) == 1
    file = model(PRODUCTION.replace(change, replacement))
    found = file.instances(file.kernels[0])
    assert not found.known and why in found.problem and found.kind == "not-static"


DATATYPE = 'datatype={"q": "q_dtype", "out": "q_dtype"}'


@pytest.mark.parametrize("written, before", [
    ('datatype=DTYPES', 'DTYPES = {"q": "q_dtype", "out": "q_dtype"}\n'),
    ('datatype=dict(q="q_dtype", out="q_dtype")', ""),
    ('datatype=dict(Q_DTYPE, out="q_dtype")', 'Q_DTYPE = {"q": "q_dtype"}\n'),
])
def test_a_datatype_bound_by_name_or_made_by_dict_is_read(written, before):
    """`datatype=` as a module name bound to a dict of strings, or as `dict(...)`: its names are
    bound as when written in place (probe h198: PTO069 said `q_dtype` was defined nowhere)."""
    text = PRODUCTION.replace(DATATYPE, written).replace("TS = 64\n", "TS = 64\n" + before)
    file = model(text)
    assert file.kernels[0].jit.datatypes == {"q": "q_dtype", "out": "q_dtype"}
    assert "PTO069" not in codes(text)


def test_a_datatype_that_cannot_be_read_is_named_where_its_names_are_read():
    text = PRODUCTION.replace(DATATYPE, "datatype=dtypes_for(AttnKey)").replace(
        "TS = 64\n", "TS = 64\n\n\ndef dtypes_for(key):\n    return {\"q\": \"q_dtype\"}\n")
    found = [d for d in transpile(text, path="k.py").diagnostics if d.code == "PTO069"]
    assert found and all("unless `datatype=dtypes_for(AttnKey)` of a `@pl.jit` binds it" in d.message
                         for d in found), [d.message for d in found]
    assert "Write `datatype=` as a dict of strings" in found[0].hint


def test_a_kernel_without_a_key_has_one_instance():
    file = model(ex.kernel())
    assert file.instances(file.kernels[0]).keys == ({},)


def test_jit_names_are_bound_in_every_function_and_dead_branches_are_not_read():
    """The key's fields in a helper and the kernel, the dtype name in a kernel-factory helper,
    a name only under `HasAtten == 2` (no instance has it): no PTO069, no PTO020."""
    assert not {"PTO069", "PTO020"} & set(codes(PRODUCTION))


def test_a_name_under_a_branch_some_instance_takes_is_still_undefined():
    text = PRODUCTION.replace("undefined_in_dead_branch if HasAtten == 2", "undefined_in_live_branch if HasAtten == 1")
    assert "PTO069" in codes(text)


def test_a_misspelt_key_field_is_undefined():
    assert "PTO069" in codes(PRODUCTION.replace("if HasAtten == 1:", "if HasAtten_ == 1:"))


def test_a_dead_conditional_expression_on_a_module_constant():
    st = ex.ST.replace("    x = x_db.next()", "    x = x_db.next()\n    y = missing if USE_Y else x")
    assert "PTO069" not in codes(ex.kernel(constants=ex.CONSTANTS + "\nUSE_Y = False", st=st))
    assert "PTO069" in codes(ex.kernel(constants=ex.CONSTANTS + "\nUSE_Y = True", st=st))


# tiling keys around stages -------------------------------------------------------------------
KEY = '''\
from pypto_pro.runtime.tilingkey import TilingKeyField


class Key:
    HasAtten = TilingKeyField(bits=1, values=[0, 1])'''
DECORATOR = "@pl.jit(auto_mutex=True, tiling_key=Key, pipeline=pl.pipeline.PipelineConfig(preload=1))"
#: one pipeline loop per instance, chosen by the key around the loops
PER_INSTANCE_LOOPS = ex.kernel(helpers=KEY, decorator=DECORATOR, loop="if HasAtten == 1:\n" + textwrap.indent(
    ex.LOOP, "    ") + "\nelse:\n" + textwrap.indent(ex.LOOP.replace("pl.range(0, N)", "pl.range(0, N - 1)"), "    "))


def _kernel_ifs(code: str) -> list[ast.If]:
    kernel = next(n for n in ast.parse(code).body if isinstance(n, ast.FunctionDef) and n.name == "kernel")
    return [n for n in ast.walk(kernel) if isinstance(n, ast.If) and "HasAtten" in ast.unparse(n.test)]


def test_a_key_test_around_whole_pipeline_loops_keeps_its_source_form():
    result = transpile(PER_INSTANCE_LOOPS, path="k.py", _skip_rules=["PTO061"])
    assert result.ok, result.diagnostics
    (branch,) = _kernel_ifs(result.code)
    assert ast.unparse(branch.test) == "HasAtten == 1"
    # each branch holds its own pipelined loop (ring, prefire, drain)
    assert any("_pl_ctx_arr = " in ast.unparse(s) for s in branch.body)
    assert any("_pl_ctx_arr_1 = " in ast.unparse(s) for s in branch.orelse)


@pytest.mark.emulator
@pytest.mark.parametrize("has_atten", [0, 1])
def test_each_instance_of_the_per_instance_loops_runs_as_the_serial_kernel(has_atten):
    code = transpile(PER_INSTANCE_LOOPS, path="k.py", _skip_rules=["PTO061"]).code
    report = verify(PER_INSTANCE_LOOPS, code, "kernel", path="k.py", scalars={"HasAtten": has_atten})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_key_test_around_a_stage_inside_the_loop_is_refused_with_its_reason():
    text = ex.kernel(helpers=KEY, decorator=DECORATOR,
                     loop=ex.loop(ex.cube(), "if HasAtten == 1:\n" + textwrap.indent(ex.vector(), "    ")))
    (d,) = [d for d in transpile(text, path="k.py").diagnostics if d.code == "PTO007"]
    assert "tiling-key test inside the pipeline loop" in d.message and "whole pipeline loop" in d.hint


def test_a_key_field_is_never_folded_as_a_module_constant_of_the_same_name():
    """`HasAtten = 1` at module level does not make the kernel's `if HasAtten == 1:` constant:
    inside the kernel the name is the key's field. PyPTO refuses the file (PTO089, switched off
    here so that the reading behind it is still seen)."""
    text = PER_INSTANCE_LOOPS.replace("N = 4\n", "N = 4\nHasAtten = 1\n", 1)
    result = transpile(text, path="k.py", _skip_rules=["PTO061", "PTO089"])
    assert result.ok, result.diagnostics
    (branch,) = _kernel_ifs(result.code)
    # both loops are pipelined: the instance with HasAtten = 0 runs the `else` one
    assert any("_pl_ctx_arr = " in ast.unparse(s) for s in branch.body)
    assert any("_pl_ctx_arr_1 = " in ast.unparse(s) for s in branch.orelse)


def test_a_module_constant_named_as_a_key_field_is_refused():
    """The same kernel as a whole: PyPTO's front end refuses a key field the module binds too, and
    pto-transpile wrote it (probe: `ApplyRelu = 0` beside the key field `ApplyRelu`)."""
    text = PER_INSTANCE_LOOPS.replace("N = 4\n", "N = 4\nHasAtten = 1\n", 1)
    result = transpile(text, path="k.py")
    assert result.code is None
    (d,) = [d for d in result.diagnostics if d.code == "PTO089"]
    assert d.is_error and text.splitlines()[d.line - 1] == "HasAtten = 1" and d.column == 1
    assert "`HasAtten`" in d.message and "`Key.HasAtten`" in d.message and "kernel `kernel`" in d.message
    assert [text.splitlines()[r.line - 1].strip() for r in d.related] == [
        "HasAtten = TilingKeyField(bits=1, values=[0, 1])"]


def test_a_key_test_in_the_kernel_body_is_kept_as_written():
    text = ex.kernel(helpers=KEY, decorator=DECORATOR, loop="kv_end = N\nif HasAtten == 1:\n    kv_end = N - 1\n"
                     + ex.LOOP.replace("pl.range(0, N)", "pl.range(0, kv_end)"))
    result = transpile(text, path="k.py", _skip_rules=["PTO061"])
    assert result.ok, result.diagnostics
    assert "    if HasAtten == 1:\n        kv_end = N - 1\n" in result.code


# keyword calls of vector functions, group aliases ---------------------------------------------
VCOPY = '''\
@pl.vector_function
def vcopy(dst, src):
    p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for i in range(HALF * TILE // 64):
        r = vf.load_align(src, i * 64)
        vf.store_align(dst, r, p, i * 64)'''
VEC_Y = "\n".join([ex.VEC_DECLS, textwrap.indent(ex.group("y_db", "Vec", "0x4000", "[12, 13]", None, None), "    ")])


@pytest.mark.parametrize("call", ["vcopy(dst=y, src=x)", "vcopy(y, src=x)", "vcopy(src=x, dst=y)"])
def test_a_vector_function_called_with_keywords_reaches_the_scan(call):
    st = ex.ST_RELU.replace("    pl.relu(y, x)", f"    {call}")
    text = ex.kernel(st=st, vec_decls=VEC_Y, helpers=VCOPY, loop=ex.loop(ex.cube(), ex.vector(ex.ST_RELU_CALL)))
    result = transpile(text, path="k.py", _skip_rules=["PTO061"])
    assert result.ok, result.diagnostics
    # the vector stage reads the cross-core tile through `src`, on V, as the positional call does
    assert [(a.buffer, a.role, a.pipe) for a in result.loops[0].accesses[1]] == [("x_db", "R", "V")]


def test_a_nested_vector_function_call_with_keywords_keeps_the_roles():
    outer = VCOPY + '''


@pl.vector_function
def vcopy_twice(dst, src):
    vcopy(src=src, dst=dst)'''
    st = ex.ST_RELU.replace("    pl.relu(y, x)", "    vcopy_twice(y, x)")
    text = ex.kernel(st=st, vec_decls=VEC_Y, helpers=outer, loop=ex.loop(ex.cube(), ex.vector(ex.ST_RELU_CALL)))
    result = transpile(text, path="k.py", _skip_rules=["PTO061"])
    assert [(a.buffer, a.role, a.pipe) for a in result.loops[0].accesses[1]] == [("x_db", "R", "V")]


@pytest.mark.emulator
def test_a_keyword_vector_function_call_pipelines_right():
    st = ex.ST_RELU.replace("    pl.relu(y, x)", "    vcopy(dst=y, src=x)")
    text = ex.kernel(st=st, vec_decls=VEC_Y, helpers=VCOPY, loop=ex.loop(ex.cube(), ex.vector(ex.ST_RELU_CALL)),
                     imports=ex.IMPORTS + "\nfrom pypto_pro.language import Vf as vf")
    code = transpile(text, path="k.py", _skip_rules=["PTO061"]).code
    report = verify(text, code, "kernel", path="k.py")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


ALIASED_GROUP = ex.kernel(loop=ex.loop(ex.cube(), ex.vector("st(ki, sub_id, out, xin)")), decls="xin = x_db")


def test_a_tile_group_passed_through_an_alias_is_the_group():
    result = transpile(ALIASED_GROUP, path="k.py")
    assert result.ok, result.diagnostics
    assert [(a.buffer, a.role) for a in result.loops[0].accesses[1]] == [("x_db", "R")]


def test_an_alias_rebound_later_is_not_taken_for_the_group():
    text = ex.kernel(loop=ex.loop(ex.cube(), ex.vector("st(ki, sub_id, out, xin)")),
                     decls="xin = x_db\nxin = other_thing")
    kernel = read(SourceFile.parse(text, "k.py")).kernels[0]
    assert "xin" not in kernel.buffers


@pytest.mark.emulator
def test_an_aliased_group_pipelines_right():
    report = verify(ALIASED_GROUP, transpile(ALIASED_GROUP, path="k.py").code, "kernel", path="k.py")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_functions_by_name_is_the_model_of_every_function_name():
    file = model(PRODUCTION)
    assert isinstance(file.functions_by_name["row_offset"], cst.FunctionDef)
    assert "AttnKey" not in file.functions_by_name  # a class


FACTORY = '''\
import pypto_pro.language as pl
from pypto_pro.runtime.tilingkey import TilingKeyField


class Key:
    IS_CAUSAL = TilingKeyField(bits=1, values=[0, 1])


@pl.pipeline.stage
def finish(ki, out, y_db):
    y = y_db.next()
    if IS_CAUSAL == 1:
        pl.relu(y, y)
    pl.store(out, y, [ki * 32, 0])


def make_kernel(preload):
    @pl.jit(tiling_key=Key, pipeline=pl.pipeline.PipelineConfig(preload=preload))
    def kernel(out: pl.Tensor[[pl.DYNAMIC, 32], pl.DT_FP32]):
        pass

    return kernel
'''


def test_a_key_bound_by_the_jit_of_a_kernel_made_in_a_factory_is_no_undefined_name():
    """The factory was kept as text, unread, so its `@pl.jit(tiling_key=Key)` bound nothing, and the
    stage's `IS_CAUSAL` was said undefined beside PTO079, which names the cause (probe h215)."""
    found = codes(FACTORY)
    assert "PTO079" in found and "PTO069" not in found, found
    assert "PTO069" in codes(FACTORY.replace("tiling_key=Key, ", ""))

"""Vector-function parameter roles: one definition (`vfbody.param_roles`) for the access scan
and the soundness check, so a tile passed by keyword to a nested vector function counts in
both."""

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


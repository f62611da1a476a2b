"""A kernel that calls the `vf` register ops as PyPTO's signatures allow (`pto_api.names.
VF_PARAMETERS`: its parameter names as keywords, `mode` and `dtype` by position) runs on the
emulator, and gives what the same call with every argument by position gives."""


import numpy as np
import pytest

from sim_runtime import UnsupportedOpError, run_kernel

pytestmark = pytest.mark.emulator

KERNEL = """\
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf


@pl.vector_function
def body(src, dst):
    p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    a = vf.load_align(src)
    b = vf.load_align(src, 64)
    {op}
    vf.store_align(dst, r, p)


@pl.jit
def k(x: pl.Tensor[[2, 64], pl.DT_FP32], out: pl.Tensor[[1, 128], pl.DT_FP32]):
    with pl.section_vector():
        a = pl.make_tile_group(type=pl.TileType(shape=[2, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                               addrs=0, mutex_ids=[0])
        o = pl.make_tile_group(type=pl.TileType(shape=[1, 128], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                               addrs=0x1000, mutex_ids=[1])
        pl.load(a[0], x, [0, 0])
        pl.full(o[0], 0.0)
        body(a[0], o[0])
        pl.store(out, o[0], [0, 0])
"""

X = np.random.default_rng(7).standard_normal((2, 64)).astype(np.float32)
A, B = X[0], X[1]
F32 = np.float32

#: (positional call, the call with PyPTO's keywords, the first 64 elements out)
CALLS = {
    "add": ("r = vf.add(a, b, p, pl.MergeMode.ZEROING)",
            "r = vf.add(src0=a, src1=b, preg=p, mode=pl.MergeMode.ZEROING)", A + B),
    "max": ("r = vf.max(a, b, p)", "r = vf.max(src0=a, src1=b, preg=p)", np.maximum(A, B)),
    "muls": ("r = vf.muls(a, 0.5, p, pl.MergeMode.ZEROING)", "r = vf.muls(src0=a, scaler=0.5, preg=p)", A * F32(0.5)),
    "adds": ("r = vf.adds(a, 1.5, p)", "r = vf.adds(src=a, scalar=1.5, preg=p)", A + F32(1.5)),
    "axpy": ("r = vf.load_align(src, 64)\n    r = vf.axpy(a, 2.0, p)",
             "r = vf.load_align(tile=src, offset=64)\n    r = vf.axpy(src=a, scalar=2.0, preg=p)", B + F32(2) * A),
    "exp": ("r = vf.exp(a, p, pl.MergeMode.ZEROING, None)", "r = vf.exp(src=a, preg=p)", np.exp(A)),
    "exp_sub": ("r = vf.exp_sub(a, b, p, pl.CastLayout.ZERO, pl.DT_FP32)",
                "r = vf.exp_sub(src0=a, src1=b, preg=p, dtype=pl.DT_FP32)", np.exp(A - B)),
    "astype": ("r = vf.astype(vf.astype(a, p, pl.DT_FP16), p, pl.DT_FP32)",
               "r = vf.astype(src=vf.astype(src=a, preg=p, dtype=pl.DT_FP16), preg=p, dtype=pl.DT_FP32)",
               A.astype(np.float16).astype(F32)),
    "de_interleave": ("r, s = vf.de_interleave(a, b)", "r, s = vf.de_interleave(src0=a, src1=b)",
                      np.concatenate((A, B))[0::2]),
    "update_mask": ("r = vf.adds(a, 1.0, vf.update_mask(40, pl.DT_FP32))",
                    "r = vf.adds(a, 1.0, vf.update_mask(scalar=40, dtype=pl.DT_FP32))",
                    np.where(np.arange(64) < 40, A + F32(1), 0)),
    "load_align": ("r = vf.load_align(src, 64, pl.LoadDist.NORM, pl.DT_FP32)",
                   "r = vf.load_align(tile=src, offset=64, dist=pl.LoadDist.NORM, dtype=pl.DT_FP32)", B),
    # a mask stored after the register: its bits, at element 64
    "store_align": ("r = a\n    vf.store_align(dst + 64, vf.create_mask(pattern=pl.MaskPattern.VL8, dtype=pl.DT_FP32))",
                    "r = a\n    vf.store_align(tile=dst + 64, src=vf.create_mask(pattern=pl.MaskPattern.VL8, "
                    "dtype=pl.DT_FP32))", A),
}


def _out(op: str) -> np.ndarray:
    return run_kernel("vfsig.py", "k", {"x": X}, source=KERNEL.format(op=op)).outputs["out"][0]


@pytest.mark.parametrize("name", list(CALLS))
def test_a_call_by_pyptos_names_runs_as_the_positional_one(name):
    positional, by_name, first = CALLS[name]
    out = _out(by_name)
    assert out.view(np.uint32).tolist() == _out(positional).view(np.uint32).tolist()
    np.testing.assert_allclose(out[:64], first, rtol=2e-6)


def test_a_stored_mask_is_its_bits():
    # VL8 of fp32 lanes: 8 lanes of 4 mask bits, the first 32 of the 256 bits
    stored = _out(CALLS["store_align"][1])[64:72].view(np.uint32)
    assert stored.tolist() == [0xFFFFFFFF] + [0] * 7


@pytest.mark.parametrize("op", ["exp", "ln", "log", "sqrt"])
def test_a_precision_other_than_the_default_is_not_emulated(op):
    # what PyPTO's `precision` changes is not documented: the emulator does not guess
    with pytest.raises(UnsupportedOpError, match=f"vf.{op} with precision='HIGH'"):
        _out(f"r = vf.{op}(a, p, precision='HIGH')")

"""`--simulate` and `--preload auto` on kernel files of different signatures in one run: each
`--shape`/`--arg` goes to the kernels that take it; one no kernel takes is a usage error."""

import shutil

import pytest
from click.testing import CliRunner

from helpers import DEMO
from pto_transpile.cli import main

SCALE = DEMO.parent / "tiled_scale.py"  # a and out of pl.DYNAMIC rows, a tiling key and tiling data
GRID = DEMO.parent / "tiled_grid.py"  # w of a pl.DYNAMIC column, where tiled_scale's w is fixed
FITS_SCALE = ["--shape", "a=64x32", "--shape", "out=64x32", "--arg", "ApplyRelu=0", "--arg", "scale=1"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def kernels(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for src in (DEMO, SCALE, GRID):
        shutil.copy(src, tmp_path / src.name)
    return tmp_path


@pytest.mark.parametrize("mode", [["--simulate"], ["--preload", "auto"]], ids=["simulate", "auto"])
def test_kernels_of_other_signatures_are_simulated_in_one_run(kernels, mode):
    # seed_demo's `a` is fixed [256, 64]: the --shape a= is for tiled_scale's pl.DYNAMIC rows
    r = run("seed_demo.py", "tiled_scale.py", *mode, *FITS_SCALE, "-o", "out/")
    assert r.exit_code == 0, r.output
    assert (kernels / "out" / "seed_demo.py").is_file() and (kernels / "out" / "tiled_scale.py").is_file()


def test_a_shape_goes_to_the_kernel_where_that_tensor_is_dynamic(kernels):
    r = run("tiled_scale.py", "tiled_grid.py", "--simulate", *FITS_SCALE, "--shape", "w=32x32", "--check")
    assert r.exit_code == 0, r.output
    assert "simulated verification of tiled_scale_kernel" in r.output
    assert "simulated verification of tiled_grid_kernel" in r.output


@pytest.mark.parametrize("flag, value, words", [
    ("--shape", "q=64x32", "'q' is not a tensor parameter of any kernel given (tensors: seed_demo.py: a, b, d, out; "
                           "tiled_scale.py: a, out, w)"),
    ("--arg", "bogus=1", "'bogus' is not a scalar parameter of any kernel given (scalars: seed_demo.py: none; "
                         "tiled_scale.py: ApplyRelu, scale)"),
])
def test_a_value_no_kernel_takes_is_a_usage_error_naming_it(kernels, flag, value, words):
    r = run("seed_demo.py", "tiled_scale.py", "--simulate", *FITS_SCALE, flag, value, "-o", "out/")
    assert r.exit_code == 2 and words in " ".join(r.output.split()), r.output
    assert not (kernels / "out").exists() and "cycles" not in r.output  # refused before anything ran


def test_a_kernel_missing_a_shape_keeps_its_error(kernels):
    r = run("seed_demo.py", "tiled_scale.py", "--simulate", "--check", *FITS_SCALE[2:])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and "the simulation needs 1 more value(s): tensor a (declared [pl.DYNAMIC, 32] in " \
                                "`tiled_scale_kernel`)" in text, r.output


def test_a_fixed_tensor_in_every_file_keeps_its_error(kernels):
    r = run("seed_demo.py", "tiled_scale.py", "--simulate", "--check", *FITS_SCALE, "--shape", "b=64x64")
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and "tensor 'b' of `pipeline_demo_kernel` has the fixed shape [64, 64]" in text, text

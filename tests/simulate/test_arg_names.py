"""How `--arg` names what a launch is given: a tiling-data field by its own name, or as
`tiling.FIELD` (the tiling-data parameter's name, a dot and the field's). A field named as a
scalar parameter of the kernel needs the dotted name: `--arg n_rows=200` sets the parameter,
and the launch was refused by the emulator ("tiling data needs field(s) n_rows", reported as
PTO095 with exit status 1) although `--arg n_rows` was given (study ux2). `--arg tiling=3` was
taken as the whole tiling data and dropped. A misspelt name gets the one meant."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from helpers import ROOT, edited
from pto_transpile.cli import main

TILED = (ROOT / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
#: a field `scale` of the tiling data and a scalar parameter `scale` of the kernel
CLASH = edited(TILED, [("    tiling: ScaleTiling,\n):", "    tiling: ScaleTiling,\n    scale: pl.DT_FP32,\n):")])
BASE = ["--simulate", "--shape", "a=64x32", "--shape", "out=64x32", "--arg", "ApplyRelu=1", "-j", "1"]


def _run(tmp_path: Path, text: str, *args: str):
    kernel = tmp_path / "k.py"
    kernel.write_text(text, encoding="utf-8")
    return CliRunner().invoke(main, [str(kernel), *BASE, *args, "-o", str(tmp_path / "out.py")],
                              catch_exceptions=False)


def test_a_field_named_as_a_parameter_is_asked_for_by_its_dotted_name(tmp_path):
    r = _run(tmp_path, CLASH, "--arg", "scale=0.5")
    assert r.exit_code == 2, r.output
    assert "tiling-data field scale of `tiled_scale_kernel`; add --arg tiling.scale=VALUE" in r.output, r.output


def test_the_dotted_name_sets_the_field(tmp_path):
    r = _run(tmp_path, CLASH, "--arg", "scale=0.5", "--arg", "tiling.scale=0.25")
    assert r.exit_code == 0, r.output
    assert "pipelined" in r.output and "ok" in r.output


def test_a_field_of_its_own_name_takes_either(tmp_path):
    for flag in ("scale=0.5", "tiling.scale=0.5"):
        r = _run(tmp_path, TILED, "--arg", flag)
        assert r.exit_code == 0, (flag, r.output)


def test_the_tiling_data_parameter_itself_is_no_arg(tmp_path):
    r = _run(tmp_path, TILED, "--arg", "scale=0.5", "--arg", "tiling=3")
    assert r.exit_code == 2 and "'tiling' is the tiling-data parameter of `tiled_scale_kernel`" in r.output, r.output


def test_a_misspelt_name_gets_the_one_meant(tmp_path):
    # (study ux2: `--arg nrows=5` listed the scalars, with no "did you mean")
    r = _run(tmp_path, TILED, "--arg", "scal=0.5")
    assert r.exit_code == 2 and "'scal' is not a scalar parameter" in r.output and "did you mean 'scale'?" in r.output
    kernel = tmp_path / "k.py"
    r = CliRunner().invoke(main, [str(kernel), "--simulate", "--shape", "aa=64x32", "--shape", "out=64x32",
                                  "--arg", "ApplyRelu=1", "--arg", "scale=0.5", "-o", str(tmp_path / "out.py")])
    assert r.exit_code == 2 and "did you mean 'a'?" in r.output, r.output


def test_a_launch_of_no_rows_is_simulated_and_a_negative_size_refused(tmp_path):
    """Zero rows is a launch (every block finds nothing to do): it was refused as "positive
    sizes" (study ux2), and the emulator's check of rows left unwritten failed on it."""
    kernel = ROOT / "examples" / "tiled_scale.py"
    common = [str(kernel), "--check", "--simulate", "--arg", "ApplyRelu=1", "--arg", "scale=0.5"]
    for blocks in ("1", "2"):
        r = CliRunner().invoke(main, [*common, "--shape", "a=0x32", "--shape", "out=0x32", "--block-dim", blocks],
                               catch_exceptions=False)
        assert r.exit_code == 0 and "pipelined (preload 1)" in r.output and r.output.count(" ok") == 2, r.output
    r = CliRunner().invoke(main, [*common, "--shape", "a=-1x32", "--shape", "out=0x32"])
    assert r.exit_code == 2 and "sizes of 0 or more" in r.output, r.output

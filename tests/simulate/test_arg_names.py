"""How `--arg` names what a launch is given: a tiling-data field by its own name, or as
`tiling.FIELD` (the tiling-data parameter's name, a dot and the field's). A field named as a
scalar parameter of the kernel needs the dotted name: `--arg n_rows=200` sets the parameter,
and the launch was refused by the emulator ("tiling data needs field(s) n_rows", reported as
PTO095 with exit status 1) although `--arg n_rows` was given (study ux2). `--arg tiling=3` was
taken as the whole tiling data and dropped. A misspelt name gets the one meant."""

from __future__ import annotations

import re
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
        assert r.exit_code == 0 and re.search(r"^  pipelined \(preload 1\) .* ok$", r.output, re.M), r.output
    r = CliRunner().invoke(main, [*common, "--shape", "a=-1x32", "--shape", "out=0x32"])
    assert r.exit_code == 2 and "sizes of 0 or more" in r.output, r.output


def test_a_tiling_data_field_no_code_reads_is_run_at_zero_and_one_read_is_asked_for(tmp_path):
    """`--simulate` asked for every field of the tiling data, the ones no code reads too (study
    ux2): those run at 0, with a note; a field read by any code (here `tiling.n_tiles` as the
    trip count) is asked for as before, and so are all of them where code reads fields by a
    computed name."""
    kernel = (ROOT / "tests" / "soundness" / "kernels" / "ux2_act_matmul.py").read_text(encoding="utf-8")
    args = ["--check", "--simulate", "--shape", "a=200x32", "--shape", "out=200x32", "--arg", "n_rows=200",
            "--arg", "scale=0.5", "--arg", "Act=1", "--block-dim", "2"]
    path = tmp_path / "k.py"
    path.write_text(kernel, encoding="utf-8")
    r = CliRunner().invoke(main, [str(path), *args], catch_exceptions=False)
    assert r.exit_code == 0 and "reads the tiling-data field(s) n_tiles, tile_rows: simulated as 0" in r.output
    assert re.search(r"^  serial .* ok$", r.output, re.M) and re.search(r"^  pipelined .* ok$", r.output, re.M)
    path.write_text(edited(kernel, [("    for i in pl.range(core_id, n_tiles, num_cores):\n",
                                     "    for i in pl.range(core_id, tiling.n_tiles, num_cores):\n")]),
                    encoding="utf-8")
    r = CliRunner().invoke(main, [str(path), *args])
    assert r.exit_code == 2 and "needs 1 more value(s): tiling-data field n_tiles" in r.output, r.output
    path.write_text(kernel + "\n\nSHOWN = getattr(MatTiling, '__doc__')\n", encoding="utf-8")
    r = CliRunner().invoke(main, [str(path), *args])
    assert r.exit_code == 2 and "needs 2 more value(s)" in r.output, r.output

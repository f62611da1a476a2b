"""The command-line contract: exit codes, outputs, formats."""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import DEMO, demo_text
from pto_transpile.cli import main


def run(*args, cwd=None):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


BAD = textwrap.dedent('''
    import pypto_pro.language as pl

    @pl.pipeline.stage
    def c1(i, vbuf):
        v = vbuf.next()
        return v

    @pl.pipeline.stage
    def v1(i, out, vbuf):
        v = vbuf.next()
        pl.store(out, v, [i * 16, 0])

    @pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=-1))
    def k(out: pl.Tensor[[128, 32], pl.DT_FP32]):
        vbuf = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                                  addrs=0, mutex_ids=[0, 1], fwd_ids=[0, 16], bwd_ids=[2, 3])
        for i in pl.range(0, 8):
            with pl.section_cube():
                c1(i, vbuf)
            with pl.section_vector():
                v1(i, out, vbuf)
''')


@pytest.fixture
def bad(tmp_path):
    p = tmp_path / "bad.py"
    p.write_text(BAD)
    return p


def test_default_output_path_and_exit_0(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(DEMO, tmp_path / "seed_demo.py")
    r = run("seed_demo.py", "--preload", "2")
    assert r.exit_code == 0
    out = tmp_path / "build" / "seed_demo" / "pipeline_generated.py"
    assert out.is_file() and "wrote build/seed_demo/pipeline_generated.py" in r.output


def test_an_input_outside_the_working_directory_keeps_its_absolute_path_under_build(tmp_path, monkeypatch):
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    r = run(DEMO)
    key = DEMO.resolve().relative_to(DEMO.resolve().anchor).with_suffix("")
    assert r.exit_code == 0 and r.output == f"wrote {Path('build') / key / 'pipeline_generated.py'}\n", r.output


def test_the_default_output_of_a_file_does_not_depend_on_the_other_inputs(tmp_path, monkeypatch):
    # `multi/seed_demo.py` alone went to build/seed_demo/, where `seed_demo.py` alone then wrote over it
    monkeypatch.chdir(tmp_path)
    (tmp_path / "multi").mkdir()
    shutil.copy(DEMO, tmp_path / "seed_demo.py")
    (tmp_path / "multi" / "seed_demo.py").write_text(DEMO.read_text().replace("# ", "#  "))
    alone = [run("multi/seed_demo.py").output, run("seed_demo.py").output]
    assert alone == ["wrote build/multi/seed_demo/pipeline_generated.py\n",
                     "wrote build/seed_demo/pipeline_generated.py\n"]
    assert "#  " in (tmp_path / "build" / "multi" / "seed_demo" / "pipeline_generated.py").read_text()
    assert "#  " not in (tmp_path / "build" / "seed_demo" / "pipeline_generated.py").read_text()
    # the batch run names the same files (each already holds its output)
    assert run("seed_demo.py", "multi/seed_demo.py").output == "".join(
        line.replace("wrote", "unchanged") for line in alone[::-1])


def test_output_to_stdout():
    r = run(DEMO, "--preload", "1", "-o", "-")
    assert r.exit_code == 0 and "_pl_ctx_arr = pl.struct_array(3," in r.output


def test_cli_preload_overrides_decorator(tmp_path):
    out = tmp_path / "o.py"
    assert run(DEMO, "-o", out).exit_code == 0
    assert "struct_array(4," in out.read_text()  # the decorator says preload=2
    assert run(DEMO, "--preload", "0", "-o", out).exit_code == 0
    assert "struct_array" not in out.read_text()


def test_never_overwrites_the_input(tmp_path):
    src = tmp_path / "k.py"
    shutil.copy(DEMO, src)
    before = src.read_text()
    r = run(src, "-o", src)
    assert r.exit_code == 2 and src.read_text() == before


def test_all_errors_in_one_run_exit_1_no_output(bad, tmp_path):
    out = tmp_path / "o.py"
    r = run(bad, "--format", "json", "-o", out)
    assert r.exit_code == 1 and not out.exists()
    data = json.loads(r.output)
    codes = {d["code"] for d in data}
    assert {"PTO005", "PTO019", "PTO025"} <= codes
    for d in data:
        assert set(d) >= {"code", "severity", "path", "line", "column", "end_line", "end_column", "message", "hint"}
        assert d["severity"] in ("error", "warning") and d["line"] >= 1 and d["column"] >= 1


def test_text_format_has_caret_and_help(bad):
    r = run(bad)
    assert r.exit_code == 1
    assert "error[PTO019]" in r.output and "^" in r.output and "help:" in r.output and f"{bad}:7:" in r.output


def test_github_format(bad):
    r = run(bad, "--format", "github")
    lines = [line for line in r.output.splitlines() if line.startswith("::")]
    assert lines and all(line.startswith("::error file=") or line.startswith("::warning file=") for line in lines)
    assert any(",line=7,col=" in line for line in lines)


def test_sarif_format(bad):
    doc = json.loads(run(bad, "--format", "sarif").output)
    assert doc["version"] == "2.1.0" and doc["runs"][0]["tool"]["driver"]["name"] == "pto-transpile"
    results = doc["runs"][0]["results"]
    rule_ids = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
    assert results and all(r["ruleId"] == rule_ids[r["ruleIndex"]] for r in results)
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in results)


def test_select_and_ignore(bad):
    only = json.loads(run(bad, "--format", "json", "--select", "PTO019").stdout)
    assert {d["code"] for d in only} == {"PTO019"}
    rest = json.loads(run(bad, "--format", "json", "--ignore", "PTO019,PTO005").stdout)
    assert "PTO019" not in {d["code"] for d in rest} and "PTO005" not in {d["code"] for d in rest}


def test_filters_never_let_an_error_through(tmp_path):
    """`--select`/`--ignore` choose what is shown; an erroneous kernel is never written."""
    out = tmp_path / "o.py"
    r = run(DEMO, "--preload", "3", "--ignore", "PTO043,PTO044", "-o", out)
    assert r.exit_code == 1 and not out.exists()
    assert "not shown" in r.output and "error[" not in r.output
    r = run(DEMO, "--preload", "3", "--select", "PTO042", "-o", out)
    assert r.exit_code == 1 and not out.exists()


@pytest.mark.parametrize("option,value", [("--select", "PTO999"), ("--ignore", "PTO9"), ("--ignore", "no-such-rule")])
def test_unknown_filter_codes_are_usage_errors(option, value):
    r = run(DEMO, option, value, "--check")
    assert r.exit_code == 2 and "names no rule" in r.output


def test_filters_take_rule_names(bad):
    only = json.loads(run(bad, "--format", "json", "--select", "event-id-out-of-range").stdout)
    assert only and {d["code"] for d in only} == {"PTO025"}


def test_explain():
    r = run("--explain", "PTO043")
    assert r.exit_code == 0 and "too-few-tiles" in r.output
    assert run("--explain", "PTO999").exit_code == 2
    assert run("--explain", "43").output == r.output  # the number alone (first-hour study ux1)


def test_an_unknown_code_is_told_the_codes_there_are():
    """`PTO090` was said to lie between the first and the last code, and named no rule (probe h231)."""
    from pto_transpile.rules.explain import codes_there_are

    assert codes_there_are({"PTO001": 0, "PTO002": 0, "PTO005": 0, "PTO007": 0}) == \
        "PTO001 to PTO007 except PTO003-PTO004, PTO006"
    r = run("--explain", "PTO999")
    assert r.exit_code == 2 and "codes run from PTO001 to" in r.output, r.output


def test_check_writes_nothing_and_detects_stale_output(tmp_path):
    out = tmp_path / "o.py"
    r = run(DEMO, "--check", "-o", out)
    assert r.exit_code == 1 and not out.exists()  # a missing output is out of date
    assert "error[PTO094]" in r.stdout and "does not exist" in r.stdout
    assert run(DEMO, "-o", out).exit_code == 0
    assert run(DEMO, "--check", "-o", out).exit_code == 0
    out.write_text("stale\n")
    assert run(DEMO, "--check", "-o", out).exit_code == 1


def test_check_of_an_output_cut_short_names_its_last_line(tmp_path):
    """The words said the first difference is at a line past the file's end, while the location was
    its last line, which does not differ (probe h231)."""
    out = tmp_path / "o.py"
    assert run(DEMO, "-o", out).exit_code == 0
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:-1]), encoding="utf-8")
    r = run(DEMO, "--check", "-o", out, "--format", "github")
    assert r.exit_code == 1, r.output
    assert f"line={len(lines) - 1}," in r.output and f"it ends at line {len(lines) - 1}, where the output goes on" \
        in r.output, r.output


def test_diff_prints_unified_diff(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run(DEMO, "--diff", "--preload", "0")
    assert r.exit_code == 0 and r.output.startswith("---") and "+    _pl_sync_id = 0" in r.output
    assert not (tmp_path / "build").exists()


def test_several_files_in_one_call(bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run(DEMO, bad, "--check", "--format", "json")
    assert r.exit_code == 1
    assert {d["path"] for d in json.loads(r.output)} == {str(bad)}


@pytest.mark.parametrize("content, code, status", [
    (b"def f(:\n    pass\n", "PTO001", 1),
    (b"x = '\xff\xfe'\n", "PTO002", 2),
    (b"import os\n", "PTO003", 0),  # nothing to pipeline: a note, not a failure
])
def test_bad_files_are_diagnostics_not_tracebacks(tmp_path, content, code, status):
    p = tmp_path / "k.py"
    p.write_bytes(content)
    r = run(p, "--format", "json", "--check")
    data = json.loads(r.stdout)
    assert [d["code"] for d in data] == [code]
    assert r.exit_code == status


def test_missing_file_exit_2(tmp_path):
    r = run(tmp_path / "nope.py", "--format", "json")
    assert r.exit_code == 2 and json.loads(r.output)[0]["code"] == "PTO002"


@pytest.mark.parametrize("flags", [["--check"], ["-o", "{out}"]], ids=["default output", "-o"])
def test_a_missing_file_whose_output_exists_is_reported_as_missing(tmp_path, monkeypatch, flags):
    # the output path existed while the input did not: comparing the two raised (probe h75)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "build" / "gone" / "pipeline_generated.py"
    out.parent.mkdir(parents=True)
    out.write_text("x = 1\n")
    r = run(tmp_path / "gone.py", "--format", "json", *[f.format(out=out) for f in flags])
    assert r.exit_code == 2 and json.loads(r.output)[0]["code"] == "PTO002", r.output


def test_usage_errors_exit_2():
    assert run().exit_code == 2
    assert run(DEMO, "--preload", "x").exit_code == 2
    assert run(DEMO, "--preload", "-1").exit_code == 2


def test_pyproject_defaults(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pto-transpile]\npreload = 1\nformat = "json"\n')
    src = tmp_path / "k.py"
    shutil.copy(DEMO, src)
    r = run(src, "-o", tmp_path / "o.py")
    assert r.exit_code == 0 and "struct_array(3," in (tmp_path / "o.py").read_text()


def test_a_pyproject_output_folder_is_the_project_s_wherever_the_command_runs(tmp_path, monkeypatch):
    """`output = "generated/"` is taken from the pyproject.toml's directory, each input at its
    path from there, and a walk of the project leaves it out (study ux3: from a subfolder the
    outputs went elsewhere, and a walk of the project read the outputs as inputs and refused to
    overwrite them)."""
    (tmp_path / "pyproject.toml").write_text('[tool.pto-transpile]\noutput = "generated/"\n')
    (tmp_path / "kernels" / "gemm").mkdir(parents=True)
    shutil.copy(DEMO, tmp_path / "kernels" / "gemm" / "mm.py")
    monkeypatch.chdir(tmp_path)
    assert run(Path("kernels")).output == "wrote generated/kernels/gemm/mm.py\n"
    assert run(Path(".")).output == "unchanged generated/kernels/gemm/mm.py\n"
    monkeypatch.chdir(tmp_path / "kernels")
    r = run(Path("gemm/mm.py"), "--check")
    assert r.exit_code == 0, r.output
    out = tmp_path / "generated" / "kernels" / "gemm" / "mm.py"
    out.write_text(out.read_text(encoding="utf-8").replace("N_ITER", "N_ITERS"), encoding="utf-8")
    r = run(Path("gemm/mm.py"), "--check")
    assert r.exit_code == 1 and "../generated/kernels/gemm/mm.py` is out of date" in r.output, r.output


def test_the_output_of_a_renamed_input_is_reported_by_check_and_noted_by_a_run(tmp_path, monkeypatch):
    """A kernel renamed under a directory given left its old output behind, and --check said
    nothing (study ux3); files under the output folder with no pto-transpile mark are no
    outputs of it, and stay unmentioned."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernels").mkdir()
    shutil.copy(DEMO, tmp_path / "kernels" / "mm.py")
    assert run(Path("kernels"), "-o", "gen/").exit_code == 0
    (tmp_path / "gen" / "kernels" / "notes.py").write_text("# a file of someone else's\n")
    (tmp_path / "kernels" / "mm.py").rename(tmp_path / "kernels" / "mm2.py")
    wrote = run(Path("kernels"), "-o", "gen/")
    assert wrote.exit_code == 0 and wrote.output.splitlines() == [
        "wrote gen/kernels/mm2.py",
        "note: gen/kernels/mm.py is pto-transpile's output of `kernels/mm.py`, which does not exist (renamed, moved "
        "or deleted?): delete it, or restore its input"], wrote.output
    checked = run(Path("kernels"), "-o", "gen/", "--check", "--format", "json")
    [record] = json.loads(checked.stdout)
    assert checked.exit_code == 1 and record["code"] == "PTO094" and record["path"] == "gen/kernels/mm.py"
    assert "output of `kernels/mm.py`, which does not exist" in record["message"]
    (tmp_path / "gen" / "kernels" / "mm.py").unlink()
    assert run(Path("kernels"), "-o", "gen/", "--check").exit_code == 0


def test_a_misspelt_pyproject_key_is_named_with_the_key_meant(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pto-transpile]\npreloads = 1\n')
    src = tmp_path / "k.py"
    shutil.copy(DEMO, src)
    r = run(src, "--check")
    assert r.exit_code == 2 and "preloads (did you mean `preload`?)" in r.output, r.output


def test_internal_error_exit_2_with_hint(monkeypatch):
    import pto_transpile.driver as api

    def boom(*a, **k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(api, "transpile", boom)
    r = CliRunner().invoke(main, [str(DEMO)])
    assert r.exit_code == 2 and "internal error" in r.output and "report" in r.output


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "pto_transpile.cli", "--explain", "PTO001"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "syntax-error" in proc.stdout


def test_crashing_rule_is_an_internal_error_diagnostic_naming_it(monkeypatch):
    from pto_transpile.rules import registry

    rule = registry()["PTO014"]

    def crash(ctx):
        raise ValueError("boom")
        yield

    monkeypatch.setattr(rule, "check", crash)
    r = run(DEMO, "--format", "json", "--check")
    data = json.loads(r.output)
    assert r.exit_code == 2
    assert [d["code"] for d in data] == ["PTO099"]
    assert "PTO014" in data[0]["message"] and "stage-called-twice" in data[0]["message"]


def test_provenance_names_both_lines_of_each_edge():
    r = run(DEMO, "--provenance", "--check", "--preload", "2")
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0] == "pipeline loop at line 178 of kernel `pipeline_demo_kernel`:"
    assert sum("prefire" in line for line in lines) == 6
    assert sum(line.strip().startswith("drain") for line in lines) == 6
    assert any("before stage3" in line and "wait_cross_core(MTE1, _pl_fwd_ids_p_mat_db[task % 2])" in line
               for line in lines)
    assert "stage2 `pl.insert` (W on MTE3, line 59)  ->  stage3 `pl.move` (R on MTE1, line 70)" in r.output


def test_simulate_prints_the_table_and_exits_0_when_the_pipeline_is_right(tmp_path):
    trace = tmp_path / "trace.json"
    r = run(DEMO, "--preload", "2", "--simulate", "--timeline", trace, "-o", tmp_path / "o.py")
    assert r.exit_code == 0, r.output
    assert "serial" in r.output and "pipelined" in r.output and "1.00x" in r.output
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("name") == "s4·i3" for e in events)  # stage 4 on task 3, as in the seed's figure


def test_a_kernel_that_would_race_is_never_written(tmp_path):
    from pto_transpile.rules import registry

    src = tmp_path / "fwd_only.py"
    src.write_text(registry()["PTO057"].invalid[0])  # a forward-only buffer with too few tiles
    out = tmp_path / "o.py"
    r = run(src, "--simulate", "-o", out)
    assert r.exit_code == 1 and "PTO057" in r.output and not out.exists()


def test_simulate_takes_scalar_arguments(tmp_path):
    from pto_transpile.rules import registry

    src = tmp_path / "runtime_trips.py"
    src.write_text(registry()["PTO058"].valid[0])  # its inner loop runs `n_inner` times
    r = run(src, "--simulate", "-o", tmp_path / "o.py")  # no value: a usage mistake, said before anything runs
    assert r.exit_code == 2 and "--arg n_inner=VALUE" in r.output
    r = run(src, "--simulate", "--arg", "n_inner=3", "-o", tmp_path / "o.py")
    assert r.exit_code == 0, r.output


def test_two_inputs_with_one_stem_get_outputs_keyed_by_their_relative_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        shutil.copy(DEMO, tmp_path / d / "kernel.py")
    shutil.copy(DEMO, tmp_path / "other.py")
    r = run("a/kernel.py", "b/kernel.py", "other.py")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == ["wrote build/a/kernel/pipeline_generated.py",
                                     "wrote build/b/kernel/pipeline_generated.py",
                                     "wrote build/other/pipeline_generated.py"]
    assert (tmp_path / "build" / "b" / "kernel" / "pipeline_generated.py").read_text() == \
        (tmp_path / "build" / "other" / "pipeline_generated.py").read_text()


def test_an_output_that_holds_the_kernel_already_is_left_as_it_is(tmp_path, monkeypatch):
    """A run that changes nothing leaves the file and its time stamp alone, and says so (study
    ux3: every output was rewritten, so a log and make-style tools saw every file change)."""
    import os

    monkeypatch.chdir(tmp_path)
    (tmp_path / "seed_demo.py").write_text(demo_text(), encoding="utf-8")
    first = CliRunner().invoke(main, ["seed_demo.py"], catch_exceptions=False)
    out = tmp_path / "build" / "seed_demo" / "pipeline_generated.py"
    assert first.output == "wrote build/seed_demo/pipeline_generated.py\n", first.output
    os.utime(out, (1_000_000, 1_000_000))
    again = CliRunner().invoke(main, ["seed_demo.py"], catch_exceptions=False)
    assert again.exit_code == 0 and again.output == "unchanged build/seed_demo/pipeline_generated.py\n", again.output
    assert out.stat().st_mtime == 1_000_000
    out.write_text(out.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    third = CliRunner().invoke(main, ["seed_demo.py", "--force"], catch_exceptions=False)
    assert third.output == "wrote build/seed_demo/pipeline_generated.py\n" and out.stat().st_mtime != 1_000_000


def test_quiet_leaves_out_the_line_of_each_file_written(tmp_path, monkeypatch):
    """Study ux3: the `wrote` lines could not be silenced in a CI log."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "seed_demo.py").write_text(demo_text(), encoding="utf-8")
    for _ in range(2):  # written, then unchanged
        r = CliRunner().invoke(main, ["seed_demo.py", "-q"], catch_exceptions=False)
        assert r.exit_code == 0 and r.output == "", r.output
    assert (tmp_path / "build" / "seed_demo" / "pipeline_generated.py").is_file()

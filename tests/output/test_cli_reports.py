"""What the command prints: machine formats when clean, records of every failure, colour,
per-file order, and --simulate's usage mistakes in CLI words."""

from __future__ import annotations

import functools
import json

import pytest
from click.testing import CliRunner

from helpers import DEMO
from pto_transpile import transpile
from pto_transpile.cli import main


def run(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)


# -- machine formats ---------------------------------------------------------------------------

def test_json_of_a_clean_run_is_an_empty_list():
    r = run(DEMO, "--check", "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout) == []


def test_sarif_of_a_clean_run_is_a_log_without_results():
    r = run(DEMO, "--check", "--format", "sarif")
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and doc["version"] == "2.1.0" and doc["runs"][0]["results"] == []


@pytest.fixture
def stale(tmp_path):
    out = tmp_path / "o.py"
    out.write_text(transpile(DEMO.read_text(), preload=1).code)
    return out


def test_a_stale_output_is_a_record_in_json(stale):
    r = run(DEMO, "--check", "-o", stale, "--format", "json")
    [record] = json.loads(r.stdout)
    assert r.exit_code == 1 and record["code"] == "PTO094" and record["path"] == str(stale)
    assert "out of date" in record["message"] and record["line"] > 1


def test_a_missing_output_is_a_record_in_sarif_and_github(tmp_path):
    missing = tmp_path / "missing.py"
    doc = json.loads(run(DEMO, "--check", "-o", missing, "--format", "sarif").stdout)
    [result] = doc["runs"][0]["results"]
    assert result["ruleId"] == "PTO094" and "does not exist" in result["message"]["text"]
    r = run(DEMO, "--check", "-o", missing, "--format", "github")
    assert r.exit_code == 1 and r.stdout.startswith(f"::error file={missing},line=1") and "PTO094" in r.stdout


def test_github_annotations_name_the_other_locations(tmp_path):
    """An annotation has one place: a race's other access is named in its text, as the text
    report's note names it (study ux3: the pull request showed one of the two accesses)."""
    import re

    from pto_transpile.rules import registry

    kernel = tmp_path / "k.py"
    kernel.write_text(re.sub(r"  # E: [A-Z0-9, ]+", "", registry()["PTO042"].invalid[0]), encoding="utf-8")
    r = run(kernel, "--check", "--format", "github")
    [race] = [line for line in r.stdout.splitlines() if "PTO061" in line]
    assert r.exit_code == 1 and "(note: the other access: stage `st` (task 3" in race
    assert re.search(rf"pl.store` on MTE3 of AIV0 at {re.escape(str(kernel))}:26:5\)", race), race


def test_sarif_gives_rule_pages_as_markdown_and_relative_paths_a_base(tmp_path, monkeypatch):
    """Code scanning renders a rule's `help.markdown` (the page was plain text in
    `fullDescription`), and resolves a relative path against the base it names (study ux3)."""
    import re

    from pto_transpile.rules import registry

    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(re.sub(r"  # E: [A-Z0-9, ]+", "", registry()["PTO042"].invalid[0]),
                                   encoding="utf-8")
    doc = json.loads(run("k.py", "--check", "--format", "sarif").stdout)
    [log] = doc["runs"]
    rule = next(r for r in log["tool"]["driver"]["rules"] if r["id"] == "PTO061")
    assert rule["help"]["markdown"].startswith("## What it checks") and "##" not in rule["fullDescription"]["text"]
    assert log["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.resolve().as_uri() + "/"}}
    result = next(r for r in log["results"] if r["ruleId"] == "PTO061")
    where = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert where == {"uri": "k.py", "uriBaseId": "%SRCROOT%"}
    assert result["relatedLocations"][0]["physicalLocation"]["artifactLocation"] == where


def test_errors_hidden_by_the_filters_that_stop_the_output_are_said_in_the_report(tmp_path, monkeypatch):
    """--ignore PTO061 hides the race, which still stops the output (exit status 1): the report
    says why in every format but json's list, not on stderr alone (study ux3)."""
    import re

    from pto_transpile.rules import registry

    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(re.sub(r"  # E: [A-Z0-9, ]+", "", registry()["PTO042"].invalid[0]),
                                   encoding="utf-8")
    said = "1 error(s) not shown (filtered by --select/--ignore)"
    text = run("k.py", "--check", "--ignore", "PTO061")
    assert text.exit_code == 1 and f"found 0 error(s) and 1 warning(s), and {said}" in text.stdout, text.output
    github = run("k.py", "--check", "--ignore", "PTO061", "--format", "github")
    assert f"::error file=k.py,line=1,title=pto-transpile::{said}; nothing was written" in github.stdout
    [log] = json.loads(run("k.py", "--check", "--ignore", "PTO061", "--format", "sarif").stdout)["runs"]
    [note] = log["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"].startswith(said)
    assert [r["ruleId"] for r in log["results"]] == ["PTO042"]


def _racy(monkeypatch):
    """A kernel the static checks would refuse, let through so that the emulator finds the race."""
    from pto_transpile import driver
    monkeypatch.setattr(driver, "transpile", functools.partial(driver.transpile, _skip_rules=["PTO057", "PTO061"]))
    from pto_transpile.rules import registry

    return registry()["PTO057"].invalid[0]


@pytest.mark.emulator
@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_a_failed_simulation_is_a_record(tmp_path, monkeypatch, fmt):
    src = tmp_path / "racy.py"
    src.write_text(_racy(monkeypatch))
    r = run(src, "--simulate", "-o", tmp_path / "o.py", "--format", fmt)
    assert r.exit_code == 1 and not (tmp_path / "o.py").exists()
    if fmt == "json":
        [record] = json.loads(r.stdout)
        assert record["code"] == "PTO095" and "race" in record["message"] and record["path"] == str(src)
        assert src.read_text().splitlines()[record["line"] - 1].startswith("def kernel(")
    elif fmt == "sarif":
        [result] = json.loads(r.stdout)["runs"][0]["results"]
        assert result["ruleId"] == "PTO095"
    else:
        assert "::error file=" in r.stdout and "PTO095" in r.stdout


# -- colour ------------------------------------------------------------------------------------

class _Tty:
    def __init__(self, tty):
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("choice, env, tty, expected", [
    ("auto", {}, True, True), ("auto", {}, False, False),
    ("auto", {"FORCE_COLOR": "1"}, False, True), ("auto", {"FORCE_COLOR": "0"}, False, False),
    ("auto", {"NO_COLOR": "1"}, True, False), ("auto", {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False, False),
    ("always", {"NO_COLOR": "1"}, False, True), ("never", {"FORCE_COLOR": "1"}, True, False),
])
def test_colour_choice(choice, env, tty, expected):
    from pto_transpile.output.render.text import wants_color

    assert wants_color(choice, _Tty(tty), env) is expected


BAD = DEMO.read_text().replace("fwd_ids=[0, 1],", "fwd_ids=[0, 16],")


def test_force_color_colours_a_piped_report(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(BAD)
    plain = run(src, "--check", env={"FORCE_COLOR": None, "NO_COLOR": None})
    forced = run(src, "--check", env={"FORCE_COLOR": "1", "NO_COLOR": None})
    assert "\x1b[" not in plain.output and "\x1b[" in forced.output
    never = run(src, "--check", "--color", "never", env={"FORCE_COLOR": "1"})
    always = run(src, "--check", "--color", "always")
    assert "\x1b[" not in never.output and "\x1b[" in always.output and "error[PTO025]" in never.output


# -- per-file order ----------------------------------------------------------------------------

def test_several_files_report_each_file_before_the_next(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    useless = "# pto-transpile: ignore[PTO042]\n@pl.jit(auto_mutex=True"
    (tmp_path / "k1.py").write_text(DEMO.read_text().replace("@pl.jit(auto_mutex=True", useless))
    (tmp_path / "k2.py").write_text(BAD)
    (tmp_path / "k3.py").write_text(DEMO.read_text())
    r = run("k1.py", "k2.py", "k3.py", "-j", "2")
    lines = [line for line in r.output.splitlines() if line.startswith(("wrote", "warning[", "error[", "found"))]
    assert [line[:15] for line in lines] == ["warning[PTO096]", "wrote build/k1/", "error[PTO025]: ",
                                             "wrote build/k3/", "found 1 error(s"]


# -- --simulate usage mistakes -----------------------------------------------------------------

DYNAMIC = DEMO.read_text().replace("a: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],",
                                   "a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],")


@pytest.mark.parametrize("text, args, words", [
    (None, ["--shape", "a=1024x64"], "fixed shape [256, 64]"),
    (None, ["--shape", "q=1024x64"], "'q' is not a tensor parameter"),
    (None, ["--arg", "n=3"], "'n' is not a scalar parameter"),
    (DYNAMIC, [], "a (declared [pl.DYNAMIC, 64] in `pipeline_demo_kernel`)"),
    (DYNAMIC, ["--shape", "a=256x32"], "dimension 1 is 64, not 32"),
    (DYNAMIC, ["--shape", "a=256"], "has 2 dimensions"),
    (None, ["--block-dim", "0"], "0 is not in the range x>=1"),
    (None, ["--block-dim", "-1"], "-1 is not in the range x>=1"),
], ids=["fixed", "no-tensor", "no-scalar", "dynamic-unset", "dimension-clash", "rank-clash", "no-block",
        "negative-blocks"])
@pytest.mark.parametrize("mode", [["--simulate"], ["--preload", "auto"]], ids=["simulate", "auto"])
def test_simulation_usage_mistakes_are_exit_2_in_cli_words(tmp_path, text, args, words, mode):
    """--preload auto simulates the kernel as --simulate does: the same usage checks."""
    src = tmp_path / "k.py"
    src.write_text(text or DEMO.read_text())
    r = run(src, *mode, "--check", *args)
    assert r.exit_code == 2 and words in r.output and "Usage:" in r.output, r.output
    assert "serial" not in r.output and "cycles" not in r.output  # refused before anything ran


def test_every_missing_simulation_value_is_said_at_once_with_the_flags_to_add(tmp_path):
    src = tmp_path / "k.py"
    src.write_text((DEMO.parent / "tiled_scale.py").read_text())
    r = run(src, "--simulate", "--check")
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())  # click wraps the message
    assert "the simulation needs 4 more value(s): tensor a (declared [pl.DYNAMIC, 32] in `tiled_scale_kernel`); " \
           "tensor out (declared [pl.DYNAMIC, 32] in `tiled_scale_kernel`); tiling-key field ApplyRelu of " \
           "`tiled_scale_kernel` (EpilogueKey: one of 0, 1); tiling-data field scale of `tiled_scale_kernel`" in text
    assert "add --shape a=D0x32 --shape out=D0x32 --arg ApplyRelu=0 --arg scale=VALUE" in text
    assert "Invalid value for --shape / --arg:" in text  # both options are short of values


def test_missing_scalars_alone_are_blamed_on_arg(tmp_path):
    src = tmp_path / "k.py"
    src.write_text((DEMO.parent / "tiled_scale.py").read_text())
    r = run(src, "--simulate", "--check", "--shape", "a=64x32", "--shape", "out=64x32")
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert "Invalid value for --arg: the simulation needs 2 more value(s)" in text, text


def test_a_preload_list_from_the_command_is_blamed_on_the_command(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(DEMO.read_text())
    r = run(src, "--preload", "1,2", "--check")
    assert r.exit_code == 1, r.output
    assert "the preload given to the command ([1, 2]) has 2 values, but kernel `pipeline_demo_kernel` holds 1 " \
           "pipeline loop(s)" in r.output
    assert "def pipeline_demo_kernel(" in r.output  # the caret is on the kernel, not on the file's own preload


def test_a_fraction_for_an_integer_parameter_is_a_usage_error(tmp_path):
    src = tmp_path / "k.py"
    out = "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
    src.write_text(DEMO.read_text().replace(out, out + "    n: pl.DT_INT32,\n"))
    r = run(src, "--simulate", "--check", "--arg", "n=2.5")
    assert r.exit_code == 2 and "n is a parameter of `pipeline_demo_kernel` declared DT_INT32: 2.5 is not an integer" \
        in r.output, r.output


def test_a_missing_shape_is_said_before_the_transpile(tmp_path, monkeypatch):
    """The proof of a kernel of run-time sizes takes seconds (the FlashAttention example's,
    dozens of runs): a --simulate usage mistake does not wait for it."""
    from pto_transpile import driver

    calls = []
    real = driver.transpile
    monkeypatch.setattr(driver, "transpile", lambda *a, **k: calls.append(a) or real(*a, **k))
    src = tmp_path / "k.py"
    src.write_text(DYNAMIC)
    r = run(src, "--simulate", "--check")
    assert r.exit_code == 2 and "a (declared [pl.DYNAMIC, 64] in `pipeline_demo_kernel`)" in r.output, r.output
    assert calls == []
    broken = tmp_path / "broken.py"
    broken.write_text("def broken(:\n")
    r = run(broken, "--simulate", "--check")  # a file that does not read: the transpile says why
    assert r.exit_code == 1 and "PTO" in r.output and len(calls) == 1, r.output


@pytest.mark.emulator
@pytest.mark.parametrize("mode", [["--simulate"], ["--preload", "auto"]], ids=["simulate", "auto"])
def test_a_dynamic_tensor_simulates_with_its_shape(tmp_path, mode):
    src = tmp_path / "k.py"
    src.write_text(DYNAMIC)
    r = run(src, *mode, "--check", "--shape", "a=256x64")
    assert r.exit_code == 0 and "cycles" in r.output, r.output


@pytest.mark.parametrize("dtype, value, bounds", [("DT_UINT8", "-1", "0..255"), ("DT_INT8", "300", "-128..127")])
def test_a_value_outside_an_integer_dtype_is_a_usage_error(tmp_path, dtype, value, bounds):
    # the hardware passes a DT_UINT8 argument no -1: the proof holds over the dtype's values
    src = tmp_path / "k.py"
    out = "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
    src.write_text(DEMO.read_text().replace(out, out + f"    m: pl.{dtype},\n"))
    r = run(src, "--simulate", "--check", "--arg", f"m={value}")
    assert r.exit_code == 2 and f"m is a parameter of `pipeline_demo_kernel` declared {dtype}: {value} is outside " \
                                  f"its values {bounds}" in r.output, r.output


def test_the_emulator_refuses_a_value_outside_an_integer_dtype():
    from sim_runtime.verify import verify

    out = "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
    text = DEMO.read_text().replace(out, out + "    m: pl.DT_UINT8,\n")
    report = verify(text, text, "pipeline_demo_kernel", path="k.py", scalars={"m": -1})
    assert report.rows[0].verdict == "error"
    assert "'m' is declared DT_UINT8: -1 is outside its values 0..255" in report.rows[0].message


def test_the_line_shown_is_the_one_named_after_a_comment_of_line_separators(tmp_path):
    """Python ends a line at `\\r\\n`, `\\r` or `\\n` only; `str.splitlines` at U+2028, U+0085,
    U+001C too, and the snippet showed the line three before the one the report named (probe
    h131)."""
    loop = "    # The pipeline loop: the 4 stages"
    text = DEMO.read_text().replace(loop, "    # odd\u2028sep\x85 and\x1c more\n" + loop)
    text = text.replace("            stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db)\n",
                        "            stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db)\n"
                        "        tick = 1\n", 1)
    path = tmp_path / "k.py"
    path.write_text(text, encoding="utf-8")
    r = run(path, "--check")
    line = next(n for n, t in enumerate(text.split("\n"), 1) if t == "        tick = 1")
    assert f"k.py:{line}:9" in r.stdout and f"{line} |         tick = 1" in r.stdout, r.stdout

"""Reports on a generated kernel name the generated file, and each line's input origin."""

from __future__ import annotations

from helpers import DEMO, demo_text
from pto_transpile import transpile
from pto_transpile.simulate.provenance import LineOrigins
from sim_runtime import verify
from sim_runtime.errors import annotate_locations
from sim_runtime.verify import VerifyRow

GENERATED = "build/seed_demo/pipeline_generated.py"


def _demo():
    return transpile(demo_text(), preload=2, path=str(DEMO))


def test_kept_lines_map_to_their_input_lines_and_syncs_to_their_edges():
    result = _demo()
    origins = LineOrigins(result)
    lines = result.code.splitlines()
    source = demo_text().splitlines()
    move = next(i for i, line in enumerate(lines, 1) if "pl.move(left, p_mat" in line)
    assert origins.note(move) == f"input line {source.index(lines[move - 1]) + 1}"
    calls = {i: " ".join(part.strip() for part in lines[i - 1:i + 3]) for i in range(1, len(lines) + 1)}
    wait = next(i for i, text in calls.items()
                if text.startswith("pl.system.wait_cross_core( pipe=pl.PipeType.MTE1, "
                                   "event_id=_pl_fwd_ids_p_mat_db[_pl_ctx"))
    assert origins.note(wait) == "inserted sync: RAW on `p_mat_db`, input lines 59 -> 70"


def test_a_deadlock_names_the_generated_file_once_per_location_with_the_input_origin():
    result = _demo()
    lines = result.code.splitlines(keepends=True)
    first_set = next(i for i, line in enumerate(lines) if "set_cross_core(" in line and "_pl_ctx" in lines[i + 2])
    assert lines[first_set + 3].strip() == ")"
    broken = "".join(lines[:first_set] + lines[first_set + 4:])  # the whole wrapped call
    report = verify(demo_text(), {"pipelined": broken}, "pipeline_demo_kernel", path=str(DEMO),
                    generated_paths={"pipelined": GENERATED})
    row = report.rows[-1]
    assert row.verdict == "deadlock" and row.verdict_text.startswith("deadlock: every unfinished core")
    assert "deadlock: deadlock" not in row.verdict_text
    assert f"{GENERATED}:" in row.message and f"{DEMO}:" not in row.message
    origins = LineOrigins(transpile(demo_text(), preload=2, path=str(DEMO)))
    annotated = annotate_locations(row.message, GENERATED, origins.note)
    assert "(inserted sync: " in annotated


def test_the_verdict_is_said_once():
    assert VerifyRow("p", None, None, verdict="deadlock", message="deadlock: all blocked").verdict_text == \
        "deadlock: all blocked"
    assert VerifyRow("p", None, None, verdict="race", message="data race on UB").verdict_text == "race: data race on UB"
    assert VerifyRow("p", 1, 1.0).verdict_text == "ok"


def test_a_stage_call_line_is_not_named_after_the_sync_below_it():
    # the line of a delayed stage's call, a sync on the next line: the sync was named (probe h73)
    result = _demo()
    origins = LineOrigins(result)
    lines = result.code.splitlines()
    source = demo_text().splitlines()
    call = next(i for i, line in enumerate(lines, 1)
                if line.lstrip().startswith("stage2(_pl_ctx") and "set_cross_core(" in lines[i])
    written = next(i for i, line in enumerate(source, 1) if line.lstrip().startswith("stage2("))
    assert origins.note(call) == f"the call of `stage2` at input line {written}"


def test_preload_auto_names_a_candidates_lines_in_its_own_code_with_their_input_origin(monkeypatch):
    from pto_transpile import choose_preload
    from pto_transpile.preload import Auto
    from pto_transpile.simulate import autopreload

    # every candidate's pipelined kernel loses its first set: the emulator reports a deadlock
    real = autopreload.transpile

    def broken(text, **kw):
        result = real(text, **kw)
        if result.code is not None and kw.get("preload") not in (None, 0):
            lines = result.code.splitlines(keepends=True)
            first = next(i for i, line in enumerate(lines) if "set_cross_core(" in line and "_pl_ctx" in lines[i + 2])
            result.code = "".join(lines[:first] + lines[first + 4:])
        return result

    monkeypatch.setattr(autopreload, "transpile", broken)
    choice = choose_preload(demo_text(), path=str(DEMO), settings=Auto())
    failed = [c for c in choice.candidates if c.verdict == "deadlock"]
    assert failed, [(c.preload, c.verdict) for c in choice.candidates]
    for c in failed:
        assert f"{DEMO}:" not in c.detail and f"<{DEMO} pipelined at preload={c.preload}>:" in c.detail, c.detail
        assert "(inserted sync: " in c.detail or "(input line " in c.detail, c.detail


def test_the_pipelined_row_names_its_preload(tmp_path):
    """A preload of 0 is still the pipelined kernel (its cores overlap, no stage runs further
    ahead), but a row called "pipelined" alone read as the preload asked for (study ux2)."""
    import re

    from click.testing import CliRunner

    from pto_transpile.cli import main

    for preload in ("0",):
        r = CliRunner().invoke(main, [str(DEMO), "--preload", preload, "--simulate", "-o", str(tmp_path / "o.py"),
                                      "--force"], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        assert re.search(rf"^  pipelined \(preload {preload}\)  cycles \d+ .* ok$", r.output, re.M), r.output


def test_a_hand_pipelined_kernel_found_wrong_is_named_by_its_runs_not_as_a_serial_kernel():
    """A kernel pipelined by hand has no serial kernel: its reference run is its own code with
    the cores in turn (study ux2: "the serial kernel `hand_act`" and "the as written kernel")."""
    from pto_transpile.simulate.compare import AS_WRITTEN, SimFailure

    assert SimFailure("k", 1, "serial", "x").what == "the serial kernel `k`"
    assert SimFailure("k", 1, "pipelined", "x").what == "the pipelined kernel `k`"
    assert SimFailure("k", 1, "serial", "x", hand=True).what == \
        "kernel `k` run with its cores one after another (the reference run)"
    assert SimFailure("k", 1, AS_WRITTEN, "x", hand=True).what == "kernel `k` as written, its cores running at once,"

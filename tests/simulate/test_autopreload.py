"""`--preload auto`: the preload with the fewest simulated cycles, or the kernel's own when
the emulator cannot run the kernel."""

from __future__ import annotations

from click.testing import CliRunner

import sim_runtime
from helpers import DEMO, ROOT, demo_text
from pto_transpile import transpile
from pto_transpile.cli import main
from pto_transpile.preload import Auto, check_preload, parse_preload
from pto_transpile.simulate.autopreload import choose_preload, transpile_choosing
from sim_runtime.verify import VerifyReport, VerifyRow

ATTENTION = ROOT / "benchmarks" / "kernels" / "attention_kernel.py"


def test_auto_is_a_preload_value():
    assert parse_preload("auto") == Auto() == check_preload("AUTO")
    assert check_preload(Auto(seed=3)) == Auto(seed=3)


def test_transpile_never_runs_the_file_so_it_refuses_auto():
    for auto in ("auto", Auto()):
        try:
            transpile(demo_text(), preload=auto)
        except ValueError as exc:
            assert "choose_preload" in str(exc)
        else:
            raise AssertionError("transpile() accepted preload=auto")


def test_the_demo_gets_the_preload_with_fewest_cycles():
    result = transpile_choosing(demo_text(), preload=Auto(), path="seed_demo.py")
    choice = result.preload_choice
    simulated = [c for c in choice.candidates if c.verdict == "ok"]
    rejected = [c for c in choice.candidates if c.verdict == "rejected"]
    assert [c.preload for c in simulated] == [0, 1, 2] and [c.preload for c in rejected] == [3, 4]
    assert all(c.detail.startswith("PTO043") for c in rejected)  # too few tiles for that preload
    best = min(simulated, key=lambda c: c.cycles)
    assert [c for c in choice.candidates if c.chosen] == [best]
    # with per-pipe queues, the deeper ring hides more of the cube's loads than its fill costs
    assert choice.preload == best.preload == 2
    assert all(c.cycles < choice.serial_cycles for c in simulated)
    assert result.code == transpile(demo_text(), preload=2, path="seed_demo.py").code


def test_without_the_emulators_ops_the_kernels_own_preload_is_kept():
    # its vector function stores single fp32 lanes at 4-byte steps with a NORM store, which
    # needs a 32-byte aligned address: the emulator stops there
    text = ATTENTION.read_text(encoding="utf-8")
    result = transpile_choosing(text, path="attention.py")
    choice = result.preload_choice
    assert choice.preload is None and "cannot run kernel `attention_kernel`" in choice.note
    assert "not 32-byte aligned" in choice.note and "keeping the kernel's own preload" in choice.note
    assert result.code == transpile(text, path="attention.py").code


def _fake_verify(cycles: dict[int, int], verdicts: dict[int, str] | None = None):
    verdicts = verdicts or {}

    def verify(serial, codes, kernel, **kwargs):
        rows = [VerifyRow("serial", 1000, 1.0)]
        for label in codes:
            p = int(label.split("=")[1])
            rows.append(VerifyRow(label, cycles[p], 1.0, verdict=verdicts.get(p, "ok")))
        return VerifyReport(kernel, rows)
    return verify


def test_a_tie_goes_to_the_smaller_preload(monkeypatch):
    monkeypatch.setattr(sim_runtime, "verify", _fake_verify({0: 900, 1: 700, 2: 700}))
    assert choose_preload(demo_text()).preload == 1


def test_a_byte_order_mark_is_read_as_the_transpile_reads_it(monkeypatch):
    """(probe h131: "the file does not read: nothing to simulate", and the default preload kept)"""
    monkeypatch.setattr(sim_runtime, "verify", _fake_verify({0: 900, 1: 700, 2: 800}))
    assert choose_preload("\ufeff" + demo_text()).preload == 1


def test_a_candidate_the_emulator_finds_wrong_is_never_chosen(monkeypatch):
    monkeypatch.setattr(sim_runtime, "verify", _fake_verify({0: 900, 1: 500, 2: 700}, {1: "race"}))
    choice = choose_preload(demo_text())
    assert choice.preload == 2
    assert [c.verdict for c in choice.candidates if c.preload == 1] == ["race"]


def test_cli_prints_the_candidates_and_takes_simulation_settings(tmp_path):
    out = tmp_path / "o.py"
    r = CliRunner().invoke(main, [str(DEMO), "--preload", "auto", "--seed", "1", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "preload 1  cycles" in r.output and "<- chosen" in r.output
    assert out.read_text() == transpile(demo_text(), preload=2, path=str(DEMO)).code
    bad = CliRunner().invoke(main, [str(DEMO), "--preload", "auto", "--shape", "nope=4x4", "--check"])
    assert bad.exit_code == 2 and "'nope' is not a tensor parameter" in bad.output
    timeline = CliRunner().invoke(main, [str(DEMO), "--preload", "auto", "--timeline", str(tmp_path / "t.json")])
    assert timeline.exit_code == 2 and "--timeline only applies with --simulate" in timeline.output

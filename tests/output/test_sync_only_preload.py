"""`PipelineConfig(sync_only=True)` against a project's `preload` and an explicit `--preload`:
the project default gives way to the kernel, the command line wins with a note."""

from click.testing import CliRunner

from helpers import DEMO
from pto_transpile import transpile
from pto_transpile.cli import main

SYNC_ONLY = DEMO.read_text(encoding="utf-8").replace("PipelineConfig(preload=2)",
                                                     "PipelineConfig(preload=2, sync_only=True)")
NOTE = "kernel `pipeline_demo_kernel` is marked PipelineConfig(sync_only=True); --preload 2 overrides it"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _project(tmp_path, preload="2"):
    (tmp_path / "pyproject.toml").write_text(f"[tool.pto-transpile]\npreload = {preload}\n")
    src = tmp_path / "so.py"
    src.write_text(SYNC_ONLY, encoding="utf-8")
    return src


def _serial(tmp_path):
    out = tmp_path / "serial.py"
    assert run(tmp_path / "so.py", "--preload", "0", "-o", out).exit_code == 0
    return out.read_text()


def test_a_project_preload_leaves_a_sync_only_kernel_serial(tmp_path):
    src = _project(tmp_path)
    r = run(src, "-o", tmp_path / "out.py")
    assert r.exit_code == 0 and "sync_only" not in r.output, r.output
    assert (tmp_path / "out.py").read_text() == _serial(tmp_path)


def test_a_project_preload_list_leaves_a_sync_only_kernel_serial(tmp_path):
    src = _project(tmp_path, "[3]")
    assert run(src, "-o", tmp_path / "out.py").exit_code == 0
    assert (tmp_path / "out.py").read_text() == _serial(tmp_path)


def test_an_explicit_preload_overrides_sync_only_and_says_so(tmp_path):
    src = _project(tmp_path)
    r = run(src, "--preload", "2", "-o", tmp_path / "out.py")
    assert r.exit_code == 0 and NOTE in r.output, r.output
    assert (tmp_path / "out.py").read_text() != _serial(tmp_path)


def test_the_note_goes_to_stderr_beside_a_json_report(tmp_path):
    src = _project(tmp_path)
    r = run(src, "--preload", "2", "--format", "json", "-o", tmp_path / "out.py")
    assert r.exit_code == 0 and r.stdout.strip() == "[]" and NOTE in r.stderr, (r.stdout, r.stderr)


def test_no_note_when_the_override_keeps_the_kernel_serial(tmp_path):
    src = _project(tmp_path)
    for preload in ("0", "0,0"):
        r = run(src, "--preload", preload, "-o", tmp_path / "out.py")
        assert "overrides it" not in r.output, r.output


def test_transpile_takes_a_default_that_sync_only_overrides():
    serial = transpile(SYNC_ONLY, path="so.py", preload=0)
    default = transpile(SYNC_ONLY, path="so.py", preload=2, preload_is_default=True)
    assert default.code == serial.code and default.sync_only_overridden == []
    forced = transpile(SYNC_ONLY, path="so.py", preload=2)
    assert forced.code != serial.code and forced.sync_only_overridden == ["pipeline_demo_kernel"]


def test_auto_as_the_project_default_leaves_a_sync_only_kernel_serial_untuned(tmp_path):
    src = _project(tmp_path, '"auto"')
    r = run(src, "-o", tmp_path / "out.py")
    assert r.exit_code == 0 and "every kernel is marked PipelineConfig(sync_only=True): it keeps preload 0" in r.output
    assert "<- chosen" not in r.output and (tmp_path / "out.py").read_text() == _serial(tmp_path)


def test_an_explicit_auto_tunes_a_sync_only_kernel_and_says_so(tmp_path):
    src = _project(tmp_path)
    r = run(src, "--preload", "auto", "-o", tmp_path / "out.py")
    assert r.exit_code == 0 and "<- chosen" in r.output and NOTE.replace("2", "auto") in r.output, r.output

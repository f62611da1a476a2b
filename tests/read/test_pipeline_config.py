"""`PipelineConfig(**PIPE)` reads what the dict gives (probe h90).

`**PIPE` was taken for the positional preload: `PIPE = {"preload": 1}` was refused as "preload
must be an int >= 0 ..., got dict {'preload': 1}".
"""

from __future__ import annotations

from pathlib import Path

from pto_transpile import transpile

ROWS = (Path(__file__).resolve().parents[1] / "soundness" / "kernels" / "rows_two_stages.py").read_text()
CONFIG = "pipeline=pl.pipeline.PipelineConfig(preload=1)"


def _through(pipe: str) -> str:
    assert CONFIG in ROWS
    return ROWS.replace(CONFIG, "pipeline=pl.pipeline.PipelineConfig(**PIPE)").replace(
        "\n@pl.jit(", f"\nPIPE = {pipe}\n\n\n@pl.jit(", 1)


def _kernel(code: str) -> str:
    return code[code.index("def kern("):]


def test_a_dict_of_pipeline_options_gives_the_preload_and_sync_only():
    for pipe, preload in (('{"preload": 2}', 2), ('{"sync_only": True, "preload": 2}', 0), ("{}", 2)):
        result = transpile(_through(pipe), path="k.py")
        assert result.ok, [d.message for d in result.diagnostics]
        assert _kernel(result.code) == _kernel(transpile(ROWS, path="k.py", preload=preload).code), pipe


def test_a_dict_the_check_cannot_read_is_named():
    result = transpile(_through("dict(preload=1)"), path="k.py")
    assert [d.code for d in result.diagnostics if d.is_error] == ["PTO005"]
    assert "the `**` arguments of `PipelineConfig` are not compile-time constants" in result.diagnostics[0].message

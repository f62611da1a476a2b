"""What the output keeps: every comment, line endings, indentation style, untouched files."""

import io
import tokenize

import pytest

from helpers import demo_text
from pto_transpile import transpile


def comments(text):
    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]


COMMENTED = demo_text().replace(
    "    for ki in pl.range(0, N_ITER):\n        with pl.section_cube():\n            stage1(",
    "    for ki in pl.range(0, N_ITER):  # @C1 on the loop header\n"
    "        # @C2 before the first section\n"
    "        with pl.section_cube():  # @C3 on a section header\n"
    "            # @C4 inside a section, before its stage\n"
    "            stage1(",
).replace(
    "            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n",
    "            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)  # @C5 trailing a stage call\n"
    "            # @C6 at the end of a section\n"
    "        # @C7 between two sections\n",
).replace(
    "            stage4(ki, sub_id, out, out_vec_db)\n",
    "            stage4(ki, sub_id, out, out_vec_db)\n        # @C8 at the end of the loop body\n",
)


@pytest.mark.parametrize("preload", [0, 1, 2])
def test_every_comment_survives(preload):
    assert COMMENTED.count("# @C") == 8
    r = transpile(COMMENTED, preload=preload)
    assert r.ok, r.diagnostics
    out = comments(r.code)
    for c in comments(COMMENTED):
        assert c in out, c


def test_crlf_line_endings_are_kept():
    r = transpile(demo_text().replace("\n", "\r\n"), preload=2)
    assert r.ok
    assert r.code.replace("\r\n", "").count("\n") == 0


def test_tab_indentation_is_kept():
    text = demo_text().replace("    ", "\t")
    r = transpile(text, preload=2)
    assert r.ok
    body = r.code.split("def pipeline_demo_kernel")[1]
    assert "\t\t_pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 4]\n" in body
    assert "\n    " not in body.split("):\n", 1)[1]  # no space indentation slipped in


def test_plain_kernel_beside_a_pipeline_kernel_is_kept_byte_for_byte():
    # a plain kernel (no pipeline=, no stage calls) is not transformed, not even reformatted
    plain = "@pl.jit\ndef plain(x: pl.Tensor[[16, 16], pl.DT_FP32]):\n    y = 0x10  # hex stays hex\n"
    r = transpile(demo_text() + "\n\n" + plain, preload=2)
    assert r.ok and r.code.endswith("\n\n" + plain)


def test_file_with_only_plain_kernels_is_left_as_it_is_with_a_note():
    text = demo_text().split("@pl.pipeline.stage")[0] + (
        "@pl.jit\ndef plain(x: pl.Tensor[[16, 16], pl.DT_FP32]):\n    y = 0x10\n"
    )
    r = transpile(text)
    assert [(d.code, d.severity.value) for d in r.diagnostics] == [("PTO003", "note")]
    assert r.ok and r.code == text


def test_already_pipelined_example_is_current_output():
    """PTO060's first example is a literal copy of generated code; it must stay what we generate."""
    import skeleton as ex
    from pto_transpile.read.mark import PREFIX, stamped
    from pto_transpile.rules import registry

    def mark_of(text: str) -> str:
        return text[text.index(PREFIX) + len(PREFIX):][:16]

    code = transpile(ex.kernel(config="preload=1")).code
    example = registry()["PTO060"].invalid[0]
    # the example's mark holds the digest of the example's own text, `# E:` comment included
    assert example == stamped(code.replace("\ndef kernel(", "\ndef kernel(  # E: PTO060", 1), {mark_of(code): "kernel"})
    assert "already the output of pto-transpile" in transpile(example).diagnostics[0].message
    again = transpile(code)  # the generated file itself: left byte for byte, with a note
    assert again.ok and again.code == code and [d.code for d in again.diagnostics] == ["PTO060"]


def test_every_kernel_of_a_file_is_pipelined_with_its_own_preload():
    text = demo_text()
    kernel = text[text.index("@pl.jit(auto_mutex=True"):text.index("@pytest.mark.soc(950)")]
    second = kernel.replace("def pipeline_demo_kernel(", "def second_kernel(").replace("preload=2", "preload=1")
    r = transpile(text.replace("@pytest.mark.soc(950)", second + "@pytest.mark.soc(950)"))
    assert r.ok, r.diagnostics
    assert [(x.kernel, x.schedule.depth) for x in r.loops] == [("pipeline_demo_kernel", 4), ("second_kernel", 3)]
    assert r.code.count("pipeline=") == 0

"""PTO089: a tiling-key field or `datatype=` name that collides with a module name, a kernel
parameter or (for a `datatype=` name) a key field, which PyPTO's front end refuses.

A hostile probe had pto-transpile accept, exit 0 and write both of these: a module
`ApplyRelu = 0` beside the key field `ApplyRelu` of the production-style example, and a
module constant named as a `datatype=` name. The kernels here are edits of that example."""

from __future__ import annotations

from click.testing import CliRunner

from helpers import ROOT
from pto_transpile import transpile
from pto_transpile.cli import main

EXAMPLE = ROOT / "examples" / "tiled_scale.py"
TEXT = EXAMPLE.read_text(encoding="utf-8")
DECORATOR = "@pl.jit(auto_mutex=True, tiling_key=EpilogueKey,"
WITH_DATATYPE = TEXT.replace(DECORATOR, DECORATOR + ' datatype={"out": "out_dtype"},')


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def collisions(text: str) -> list[tuple[str, str]]:
    """(the text of the line reported, the message) of each PTO089 diagnostic."""
    lines = text.splitlines()
    return [(lines[d.line - 1].strip(), d.message) for d in transpile(text, path="k.py").diagnostics
            if d.code == "PTO089"]


def test_the_probe_module_constant_named_as_the_key_field_fails_the_command(tmp_path):
    path = tmp_path / "tiled_scale.py"
    path.write_text(edit(TEXT, "BLOCK = 32  #", "ApplyRelu = 0\nBLOCK = 32  #"), encoding="utf-8")
    out = tmp_path / "out.py"
    r = CliRunner().invoke(main, [str(path), "-o", str(out)], catch_exceptions=False)
    assert r.exit_code == 1 and not out.exists()
    assert "error[PTO089]" in r.output and "module-level `ApplyRelu` collides with the tiling-key field " \
        "`EpilogueKey.ApplyRelu` of kernel `tiled_scale_kernel`" in r.output, r.output


def test_the_probe_module_constant_named_as_a_datatype_name_is_refused():
    text = edit(WITH_DATATYPE, "BLOCK = 32  #", "out_dtype = pl.DT_FP32\nBLOCK = 32  #")
    assert collisions(text) == [("out_dtype = pl.DT_FP32", "module-level `out_dtype` collides with the `datatype=` "
                                 "name `out_dtype` of kernel `tiled_scale_kernel`, which the JIT binds in every "
                                 "function of the file: PyPTO refuses the kernel")]


def test_the_example_with_distinct_names_is_accepted():
    assert collisions(TEXT) == [] and collisions(WITH_DATATYPE) == []
    assert transpile(WITH_DATATYPE, path="k.py").code is not None


def test_every_kind_of_module_binding_collides():
    """An import, a `def`, a `class` and a binding in a module-level block are module names too."""
    cases = {"import": ("import os", "import os as out_dtype", "import os as out_dtype"),
             "def": ("def epilogue(dst, src, scale):", "def out_dtype():\n    pass\n\n\ndef epilogue(dst, src, scale):",
                     "def out_dtype():"),
             "class": ("class EpilogueKey:", "class ApplyRelu:\n    pass\n\n\nclass EpilogueKey:", "class ApplyRelu:"),
             "try": ("BLOCK = 32  #", "try:\n    ApplyRelu = 0\nexcept ImportError:\n    pass\nBLOCK = 32  #",
                     "ApplyRelu = 0")}
    for old, new, line in cases.values():
        (found,) = collisions(edit(WITH_DATATYPE, old, new))
        assert found[0] == line, found


def test_a_name_no_statement_of_the_import_binds_is_no_collision():
    """A branch the import never takes, an annotation without a value, a function's local; a name
    only `if TYPE_CHECKING:` imports, one deleted after its binding, an `except ... as` name (unbound
    where the handler ends): refused before (probe h238)."""
    for new in ("if False:\n    ApplyRelu = 0\n", "ApplyRelu: int\n",
                "def helper():\n    ApplyRelu = 0\n    return ApplyRelu\n",
                "if TYPE_CHECKING:\n    from mymod import ApplyRelu\n",
                "if typing.TYPE_CHECKING:\n    from mymod import ApplyRelu\n",
                "ApplyRelu = 0\ndel ApplyRelu\n",
                "try:\n    import mymod\nexcept ImportError as ApplyRelu:\n    pass\n"):
        assert collisions(edit(TEXT, "BLOCK = 32  #", new + "BLOCK = 32  #")) == [], new


def test_a_module_name_after_the_key_class_is_reported_where_it_is_bound():
    """The class body's field was taken for the module's first binding of the name (probe h238)."""
    text = edit(TEXT, "\n\n@pl.jit(auto_mutex=True, tiling_key=EpilogueKey,",
                "\nApplyRelu = 0\n\n\n@pl.jit(auto_mutex=True, tiling_key=EpilogueKey,")
    assert [line for line, _ in collisions(text)] == ["ApplyRelu = 0"]
    # bound again after a `del`: a module name again
    again = edit(TEXT, "BLOCK = 32  #", "ApplyRelu = 0\ndel ApplyRelu\nApplyRelu = 1\nBLOCK = 32  #")
    assert [line for line, _ in collisions(again)] == ["ApplyRelu = 0"]


def test_a_datatype_name_that_is_no_identifier_is_refused():
    """PyPTO takes a `datatype=` name only where it is a valid identifier (probe h238: accepted)."""
    for name in ("out-dtype", "class", "1st"):
        ((line, message),) = collisions(edit(WITH_DATATYPE, '"out_dtype"', f'"{name}"'))
        assert f'"{name}"' in line and f"`datatype=` name `{name}`" in message and "no Python identifier" in message


def test_a_parameter_named_as_the_key_field_or_a_datatype_name():
    key = edit(TEXT, "    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    ApplyRelu: pl.DT_INT32,\n")
    assert collisions(key) == [("ApplyRelu: pl.DT_INT32,", "parameter `ApplyRelu` of kernel `tiled_scale_kernel` "
                                "collides with its tiling-key field `EpilogueKey.ApplyRelu`: PyPTO refuses the kernel")]
    dtype = edit(WITH_DATATYPE, '"out_dtype"', '"w"')
    assert [line for line, _ in collisions(dtype)] == ["w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],"]


def test_a_datatype_name_named_as_the_key_field_is_reported_where_it_is_written():
    text = edit(WITH_DATATYPE, '"out_dtype"', '"ApplyRelu"')
    (d,) = [d for d in transpile(text, path="k.py").diagnostics if d.code == "PTO089"]
    line = text.splitlines()[d.line - 1]
    assert line[d.column - 1:].startswith('"ApplyRelu"}'), line
    assert "`datatype=` name `ApplyRelu`" in d.message and "`EpilogueKey.ApplyRelu`" in d.message
    assert [text.splitlines()[r.line - 1].strip() for r in d.related] == [
        "ApplyRelu = TilingKeyField(bits=1, values=[0, 1])"]


def test_two_kernels_of_one_key_are_named_in_one_diagnostic():
    start = TEXT.index(DECORATOR)
    end = TEXT.index("\n\n\n@pytest.mark.soc")
    second = TEXT[start:end].replace("def tiled_scale_kernel(", "def tiled_scale_kernel_2(")
    text = edit(TEXT[:end] + "\n\n\n" + second + TEXT[end:], "BLOCK = 32  #", "ApplyRelu = 0\nBLOCK = 32  #")
    assert [m for _, m in collisions(text)] == [
        "module-level `ApplyRelu` collides with the tiling-key field `EpilogueKey.ApplyRelu` of kernels "
        "`tiled_scale_kernel` and `tiled_scale_kernel_2`, which the JIT binds in every function of the file: PyPTO "
        "refuses the kernel"]


def test_a_name_that_may_hold_no_field_is_left_to_the_instances_rule():
    """`Mode = F(...)` with `F` imported may or may not be a field: PTO071 refuses its instances."""
    text = edit(TEXT, "class EpilogueKey:\n", "class EpilogueKey:\n    Mode = make_field()\n")
    text = edit(text, "from pypto_pro.runtime.tilingkey import TilingKeyField\n",
                "from pypto_pro.runtime.tilingkey import TilingKeyField\nfrom fields import make_field\n")
    text = edit(text, "BLOCK = 32  #", "Mode = 0\nBLOCK = 32  #")
    codes = {d.code for d in transpile(text, path="k.py").diagnostics}
    assert "PTO089" not in codes and "PTO071" in codes, codes

"""The soundness check misses no emitted sync: deleting any one set or wait of the demo's
pipelined kernel (preload 2) is reported as unsound."""

from __future__ import annotations

import libcst as cst
import pytest

from helpers import demo_text
from pto_transpile import transpile
from pto_transpile.emit.rewrite import KernelRewriter
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.read.walk import iter_nodes
from pto_transpile.soundness.check import check_kernel

KERNEL = "pipeline_demo_kernel"


def _syncs(function: cst.FunctionDef) -> list[cst.SimpleStatementLine]:
    return [s for s in iter_nodes(function) if isinstance(s, cst.SimpleStatementLine)
            and "_cross_core(" in cst.Module([]).code_for_node(s)]


@pytest.fixture(scope="module")
def setup():
    text = demo_text()
    file = read(SourceFile.parse(text, "seed_demo.py"))
    kernel = next(k for k in file.kernels if k.name == KERNEL)
    generated = cst.parse_module(transpile(text, preload=2, path="seed_demo.py").code)
    function = next(s for s in generated.body if isinstance(s, cst.FunctionDef) and s.name.value == KERNEL)
    return file, kernel, function, _syncs(function)


def test_the_generated_kernel_is_proven(setup):
    file, kernel, function, syncs = setup
    assert check_kernel(file, kernel, function) == []
    assert len(syncs) == 34


@pytest.mark.parametrize("index", range(34))
def test_deleting_any_set_or_wait_is_reported(setup, index):
    file, kernel, function, syncs = setup
    target = syncs[index]  # replaced by `pass`, only the path down to it rebuilt
    mutated = function.visit(KernelRewriter(function, {target: cst.SimpleStatementLine([cst.Pass()])}))
    problems = check_kernel(file, kernel, mutated)
    assert problems, f"deleting `{cst.Module([]).code_for_node(target).strip()}` went unnoticed"

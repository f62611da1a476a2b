from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
`pto-transpile --check -o FILE` (or `--check -o DIR/`): the output file is missing, or its
text differs from what pto-transpile would write now. The position is the first line that
differs, and the input it is the output of is named (a related location in the machine
formats: the input is what a pull request changed, the output often not). With a directory
among the inputs, a file under the output folder that mirrors it that carries pto-transpile's
mark and whose input (the file at its path under the directory) does not exist is reported
too: the input was renamed, moved or deleted (a run without `--check` notes it). A walk of the
working directory with `-o DIR/` on the command line looks for none (other folders' runs may
share DIR); pyproject.toml's `output` is the project's own. Reported by the CLI with exit
status 1, in every `--format`.

## Why it matters for pipelining
A checked-in pipelined kernel that no longer matches its serial source runs code nobody
reviewed: the serial kernel changed (or pto-transpile did) and the generated file was not
regenerated. CI should fail on it the way it fails on a formatting check.

## Example
```python
# pto-transpile kernel.py --check -o kernel_pipelined.py   (after kernel.py changed)
```

## Use instead
```python
# pto-transpile kernel.py -o kernel_pipelined.py            (regenerate, review, commit)
```
"""

# no example kernels: produced by the CLI, not by transpile(): see tests/rules/test_rules.py NO_EXAMPLES


RULE = Rule(
    code=codes.OUTPUT_OUT_OF_DATE,
    name="output-out-of-date",
    title="A generated file is missing or out of date",
    message="`{path}` {detail}: pto-transpile would change it (it is the output of `{input}`)",
    hint="Regenerate it (run the same command without --check) and review the difference (--check --diff)",
    messages={"missing": "`{path}` does not exist: pto-transpile would write it (the output of `{input}`)",
              "orphan": "`{path}` is pto-transpile's output of `{input}`, which does not exist (renamed, moved or "
                        "deleted?)",
              "no-kernel": "`{path}` is pto-transpile's output of `{input}`, which holds no kernel to pipeline now"},
    hints={"missing": "Generate it: run the same command without --check",
           "orphan": "Delete it (`git rm`), or restore its input",
           "foreign": "Regenerate it with the same command without --check and with --force: the file has no "
                      "`# Written by pto-transpile` mark, which a plain run leaves alone; then review the "
                      "difference (`git diff`)"},
    phase="analysis",
    seed="a checked-in pipelined kernel is what pto-transpile writes for its serial source",
    doc=DOC,
    raised_by=("pto_transpile/output/run.py",),
)

"""`python -m pto_transpile`: the same command as `pto-transpile`."""

from pto_transpile.cli import main

main(prog_name="pto-transpile")

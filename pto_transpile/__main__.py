"""`python -m pto_transpile`: the same command as `pto-transpile`."""

from pto_transpile.entry import main

main()

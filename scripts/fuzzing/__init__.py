"""The mutation fuzzer behind `scripts/fuzz.py`: mutators, the oracle, worker pool, shrinker, summary.

One module per job: `anatomy` reads a kernel file's structure, `mutators` make one-place
edits of it, `oracle` transpiles and runs a mutant on the emulator and names what went
wrong, `pool` runs that in killable worker processes, `shrink` reduces a failing mutant,
`summary` tallies and prints, `campaign` ties them together.
"""

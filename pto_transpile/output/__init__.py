"""What the command does with each file's result, and what it writes and shows.

`run` (each file reported, simulated, checked or written, in order; the exit status) with
its `settings`, `files` (many inputs on every core, in order), `write` (atomic, never over
the input), `stale` (`--check`/`--diff` against an existing output), `config`
(pyproject.toml defaults), `render/` (text, json, sarif, github), `report/` (the `--report`
HTML page).
"""

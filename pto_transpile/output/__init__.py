"""What the command writes and shows: files, diagnostics, reports.

`files` (many inputs on every core, in order), `write` (atomic, never over the input),
`stale` (`--check`/`--diff` against an existing output), `config` (pyproject.toml defaults),
`render/` (text, json, sarif, github), `report/` (the `--report` HTML page).
"""

"""Step 1, read: the kernel file's text in, one model of it out, without importing or running it.

In the order a text goes through them: `inputs` (a file of sane size) and `discover`/`excludes`
(the files a directory holds), `layout` (Python's parser: limits, statement bounds),
`partial` and `source` (libcst parses what the analysis reads; `printing` and `kept` print
what a rewrite changed), `reader` (the model:
`plnames`, `meaning`, `modulenames`, `consteval`, `compiletime`, `deadcode`, `declarations`,
`kinds`, `localnames`, `vfbody`, over `walk`), `model` (what it holds) and `pipelined`
(kernels already pipelined).
"""

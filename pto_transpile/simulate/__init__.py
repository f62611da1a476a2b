"""On the emulator (sim_runtime), which runs the kernel file's Python: only on request.

`compare` (`--simulate`: serial against pipelined), `autopreload` (`--preload auto`),
`provenance` (where each generated line comes from), `pipeview` (each loop's runs and bound).
"""

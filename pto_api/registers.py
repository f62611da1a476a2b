"""Vector-register facts of the A5 vector core, for `@pl.vector_function` code.

A register is 256 bytes (64 fp32 lanes, 128 fp16 lanes, ...); a block-strided store
(`data_copy_mode=DATA_BLOCK_COPY`) cuts it into 8 blocks of 32 bytes; a broadcast load
(`dist=BRC_B8/B16/B32`) reads one element of 1, 2 or 4 bytes. Element offsets inside a
vector function (`tile + k`, the `offset` of `load_align`/`store_align`) count elements of
the tile's dtype.
"""

REG_BYTES = 256
BLOCK_BYTES = 32
BLOCKS_PER_REG = REG_BYTES // BLOCK_BYTES
#: `pl.MaskPattern` members: all lanes, none, the first n (`VLn`), every third or fourth (`M3`,
#: `M4`), the first half or quarter (`H`, `Q`)
MASK_PATTERNS = ("ALL", "ALLF", "VL1", "VL2", "VL3", "VL4", "VL8", "VL16", "VL32", "VL64", "VL128",
                 "M3", "M4", "H", "Q")
#: bytes a broadcast load reads, per `pl.LoadDist` member
BROADCAST_BYTES = {"BRC_B8": 1, "BRC_B16": 2, "BRC_B32": 4}
#: The register dtype `vf.full` gives a scalar when no `dtype=` names one: an untyped float is
#: fp32, an integer int64. A NORM store writes whole lanes of its register's dtype, so this
#: width, not the tile's element, decides the bytes such a store reaches.
FLOAT_LITERAL_DTYPE, INT_LITERAL_DTYPE = "DT_FP32", "DT_INT64"

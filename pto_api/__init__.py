"""Facts about the PyPTO Pro (`pl`) hardware API, shared by the transpiler and the emulator.

Only data lives here: which tile argument of each block op is read or written, which pipe
an op issues on, memory spaces. Both `pto_transpile` (to place cross-core sync) and
`sim_runtime` (to model pipes and detect races) read these tables, so the two cannot drift.
"""

from pto_api.memory import CROSS_CORE_SPACES, MEMORY_SPACES
from pto_api.ops import (
    BAR_ALL_PIPES,
    BLOCK_OP_ROLES,
    DESCRIPTOR_ONLY_OPS,
    OP_PIPE,
    PIPES,
    READ,
    READ_WRITE,
    SCALAR_PIPE,
    VF_OP_ROLES,
    WRITE,
    dump_pipe,
    move_pipe,
    op_pipe,
    op_roles,
    store_pipe,
)
from pto_api.registers import BLOCK_BYTES, BLOCKS_PER_REG, BROADCAST_BYTES, REG_BYTES
from pto_api.sync import CROSS_CORE_SYNC_MODES, EVENT_IDS, MAX_OUTSTANDING_SETS, MUTEX_IDS, mutex_slot_error

__all__ = [
    "BLOCK_BYTES",
    "BLOCKS_PER_REG",
    "BROADCAST_BYTES",
    "REG_BYTES",
    "BLOCK_OP_ROLES",
    "CROSS_CORE_SPACES",
    "CROSS_CORE_SYNC_MODES",
    "EVENT_IDS",
    "MAX_OUTSTANDING_SETS",
    "MUTEX_IDS",
    "mutex_slot_error",
    "READ",
    "READ_WRITE",
    "WRITE",
    "DESCRIPTOR_ONLY_OPS",
    "MEMORY_SPACES",
    "OP_PIPE",
    "PIPES",
    "BAR_ALL_PIPES",
    "SCALAR_PIPE",
    "VF_OP_ROLES",
    "dump_pipe",
    "move_pipe",
    "op_pipe",
    "op_roles",
    "store_pipe",
]

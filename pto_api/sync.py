"""Synchronisation facts of the A5 core: event ids, counter depth, mutex ids, sync modes."""

from __future__ import annotations

#: Ids of cross-core events (`set_cross_core`/`wait_cross_core`) and of intra-core flags
#: (`sync_src`/`sync_dst`): 16 per direction (per pipe pair for intra-core flags).
EVENT_IDS = range(16)

#: A cross-core event counter holds at most this many sets no wait has consumed yet; one
#: more faults the device.
MAX_OUTSTANDING_SETS = 15

#: Ids of auto_mutex buffer tokens (`mutex_ids` of `pl.make_tile_group`).
MUTEX_IDS = range(32)

#: `pl.CrossCoreSyncMode` members and their values.
CROSS_CORE_SYNC_MODES = {"INTER_BLOCK": 0, "INTER_SUBBLOCK": 1, "INTRA_BLOCK": 2, "UNICAST_BLOCK": 3}

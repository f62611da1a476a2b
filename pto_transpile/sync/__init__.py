"""Step 2, sync: which stage touches what, and the syncs that order it.

`scan` (each stage's accesses), `schedule` (delays and ring depth), `graph` (the sync graph:
RAW/WAR edges per lane, cycles), `plan` (event ids, waits and sets, prefire and drain),
`hazards` (overwrites the syncs leave open), `ctxring` and `ctxtypes` (what travels to a
delayed stage, and its type).
"""

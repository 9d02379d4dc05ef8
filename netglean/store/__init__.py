"""The run store: every background run, its log, its checkpoint and its result, kept across
processes.

Tools and the runs manager see only its interface: the Protocols of netglean.store.base (one per
concern; ``RunStore`` is all of them) and the filter language of netglean.store.filters (a tree,
never SQL); ``open_store`` (netglean.store.open) picks the backend: the embedded SQLite one
(netglean.store.sqlite) or PostgreSQL (netglean.store.postgresql). Only this package builds SQL or
imports a database driver.
"""

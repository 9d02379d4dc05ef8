"""The run store: every background run, its log, its checkpoint and its result, kept across processes.

Tools and the runs manager see only ``RunStore`` (netglean.store.base); ``open_store`` picks the backend (the
embedded SQLite one today). Only this package imports a database driver.
"""

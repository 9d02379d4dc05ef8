"""The run store (netglean.store)."""

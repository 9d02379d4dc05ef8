"""The seed every property test draws from: fixed, so a run can be replayed, and printed in the
report's header."""

from __future__ import annotations

import os

SEED = int(os.environ.get("NETGLEAN_FUZZ_SEED", "20261129"))
"""Every fuzz run draws from this seed; set NETGLEAN_FUZZ_SEED to replay another run."""
REPLAY = f"replay with NETGLEAN_FUZZ_SEED={SEED}"

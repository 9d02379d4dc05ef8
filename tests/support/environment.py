"""The environment every test process and every server it spawns runs under."""

from __future__ import annotations

import tempfile

STORE = tempfile.mkdtemp(prefix="netglean-tests-")
"""The run store's folder for a test session (and XDG data home: a settings object built without the
environment puts its store there too), never the user's own."""
TEST_ENVIRONMENT = {
    "NETGLEAN_FETCH_ONLY_HOSTS": "127.0.0.1",
    "NETGLEAN_DATA_DIR": STORE,
    "XDG_DATA_HOME": STORE,
}
"""Tests touch only 127.0.0.1: every fetch, in this process and in every server it spawns, is
refused before any DNS lookup unless it is for 127.0.0.1, whatever URL a test or a fuzzer makes up
(tests/conftest.py sets it); runs go to the session's own store."""
FUZZ_ENVIRONMENT = {
    **TEST_ENVIRONMENT,
    "NETGLEAN_ALLOW_PRIVATE_HOSTS": "1",
    "NETGLEAN_HOST_INTERVAL": "0",
    "NETGLEAN_SESSION_BUDGET": "1000000000",
    "NETGLEAN_CALL_TIMEOUT": "30",
    "NETGLEAN_BROWSER_PATH": "netglean-fuzzing-has-no-chromium",
    # the fuzz world's first project: a call that names none runs it
    "NETGLEAN_PROJECT_ID": "0" * 32,
}
"""The fuzzer's servers: loopback allowed (the fuzz site is on 127.0.0.1), still nothing but
127.0.0.1, no spacing between requests and a budget no run spends; and no Chromium, so a browser
strategy is the declared not_available (a render costs some 300 ms, and half the generated calls ask
for one: minutes a run). What the browser serves is held to the same published schemas by every call
tests/test_browser_tools.py makes (the runner checks each envelope against its tool's output
schema), and the tools that only drive the browser are fuzzed against a server that has it
(BROWSER_FUZZ_ENVIRONMENT)."""
BROWSER_FUZZ_ENVIRONMENT = {"NETGLEAN_BROWSER_ACTION_TIMEOUT": "0.2"}
"""What the fuzzer's server for the browser tools changes: Chromium on PATH, and no action waiting
more than 0.2 s for an element a generated selector never finds."""

"""A spawned `netglean` that reaches fixture sites as public https origins, for a seed's real client
to test a strict policy (Rebilder's: public https only) against a real server process.

netglean.net.testing's double (a fake DNS giving each fixture host a public address, connections to
it routed to the fixture's port on 127.0.0.1) goes into the child through a ``sitecustomize`` module
on its PYTHONPATH, which gives it to every Fetcher the child makes, with the test CA's trust.
Nothing else of the child changes: its settings, its profile's policy and its address checks are its
own, and a name the fake DNS does not know cannot be reached.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.support import tls_fixture

VARIABLE = "NETGLEAN_TESTS_PUBLIC_NETWORK"
"""The child's network double, as JSON: the host names it answers, the fixture's port, the CA file
to trust."""

_SITECUSTOMIZE = f'''"""Written by tests/support/public_network.py: every Fetcher here gets the
fake public network."""

import json
import os
import ssl

_CONFIG = json.loads(os.environ.get({VARIABLE!r}, "null"))
if _CONFIG is not None:
    from netglean.net import fetcher as _fetcher
    from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend

    _original = _fetcher.Fetcher.__init__

    def _init(self, policy, **kwargs):
        kwargs.setdefault("resolver", FakeDNS({{host: [PUBLIC] for host in _CONFIG["hosts"]}}))
        kwargs.setdefault("dial", LoopbackBackend(_CONFIG["port"], tls_port=_CONFIG["port"]))
        kwargs.setdefault("ssl_context", ssl.create_default_context(cafile=_CONFIG["ca_file"]))
        _original(self, policy, **kwargs)

    _fetcher.Fetcher.__init__ = _init
'''


def environment(
    folder: Path, tls: tls_fixture.TestTLS, port: int, hosts: Sequence[str]
) -> Mapping[str, str]:
    """The variables a child needs to see ``hosts`` as public https origins served by the TLS
    fixture on ``port`` (``folder`` holds the sitecustomize module)."""
    (folder / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    config = {"hosts": list(hosts), "port": port, "ca_file": str(tls.ca_file)}
    return {"PYTHONPATH": str(folder), VARIABLE: json.dumps(config)}

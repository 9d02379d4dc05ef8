"""The local index of scans in the store, on every backend: kept by domain and by run, latest
first, paged; retention drops old evidence and keeps the history."""

from __future__ import annotations

import anyio

from netglean.store.base import RunStore
from tests.support.stores import RUN, scan_record


def test_scans_are_kept_by_domain_and_run_latest_first_and_prune_drops_only_old_evidence(
    store: RunStore,
) -> None:
    async def work() -> None:
        await store.record_scan(scan_record("a" * 32, 100.0), b'{"old": 1}')
        await store.record_scan(scan_record("b" * 32, 200.0, run_id=RUN), b'{"new": 2}')
        await store.record_scan(scan_record("c" * 32, 150.0, domain="other.test"), b"{}")
        found, total = await store.scans(domain="shop.test", limit=10)
        assert total == 2 and [s.id for s in found] == ["b" * 32, "a" * 32]
        assert found[0].result["grade"] == "B"
        assert [s.id for s in (await store.scans(run_id=RUN))[0]] == ["b" * 32]
        paged, _ = await store.scans(domain="shop.test", offset=1, limit=1)
        assert [s.id for s in paged] == ["a" * 32]
        assert await store.scan_evidence("a" * 32) == b'{"old": 1}'
        await store.prune(120.0)
        assert await store.scan_evidence("a" * 32) is None
        assert await store.scan_evidence("b" * 32) == b'{"new": 2}'
        assert (await store.scans(domain="shop.test"))[1] == 2  # the history stays

    anyio.run(work)

"""What a handler may use besides its arguments: the operator's settings, the registry and the fetcher."""

from __future__ import annotations

from typing import TYPE_CHECKING

from netglean.registry import Registry
from netglean.settings import Settings

if TYPE_CHECKING:
    from netglean.fetch import Fetcher


class Context:
    """Shared by every call of one server. The fetcher is built on first use: listing tools never pays for httpx."""

    def __init__(self, settings: Settings, registry: Registry, fetcher: Fetcher | None = None) -> None:
        self.settings = settings
        self.registry = registry
        self._fetcher = fetcher

    @property
    def fetcher(self) -> Fetcher:
        if self._fetcher is None:
            from netglean.fetch import Fetcher, FetchPolicy

            self._fetcher = Fetcher(FetchPolicy.from_settings(self.settings))
        return self._fetcher

    async def aclose(self) -> None:
        if self._fetcher is not None:
            await self._fetcher.aclose()

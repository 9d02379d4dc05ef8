"""The runtime's public surface is pinned: changing it is a deliberate act."""

from __future__ import annotations

import netglean


def test_exported_members() -> None:
    assert netglean.__all__ == sorted(netglean.__all__)
    assert netglean.__all__ == [
        "ArgumentsTooLarge",
        "CallTimeout",
        "ConfigurationError",
        "Context",
        "DONE",
        "Envelope",
        "Guidance",
        "HandlerContractError",
        "HandlerCrashed",
        "InvalidArguments",
        "NetgleanError",
        "Outcome",
        "SETTINGS",
        "Settings",
        "ToolError",
        "__version__",
        "say",
    ]
    for name in netglean.__all__:
        assert hasattr(netglean, name)


def test_every_tool_error_maps_to_a_published_code() -> None:
    from netglean.core.envelope import ERROR_SCHEMA

    codes = set(ERROR_SCHEMA["properties"]["code"]["enum"])
    for cls in (
        netglean.InvalidArguments,
        netglean.ArgumentsTooLarge,
        netglean.CallTimeout,
        netglean.HandlerContractError,
        netglean.HandlerCrashed,
        netglean.ToolError,
    ):
        assert cls.code in codes
        assert issubclass(cls, netglean.NetgleanError)

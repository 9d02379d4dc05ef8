"""Operator settings: declared once as data, read once at start-up, frozen afterwards.

The CLI flags, the environment variables (``NETGLEAN_<NAME>``), the docs and the
policy resource are all derived from ``SETTINGS``. Tool arguments never change them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from netglean.errors import ConfigurationError

LOG_LEVELS = ("debug", "info", "warning", "error")


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    kind: type
    default: Any
    help: str
    minimum: float | None = None
    choices: tuple[str, ...] = ()

    @property
    def env(self) -> str:
        return f"NETGLEAN_{self.name.upper()}"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def parse(self, raw: str, origin: str) -> Any:
        """Turn a flag or environment string into a typed value, or say exactly what is wrong."""
        try:
            if self.kind is bool:
                lowered = raw.strip().lower()
                if lowered not in {"1", "0", "true", "false", "yes", "no", "on", "off"}:
                    raise ValueError(raw)
                value: Any = lowered in {"1", "true", "yes", "on"}
            else:
                value = self.kind(raw)
        except ValueError:
            raise ConfigurationError(f"{origin}: {raw!r} is not a valid {self.kind.__name__}") from None
        self.check(value, origin)
        return value

    def check(self, value: Any, origin: str) -> None:
        if self.choices and value not in self.choices:
            raise ConfigurationError(f"{origin}: {value!r} is not one of {', '.join(self.choices)}")
        if self.minimum is not None and value < self.minimum:
            raise ConfigurationError(f"{origin}: {value!r} is below the minimum {self.minimum:g}")


SETTINGS: tuple[Setting, ...] = (
    Setting("call_timeout", float, 60.0, "Seconds a tool call may run before it ends with a timeout error.", 0.001),
    Setting("log_level", str, "warning", "Lowest level of log lines written to stderr.", choices=LOG_LEVELS),
    Setting("max_argument_bytes", int, 1_048_576, "Largest tool-call arguments accepted, as JSON bytes.", 1),
    Setting("max_concurrent_calls", int, 8, "Tool calls that may run at once; later ones wait their turn.", 1),
)


@dataclass(frozen=True, slots=True)
class Settings:
    """One field per entry of ``SETTINGS`` (a test pins that); defaults live only there."""

    call_timeout: float
    log_level: str
    max_argument_bytes: int
    max_concurrent_calls: int

    @classmethod
    def load(cls, overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """Defaults, then ``NETGLEAN_*`` environment variables, then explicit overrides (CLI flags)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for setting in SETTINGS:
            values[setting.name] = setting.default
            if setting.env in env:
                values[setting.name] = setting.parse(env[setting.env], setting.env)
            given = (overrides or {}).get(setting.name)
            if given is not None:
                setting.check(given, setting.flag)
                values[setting.name] = given
        return cls(**values)

    def policy(self) -> dict[str, bool | int | float]:
        """The settings as booleans and numbers only: safe to show to any client."""
        return {f.name: getattr(self, f.name) for f in fields(self) if not isinstance(getattr(self, f.name), str)}

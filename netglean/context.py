"""What a handler may use besides its arguments: the operator's settings and the registry."""

from __future__ import annotations

from dataclasses import dataclass

from netglean.registry import Registry
from netglean.settings import Settings


@dataclass(frozen=True, slots=True)
class Context:
    settings: Settings
    registry: Registry

"""A feed config's problems: each at the JSON pointer of its value, with a sentence a person understands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netglean.core.errors import InvalidFeedConfig


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path or "/", "message": self.message}


def invalid(found: list[Problem], warnings: tuple[Problem, ...] = ()) -> InvalidFeedConfig:
    first = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return InvalidFeedConfig(
        f"the feed config is not valid: {first.path or '/'}: {first.message}{more}",
        detail={"errors": [p.as_dict() for p in found], "warnings": [p.as_dict() for p in warnings]},
    )


def json_pointer(parts: Any) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)

"""A feed config's problems: each at the JSON pointer of its value, with a sentence a person
understands.

A config is the caller's text, up to the argument cap: a message quotes at most QUOTED_CHARS of any
value or key in it (``quote_value``, ``quote_name``), and an answer lists at most MAX_REPORTED
problems and warnings, counting the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from netglean.core.errors import InvalidFeedConfig
from netglean.core.validation import quote_name, report_problems, shorten_message


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a config or a project's definition: where (a JSON pointer), and what."""

    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path or "/", "message": self.message}


def list_problems(found: Sequence[Problem], key: str) -> dict[str, Any]:
    """``found`` as an answer lists them under ``key`` (errors, warnings): the first MAX_REPORTED,
    and ``more_<key>`` counting the rest when there are more."""
    shown, more = report_problems(found)
    out: dict[str, Any] = {key: [p.as_dict() for p in shown]}
    if more:
        out[f"more_{key}"] = more
    return out


def invalid(found: list[Problem], warnings: Sequence[Problem] = ()) -> InvalidFeedConfig:
    first = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return InvalidFeedConfig(
        shorten_message(f"the feed config is not valid: {first.path or '/'}: {first.message}")
        + more,
        detail={**list_problems(found, "errors"), **list_problems(warnings, "warnings")},
    )


def json_pointer(parts: Any) -> str:
    """The pointer of ``parts``, each key cut as ``quote_name`` cuts it: a 50,000-character key is
    not quoted whole."""
    return "".join(
        "/" + quote_name(str(part)).replace("~", "~0").replace("/", "~1") for part in parts
    )

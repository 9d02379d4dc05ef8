"""What a call may ask of the operator's policy: less, never more. Crawlberg's clients send
robots.txt, concurrency and size arguments; each is honoured when it tightens what the operator set
and refused by name (OperatorPolicy, ``detail.setting``) when it would loosen it, rather than being
ignored or taken as an unknown argument."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from netglean.core.errors import OperatorPolicy
from netglean.core.settings import SETTINGS

if TYPE_CHECKING:
    from netglean.net.fetcher import Fetcher

_SETTINGS = {setting.name: setting for setting in SETTINGS}


def _refusal(argument: str, setting: str, message: str, **facts: Any) -> OperatorPolicy:
    named = _SETTINGS[setting]
    return OperatorPolicy(
        f"{message} (the operator's {setting} setting: {named.env}, {named.flag})",
        detail={
            "argument": argument,
            "setting": setting,
            "env": named.env,
            "flag": named.flag,
            **facts,
        },
    )


def robots_fetcher(fetcher: Fetcher, respect_robots_txt: bool | None) -> Fetcher:
    """The fetcher a call uses: obeying robots.txt when it asks to (even where the operator ignores
    it); asking not to where the operator obeys it is refused."""
    if respect_robots_txt is None:
        return fetcher
    if respect_robots_txt:
        return fetcher.obeying_robots()
    if fetcher.policy.obey_robots:
        raise _refusal(
            "respect_robots_txt",
            "ignore_robots",
            "respect_robots_txt false would loosen the operator's policy: this server obeys "
            "robots.txt; leave it out or set it true",
            operator_value=False,
        )
    return fetcher


def concurrency(asked: int | None, fetcher: Fetcher, *, most: int) -> int:
    """How many of ``most`` things run at once: what the call asked, never more than the operator's
    fetches in flight (global_concurrency), which is also the width when the call asked nothing."""
    limit = fetcher.policy.global_concurrency
    if asked is not None and asked > limit:
        raise _refusal(
            "concurrency",
            "global_concurrency",
            f"concurrency {asked} is more than the operator allows at once ({limit}); ask for "
            f"{limit} or fewer, or leave it out",
            operator_value=limit,
            asked=asked,
        )
    return max(1, min(asked or limit, limit, most))


def size_cap(asked: int | None, fetcher: Fetcher) -> int | None:
    """The largest body a call reads: what it asked, never more than the operator's
    fetch_max_bytes."""
    limit = fetcher.policy.max_bytes
    if asked is not None and asked > limit:
        raise _refusal(
            "max_size",
            "fetch_max_bytes",
            f"max_size {asked} is more than the operator lets a fetch read ({limit} bytes); ask "
            f"for {limit} or fewer, or leave it out",
            operator_value=limit,
            asked=asked,
        )
    return asked

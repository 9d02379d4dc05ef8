"""Operator settings: one declaration, strict parsing, only numbers and booleans exposed."""

from __future__ import annotations

from dataclasses import fields

import pytest

from netglean.core.errors import ConfigurationError
from netglean.core.settings import SETTINGS, Settings


def test_every_declared_setting_is_a_field_and_back() -> None:
    assert [s.name for s in SETTINGS] == [f.name for f in fields(Settings)]


def test_defaults_environment_and_flags_in_that_order() -> None:
    assert Settings.load(environ={}).call_timeout == 60.0
    env = {"NETGLEAN_CALL_TIMEOUT": "5", "NETGLEAN_MAX_CONCURRENT_CALLS": "2"}
    loaded = Settings.load({"call_timeout": 9.0}, environ=env)
    assert (loaded.call_timeout, loaded.max_concurrent_calls) == (9.0, 2)


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        (
            {"NETGLEAN_MAX_CONCURRENT_CALLS": "many"},
            "NETGLEAN_MAX_CONCURRENT_CALLS: 'many' is not a valid int",
        ),
        ({"NETGLEAN_MAX_CONCURRENT_CALLS": "0"}, "below the minimum"),
        ({"NETGLEAN_LOG_LEVEL": "loud"}, "not one of debug, info, warning, error"),
        (
            {"NETGLEAN_SESSION_IDLE_TIMEOUT": "inf"},
            "NETGLEAN_SESSION_IDLE_TIMEOUT: inf is not a finite number",
        ),
        ({"NETGLEAN_SESSION_IDLE_TIMEOUT": "nan"}, "nan is not a finite number"),
        ({"NETGLEAN_CALL_TIMEOUT": "nan"}, "NETGLEAN_CALL_TIMEOUT: nan is not a finite number"),
        ({"NETGLEAN_HOST_INTERVAL": "NaN"}, "nan is not a finite number"),
        ({"NETGLEAN_RUN_RETENTION_DAYS": "-inf"}, "-inf is not a finite number"),
        # uvicorn would take either for a name no peer has, and trust no proxy, silently
        (
            {"NETGLEAN_TRUSTED_PROXIES": "127.0.0.1, proxy.internal"},
            "NETGLEAN_TRUSTED_PROXIES: 'proxy.internal' is no IP address or network",
        ),
        ({"NETGLEAN_TRUSTED_PROXIES": "10.0.0.5/24"}, "'10.0.0.5/24' is no IP address or network"),
    ],
)
def test_bad_values_name_the_variable(env: dict[str, str], fragment: str) -> None:
    with pytest.raises(ConfigurationError, match=fragment):
        Settings.load(environ=env)


def test_bad_flag_values_name_the_flag() -> None:
    with pytest.raises(ConfigurationError, match="--call-timeout"):
        Settings.load({"call_timeout": -1.0}, environ={})


def test_policy_holds_only_numbers_and_booleans() -> None:
    policy = Settings.load(environ={}).policy()
    assert policy and all(isinstance(v, int | float | bool) for v in policy.values())
    assert "log_level" not in policy


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("1", True),
        ("true", True),
        (" YES ", True),
        ("On", True),
        ("0", False),
        ("false", False),
        ("no", False),
    ],
)
def test_switches_read_the_usual_spellings(raw: str, value: bool) -> None:
    assert Settings.load(environ={"NETGLEAN_IGNORE_ROBOTS": raw}).ignore_robots is value


@pytest.mark.parametrize("raw", ["", "maybe", "2", "enabled"])
def test_a_switch_that_is_neither_is_refused(raw: str) -> None:
    with pytest.raises(
        ConfigurationError, match=f"NETGLEAN_IGNORE_ROBOTS: {raw!r} is not a valid bool"
    ):
        Settings.load(environ={"NETGLEAN_IGNORE_ROBOTS": raw})


def test_names_are_derived_from_the_declaration() -> None:
    [setting] = [s for s in SETTINGS if s.name == "max_concurrent_calls"]
    assert (setting.env, setting.flag) == (
        "NETGLEAN_MAX_CONCURRENT_CALLS",
        "--max-concurrent-calls",
    )
    # the docs and --help list them so
    assert [s.name for s in SETTINGS] == sorted(s.name for s in SETTINGS)
    assert all(s.help.endswith(".") and isinstance(s.default, s.kind) for s in SETTINGS)


def test_an_override_left_out_is_not_an_override() -> None:
    env = {"NETGLEAN_CALL_TIMEOUT": "5"}
    assert Settings.load({"call_timeout": None}, environ=env).call_timeout == 5.0
    # a falsy value still counts
    assert Settings.load({"max_redirects": 0}, environ={}).max_redirects == 0


def test_the_environment_is_read_only_when_loading() -> None:
    loaded = Settings.load(environ={"NETGLEAN_PORT": "9000"})
    with pytest.raises(AttributeError):
        loaded.port = 1  # type: ignore[misc]
    assert Settings.load(environ={}).port == 8080


def test_secrets_are_never_shown() -> None:
    loaded = Settings.load(environ={"NETGLEAN_TOKEN": "s3cret-token"})
    assert (
        "s3cret-token" not in repr(loaded)
        and "token='***'" not in repr(loaded)
        and "token=***" in repr(loaded)
    )
    policy = loaded.policy()
    assert "token" not in policy and policy["token_required"] is True
    assert Settings.load(environ={}).policy()["token_required"] is False
    assert {s.name for s in SETTINGS if s.secret} == {"store", "token"}  # a store URL's password
    stored = Settings.load(environ={"NETGLEAN_STORE": "postgresql://u:pw-123@db/n"})
    assert "pw-123" not in repr(stored) and "pw-123" not in str(stored.policy())


def test_politeness_defaults() -> None:
    """What one site sees of netglean by default: one request at a time, a second apart, robots.txt
    obeyed (the seeds' scanner's rules); the global cap, the session budget and the body caps stay
    sized for batches, crawls and documents (NOTES.md says why each differs from Rebilder's)."""
    loaded = Settings.load(environ={})
    assert (loaded.host_concurrency, loaded.host_interval, loaded.ignore_robots) == (1, 1.0, False)
    assert (loaded.global_concurrency, loaded.session_budget) == (16, 1000)
    assert (loaded.fetch_max_bytes, loaded.fetch_max_decoded_bytes) == (5 * 2**20, 20 * 2**20)


def test_compat_names_the_profiles_the_setting_takes() -> None:
    assert Settings.load(environ={}).compat_sets == ()
    assert Settings.load({"compat": " rtila, rtila"}, environ={}).compat_sets == ("rtila",)
    both = Settings.load(environ={"NETGLEAN_COMPAT": "html2rss,crawlberg"})
    assert both.compat_sets == ("html2rss", "crawlberg")
    choices = "html2rss, rebilder, crawlberg, rtila"
    with pytest.raises(
        ConfigurationError, match=f"NETGLEAN_COMPAT: 'firecrawl' is not one of {choices}"
    ):
        Settings.load(environ={"NETGLEAN_COMPAT": "rtila,firecrawl"})


def test_a_profile_policy_holds_only_where_it_is_stricter() -> None:
    """A profile's network policy makes the operator's stricter, never looser: the stricter of each
    holds."""
    operator = Settings.load(
        {"session_budget": 10, "host_interval": 0.5, "ignore_robots": True}, environ={}
    )
    tightened = operator.tighten(
        {"session_budget": 20, "host_interval": 1.0, "ignore_robots": False}
    )
    assert (tightened.session_budget, tightened.host_interval, tightened.ignore_robots) == (
        10,
        1.0,
        False,
    )
    assert operator.tighten({"session_budget": 50, "allow_private_hosts": False}) is operator


def test_a_profile_adds_robots_groups_and_switches_off_http_dev_and_private_targets() -> None:
    operator = Settings.load(
        {"dev": True, "robots_agents": "netglean,other", "allow_private_targets": "10.0.0.0/8"},
        environ={},
    )
    tightened = operator.tighten(
        {
            "robots_agents": "netglean,rebilder-ars",
            "allow_http": False,
            "dev": False,
            "allow_private_targets": "",
        }
    )
    assert tightened.robots_agents == "netglean,other,rebilder-ars"
    assert (tightened.allow_http, tightened.dev, tightened.allow_private_targets) == (
        False,
        False,
        "",
    )
    assert tightened.tighten({"robots_agents": "rebilder-ars"}) == tightened  # nothing more to add


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("rebilder-ars", "list netglean too"),
        ("netglean,bad token", "'bad token' is no robots.txt product token"),
    ],
)
def test_robots_agents_are_product_tokens_with_netglean_among_them(value: str, said: str) -> None:
    with pytest.raises(ConfigurationError, match=said):
        Settings.load(environ={"NETGLEAN_ROBOTS_AGENTS": value})

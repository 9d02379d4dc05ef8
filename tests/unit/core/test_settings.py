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
        ({"NETGLEAN_MAX_CONCURRENT_CALLS": "many"}, "NETGLEAN_MAX_CONCURRENT_CALLS: 'many' is not a valid int"),
        ({"NETGLEAN_MAX_CONCURRENT_CALLS": "0"}, "below the minimum"),
        ({"NETGLEAN_LOG_LEVEL": "loud"}, "not one of debug, info, warning, error"),
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

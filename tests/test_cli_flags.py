"""Every flag `netglean call TOOL` derives from an input schema takes its plain value, enums
included."""

from __future__ import annotations

from netglean.cli.main import _commands, build_parser
from netglean.core.settings import Settings


def test_every_enum_flag_takes_its_plain_values() -> None:
    """``format`` is an enum without a type: it had been read as JSON, so ``--format text`` was a
    usage error."""
    registry = Settings.load(environ={}).registry
    parser = build_parser(True, registry)
    checked = 0
    for tool, command in _commands(registry).items():
        for option in command["options"]:
            for choice in option["choices"] or []:
                values = [str(choice)]
                if option["type"] == "array":
                    # a list's items are checked one by one by the schema, not by argparse choices
                    continue
                parsed = parser.parse_args(["call", tool, option["flag"], *values])
                assert getattr(parsed, option["name"]) == choice, (tool, option["flag"], choice)
                checked += 1
    assert checked >= 10


def test_flag_spellings_a_config_of_last_month_used_still_parse() -> None:
    """argparse took a unique prefix of a flag: `--allow-private` was `--allow-private-hosts` until
    `--allow-private-targets` made it ambiguous (a usage error, exit 2); `--max-client` and
    `--session` were `--max-client-calls` and `--session-budget` so too. Each is still the flag it
    was."""
    parser = build_parser(False)
    mcp = parser.parse_args(["mcp", "--allow-private", "--session", "7"])
    assert mcp.allow_private_hosts is True and mcp.session_budget == 7
    assert parser.parse_args(["mcp", "--no-allow-private"]).allow_private_hosts is False
    serve = parser.parse_args(["serve", "--allow-private", "--max-client", "3", "--session", "9"])
    assert (serve.allow_private_hosts, serve.max_client_calls, serve.session_budget) == (True, 3, 9)

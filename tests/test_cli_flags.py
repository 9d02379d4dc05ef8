"""Every flag `netglean call TOOL` derives from an input schema takes its plain value, enums included."""

from __future__ import annotations

from netglean.cli.main import _commands, build_parser
from netglean.core.settings import Settings


def test_every_enum_flag_takes_its_plain_values() -> None:
    """``format`` is an enum without a type: it had been read as JSON, so ``--format text`` was a usage error."""
    registry = Settings.load(environ={}).registry
    parser = build_parser(True, registry)
    checked = 0
    for tool, command in _commands(registry).items():
        for option in command["options"]:
            for choice in option["choices"] or []:
                values = [str(choice)]
                if option["type"] == "array":
                    continue  # a list's items are checked one by one by the schema, not by argparse choices
                parsed = parser.parse_args(["call", tool, option["flag"], *values])
                assert getattr(parsed, option["name"]) == choice, (tool, option["flag"], choice)
                checked += 1
    assert checked >= 10

"""The flags `netglean call TOOL` owns, apart from the tool's own: the generator (codegen.cli_table)
spells a tool argument that would clash with one of them --arg-NAME, so it reads them here, not from
the CLI."""

from __future__ import annotations

from netglean.core.settings import SETTINGS

JSON_FLAG = "--json"
TEXT_FLAG = "--text"
ENVELOPE_FLAG = "--envelope"
OUTPUT_FLAG = "--output-file"
"""Where the content goes instead of stdout (also -o)."""


def reserved_flags() -> frozenset[str]:
    """Every flag `netglean call TOOL` gives a meaning of its own: help, the output switches, the
    settings (but a server's defaults, which a call does not take: its tool's flag of that name is
    the tool's)."""
    settings = (
        flag
        for setting in SETTINGS
        if not setting.server
        for flag in (setting.flag, *setting.old_flags)
    )
    return frozenset({"--help", JSON_FLAG, TEXT_FLAG, ENVELOPE_FLAG, OUTPUT_FLAG, *settings})

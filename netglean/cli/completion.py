"""Shell completion for `netglean` (bash, zsh, fish), written from the same tables the parser is
built from: the commands, the catalog's tools (netglean.generated.cli) with their flags and choices,
and the operator settings."""

from __future__ import annotations

import argparse
import functools
import shlex
from collections.abc import Iterator, Mapping
from typing import Any

from netglean.cli import projects
from netglean.core.cli_flags import ENVELOPE_FLAG, JSON_FLAG, OUTPUT_FLAG, TEXT_FLAG
from netglean.core.settings import SETTINGS

COMMANDS = {
    "mcp": "serve MCP over stdin/stdout",
    "serve": "serve MCP over HTTP, the REST API and the docs",
    "call": "call one catalog tool",
    "project": "the store's projects",
    "gen": "regenerate netglean/generated from catalog/",
    "demo": "the stdio server with the official client",
    "completion": "print a shell completion script",
}
SHELLS = ("bash", "zsh", "fish")


@functools.cache
def _project_commands() -> dict[str, str]:
    """`netglean project`'s subcommands and their help, read off the parser netglean.cli.projects
    builds."""
    parser = argparse.ArgumentParser()
    projects.add_commands(parser)
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help or "" for choice in action._choices_actions}


def _setting_flags(http: bool) -> list[str]:
    flags = []
    for setting in SETTINGS:
        if setting.http and not http:
            continue
        flags.append(setting.flag)
        if setting.kind is bool:
            flags.append("--no-" + setting.flag.removeprefix("--"))
    return flags


def _tool_flags(command: Mapping[str, Any]) -> list[str]:
    flags = [JSON_FLAG, TEXT_FLAG, ENVELOPE_FLAG, OUTPUT_FLAG, "--help"]
    for option in command["options"]:
        flags.append(option["flag"])
        if option["type"] == "boolean":
            flags.append("--no-" + option["flag"].removeprefix("--"))
    return flags + _setting_flags(False)


def _file_flags(command: Mapping[str, Any]) -> list[str]:
    """The flags whose value may be @FILE (a string read from a file): a value begun with @
    completes a file name."""
    return [
        option["flag"]
        for option in command["options"]
        if option["type"] == "string" and not option["choices"]
    ]


def _choices(commands: Mapping[str, Any]) -> Iterator[tuple[str, str, list[str]]]:
    """Each tool's flags that take one of a few values: (tool, flag, the values)."""
    for name, command in sorted(commands.items()):
        for option in command["options"]:
            if option["choices"]:
                yield name, option["flag"], [str(choice) for choice in option["choices"]]


def script(shell: str, commands: Mapping[str, Any]) -> str:
    """The completion script for ``shell`` over the tools ``commands`` (the generated COMMANDS
    table)."""
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](commands)


def _bash(commands: Mapping[str, Any]) -> str:
    cases = "".join(
        f"        {name}) flags={shlex.quote(' '.join(_tool_flags(command)))} ;;\n"
        for name, command in sorted(commands.items())
    )
    choices = "".join(
        f"        {name}:{flag}) COMPREPLY=($(compgen -W {shlex.quote(' '.join(values))} -- "
        '"$cur")); return ;;\n'
        for name, flag, values in _choices(commands)
    )
    files = "|".join(
        sorted({flag for command in commands.values() for flag in _file_flags(command)})
    )
    first_words = shlex.quote(" ".join([*COMMANDS, "--help", "--version"]))
    return f"""# netglean completion for bash: source it
# (or save it in ~/.local/share/bash-completion/completions/)
_netglean() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" flags=""
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W {first_words} -- "$cur")); return
    fi
    case "${{COMP_WORDS[1]}}" in
    call)
        if [ "$COMP_CWORD" -eq 2 ]; then
            COMPREPLY=($(compgen -W {shlex.quote(" ".join(sorted(commands)))} -- "$cur")); return
        fi
        case "${{COMP_WORDS[2]}}:$prev" in
{choices}        esac
        case "$prev" in
        -o|{OUTPUT_FLAG}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        {files or "--"})
            [[ "$cur" == @* ]] && COMPREPLY=($(compgen -f -P @ -- "${{cur#@}}")) || COMPREPLY=()
            return ;;
        esac
        case "${{COMP_WORDS[2]}}" in
{cases}        esac ;;
    project)
        if [ "$COMP_CWORD" -eq 2 ]; then
            COMPREPLY=($(compgen -W {shlex.quote(" ".join(_project_commands()))} -- "$cur")); return
        fi
        flags={shlex.quote(" ".join(_setting_flags(False)))} ;;
    mcp) flags={shlex.quote(" ".join(["--transport", *_setting_flags(True)]))} ;;
    serve) flags={shlex.quote(" ".join(_setting_flags(True)))} ;;
    completion) flags={shlex.quote(" ".join(SHELLS))} ;;
    esac
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
}}
complete -F _netglean netglean
"""


def _zsh(commands: Mapping[str, Any]) -> str:
    tools = " ".join(sorted(commands))
    cases = "".join(
        f"        {name}) compadd -- "
        f"{' '.join(shlex.quote(flag) for flag in _tool_flags(command))} ;;\n"
        for name, command in sorted(commands.items())
    )
    choices = "".join(
        f"        {name}:{flag}) compadd -- {' '.join(map(shlex.quote, values))}; return ;;\n"
        for name, flag, values in _choices(commands)
    )
    return f"""#compdef netglean
# netglean completion for zsh: put it on your $fpath as _netglean (after compinit), or source it
_netglean() {{
    if (( CURRENT == 2 )); then
        compadd -- {" ".join([*COMMANDS, "--help", "--version"])}; return
    fi
    case "$words[2]" in
    call)
        if (( CURRENT == 3 )); then compadd -- {tools}; return; fi
        case "$words[3]:$words[CURRENT-1]" in
{choices}        esac
        case "$words[3]" in
{cases}        esac ;;
    project)
        if (( CURRENT == 3 )); then compadd -- {" ".join(_project_commands())}; return; fi
        compadd -- {" ".join(_setting_flags(False))} ;;
    mcp) compadd -- {" ".join(["--transport", *_setting_flags(True)])} ;;
    serve) compadd -- {" ".join(_setting_flags(True))} ;;
    completion) compadd -- {" ".join(SHELLS)} ;;
    esac
}}
if (( $+functions[compdef] )); then compdef _netglean netglean; fi
"""


def _fish(commands: Mapping[str, Any]) -> str:
    lines = [
        "# netglean completion for fish: put it in ~/.config/fish/completions/netglean.fish",
        "complete -c netglean -f",
    ]
    for name, help_text in COMMANDS.items():
        lines.append(
            f"complete -c netglean -n __fish_use_subcommand -a {name} -d {shlex.quote(help_text)}"
        )
    for name, command in sorted(commands.items()):
        lines.append(
            "complete -c netglean -n '__fish_seen_subcommand_from call; and not "
            f"__fish_seen_subcommand_from {' '.join(sorted(commands))}' -a {name} -d "
            f"{shlex.quote(command['help'])}"
        )
        for option in command["options"]:
            given = (
                f" -x -a {shlex.quote(' '.join(map(str, option['choices'])))}"
                if option["choices"]
                else ""
            )
            lines.append(
                f"complete -c netglean -n '__fish_seen_subcommand_from {name}' -l "
                f"{option['flag'].removeprefix('--')}{given}"
            )
    for name, help_text in _project_commands().items():
        lines.append(
            "complete -c netglean -n '__fish_seen_subcommand_from project; and not "
            f"__fish_seen_subcommand_from {' '.join(_project_commands())}' -a {name} -d "
            f"{shlex.quote(help_text)}"
        )
    for flag in _setting_flags(True):
        lines.append(
            "complete -c netglean -n '__fish_seen_subcommand_from serve mcp' -l "
            f"{flag.removeprefix('--')}"
        )
    lines.append(
        "complete -c netglean -n '__fish_seen_subcommand_from mcp' -l transport -x -a 'stdio http'"
    )
    lines.append(
        "complete -c netglean -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'"
    )
    return "\n".join(lines) + "\n"

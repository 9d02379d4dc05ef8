"""The `netglean` command: mcp (stdio server), serve (HTTP), worker (runs from the job queue), call
(any catalog tool), project (the store's projects), gen (the generator), demo."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from netglean._version import __version__
from netglean.cli import output, projects
from netglean.cli.completion import SHELLS, script
from netglean.core.cli_flags import ENVELOPE_FLAG, JSON_FLAG, OUTPUT_FLAG, TEXT_FLAG
from netglean.core.errors import ConfigurationError
from netglean.core.logs import configure
from netglean.core.settings import SETTINGS, Settings

if TYPE_CHECKING:
    import anyio

    from netglean.calls.profiles import Profile
    from netglean.calls.runner import ToolRunner
    from netglean.core.envelope import Envelope


def _runner(settings: Settings) -> ToolRunner:
    """The runner each command serves or calls: the settings' registry, the protocol versions this
    SDK speaks (imported here, not at start: the CLI's other commands never load the runtime)."""
    from netglean.app import build_runner
    from netglean.calls.registry import load_registry
    from netglean.serve.versions import supported_versions

    return build_runner(
        load_registry(settings.registry), settings, protocol_versions=supported_versions
    )


def _add_settings(
    parser: argparse.ArgumentParser, http: bool = False, http_note: str = "", server: bool = False
) -> None:
    """The operator settings as flags; the HTTP ones only where ``http``, their help ending with
    ``http_note``, and a server's defaults only where ``server``."""
    group = parser.add_argument_group("operator settings (also NETGLEAN_* environment variables)")
    for setting in SETTINGS:
        if (setting.http and not http) or (setting.server and not server):
            continue
        said = f"{setting.help}{http_note if setting.http else ''}"
        # A list setting's items are checked by Settings.load: argparse would take the whole list
        # for one choice.
        extra: dict[str, Any] = (
            {"choices": setting.choices} if setting.choices and not setting.several else {}
        )
        if setting.kind is bool:
            group.add_argument(
                setting.flag,
                *setting.old_flags,
                dest=setting.name,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=f"{said} (default {'on' if setting.default else 'off'}; env {setting.env}=1 "
                "or 0)",
            )
        else:
            default = "unset" if setting.secret else setting.default
            group.add_argument(
                setting.flag,
                *setting.old_flags,
                dest=setting.name,
                type=setting.kind,
                default=None,
                help=f"{said} (default {default}; env {setting.env})",
                **extra,
            )


DEV_WARNING = (
    "netglean: --dev is on: loopback and private hosts are allowed and fetched without spacing. "
    "That is for trying netglean on your own machine, and unsafe for an agent reading untrusted "
    "pages: they could lead it to your local services."
)


def _settings(args: argparse.Namespace) -> Settings:
    """The operator's settings: flags, then NETGLEAN_* variables, then, for the wire profiles they
    turn on, the variables those profiles' seeds read (html2rss's LOG_LEVEL), then the defaults."""
    # a server's defaults are its flags; a call's are its tool's
    serving = args.command in {"mcp", "serve"}
    overrides = {s.name: getattr(args, s.name, None) for s in SETTINGS if serving or not s.server}
    settings = Settings.load(overrides)
    if settings.compat_sets:
        from netglean.calls.profiles import seed_environment

        settings = Settings.load(
            overrides, environ=seed_environment(_profiles(settings), os.environ)
        )
    configure(settings.log_level)
    if settings.dev:
        print(DEV_WARNING, file=sys.stderr)
    return settings


def _profiles(settings: Settings) -> list[Profile]:
    """The wire profiles the settings turn on that the registry has (one it has not is refused as
    the server starts, naming it)."""
    from netglean.calls.registry import load_registry

    known = load_registry(settings.registry).profiles
    return [known[name] for name in settings.compat_sets if name in known]


def _say_what_profiles_change(settings: Settings) -> None:
    """Tell the operator of a server what its profiles give up, and which seed variables set are not
    used."""
    from netglean.calls.profiles import start_notices

    for line in start_notices(_profiles(settings), os.environ):
        print(line, file=sys.stderr)


def _read_file(raw: str) -> str:
    """A flag's value; ``@PATH`` reads the file instead (a feed config, a JSON definition, a long
    markdown draft), as curl does, for every flag. Only the command line reads local files: tool
    arguments over MCP and REST never do."""
    if not raw.startswith("@") or len(raw) == 1:
        return raw
    try:
        return Path(raw[1:]).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise argparse.ArgumentTypeError(f"cannot read {raw[1:]}: {exc}") from None


def _json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON: {exc}") from None


def _number(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        return kind(text.strip())

    parse.__name__ = kind.__name__  # argparse names the type in its error: "invalid int value"
    return parse


_PARSERS: dict[str, Callable[[str], Any]] = {
    "string": str,
    "integer": _number(int),
    "number": _number(float),
    "json": _json_value,
}
"""How a flag's text (``@FILE`` already read) becomes its value, by the option's type."""


def _flag(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """A flag's value: its text, or the file ``@PATH`` names, read once, then parsed."""

    def parse_flag(raw: str) -> Any:
        return parse(_read_file(raw))

    parse_flag.__name__ = parse.__name__
    return parse_flag


def _items(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An array flag's value: one item, or a JSON array of them (``--urls '["a", "b"]'``)."""

    def parse_items(raw: str) -> Any:
        text = _read_file(raw)
        if text.lstrip().startswith("["):
            try:
                items = json.loads(text)
            except ValueError:
                items = None  # a CSS selector such as [data-id] is one item
            if isinstance(items, list):
                return items
        return parse(text)

    parse_items.__name__ = parse.__name__
    return parse_items


def _commands(registry: str) -> dict[str, Any]:
    """The option tables of `netglean call`, generated beside ``registry`` (a tool pack's, or
    netglean's own)."""
    import importlib

    package = registry.rpartition(".")[0]
    try:
        commands: dict[str, Any] = importlib.import_module(f"{package}.cli").COMMANDS
    except (ImportError, AttributeError) as exc:
        raise ConfigurationError(
            f"cannot read the command tables of {package!r}: {exc}; run `netglean gen`"
        ) from exc
    return commands


def _registry_named(argv: Sequence[str]) -> str:
    """The registry a command line names (--registry, else NETGLEAN_REGISTRY), read before the
    parser is built: its tool commands are the parser's."""
    for n, arg in enumerate(argv):
        if arg == "--registry" and n + 1 < len(argv):
            return argv[n + 1]
        if arg.startswith("--registry="):
            return arg.partition("=")[2]
    return Settings.load().registry


def _option_help(option: dict[str, Any]) -> str:
    """A tool flag's help: its description, then whether it is required, its default (as JSON:
    false, not False) and its range; argparse lists the choices itself."""
    said = [option["help"].rstrip(".")] if option["help"] else []
    facts = ["required"] if option["required"] else []
    if option.get("default") is not None:
        facts.append(f"default {json.dumps(option['default'], ensure_ascii=False)}")
    if option["type"] == "array":
        facts.append("repeat the flag, or give a JSON array")
    if option.get("range"):
        facts.append(option["range"])
    return (". ".join(said) + (f" ({'; '.join(facts)})" if facts else "")).replace("%", "%%")


def _add_tool_commands(subparsers: Any, registry: str) -> None:
    for name, command in _commands(registry).items():
        parser = subparsers.add_parser(
            name,
            help=command["help"],
            description=command["description"],
            usage=f"netglean call {name} [flags of {name}] [--envelope | --text] [-o FILE] "
            "[operator settings]",
        )
        parser.add_argument(
            JSON_FLAG,
            dest="_json",
            metavar="ARGS",
            help="all arguments as one JSON object ('-' reads it from stdin); flags override it",
        )
        modes = parser.add_mutually_exclusive_group()
        modes.add_argument(
            TEXT_FLAG,
            dest="_text",
            action="store_true",
            help="print the text block a model would read instead",
        )
        modes.add_argument(
            ENVELOPE_FLAG,
            dest="_envelope",
            action="store_true",
            help="print the JSON result envelope (what a client gets) instead of the content",
        )
        parser.add_argument(
            "-o",
            OUTPUT_FLAG,
            dest="_output",
            metavar="FILE",
            help="write what would be printed to FILE instead of stdout",
        )
        arguments = parser.add_argument_group(f"flags of {name}")
        for option in command["options"]:
            kwargs: dict[str, Any] = {
                "dest": option["name"],
                "help": _option_help(option),
                "default": None,
            }
            if option["type"] == "boolean":
                kwargs["action"] = argparse.BooleanOptionalAction
            elif option["type"] == "array":
                kwargs["action"] = "append"
                kwargs["type"] = _items(_PARSERS[option["item_type"] or "json"])
            else:
                kwargs["type"] = _flag(_PARSERS[option["type"]])
                if option["choices"]:
                    kwargs["choices"] = option["choices"]
            arguments.add_argument(option["flag"], required=False, **kwargs)
        _add_settings(parser)


def _call(args: argparse.Namespace) -> int:
    import anyio

    settings = _settings(args)
    arguments: dict[str, Any] = {}
    if args._json is not None:
        raw = sys.stdin.read() if args._json == "-" else args._json
        try:
            loaded = json.loads(raw)
        except ValueError as exc:
            print(f"netglean call {args._tool}: --json is not valid JSON: {exc}", file=sys.stderr)
            return 2
        if not isinstance(loaded, dict):
            print(f"netglean call {args._tool}: --json must be a JSON object", file=sys.stderr)
            return 2
        arguments.update(loaded)
    command = _commands(settings.registry)[args._tool]
    for option in command["options"]:
        value = getattr(args, option["name"])
        if value is not None and option["type"] == "array":
            # an array flag takes its items one a flag or as one JSON array, or both
            value = [
                item for given in value for item in (given if isinstance(given, list) else [given])
            ]
        if value is not None:
            arguments[option["name"]] = value
    runner = _runner(settings)
    # a data directory it cannot use is the operator's one-line error, not the tool's
    runner.services.runs.prepare()

    progress = output.TerminalProgress()

    async def answer() -> int:
        wanted = arguments.get("project_id")
        if isinstance(wanted, str) and not projects.PROJECT_ID.fullmatch(wanted):
            found, why = await projects.project_id_of(runner, wanted)
            if found is None:
                print(f"netglean call {args._tool}: --project-id: {why}", file=sys.stderr)
                return 2
            arguments["project_id"] = found
        if runner.spec(args._tool).execution != "async":
            envelope, source = await runner.call(args._tool, arguments, progress)
        else:
            # A run lives as long as this process: one the call does not wait for ends
            # interrupted (resume_run).
            async with runner.services.runs.hosting():
                envelope, source = await runner.call(args._tool, arguments, progress)
        progress.finish()
        # Shown before the services close: a browser still launching when the call's
        # deadline passed is stopped after the answer, not before it.
        return _show(args, runner, command, envelope, source)

    async def call_once() -> int:
        status = 130
        try:
            with (
                anyio.CancelScope() as scope,
                _cancelled_by_interrupt(scope) as interrupted,
                runner.services.runs.noting() as started,
            ):
                status = await answer()
        finally:
            await runner.services.aclose()
        if not interrupted:
            return status
        progress.finish()
        print(f"netglean call {args._tool}: stopped (Ctrl-C)", file=sys.stderr)
        for run_id in started:
            print(
                f"run {run_id} is interrupted; continue it with: netglean call resume_run "
                f"--run-id {run_id}",
                file=sys.stderr,
            )
        return 130

    try:
        return anyio.run(call_once)
    finally:
        progress.finish()


@contextmanager
def _cancelled_by_interrupt(scope: anyio.CancelScope) -> Iterator[list[bool]]:
    """Ctrl-C cancels the call inside the event loop, so its runs are marked interrupted (resumable)
    and the store and reader processes close in order, with no traceback. Later Ctrl-Cs are let
    pass: a terminal signals the whole process group, and `uv run` passes the same one on again."""
    import asyncio
    import signal

    loop = asyncio.get_running_loop()
    interrupted: list[bool] = []

    def on_interrupt(signum: int, frame: object) -> None:
        if not interrupted:
            interrupted.append(True)
            loop.call_soon_threadsafe(scope.cancel)

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield interrupted
    finally:
        if not interrupted:
            signal.signal(signal.SIGINT, previous)


def _show(
    args: argparse.Namespace,
    runner: ToolRunner,
    command: dict[str, Any],
    envelope: Envelope,
    source: str | None,
) -> int:
    """Print a call's answer as its flags ask; the exit status."""
    prog = getattr(args, "_prog", f"netglean call {args._tool}")  # the command the person typed
    spec = command.get("output") or {}  # the tool's catalog `cli` entry: its content field or table
    # the tool's content (or its failure), not its envelope
    for_a_person = not (args._text or args._envelope)
    # Arguments the tool's schema refuses are the call's usage, as argparse's own errors are: exit
    # 2, in any mode.
    usage_error = not envelope.ok and envelope.payload["error"]["code"] == "invalid_arguments"
    written: str | None
    if args._text:
        written = runner.render_text(args._tool, envelope, source)
    elif not envelope.ok and for_a_person:
        written = None
        print(f"{prog}: {output.describe_failure(envelope.payload)}", file=sys.stderr)
        if usage_error:
            print(f"({prog} --help lists its flags)", file=sys.stderr)
    elif not (spec and for_a_person):
        written = json.dumps(envelope.as_dict(), indent=2, ensure_ascii=False)
    else:
        written = output.render_payload(envelope.payload, spec)
        for line in output.row_errors(envelope.payload, spec):
            print(f"{prog}: {line}", file=sys.stderr)
    if written is not None and args._output:
        try:
            Path(args._output).write_text(
                written + ("" if written.endswith("\n") else "\n"), encoding="utf-8"
            )
        except OSError as exc:
            print(f"{prog}: cannot write {args._output}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    elif written is not None:
        try:
            print(written, flush=True)
        except BrokenPipeError:
            raise
        except OSError as exc:  # a full disk under a redirect: say so, as -o does
            print(f"{prog}: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
            # What stdout still buffers goes nowhere: the interpreter's exit would flush it again,
            # fail again, and exit 120 with a traceback.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 2
    if usage_error:
        return 2
    return 0 if envelope.ok and not output.is_failure(envelope.payload, spec) else 1


def _feed(args: argparse.Namespace) -> int:
    """capture_config's draft of the listing page, rendered by apply_config: html2rss's ``auto``."""
    import anyio

    settings = _settings(args)
    runner = _runner(settings)
    command = _commands(settings.registry)["apply_config"]
    drafting = {"url": args.url} | (
        {"items_selector": args.items_selector} if args.items_selector else {}
    )

    async def feed_once() -> int:
        try:
            draft, _ = await runner.call("capture_config", drafting)
            if not draft.ok:
                print(f"netglean feed: {output.describe_failure(draft.payload)}", file=sys.stderr)
                return 2 if draft.payload["error"]["code"] == "invalid_arguments" else 1
            if args.save_config is not None:
                try:
                    args.save_config.write_text(draft.payload["yaml"], encoding="utf-8")
                except OSError as exc:
                    print(
                        f"netglean feed: cannot write {args.save_config}: {exc.strerror or exc}",
                        file=sys.stderr,
                    )
                    return 2
            rendered = {"config": draft.payload["config"], "format": args.format}
            envelope, source = await runner.call("apply_config", rendered)
            return _show(args, runner, command, envelope, source)
        finally:
            await runner.services.aclose()

    return anyio.run(feed_once)


def _mcp(args: argparse.Namespace) -> int:
    """The MCP server over stdio (what clients launch), or over streamable HTTP as `netglean serve`
    serves it: the start command of servers whose clients run `SERVER mcp --transport stdio|http
    --port N` (html2rss)."""
    import anyio

    if args.transport == "http":
        return _serve(args)
    given = [s.flag for s in SETTINGS if s.http and getattr(args, s.name, None) is not None]
    if given:
        print(f"netglean mcp: {', '.join(given)} applies to --transport http only", file=sys.stderr)
        return 2
    from netglean.serve.mcp import serve_stdio

    settings = _settings(args)
    runner = _runner(settings)
    _say_what_profiles_change(settings)
    # before the first frame: a bad data directory stops the start, naming it
    runner.services.runs.prepare()
    anyio.run(serve_stdio, runner)
    return 0


def _serve(args: argparse.Namespace) -> int:
    import anyio

    from netglean.serve.http import serve_http

    settings = _settings(args)
    runner = _runner(settings)
    _say_what_profiles_change(settings)
    anyio.run(serve_http, runner)
    return 0


def _worker(args: argparse.Namespace) -> int:
    import dataclasses

    import anyio

    from netglean.serve.worker import serve_worker

    settings = _settings(args)
    if not settings.store:
        raise ConfigurationError(
            "netglean worker takes runs from the job queue in a PostgreSQL store: name it with "
            "--store postgresql://… (NETGLEAN_STORE), as the servers that hand it runs do"
        )
    if args.concurrency is not None and args.concurrency < 1:
        raise ConfigurationError(f"--concurrency: {args.concurrency} is below the minimum 1")
    settings = dataclasses.replace(
        settings, run_workers=True, max_runs=args.concurrency or settings.max_runs
    )
    runner = _runner(settings)
    _say_what_profiles_change(settings)
    runner.services.runs.prepare()  # a store it cannot open stops the start, naming it
    anyio.run(serve_worker, runner)
    return 0


def _project(args: argparse.Namespace) -> int:
    return projects.run_command(args, _runner(_settings(args)))


def _completion(args: argparse.Namespace) -> int:
    print(script(args.shell, _commands(Settings.load().registry)), end="")
    return 0


def _demo(args: argparse.Namespace) -> int:
    import anyio

    from netglean.cli.demo import run_demo

    return anyio.run(run_demo)


def build_parser(
    with_tools: bool = True, registry: str = "netglean.generated.registry"
) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="netglean", description="Web tools for AI agents over MCP, REST and the CLI."
    )
    parser.add_argument("--version", action="version", version=f"netglean {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    mcp = commands.add_parser(
        "mcp",
        help="serve MCP over stdin/stdout (what MCP clients launch), or over HTTP with "
        "--transport http",
        usage="netglean mcp [--transport stdio|http] [--port N] [operator settings]",
    )
    mcp.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (the default): JSON-RPC on stdin/stdout; http: streamable HTTP at /mcp, as "
        "`netglean serve` serves it (with its REST API and docs), on 127.0.0.1 unless --host and "
        "a token say otherwise",
    )
    _add_settings(mcp, http=True, http_note=" (with --transport http)", server=True)
    mcp.set_defaults(handler=_mcp)

    serve = commands.add_parser(
        "serve",
        help="serve MCP over streamable HTTP at /mcp and the REST API at /v1/tools/NAME (loopback "
        "by default)",
        usage="netglean serve [operator settings]",
    )
    _add_settings(serve, http=True, server=True)
    serve.set_defaults(handler=_serve)

    worker = commands.add_parser(
        "worker",
        help="work background runs that servers started with --run-workers hand over, through "
        "the job queue in their PostgreSQL store",
        usage="netglean worker --store postgresql://… [--concurrency N] [operator settings]",
    )
    worker.add_argument(
        "--concurrency",
        type=_number(int),
        metavar="N",
        help="runs this worker works at once (default: max_runs)",
    )
    _add_settings(worker)
    worker.set_defaults(handler=_worker)

    call = commands.add_parser(
        "call",
        help="call one catalog tool and print its result for a person (its content or table; "
        "--envelope: the JSON)",
    )
    # A private dest: a tool's own argument may be named tool (list_runs' is), and would overwrite
    # it.
    tools = call.add_subparsers(dest="_tool", required=True, metavar="TOOL")
    if with_tools:
        _add_tool_commands(tools, registry)
    call.set_defaults(handler=_call)

    for tool in SHORTCUTS:  # spelled out as `call TOOL --url URL` before parsing (see _spelled_out)
        commands.add_parser(
            tool, add_help=False, help=f"netglean call {tool} --url URL, given the URL first"
        )

    feed = commands.add_parser(
        "feed",
        help="a listing page to a feed in one command: capture_config drafts the config, "
        "apply_config renders it",
        usage="netglean feed URL [--format rss|json_feed] [--save-config FILE] [-o FILE] [operator "
        "settings]",
    )
    feed.add_argument(
        "url", metavar="URL", help="the listing page (a blog's index, a news section)"
    )
    feed.add_argument(
        "--format",
        choices=("rss", "json_feed"),
        default="rss",
        help="the feed's format (default rss)",
    )
    feed.add_argument(
        "--items-selector", help="the CSS selector of one item, when the draft picks the wrong ones"
    )
    feed.add_argument(
        "--save-config",
        metavar="FILE",
        type=Path,
        help="also write the drafted config (YAML) to FILE",
    )
    feed.add_argument(
        "-o", OUTPUT_FLAG, dest="_output", metavar="FILE", help="write the feed to FILE, not stdout"
    )
    feed.add_argument(
        ENVELOPE_FLAG,
        dest="_envelope",
        action="store_true",
        help="print apply_config's JSON envelope",
    )
    feed.set_defaults(handler=_feed, _text=False, _tool="apply_config", _prog="netglean feed")
    _add_settings(feed)

    project = commands.add_parser(
        "project",
        help="the store's projects: list, show, run, and export or import them as YAML files",
    )
    for command in projects.add_commands(project):
        _add_settings(command)
    project.set_defaults(handler=_project)

    # `gen` is parsed by the generator itself (see main); listed here for --help.
    commands.add_parser(
        "gen",
        add_help=False,
        help="validate catalog/ and regenerate netglean/generated (--check: compare only)",
    )

    demo = commands.add_parser(
        "demo", help="start the stdio server with the official client, call tools, show results"
    )
    demo.set_defaults(handler=_demo)

    completion = commands.add_parser(
        "completion", help="print the shell completion script (eval/source it: bash, zsh or fish)"
    )
    completion.add_argument("shell", choices=SHELLS)
    completion.set_defaults(handler=_completion)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names; everything it prints is cleaned for a terminal
    (``output.TerminalText``)."""
    with output.terminal_streams():
        return _main(list(sys.argv[1:] if argv is None else argv))


def _main(argv: list[str]) -> int:
    if argv[:1] == ["gen"]:
        try:
            from codegen.main import main as generate
        # an installed netglean: the catalog and its generator live in a checkout
        except ImportError:
            print(
                "netglean gen runs in a netglean checkout (with the gen extra): it reads catalog/",
                file=sys.stderr,
            )
            return 2
        return generate(argv[1:])
    try:
        argv = _spelled_out(argv)
        # Only `call` needs the generated option tables; the server starts without importing them.
        calling = bool(argv) and argv[0] == "call"
        parser = build_parser(calling, _registry_named(argv) if calling else "")
        argv = _with_values(parser, argv)
        if (mistake := _unknown_name(parser, argv)) is not None:
            print(mistake, file=sys.stderr)
            return 2
        args, unknown = parser.parse_known_args(argv)
        if unknown:
            return _unknown_flags(parser, args, unknown)
        return int(args.handler(args))
    except ConfigurationError as exc:
        print(f"netglean: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    # `netglean call … | head`: the reader left; say nothing more, to nobody
    except BrokenPipeError:
        sys.stdout = Path(os.devnull).open("w")  # noqa: SIM115  # what the interpreter's exit flush writes to
        return 141


SHORTCUTS = ("scrape", "crawl", "map")
"""Tools a person calls by their URL alone, as every peer's command line takes it."""


def _spelled_out(argv: list[str]) -> list[str]:
    """``netglean scrape URL …`` as the call it is: ``netglean call scrape URL …``."""
    return ["call", *argv] if argv[:1] and argv[0] in SHORTCUTS else argv


def _with_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` as argparse reads it: a tool's URL given first is its ``--url``, and a value that
    begins with ``-`` is its flag's (``--sort -published_at``), where argparse would take it for a
    flag and stop."""
    depth, command = 0, parser
    while depth < len(argv) and (inner := _subparser(command, argv[depth])) is not None:
        depth, command = depth + 1, inner
    head, rest = argv[:depth], argv[depth:]
    known = command._option_string_actions
    if (
        argv[:1] == ["call"]
        and depth == 2
        and rest[:1]
        and not rest[0].startswith("-")
        and "--url" in known
    ):
        rest = ["--url", *rest]
    taking_a_value = {flag for flag, action in known.items() if action.nargs is None}
    joined: list[str] = []
    n = 0
    while n < len(rest):
        given = rest[n]
        after = rest[n + 1] if n + 1 < len(rest) else ""
        if (
            given in taking_a_value
            and len(after) > 1
            and after.startswith("-")
            and not _a_flag(after, known)
        ):
            joined.append(f"{given}={after}")
            n += 2
            continue
        joined.append(given)
        n += 1
    return head + joined


def _a_flag(given: str, known: Mapping[str, argparse.Action]) -> bool:
    """Whether ``given`` is one of the command's flags, or a prefix argparse would take for one."""
    name = given.partition("=")[0]
    return name in known or (name.startswith("--") and any(flag.startswith(name) for flag in known))


def _unknown_flags(
    parser: argparse.ArgumentParser, args: argparse.Namespace, unknown: list[str]
) -> int:
    """Flags the command does not take, each with the closest one it does take (``--uri``:
    ``--url``)."""
    import difflib  # only a mistake pays for it

    command = _subparser(parser, args.command)
    if args.command == "call" and command is not None:
        command = _subparser(command, args._tool) or command
    known = sorted(command._option_string_actions) if command is not None else []
    prog = command.prog if command is not None else parser.prog
    for flag in (given.split("=")[0] for given in unknown if given.startswith("-")):
        closest = difflib.get_close_matches(flag, known, n=1)
        print(
            f"{prog}: unknown flag {flag}" + (f" (did you mean {closest[0]}?)" if closest else ""),
            file=sys.stderr,
        )
    if not any(given.startswith("-") for given in unknown):
        print(f"{prog}: unexpected arguments: {' '.join(unknown)}", file=sys.stderr)
    print(f"{prog} --help lists what it takes", file=sys.stderr)
    return 2


def _unknown_name(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """A command, or a tool after `call`, that does not exist, with the closest that does; argparse
    would list every choice (39 tools) or, for a flag before any command, ask for the command."""
    commands = _choices(parser)
    given, known, prog = (argv[0], commands, parser.prog) if argv else ("", [], "")
    if argv[:1] == ["call"] and len(argv) > 1 and (call := _subparser(parser, "call")) is not None:
        given, known, prog = argv[1], _choices(call), call.prog
    if not given or given in known or given in {"-h", "--help", "--version"}:
        return None
    import difflib  # only a mistake pays for it

    if given.startswith("-") and prog != parser.prog:
        return (
            f"{prog}: the tool comes first: netglean call TOOL {given} … ({prog} --help lists "
            "the tools)"
        )
    what = "flag" if given.startswith("-") else ("tool" if prog != parser.prog else "command")
    closest = difflib.get_close_matches(given, known, n=1)
    hint = f"did you mean {closest[0]}? " if closest and what != "flag" else ""
    return (
        f"{prog}: no {what} {given} ({hint}{prog} --help lists the "
        f"{'tools' if what == 'tool' else 'commands'})"
    )


def _choices(parser: argparse.ArgumentParser) -> list[str]:
    actions = (
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    return [name for action in actions for name in action.choices]


def _subparser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser | None:
    """The subcommand ``name`` of ``parser`` (argparse keeps them in its subparsers action's
    choices)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            found: argparse.ArgumentParser = action.choices[name]
            return found
    return None

"""`netglean project list|show|run|export|import`: the store's projects from a shell, through the
tools an agent calls (list_projects, get_project, list_datasets, run_project, save_project), so the
command line and MCP cannot disagree about what a project is or what makes one valid.

A project file is YAML holding save_project's own arguments (``project_id``, ``name``, ``kind``,
``variables``, ``definition``, and whatever a kind adds, such as ``schedule``): the file imports as
exported, each problem's path is a path in the file, and projects can live in git. The feed's secret
is never written.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

    from netglean.calls.runner import ToolRunner

PROJECT_ID = re.compile(r"[0-9a-f]{32}")
EXPORTED = ("project_id", "name", "kind", "schedule", "variables", "definition")
"""What a project file holds, in this order (``schedule`` when the project has one): save_project's
arguments, so a file imports as it was exported. Never the feed's secret."""
PER_PAGE = 200
"""list_projects' largest page."""
CANDIDATES = 5
"""Most names an unknown project's error suggests."""


class _Stop(Exception):
    """Ends a project command: the lines it writes to stderr, and its exit status. Never leaves this
    module."""

    def __init__(self, *lines: str, status: int = 1) -> None:
        super().__init__(*lines)
        self.lines = lines
        self.status = status


@functools.cache
def _loader() -> type[yaml.SafeLoader]:
    """safe_load's, but a date stays the text it was written as: a project's values are JSON, and
    JSON has no dates. (YAML is loaded on first use: a `netglean call` reads none.)"""
    import yaml

    class AsWritten(yaml.SafeLoader):
        pass

    def as_written(loader: yaml.SafeLoader, node: yaml.Node) -> str:
        return str(node.value)

    AsWritten.add_constructor("tag:yaml.org,2002:timestamp", as_written)
    return AsWritten


def _variable(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return name, value


def add_commands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The project subcommands under ``parser``; returned for the caller to add its operator
    settings to each."""
    commands = parser.add_subparsers(dest="project_command", required=True, metavar="COMMAND")
    named: dict[str, Any] = {"metavar": "PROJECT", "help": "the project's id or exact name"}

    listing = commands.add_parser("list", help="a table of the store's projects")
    listing.add_argument(
        "--filter", help='as list_projects\' filter: name ~ "shop" && kind = "extract"'
    )
    listing.add_argument(
        "--sort", help="as list_projects' sort: fields, -field descending (default -updated)"
    )

    show = commands.add_parser(
        "show", help="a project's definition, variables and the rows each dataset holds"
    )
    show.add_argument("project", **named)

    run = commands.add_parser(
        "run", help="run a project and print what it read (exit 1 when the run failed)"
    )
    run.add_argument("project", **named)
    run.add_argument(
        "--var",
        dest="variables",
        metavar="NAME=VALUE",
        type=_variable,
        action="append",
        default=[],
        help="a variable over the project's default; a name given twice gets both values (a URL "
        "each)",
    )

    export = commands.add_parser("export", help="write a project as YAML (to stdout, or -o FILE)")
    export.add_argument("project", nargs="?", **named)
    export.add_argument(
        "--all", action="store_true", help="every project, a file each in -o DIR, named after it"
    )
    export.add_argument(
        "-o", "--output", type=Path, metavar="PATH", help="the file (with --all, the folder)"
    )

    imports = commands.add_parser(
        "import",
        help="save projects from YAML files (or folders of them): all are checked before any is "
        "saved",
    )
    imports.add_argument(
        "files", nargs="+", type=Path, metavar="PATH", help="a project file, or a folder of them"
    )
    return [listing, show, run, export, imports]


def run_command(args: argparse.Namespace, runner: ToolRunner) -> int:
    """Run the project subcommand ``args`` names on ``runner``; its exit status (an error is a line
    on stderr)."""
    import anyio

    command = _COMMANDS[args.project_command]

    async def once() -> int:
        try:
            return await command(args, runner)
        finally:
            await runner.services.aclose()

    try:
        return anyio.run(once)
    except _Stop as stop:
        for line in stop.lines:
            print(f"netglean project {args.project_command}: {line}", file=sys.stderr)
        return stop.status


async def _payload(runner: ToolRunner, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The payload of a call of ``tool``; a failure ends the command with its error."""
    envelope, _ = await runner.call(tool, arguments)
    if not envelope.ok:
        raise _Stop(_said(envelope.payload["error"]))
    return envelope.payload


def _said(error: dict[str, Any]) -> str:
    return f"{error['message']} ({error['code']})"


async def _projects(runner: ToolRunner, **listing: str) -> list[dict[str, Any]]:
    """Every project list_projects finds (its filter and sort in ``listing``), page after page."""
    found: list[dict[str, Any]] = []
    page = 1
    while True:
        payload = await _payload(
            runner, "list_projects", {**listing, "page": page, "per_page": PER_PAGE}
        )
        found += payload["projects"]
        if not payload["has_more"]:
            return found
        page += 1


def _quoted(text: str) -> str:
    """``text`` as a string of the filter language."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


async def _project_named(runner: ToolRunner, name: str) -> dict[str, Any] | None:
    """The project of this exact name (names are unique in a store), if any."""
    payload = await _payload(
        runner, "list_projects", {"filter": f"name = {_quoted(name)}", "per_page": 1}
    )
    return payload["projects"][0] if payload["projects"] else None


async def project_id_of(runner: ToolRunner, wanted: str) -> tuple[str | None, str]:
    """The id of the project ``wanted`` names (its id or its exact name), or None and why not: a
    tool's --project-id takes a name, as the project commands do."""
    try:
        return (await _resolve(runner, wanted))["project_id"], ""
    except _Stop as stop:
        return None, " ".join(stop.lines)


async def _resolve(runner: ToolRunner, wanted: str) -> dict[str, Any]:
    """The project ``wanted`` names, by its id or its exact name (get_project's view of it)."""
    by_name = await _project_named(runner, wanted)
    if PROJECT_ID.fullmatch(wanted):
        envelope, _ = await runner.call("get_project", {"project_id": wanted})
        if envelope.ok:
            by_id: dict[str, Any] = envelope.payload["project"]
            if by_name is not None and by_name["project_id"] != wanted:
                twin = by_name["project_id"]
                raise _Stop(
                    f"{wanted!r} is ambiguous: the id of {by_id['name']!r}, and the name of "
                    f"project {twin} (give {twin} for that one; rename it to reach the other)"
                )
            return by_id
        if envelope.payload["error"]["code"] != "not_found":
            raise _Stop(_said(envelope.payload["error"]))
    if by_name is not None:
        return by_name
    names = [project["name"] for project in await _projects(runner, sort="name")]
    if not names:
        raise _Stop(f"no project {wanted!r}: the store holds none")
    import difflib

    near = [name for name in names if wanted.casefold() in name.casefold()]
    near += difflib.get_close_matches(wanted, names, n=CANDIDATES)
    suggested = list(dict.fromkeys(near))[:CANDIDATES]
    hint = (
        f"did you mean {', '.join(map(repr, suggested))}?"
        if suggested
        else "netglean project list names them"
    )
    raise _Stop(f"no project has the id or name {wanted!r}; {hint}")


def _sort_keys(value: Any) -> Any:
    """``value`` with every mapping's keys in order, at every depth: one project always writes the
    same file."""
    if isinstance(value, dict):
        return {key: _sort_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sort_keys(item) for item in value]
    return value


def _document(project: dict[str, Any]) -> dict[str, Any]:
    """A project (as get_project shows it) as its file holds it: save_project's arguments."""
    return {key: _sort_keys(project[key]) for key in EXPORTED if project.get(key) is not None}


def _yaml(document: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, default_flow_style=False)


def _when(iso: str) -> str:
    """An ISO 8601 time of the tools (UTC, milliseconds) to the second, for a table."""
    return iso[:19].replace("T", " ")


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    """Rows under a header, columns padded; a cell is one line (an old store's name may hold a line
    break)."""
    rows = [tuple(" ".join(cell.split()) for cell in row) for row in rows]
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    lines = (
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in [header, *rows]
    )
    return "\n".join(line.rstrip() for line in lines)


async def _list(args: argparse.Namespace, runner: ToolRunner) -> int:
    listing = {
        key: value for key in ("filter", "sort") if (value := getattr(args, key)) is not None
    }
    projects = await _projects(runner, **listing)
    rows = [(p["project_id"], p["name"], p["kind"], _when(p["updated"])) for p in projects]
    print(_table(("ID", "NAME", "KIND", "UPDATED (UTC)"), rows))
    return 0


async def _show(args: argparse.Namespace, runner: ToolRunner) -> int:
    project = await _resolve(runner, args.project)
    datasets = await _payload(runner, "list_datasets", {"project_id": project["project_id"]})
    document = _document(project)
    shown = {
        **{key: document.pop(key) for key in ("project_id", "name", "kind")},
        "created": project["created"],
        "updated": project["updated"],
        **document,
        "rows": {dataset["name"]: dataset["rows"] for dataset in datasets["datasets"]},
    }
    if "feed_urls" in project:  # where netglean serve serves it: what a feed reader subscribes to
        shown["feed_urls"] = project["feed_urls"]
    print(_yaml(shown), end="")
    return 0


async def _run(args: argparse.Namespace, runner: ToolRunner) -> int:
    project = await _resolve(runner, args.project)
    arguments: dict[str, Any] = {"project_id": project["project_id"]}
    if args.variables:
        given: dict[str, list[str]] = {}
        for name, value in args.variables:
            given.setdefault(name, []).append(value)
        arguments["variables"] = {
            name: values[0] if len(values) == 1 else values for name, values in given.items()
        }
    runs = runner.services.runs
    async with runs.hosting():
        envelope, _ = await runner.call("run_project", arguments)
        # the call's deadline came first: the run goes on till it ends
        if envelope.ok and "run" in envelope.payload:
            envelope, _ = await runner.run_response_for(
                await runs.wait(envelope.payload["run"]["run_id"], math.inf)
            )
    if not envelope.ok:
        raise _Stop(_said(envelope.payload["error"]))
    outcome = envelope.payload
    if "run" in outcome:
        run = outcome["run"]
        why = f": {run['error']['message']}" if run.get("error") else ""
        raise _Stop(
            f"the run {run['run_id']} ended {run['status']} without a result{why}"
            f" (netglean call resume_run --run-id {run['run_id']} continues it)"
        )
    print(
        f"{project['name']}: read {outcome['pages_read']} page(s), {outcome['pages_failed']} failed"
    )
    for name, counts in outcome["datasets"].items():
        print(
            f"  {name}: {counts['new']} new, {counts['updated']} updated, {counts['unchanged']} "
            "unchanged"
        )
    for failure in outcome["failures"]:
        print(
            f"  failed {failure['url']}: {failure['error']['code']}: {failure['error']['message']}"
        )
    if outcome["pages_failed"] > len(outcome["failures"]):
        print(f"  and {outcome['pages_failed'] - len(outcome['failures'])} more failed page(s)")
    return 0


def _file_names(projects: list[dict[str, Any]]) -> list[str]:
    """A file name for each project: its name made safe for any filesystem, with the id added where
    two names would make the same file (on a filesystem blind to case too), or one makes none."""
    slugs = [re.sub(r"[^\w.-]+", "-", project["name"]).strip("-.")[:100] for project in projects]
    taken = Counter(slug.casefold() for slug in slugs)
    return [
        f"{slug}.yaml"
        if slug and taken[slug.casefold()] == 1
        else f"{slug}-{project['project_id']}.yaml".lstrip("-")
        for project, slug in zip(projects, slugs, strict=True)
    ]


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _Stop(f"cannot write {path}: {exc.strerror or exc}") from None


async def _export(args: argparse.Namespace, runner: ToolRunner) -> int:
    # one, or --all to a folder
    if args.all == (args.project is not None) or (args.all and args.output is None):
        raise _Stop("name one PROJECT, or give --all with -o DIR", status=2)
    if not args.all:
        text = _yaml(_document(await _resolve(runner, args.project)))
        if args.output is None:
            print(text, end="")
        else:
            _write(args.output, text)
        return 0
    projects = await _projects(runner, sort="name")
    try:
        args.output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _Stop(f"cannot make the folder {args.output}: {exc.strerror or exc}") from None
    for project, name in zip(projects, _file_names(projects), strict=True):
        path = args.output / name
        _write(path, _yaml(_document(project)))
        print(path)
    return 0


def _files(paths: list[Path]) -> list[Path]:
    """The files ``paths`` name: each file, and each folder's .yaml and .yml files in name order."""
    files: list[Path] = []
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        inside = sorted(p for p in path.iterdir() if p.suffix in {".yaml", ".yml"} and p.is_file())
        if not inside:
            raise _Stop(f"{path}: the folder holds no .yaml or .yml file")
        files += inside
    return files


def _read(path: Path) -> dict[str, Any]:
    """The save_project arguments a project file holds."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _Stop(f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    import yaml

    try:
        document = yaml.load(text, Loader=_loader())  # a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise _Stop(f"{path}: not YAML{at}: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(document, dict):
        raise _Stop(
            f"{path}: not a project: a project file is a mapping (project_id, name, kind, "
            "definition, …)"
        )
    try:
        return dict(json.loads(json.dumps(document, allow_nan=False)))
    except (TypeError, ValueError) as exc:
        raise _Stop(f"{path}: holds a value JSON cannot: {exc}") from None


def _refusal(path: Path, error: dict[str, Any]) -> list[str]:
    """save_project's error for a file, a line per problem, each with its path in the file."""
    problems = (error.get("detail") or {}).get("errors")
    if not problems:
        return [f"{path}: {_said(error)}"]
    return [
        f"{path}: {p.get('pointer') or '/' + p.get('argument', '')}: {p['problem']}"
        for p in problems
    ]


async def _check_documents(
    runner: ToolRunner, documents: list[tuple[Path, dict[str, Any]]]
) -> list[str]:
    """Every problem saving ``documents`` would meet, none saved: each is saved by save_project
    itself into a scratch store (its whole validation, whatever the kind, and names unique among the
    files), then its name is looked for in the real store (held by another project, it would stop
    the import halfway)."""
    from netglean.app import build_runner

    problems: list[str] = []
    held: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="netglean-import-") as scratch:
        # SQLite
        scratch_settings = dataclasses.replace(runner.settings, data_dir=scratch, store="")
        trial = build_runner(runner.registry, scratch_settings)
        try:
            for path, document in documents:
                project_id = document.get("project_id")
                if isinstance(project_id, str):
                    if project_id in held:
                        problems.append(
                            f"{path}: /project_id: {held[project_id]} holds the project of this "
                            "id too"
                        )
                        continue
                    held[project_id] = path
                envelope, _ = await trial.call("save_project", document)
                if not envelope.ok:
                    problems += _refusal(path, envelope.payload["error"])
                    continue
                other = await _project_named(runner, document["name"])
                if other is not None and other["project_id"] != project_id:
                    problems.append(
                        f"{path}: /name: the store's project {other['project_id']} is named "
                        f"{document['name']!r} (give the file that project_id to update it, or "
                        "another name)"
                    )
        finally:
            await trial.services.aclose()
    return problems


async def _import(args: argparse.Namespace, runner: ToolRunner) -> int:
    problems: list[str] = []
    documents: list[tuple[Path, dict[str, Any]]] = []
    for path in _files(args.files):
        try:
            documents.append((path, _read(path)))
        except _Stop as stop:
            problems += stop.lines
    problems += await _check_documents(runner, documents)
    if problems:
        raise _Stop(*problems, f"nothing imported: {len(problems)} problem(s)")
    for done, (path, document) in enumerate(documents):
        envelope, _ = await runner.call("save_project", document)
        if not envelope.ok:
            raise _Stop(
                *_refusal(path, envelope.payload["error"]),
                f"imported {done} of {len(documents)} file(s)",
            )
        saved = envelope.payload["project"]
        verb = "created" if envelope.payload["created"] else "updated"
        print(f"{verb} {saved['project_id']} {saved['name']!r} from {path}")
    return 0


_COMMANDS: dict[str, Callable[[argparse.Namespace, ToolRunner], Awaitable[int]]] = {
    "list": _list,
    "show": _show,
    "run": _run,
    "export": _export,
    "import": _import,
}
